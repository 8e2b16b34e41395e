"""The synthetic dice renderer: deterministic, truthful ground truth, clear errors."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import synth
from vision.roll import FACE_SETS, KEEP, ROLLING

CLEAN = synth.Lighting(direction=(0.2, 0.3, 0.93), ambient=0.6, blur=0.0, noise=0.0, shadow=0.3)
WHITE = synth.DieStyle(body=(235, 238, 240), ink=(20, 20, 20), gloss=0.0)


def test_same_seed_same_picture_and_truth():
    a, ta = synth.render_scene(["1", "5", "6"], seed=11)
    b, tb = synth.render_scene(["1", "5", "6"], seed=11)
    c, _ = synth.render_scene(["1", "5", "6"], seed=12)
    assert np.array_equal(a, b)
    assert ta.dice == tb.dice
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("dice_set", list(FACE_SETS))
def test_truth_lists_the_asked_faces_inside_the_frame(dice_set):
    faces = list(FACE_SETS[dice_set]) + [FACE_SETS[dice_set][0]]
    image, truth = synth.render_scene(faces, dice_set, seed=3, size=(320, 240), die_px=24)
    assert image.shape == (240, 320, 3) and image.dtype == np.uint8
    assert truth.faces == faces
    for die in truth.dice:
        assert die.confidence == 1.0
        assert 0 <= die.x < 320 and 0 <= die.y < 240
        assert 18 <= die.w <= 40 and 18 <= die.h <= 40
        assert len(die.outline) == 4
        for px, py in die.outline:  # the top face lies inside the silhouette box
            assert abs(px - die.x) <= die.w / 2 + 0.5 and abs(py - die.y) <= die.h / 2 + 0.5
    assert truth.roll().dice_set == dice_set and sorted(truth.roll().faces) == sorted(faces)


def _pips_on_top(image, die) -> int:
    """Count dark blobs on the die's top face, unwarped to a square."""
    size = 60
    square = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    m = cv2.getPerspectiveTransform(np.float32(die.outline), square)
    top = cv2.cvtColor(cv2.warpPerspective(image, m, (size, size)), cv2.COLOR_BGR2GRAY)[5:-5, 5:-5]
    dark = (top < 100).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    return sum(1 for s in stats[1:] if s[cv2.CC_STAT_AREA] >= 6)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_picture_shows_the_truth_faces(seed):
    faces = ["1", "2", "3", "4", "5", "6"]
    image, truth = synth.render_scene(faces, seed=seed, die_px=50, style=WHITE, lighting=CLEAN, tilt=2,
                                      touching=0.0)
    assert [_pips_on_top(image, d) for d in truth.dice] == [1, 2, 3, 4, 5, 6]


def test_positions_are_honoured_and_dice_do_not_overlap():
    spots = [(100, 100), (200, 120), (300, 300)]
    _, truth = synth.render_scene(["2", "3", "4"], seed=5, positions=spots, die_px=30, tilt=0)
    for (x, y), die in zip(spots, truth.dice):
        top_x, top_y = np.mean(die.outline, axis=0)
        assert abs(top_x - x) < 1 and abs(top_y - y) < 1
        assert abs(die.x - x) < 10 and abs(die.y - y) < 10  # the box also holds the visible sides
    _, truth = synth.render_scene(["1"] * 12, seed=8, die_px=40, touching=0.5)
    centres = np.array([(d.x, d.y) for d in truth.dice])
    gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2) + np.eye(12) * 1e9
    assert gaps.min() > 0.9 * 40 * 0.9  # touching at most, never inside each other


def test_mat_scene_knows_where_the_mat_and_areas_are():
    image, truth = synth.render_scene(["3", "4"], seed=2, background="mat")
    assert truth.image_from_mat is not None and truth.mat_size == "A4"
    assert {d.area for d in truth.dice} == {ROLLING}
    _, kept = synth.render_scene(["3", "4"], seed=2, background="mat", area="keep")
    assert {d.area for d in kept.dice} == {KEEP}
    # The mat's top-left marker is black where the homography says it is.
    p = truth.image_from_mat @ np.array([8 + 25 * 0.1, 8 + 25 * 0.1, 1.0])
    assert image[int(p[1] / p[2]), int(p[0] / p[2])].mean() < 90


def test_hands_and_crops():
    _, truth = synth.render_scene(["1"], seed=4, hands=1)
    assert len(truth.hands) == 1
    crop = synth.render_face_crop("christmas-romance", "SNOWFLAKE", seed=1, size=48)
    assert crop.shape == (48, 48, 3)
    assert not np.array_equal(crop, synth.render_face_crop("christmas-romance", "SNOWFLAKE", seed=2, size=48))


@pytest.mark.parametrize("kwargs, message", [
    (dict(faces=["7"]), "'7' not a face of d6-pips"),
    (dict(faces=["BELL"], dice_set="nope"), "unknown dice set 'nope'"),
    (dict(faces=["1"], background="felt"), "background must be 'tray' or 'mat'"),
    (dict(faces=["1", "2"], positions=[(1, 1)]), "1 positions given for 2 faces"),
    (dict(faces=["1"] * 80, size=(160, 120), die_px=40), "cannot fit 80 dice"),
    (dict(faces=["1"], area="keep"), "no mat"),
])
def test_bad_requests_say_what_is_wrong(kwargs, message):
    with pytest.raises(ValueError, match=message):
        synth.render_scene(seed=0, **kwargs)
