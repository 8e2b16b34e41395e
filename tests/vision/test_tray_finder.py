"""The calibrated-tray die finder on rendered mat scenes (fixed seeds: nothing random at test time)."""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import synth
from vision.bench.light import lit
from vision.bench.tray_finder import empty_frames, mat_scene, match, out_of_focus
from vision.calibrate import calibrate
from vision.tray_finder import TrayFinder, with_finder

DICE_SET = "jingle-bell-roll"
SIZE = (640, 480)


def finder_for(seed: int) -> TrayFinder:
    return TrayFinder(calibrate(empty_frames(seed, count=3), name="test"))


def relit(image: np.ndarray, level: float, gradient: float = 0.0, cast=(1.0, 1.0, 1.0)) -> np.ndarray:
    h, w = image.shape[:2]
    field = level + gradient * (np.arange(w, dtype=np.float32) / w - 0.5)[None, :]
    out = image.astype(np.float32) * field[..., None] * np.array(cast, np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


SEEDS = range(12)


def test_seven_of_seven_on_rendered_mat_scenes():
    """12 fixed scenes of 7 dice, about half of them against a neighbour. Measured: all 12
    scenes exactly right (before pale dice spanning a die counted, 11: in one, pale dice on
    the pale mat, 4 of 7 were found)."""
    exact = found = total = extra = 0
    worst = 7
    for seed in SEEDS:
        image, truth = mat_scene(seed, touching=0.5)
        boxes = finder_for(seed)(image)
        hits = match(boxes, truth.dice)
        exact += hits == len(boxes) == 7
        worst = min(worst, hits)
        found, total, extra = found + hits, total + 7, extra + len(boxes) - hits
    assert exact >= 11 and worst >= 6, (exact, worst)
    assert found >= total - 1 and extra <= 1, (found, total, extra)


PALE = synth.DieStyle(body=(210, 210, 251), ink=(30, 30, 30), gloss=0.34)   # the synthetic:4 camera's set


@pytest.mark.parametrize("seed", range(6))
def test_a_pale_die_on_the_pale_mat_is_found_from_its_symbol_and_outline(seed):
    """Only the symbol and part of the outline of a pale die differ from the pale mat: its blob
    is thin (too small an area for a die) but spans one, so it counts. Before, about half of
    such dice were missed and teaching them at the camera stopped short of pictures."""
    table = synth.Table(SIZE, seed, background="mat")
    x0, y0, x1, y1 = table.mat_region("rolling")
    rng = np.random.default_rng(seed)
    finder = finder_for(seed)
    for face in ("FACE-6", "FACE-5", "SNOWFLAKE", "FACE-2"):
        x, y = x0 + (x1 - x0) * (0.3 + 0.4 * rng.random()), y0 + (y1 - y0) * (0.3 + 0.4 * rng.random())
        pose = synth.DiePose(face=face, x=x, y=y, yaw=float(rng.uniform(0, 90)), style=PALE)
        image, dice = table.draw([pose], "christmas-romance", rng)
        found = finder.find(image)
        assert len(found) == 1 and match([d.box for d in found], dice) == 1, (face, len(found))


def _row(seed: int, count: int):
    """``count`` dice in a row, each against the next (top faces one die apart)."""
    table = synth.Table(SIZE, seed, background="mat")
    x0, y0, x1, y1 = table.mat_region("rolling")
    cx, cy = (x0 + x1) / 2 - synth.DIE_MM * count / 2, (y0 + y1) / 2
    rng = np.random.default_rng(seed)
    style = synth.DieStyle(body=(40, 40, 190), ink=(240, 240, 240))
    poses = [synth.DiePose(face="BELL", x=cx + i * synth.DIE_MM * 1.01, y=cy, yaw=3.0 * i, style=style)
             for i in range(count)]
    image, dice = table.draw(poses, DICE_SET, rng)
    return image, dice


@pytest.mark.parametrize("count", [2, 3])
def test_touching_dice_are_split_into_single_dice(count):
    image, dice = _row(4, count)
    found = finder_for(4).find(image)
    assert len(found) == count
    assert match([d.box for d in found], dice) == count
    assert all(d.blob_dice == count for d in found)
    for d in found:  # each outline is a square about one die across
        outline = np.array(d.outline)
        sides = np.linalg.norm(outline - np.roll(outline, 1, axis=0), axis=1)
        assert sides.max() / sides.min() < 1.05
        assert 0.7 < sides.mean() / d.side < 1.3


@pytest.mark.parametrize("seed", [0, 3])
def test_empty_tray_and_its_markers_give_nothing(seed):
    finder = finder_for(seed)
    other = synth.Table(SIZE, seed, background="mat").draw([], DICE_SET, np.random.default_rng([seed, 7]))[0]
    assert finder(other) == []


@pytest.mark.parametrize("light", [dict(level=0.7), dict(level=1.25), dict(level=0.85, gradient=0.3),
                                   dict(level=1.0, cast=(1.06, 1.0, 0.95))])
def test_a_change_of_light_creates_no_dice(light):
    finder = finder_for(1)
    assert finder(relit(empty_frames(1, count=1)[0], **light)) == []


def test_dice_are_still_found_after_the_light_changed():
    image, truth = mat_scene(2, touching=0.25)
    boxes = finder_for(2)(relit(image, level=0.8, gradient=0.2))
    assert match(boxes, truth.dice) >= 6 and len(boxes) <= 7


@pytest.mark.parametrize("size_mm", [12.0, 20.0, 22.0])
def test_smaller_and_bigger_dice_than_the_default(size_mm):
    seed = 1
    table = synth.Table(SIZE, seed, background="mat")
    rng = np.random.default_rng(seed)
    places = table.random_positions(5, rng, touching=0.0, region=table.mat_region("rolling"))
    style = synth.DieStyle(body=(50, 150, 40), ink=(240, 240, 240))
    poses = [synth.DiePose(face="GIFT", x=x, y=y, yaw=yaw, style=style, size_mm=size_mm) for x, y, yaw in places]
    image, dice = table.draw(poses, DICE_SET, rng)
    finder = finder_for(seed)
    boxes = finder(image)
    assert match(boxes, dice) == 5 and len(boxes) == 5
    assert finder.size_ratio == pytest.approx(size_mm / 16.0, rel=0.25)


def test_a_calibration_without_the_empty_tray_is_refused():
    calibration = calibrate(empty_frames(0, count=1), name="test")
    with pytest.raises(ValueError, match="empty-tray"):
        TrayFinder(replace(calibration, background=None))
    with pytest.raises(ValueError, match="die size"):
        TrayFinder(calibration, die_mm=40)


def test_other_frame_sizes_of_the_same_camera():
    image, truth = mat_scene(3, touching=0.25)
    finder = finder_for(3)
    half = image[::2, ::2].copy()
    boxes = finder(half)
    scaled = [replace(d, x=d.x / 2, y=d.y / 2, w=d.w / 2, h=d.h / 2) for d in truth.dice]
    assert match(boxes, scaled) >= 6


def test_a_taught_reader_reads_the_dice_the_tray_finder_finds(tmp_path):
    from vision.dicesets import load_reader
    image, truth = mat_scene(1, touching=0.25)
    finder = finder_for(1)
    reader = load_reader(DICE_SET, tmp_path, find_dice=finder)
    roll = reader(image)
    assert len(roll.dice) == 7 and match([(d.x, d.y, d.w, d.h) for d in roll.dice], truth.dice) == 7


def test_on_the_tray_a_taught_reader_crops_each_box_at_its_centre(tmp_path):
    """The camera looks down at the mat: a box's extra height is the die's shadow, not a
    slanted view, so the crop is not moved to the box's upper part as it is in photos."""
    from vision.dicesets import load_reader
    reader = load_reader(DICE_SET, tmp_path)
    assert reader.top_face_shift is None                 # photos: taught.TOP_FACE_SHIFT
    assert with_finder(reader, finder_for(1)).top_face_shift == 0.0


def test_the_pip_reader_can_use_the_tray_finder():
    from vision.reader import reader_for
    image, truth = synth.render_scene(["2", "5", "6"], "d6-pips", seed=6, size=SIZE, background="mat")
    finder = TrayFinder(calibrate(empty_frames(6, count=3), name="test"))
    original = reader_for("d6-pips")
    reader = with_finder(original, finder)
    assert reader is not original and original.find != reader.find
    found = reader.find(image)
    assert match([(f.x, f.y, f.w, f.h) for f in found], truth.dice) == 3
    # reading goes through the same finder (the reader asks it for faint finds too)
    assert sorted(d.face for d in reader(image).dice) == ["2", "5", "6"]


def test_a_tray_calibrated_in_a_dim_room_reads_its_dice():
    """The tray finder compares the frame as taken with the empty tray learnt in the same dim
    light; the pip reader's face network reads the frame brightened (pips.brightened)."""
    from vision.reader import reader_for
    dim = 0.15
    image, truth = synth.render_scene(["2", "5", "6"], "d6-pips", seed=6, size=SIZE, background="mat")
    finder = TrayFinder(calibrate([relit(m, dim) for m in empty_frames(6, count=3)], name="dim"))
    reader = with_finder(reader_for("d6-pips"), finder)
    assert sorted(d.face for d in reader(relit(image, dim)).dice) == ["2", "5", "6"]


def test_a_dim_room_with_a_noisy_camera():
    """Light at 15 % and sensor noise of 5 grey levels, calibrated in that room: the constant
    added before the log shrinks with the tray's light and a noisy frame is blurred slightly
    (before both, 22 of these 28 dice were found)."""
    found = extra = 0
    for seed in (0, 1, 2, 3):
        rng = np.random.default_rng([seed, 7])
        finder = TrayFinder(calibrate([lit(m, 0.15, 5, rng) for m in empty_frames(seed, count=3)], name="dim"))
        image, truth = mat_scene(seed, touching=0.25)
        boxes = finder(lit(image, 0.15, 5, rng))
        hits = match(boxes, truth.dice)
        found, extra = found + hits, extra + len(boxes) - hits
    assert found >= 26 and extra == 0, (found, extra)


def test_pixel_noise_sees_sensor_noise_not_a_smooth_change_of_light():
    from vision.tray_finder import pixel_noise
    rng = np.random.default_rng(0)
    region = np.full((90, 120), 255, np.uint8)
    ramp = np.tile(np.linspace(-0.5, 0.5, 120, dtype=np.float32), (90, 1))
    assert pixel_noise(ramp, region) < 0.01
    speckle = ramp + rng.normal(0, 0.05, ramp.shape).astype(np.float32)
    assert pixel_noise(speckle, region) == pytest.approx(0.05, rel=0.2)


def test_touching_dice_split_the_same_way_whatever_ran_before():
    """k-means++ draws from OpenCV's random generator; the finder seeds it, so a replayed
    frame gives the same boxes."""
    image, _ = mat_scene(4, touching=0.7)
    finder = finder_for(3)
    first = finder(image)
    for seed in range(1, 8):
        cv2.setRNGSeed(seed)
        assert finder(image) == first


def test_an_out_of_focus_camera_still_finds_the_dice():
    """Blurred by sigma 1.5 px (a lens focused too near or far) and noisy: the markers' soft
    edges tell the finder to sharpen the empty tray and each frame alike (before, pale dice on
    the pale mat lost their outline: 22 of these 28 dice were found)."""
    found = extra = 0
    for seed in (0, 1, 2, 3):
        rng = np.random.default_rng([seed, 8])
        soft = [out_of_focus(m, rng) for m in empty_frames(seed, count=3)]
        finder = TrayFinder(calibrate(soft, name="soft"))
        image, truth = mat_scene(seed, touching=0.25)
        boxes = finder(out_of_focus(image, rng))
        hits = match(boxes, truth.dice)
        found, extra = found + hits, extra + len(boxes) - hits
    assert found >= 27 and extra == 0, (found, extra)


def test_a_sharp_camera_is_not_sharpened():
    for seed in (0, 5):
        finder = finder_for(seed)
        assert not finder.out_of_focus(*SIZE), finder.calibration.edge_blur_px()


WHITE = synth.DieStyle(body=(236, 248, 255), ink=(140, 60, 20), gloss=0.72)   # the synthetic:1 camera's set


def test_two_pale_dice_touching_are_two_dice_though_their_blob_has_one_dies_area():
    """Two white dice side by side on the pale mat make a blob of little more than one die's
    area (their plain tops barely differ from the mat), but it is two dice long: it is split.
    Before, 13 of these 16 pairs were split and the others read as one die."""
    split = 0
    for seed in range(8):
        table = synth.Table(SIZE, seed, background="mat")
        x0, y0, x1, y1 = table.mat_region("rolling")
        rng = np.random.default_rng(seed)
        for faces in (["BELL", "GIFT"], ["MILK", "LIST"]):
            yaw = float(rng.uniform(0, 30))
            poses = [synth.DiePose(face=face, x=(x0 + x1) / 2 + i * synth.DIE_MM * 1.01,
                                   y=(y0 + y1) / 2 + 20 * len(faces[0]), yaw=yaw, style=WHITE)
                     for i, face in enumerate(faces)]
            image, dice = table.draw(poses, DICE_SET, rng)
            found = finder_for(seed).find(image)
            split += len(found) == 2 and match([d.box for d in found], dice) == 2
    assert split == 16


def test_two_pale_dice_one_above_the_other_are_two_dice_though_their_squares_cover_them_badly():
    """Two white christmas-romance dice touching one above the other (as in the synthetic:1
    camera's self-check roll): their blob is mostly symbols and the dice' sides, too thin for
    each of two dice' squares to be well covered (``MIN_COVER``), but it is two dice long and
    each half spans a die (``dice_side_by_side``). Before, 22 of these 24 pairs were split."""
    split = 0
    for seed in range(8):
        finder = finder_for(seed)
        table = synth.Table(SIZE, seed, background="mat")
        x0, y0, x1, y1 = table.mat_region("rolling")
        rng = np.random.default_rng(seed)
        for faces in (["FACE-6", "FACE-2"], ["SNOWFLAKE", "FACE-5"], ["FACE-3", "FACE-4"]):
            yaw = float(rng.uniform(0, 30))
            step = synth.DIE_MM * 1.01
            dx, dy = -step * np.sin(np.radians(yaw)), step * np.cos(np.radians(yaw))
            poses = [synth.DiePose(face=face, x=(x0 + x1) / 2 + i * dx, y=(y0 + y1) / 2 - 20 + i * dy,
                                   yaw=yaw, style=WHITE) for i, face in enumerate(faces)]
            image, dice = table.draw(poses, "christmas-romance", rng)
            found = finder.find(image)
            split += len(found) == 2 and match([d.box for d in found], dice) == 2
    assert split == 24, split


def test_three_white_dice_side_by_side_are_three_dice():
    """Three white dice touching in a row or an L (as in Jingle Bell Roll's keep area) leave a
    blob too thin to cover three dice' squares well, but its shape holds three dice and each
    part spans one (``dice_side_by_side``); their shared sides make their silhouettes' squares
    overlap, so only their top faces count against them. Before, 11 of these 16 groups were
    found as three dice (the others as two); now 13 (in the rest a die's blob is mostly its
    bright outline, and k-means cuts it unevenly)."""
    found_three = 0
    for seed in range(8):
        finder = finder_for(seed)
        for cells in ([(0, 0), (1, 0), (2, 0)], [(0, 0), (1, 0), (1, 1)]):
            table = synth.Table(SIZE, seed, background="mat")
            x0, y0, x1, y1 = table.mat_region("rolling")
            rng = np.random.default_rng(seed)
            yaw = float(rng.uniform(0, 30))
            step = synth.DIE_MM * 1.01
            along = step * np.array([np.cos(np.radians(yaw)), np.sin(np.radians(yaw))])
            across = step * np.array([-np.sin(np.radians(yaw)), np.cos(np.radians(yaw))])
            start = np.array([(x0 + x1) / 2 - step, (y0 + y1) / 2 - 20])
            poses = [synth.DiePose(face=face, x=float(at[0]), y=float(at[1]), yaw=yaw, style=WHITE)
                     for face, at in zip(["BELL", "GIFT", "MILK"], (start + i * along + j * across for i, j in cells))]
            image, dice = table.draw(poses, DICE_SET, rng)
            found = finder.find(image)
            found_three += len(found) == 3 and match([d.box for d in found], dice) == 3
    assert found_three >= 13, found_three
