"""The rendered training data (vision/training/scenes.py, symbols.py) and the renderer hooks
they use: truthful boxes, six different random faces per made-up set, pip shapes that vary.
No torch needed."""
from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest

from vision import synth
from vision.training.scenes import training_scene, training_style
from vision.training.symbols import (FACES, PIP_LIKE_SHAPES, maker_variant, mark_count, not_pip_specs,
                                     symbol_set, symbol_specs)

CLEAN = synth.Lighting(direction=(0.2, 0.3, 0.93), ambient=0.6, blur=0.0, noise=0.0, shadow=0.3)


@pytest.mark.parametrize("seed", range(6))
def test_training_scenes_label_every_die_inside_the_frame(seed):
    image, dice = training_scene(seed, size=(320, 320))
    assert image.shape == (320, 320, 3) and image.dtype == np.uint8
    assert dice.shape[1] == 5 and len(dice) >= 1
    assert set(dice[:, 0].astype(int)) <= {1, 2, 3, 4, 5, 6}
    assert np.all((dice[:, 1] >= 0) & (dice[:, 1] < 320) & (dice[:, 2] >= 0) & (dice[:, 2] < 320))
    assert np.all(dice[:, 3:5] >= 4)


def test_training_scenes_are_deterministic_and_symbol_dice_have_face_zero():
    a, da = training_scene(5)
    b, db = training_scene(5)
    assert np.array_equal(a, b) and np.array_equal(da, db)
    with_symbols = [training_scene(s, size=(256, 256), symbol_share=1.0)[1] for s in range(3)]
    assert all(len(d) and np.all(d[:, 0] == 0) for d in with_symbols)


def test_block_scenes_pack_dice_face_to_face_in_rows():
    for seed in range(4):
        image, dice = training_scene(seed, size=(320, 320), block_share=1.0)
        assert len(dice) >= 2
        centres = dice[:, 1:3]
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2) + np.eye(len(dice)) * 1e9
        nearest = gaps.min(axis=1)
        # every die has a neighbour about one die width away: no loose dice, no overlaps
        assert np.all(nearest < 1.5 * np.median(dice[:, 3:5].min(axis=1)))
        assert np.all(nearest > 0.4 * np.median(dice[:, 3:5].min(axis=1)))


def test_training_styles_cover_smoky_and_varied_pips():
    styles = [training_style(np.random.default_rng(s)) for s in range(200)]
    assert any(s.opacity < 0.9 and sum(s.body) < 250 for s in styles)          # smoky
    assert min(s.pip_size for s in styles) < 0.85 < 1.25 < max(s.pip_size for s in styles)
    assert len({s.body for s in styles}) > 100


def test_pip_size_and_spread_change_only_when_asked():
    base = synth.DieStyle(body=(235, 238, 240), ink=(20, 20, 20), gloss=0.0)
    default = synth.face_texture("d6-pips", "5", base, 64)
    same = synth.face_texture("d6-pips", "5", synth.DieStyle(body=(235, 238, 240), ink=(20, 20, 20), gloss=0.0,
                                                             pip_size=1.0, pip_spread=1.0), 64)
    bigger = synth.face_texture("d6-pips", "5", synth.DieStyle(body=(235, 238, 240), ink=(20, 20, 20),
                                                               gloss=0.0, pip_size=1.3), 64)
    assert np.array_equal(default, same)
    # bigger pips: more dark ink on the face
    assert (bigger[..., :3].sum(axis=2) < default[..., :3].sum(axis=2)).sum() > 50


def test_made_up_sets_have_six_different_faces_that_render():
    name = symbol_set(123)
    assert synth.faces_of(name) == FACES
    style = synth.DieStyle(body=(235, 238, 240), ink=(20, 20, 20), gloss=0.0)
    textures = [synth.face_texture(name, f, style, 64) for f in FACES]
    inked = [int((t[..., :3].sum(axis=2) < 300).sum()) for t in textures]
    assert sum(n > 0 for n in inked) >= 5      # at most one blank face
    for i in range(6):
        for j in range(i + 1, 6):
            assert not np.array_equal(textures[i], textures[j]) or inked[i] == inked[j] == 0
    image, truth = synth.render_scene(list(FACES), name, seed=4, lighting=CLEAN)
    assert truth.faces == list(FACES) and image.shape == (480, 640, 3)


def test_made_up_sets_are_deterministic_and_varied():
    assert symbol_specs(9) == symbol_specs(9)
    kinds = {spec["kind"] for seed in range(60) for spec in symbol_specs(seed)}
    assert {"marks", "dots", "glyph", "shape", "strokes", "combo"} <= kinds


def test_not_pip_sets_draw_nothing_a_pip_die_shows():
    """The pip face reader learns these dice as "no die": no dots, discs, rings or blank faces
    (a die whose pips it should read), but numerals, letters, strokes and other shapes."""
    specs = [spec for seed in range(80) for spec in not_pip_specs(seed)]
    assert {spec["kind"] for spec in specs} == {"glyph", "strokes", "shape"}
    assert not any(spec["kind"] == "shape" and spec["shape"]["kind"] in PIP_LIKE_SHAPES for spec in specs)
    assert not_pip_specs(5) == not_pip_specs(5) and not_pip_specs(5) != not_pip_specs(6)
    assert any(spec["kind"] == "glyph" and spec["text"][0] in "123456" for spec in specs)
    name = symbol_set(5, not_pips=True)
    assert name == "not-pips-5" and synth.faces_of(name) == FACES
    _, dice = training_scene(3, size=(256, 256), symbol_share=1.0, not_pips=True)
    assert len(dice) and np.all(dice[:, 0] == 0)


def test_maker_variants_keep_each_face_but_move_and_resize_its_marks():
    """Another maker's print of a made-up set: same faces (mark counts, kinds), marks a little
    further apart or closer and bigger or smaller, and a new set name each time so the
    renderer's texture cache never hands back the original."""
    rng = np.random.default_rng(1)
    counted = [s for seed in range(40) for s in symbol_specs(seed) if s["kind"] in ("marks", "dots")]
    assert len(counted) > 20
    moved = 0
    for spec in counted:
        before = copy.deepcopy(spec)
        variant = maker_variant(spec, rng)
        assert spec == before                       # the set itself is left as it was
        assert variant["kind"] == spec["kind"]
        points = "points" if spec["kind"] == "marks" else "dots"
        assert len(variant[points]) == len(spec[points])
        assert 0.75 <= variant["r"] / spec["r"] <= 1.3
        spread = lambda pts: float(np.mean([np.hypot(x - 0.5, y - 0.5) for x, y in pts])) if pts else 0.0
        if spec[points] and abs(spread(variant[points]) - spread(spec[points])) > 0.01:
            moved += 1
        if mark_count(variant) >= 0 and mark_count(spec) >= 0:
            assert mark_count(variant) == mark_count(spec)
    assert moved > len(counted) // 2
    style = synth.DieStyle(body=(235, 238, 240), ink=(20, 20, 20), gloss=0.0)
    changed = 0
    for seed in range(12):   # every kind of symbol gets a variant that still draws
        first = symbol_set(seed)
        other = symbol_set(seed, np.random.default_rng(seed))
        assert other != first and synth.faces_of(other) == FACES
        for face in FACES:
            changed += not np.array_equal(synth.face_texture(other, face, style, 64),
                                          synth.face_texture(first, face, style, 64))
    assert changed >= 60   # of 72 faces (a blank face, or a nearly unchanged one, may look the same)


def test_a_registered_face_set_can_be_forgotten():
    name = symbol_set(424_242)
    assert synth.faces_of(name) == FACES
    synth.forget_face_set(name)
    with pytest.raises(KeyError):
        synth.faces_of(name)
    with pytest.raises(ValueError, match="not a registered face set"):
        synth.forget_face_set(name)


def test_register_face_set_refuses_built_in_names_and_bad_faces():
    with pytest.raises(ValueError, match="built-in"):
        synth.register_face_set("jingle-bell-roll", FACES, lambda *a: None)
    with pytest.raises(ValueError, match="six different faces"):
        synth.register_face_set("my-set", ("A", "A", "B", "C", "D", "E"), lambda *a: None)


def test_crops_of_upright_photos_stay_upright_when_the_turn_is_limited():
    """Bright above, dark below (a top face above a shaded front face): with ``turn`` 25 the
    augmented crop keeps the bright half up, with any turn it often does not."""
    from vision.training.augment import CROP, WIDE, augment
    wide = np.zeros((WIDE, WIDE, 3), np.uint8)
    wide[: WIDE // 2] = 230
    wide[WIDE // 2:] = 40

    def upright(turn, n=60):
        rng = np.random.default_rng(4)
        kept = 0
        for _ in range(n):
            crop = augment(wide, rng, CROP, turn=turn).astype(float)
            kept += crop[: CROP // 2].mean() > crop[CROP // 2:].mean()
        return kept / n

    assert upright(25) == 1.0
    assert upright(360) < 0.8


@pytest.mark.parametrize("seed", range(8))
def test_an_upright_camera_has_the_far_side_of_the_table_at_the_top(seed):
    w, h = 640, 480
    camera = synth.Table((w, h), seed, tilt_deg=45.0, upright=True).camera
    top, bottom = camera.to_table(w / 2, 0), camera.to_table(w / 2, h)
    assert camera.pixels_per_mm(*top) < camera.pixels_per_mm(*bottom)  # farther: smaller


def test_upright_changes_only_oblique_training_scenes():
    for seed in range(12):
        plain, upright = training_scene(seed), training_scene(seed, upright=True)
        assert plain[1].shape[1] == upright[1].shape[1] == 5
    # top-down scenes are the same picture either way
    same = sum(np.array_equal(training_scene(s)[0], training_scene(s, upright=True)[0]) for s in range(12))
    assert 3 <= same < 12


# ------------------------------------------------------------------ busy tables (clutter.py)

def _plain_and_busy(seed):
    return training_scene(seed, size=(320, 320)), training_scene(seed, size=(320, 320), busy_share=1.0)


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_busy_scenes_put_the_dice_on_a_printed_board(seed):
    (plain, plain_dice), (busy, dice) = _plain_and_busy(seed)
    assert len(dice) >= 1 and set(dice[:, 0].astype(int)) <= {1, 2, 3, 4, 5, 6}
    assert np.all((dice[:, 1] >= 0) & (dice[:, 1] < 320) & (dice[:, 2] >= 0) & (dice[:, 2] < 320))

    def table_edges(image, boxes):
        """Share of the table's pixels on an edge, every die's box blanked out."""
        edges = cv2.Canny(cv2.GaussianBlur(image, (0, 0), 1.5), 40, 100) > 0
        keep = np.ones(image.shape[:2], bool)
        for _, x, y, w, h in boxes:
            keep[int(max(y - h, 0)):int(y + h), int(max(x - w, 0)):int(x + w)] = False
        return float(edges[keep].mean())

    # a game board's tiles, prints and pieces against a plain tray's grain and light
    assert table_edges(busy, dice) > 3 * table_edges(plain, plain_dice)


def test_pieces_stand_where_they_are_drawn_and_dice_keep_away_from_them():
    from vision.training.clutter import draw_pieces
    table = synth.Table((320, 320), seed=3, die_px=30, tilt_deg=0.0)
    grey = np.full((320, 320, 3), 128, np.uint8)
    image = grey.copy()
    rng = np.random.default_rng(0)
    room = table.visible_region()
    taken = draw_pieces(image, table, rng, 4, room)
    assert len(taken) >= 4
    changed = np.abs(image.astype(int) - grey).sum(axis=2) > 10
    assert changed.mean() > 0.005
    # the returned centres and footprint points: a piece stands on most of them
    on_piece = [changed[int(y), int(x)] for x, y in (table.camera.project(np.array([[px, py, 0.0]]))[0]
                                                     for px, py in taken) if 0 <= x < 320 and 0 <= y < 320]
    assert np.mean(on_piece) > 0.6
    places = table.random_positions(5, np.random.default_rng(1), occupied=taken)
    assert all(np.hypot(x - px, y - py) >= synth.DIE_MM * 1.5 for x, y, _ in places for px, py in taken)


def test_number_tokens_print_dots_under_their_number():
    """A number token carries small dots like a die's pips: the finder must learn it is no die.
    Every whole token printed in 60 draws has 1-5 dots in one row under its number."""
    from vision.training.clutter import print_item
    beige = (170, 215, 235)                       # the token's card
    yy, xx = np.mgrid[0:400, 0:400]
    tokens = 0
    for seed in range(60):
        page = np.full((400, 400, 3), 90, np.uint8)
        print_item(page, 4.0, np.random.default_rng(seed))
        card = np.all(page == beige, axis=2)
        ys, xs = np.nonzero(card)
        if card.sum() < 500 or ys.min() == 0 or xs.min() == 0 or ys.max() == 399 or xs.max() == 399:
            continue                                  # no token, or one cut by the page's edge
        tokens += 1
        cy, cx, r = (ys.min() + ys.max()) / 2, (xs.min() + xs.max()) / 2, (ys.max() - ys.min()) / 2
        ink = np.abs(page.astype(int) - beige).sum(axis=2) > 150
        below = ink & (np.hypot(yy - cy, xx - cx) < 0.85 * r) & (yy > cy + 0.4 * r)
        count, _, _, centres = cv2.connectedComponentsWithStats(below.astype(np.uint8))
        dots = centres[1:]
        assert 1 <= len(dots) <= 5, f"seed {seed}: {len(dots)} marks under the number"
        assert np.all(np.abs(dots[:, 1] - (cy + 0.55 * r)) < 0.1 * r)   # one row
    assert tokens >= 3
