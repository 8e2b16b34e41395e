"""Tray calibration: markers on a rendered mat under perspective give back the homography."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision import mat, synth
from vision.calibrate import (Calibration, CalibrationError, annotate_roll, calibrate, camera_slant_deg, find_markers,
                              view_advice)
from vision.roll import KEEP, ROLLING, Roll

GRID = np.array([[u, v] for u in np.linspace(10, 287, 7) for v in np.linspace(10, 200, 5)])


def _mat_scene(seed, **kwargs):
    options = dict(background="mat", camera_tilt=15, size=(640, 480))
    options.update(kwargs)
    return synth.render_scene(["2", "5"], seed=seed, **options)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_homography_recovered_under_perspective(seed):
    image, truth = _mat_scene(seed)
    calibration = calibrate([image] * 3)
    assert calibration.paper == "A4" and calibration.frame_size == (640, 480)
    in_image = cv2.perspectiveTransform(GRID[None], truth.image_from_mat)[0]
    back = cv2.perspectiveTransform(in_image[None], calibration.image_to_mat)[0]
    assert np.abs(back - GRID).max() < 1.0  # millimetres, anywhere on the page
    assert calibration.mm_per_pixel == pytest.approx(synth.DIE_MM / truth.die_px, rel=0.05)
    assert calibration.reprojection_px < 1.0
    # Areas agree with where the renderer put the dice.
    assert [calibration.area_of(d.x, d.y) for d in truth.dice] == [d.area for d in truth.dice]


def _true_slant(table) -> float:
    """The rendered camera's angle from straight down: its optical axis against the table's normal."""
    return float(np.degrees(np.arccos(abs(table.camera.rotation[2, 2]))))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tilt", [0, 8, 25, 35])
def test_the_camera_slant_comes_from_the_homography_alone(seed, tilt):
    """The rendered cameras' principal points lie up to 3 % off the frame's centre, which the
    estimate takes as the principal point: within 2 degrees of the truth."""
    table = synth.Table((1280, 720), seed, background="mat", tilt_deg=tilt)
    assert camera_slant_deg(table.image_from_mat, table.size) == pytest.approx(_true_slant(table), abs=2.0)


@pytest.mark.parametrize("seed", [1, 2])
def test_calibrating_a_slanted_camera_says_so_and_a_straight_one_not(seed):
    slanted = synth.Table((1280, 720), seed, background="mat", tilt_deg=25)
    calibration = calibrate([slanted.draw([], "d6-pips", np.random.default_rng(0))[0]] * 2)
    assert calibration.slant_deg() == pytest.approx(_true_slant(slanted), abs=2.0)
    assert _true_slant(slanted) > 25 and any("degrees from straight down" in a for a in view_advice(calibration))
    straight = synth.Table((1280, 720), seed, background="mat", tilt_deg=4)
    calibration = calibrate([straight.draw([], "d6-pips", np.random.default_rng(0))[0]] * 2)
    assert calibration.slant_deg() < 8 and view_advice(calibration) == []


def test_dice_too_small_in_the_picture_are_advised_against():
    """A camera far up: 1.2 mm per pixel, so a 16 mm die is about 13 px across."""
    far = Calibration(name="far", paper="A4", frame_size=(640, 480), image_to_mat=np.diag([1.2, 1.2, 1.0]))
    smallest, largest = far.die_px_range()
    assert smallest == pytest.approx(16 / 1.2) and largest == pytest.approx(16 / 1.2)
    assert far.slant_deg() == pytest.approx(0.0, abs=1e-6)
    (advice,) = view_advice(far)
    assert "only 13 px across" in advice and "bring the camera closer" in advice
    assert view_advice(Calibration(name="near", paper="A4", frame_size=(640, 480),
                                   image_to_mat=np.diag([0.5, 0.5, 1.0]))) == []


def test_top_down_view_puts_the_markers_where_the_page_has_them():
    image, truth = _mat_scene(5, size=(800, 600))
    calibration = calibrate([image])
    k = 2.0
    top = calibration.warp(image, px_per_mm=k)
    layout = mat.layout("A4")
    assert top.shape[:2] == (round(layout.height * k), round(layout.width * k))
    found = find_markers(top)
    for mid, corners in layout.marker_corners().items():
        assert np.abs(found[mid] - corners * k).max() < 3.0


def test_background_is_the_median_of_frames():
    image, _ = synth.render_scene([], seed=4, background="mat")
    noisy = [np.clip(image.astype(int) + v, 0, 255).astype(np.uint8) for v in (-30, 0, 30)]
    calibration = calibrate(noisy, background_frames=3)
    assert np.array_equal(calibration.background, image)


def test_save_load_round_trip(tmp_path):
    image, truth = _mat_scene(6)
    calibration = calibrate([image] * 2, name="kitchen")
    path = calibration.save(tmp_path / "kitchen.json")
    [background] = tmp_path.glob("kitchen-background-*.png")
    assert json.loads(path.read_text())["background"] == background.name
    loaded = Calibration.load(path)
    assert loaded.name == "kitchen" and loaded.paper == "A4" and loaded.frame_size == (640, 480)
    assert np.allclose(loaded.image_to_mat, calibration.image_to_mat)
    assert np.array_equal(loaded.background, calibration.background)


@pytest.mark.parametrize("cut", ["background", "json"])
def test_calibrating_again_and_crashing_half_way_keeps_the_old_calibration(tmp_path, monkeypatch, cut):
    """The power fails while the new background image, or the new JSON, is half written."""
    from pathlib import Path

    import vision.calibrate as calibrate_module
    folder = tmp_path / "calibration"
    old = calibrate([_mat_scene(6)[0]] * 2, name="kitchen")
    path = old.save(folder / "kitchen.json")
    new = calibrate([_mat_scene(7, camera_tilt=25)[0]] * 2, name="kitchen")
    real_write_bytes, real_write_text = Path.write_bytes, Path.write_text

    def torn_write_bytes(self, data, *args, **kwargs):
        real_write_bytes(self, data[:200], *args, **kwargs)   # cut short ...
        raise KeyboardInterrupt("power cut")                  # ... by the power failing

    def torn_write_text(self, text, *args, **kwargs):
        real_write_text(self, text[:20], *args, **kwargs)
        raise KeyboardInterrupt("power cut")

    with monkeypatch.context() as power:
        if cut == "background":
            power.setattr(Path, "write_bytes", torn_write_bytes)
        else:
            power.setattr(Path, "write_text", torn_write_text)
        with pytest.raises(KeyboardInterrupt):
            new.save(path)
    loaded = Calibration.load(path)
    assert np.allclose(loaded.image_to_mat, old.image_to_mat)
    assert np.array_equal(loaded.background, old.background)
    assert new.save(path) == path and np.allclose(Calibration.load(path).image_to_mat, new.image_to_mat)
    assert sorted(p.name for p in folder.iterdir()) == [json.loads(path.read_text())["background"], "kitchen.json"]


def test_a_power_cut_between_the_two_renames_keeps_the_old_background_with_the_old_json(tmp_path, monkeypatch):
    """The new background is in place, the new JSON is not yet: the old JSON must still find
    its own background, not the new one (a background of another camera pose would make the
    settle gate and the die finder compare every frame with the wrong empty tray)."""
    from pathlib import Path
    folder = tmp_path / "calibration"
    old = calibrate([_mat_scene(6)[0]] * 2, name="kitchen")
    path = old.save(folder / "kitchen.json")
    new = calibrate([_mat_scene(7, camera_tilt=25)[0]] * 2, name="kitchen")
    real_replace = Path.replace

    def cut_before_the_json(self, target):
        if Path(target).suffix == ".json":
            raise KeyboardInterrupt("power cut")
        return real_replace(self, target)

    with monkeypatch.context() as power:
        power.setattr(Path, "replace", cut_before_the_json)
        with pytest.raises(KeyboardInterrupt):
            new.save(path)
    loaded = Calibration.load(path)
    assert np.allclose(loaded.image_to_mat, old.image_to_mat)
    assert np.array_equal(loaded.background, old.background)
    new.save(path)                               # calibrated again: the stray backgrounds go
    assert len(list(folder.glob("kitchen-background*.png"))) == 1
    assert np.array_equal(Calibration.load(path).background, new.background)


def test_saving_leaves_other_calibrations_and_reads_an_older_save(tmp_path):
    """Only this calibration's old backgrounds are removed, never those of a calibration whose
    name starts the same; a calibration saved before backgrounds carried a hash still loads."""
    image = _mat_scene(6)[0]
    other = calibrate([image] * 2, name="kitchen-background-x").save(tmp_path / "kitchen-background-x.json")
    legacy = tmp_path / "kitchen-background.png"
    cv2.imwrite(str(legacy), calibrate([image] * 2).background)
    data = calibrate([image] * 2, name="kitchen").to_json("kitchen-background.png")
    (tmp_path / "kitchen.json").write_text(json.dumps(data))
    assert Calibration.load(tmp_path / "kitchen.json").background is not None
    calibrate([image] * 2, name="kitchen").save(tmp_path / "kitchen.json")
    assert not legacy.exists()
    assert Calibration.load(other).background is not None


def test_a_saved_calibration_is_flushed_to_the_disk_before_it_replaces_the_old_one(tmp_path, monkeypatch):
    import os

    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync",
                        lambda fd: events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"))) or real_fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: events.append(("replace", str(a))) or real_replace(a, b))
    calibrate([_mat_scene(6)[0]] * 2, name="kitchen").save(tmp_path / "kitchen.json")
    replaced = [p for kind, p in events if kind == "replace"]
    assert len(replaced) == 2
    for name in replaced:
        assert events.index(("fsync", name)) < events.index(("replace", name))
    assert events[-1] == ("fsync", str(tmp_path))  # and the folder's new entries


def test_rolls_get_their_area_and_other_resolutions_scale():
    image, truth = _mat_scene(7)
    _, kept = synth.render_scene(["6"], seed=7, background="mat", camera_tilt=15, area="keep")
    calibration = calibrate([image])
    roll = Roll(dice=truth.dice + kept.dice, frame_size=(640, 480), notes=("uncalibrated",))
    annotated = annotate_roll(roll, calibration)
    assert [d.area for d in annotated.dice] == [ROLLING, ROLLING, KEEP]
    assert annotated.notes == ("calibrated:default",)
    half = Roll(dice=tuple(synth.Die(d.face, 1.0, d.x / 2, d.y / 2, d.w / 2, d.h / 2) for d in roll.dice),
                frame_size=(320, 240))
    assert [d.area for d in annotate_roll(half, calibration).dice] == [ROLLING, ROLLING, KEEP]
    with pytest.raises(CalibrationError, match="made for 640x480 frames; this picture is 300x300"):
        annotate_roll(Roll(dice=roll.dice, frame_size=(300, 300)), calibration)


def _cover_marker(image, truth, marker_id):
    layout = mat.layout("A4")
    corners = layout.marker_corners()[marker_id]
    centre = corners.mean(axis=0)
    grown = centre + (corners - centre) * 1.3
    pixels = cv2.perspectiveTransform(grown[None], truth.image_from_mat)[0]
    covered = image.copy()
    cv2.fillConvexPoly(covered, pixels.astype(np.int32), (255, 255, 255))
    return covered


def test_bad_frames_say_what_is_wrong():
    blank = np.full((480, 640, 3), 200, np.uint8)
    with pytest.raises(CalibrationError, match="no ArUco markers found"):
        calibrate([blank] * 3)
    image, truth = _mat_scene(8)
    with pytest.raises(CalibrationError, match=r"found only 3 of the 4 corner markers of the A4 mat; "
                                               r"missing: bottom-right \(id 2\)"):
        calibrate([_cover_marker(image, truth, 2)])
    two = _cover_marker(_cover_marker(image, truth, 0), truth, 3)
    with pytest.raises(CalibrationError, match=r"only 2 of the 4.*top-left \(id 0\), bottom-left \(id 3\)"):
        calibrate([two])
    foreign = np.full((480, 640), 255, np.uint8)
    foreign[100:200, 100:200] = cv2.aruco.generateImageMarker(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), 30, 100)
    with pytest.raises(CalibrationError, match="found ArUco markers 30, but none of a dicewatch mat"):
        calibrate([cv2.cvtColor(foreign, cv2.COLOR_GRAY2BGR)])
    with pytest.raises(CalibrationError, match="no frames"):
        calibrate([])


def test_bad_files_say_what_is_wrong(tmp_path):
    with pytest.raises(CalibrationError, match="no such calibration file"):
        Calibration.load(tmp_path / "none.json")
    (tmp_path / "text.json").write_text("not json")
    with pytest.raises(CalibrationError, match="not a calibration file"):
        Calibration.load(tmp_path / "text.json")
    (tmp_path / "old.json").write_text(json.dumps({"schema": 99}))
    with pytest.raises(CalibrationError, match='expected a calibration with "schema": 1'):
        Calibration.load(tmp_path / "old.json")
    (tmp_path / "half.json").write_text(json.dumps({"schema": 1, "mat": "A4", "frame_size": [1, 2],
                                                    "image_to_mat": [[1, 0], [0, 1]]}))
    with pytest.raises(CalibrationError, match="broken calibration"):
        Calibration.load(tmp_path / "half.json")
    image, _ = _mat_scene(9)
    calibrate([image]).save(tmp_path / "lost.json")
    next(tmp_path.glob("lost-background-*.png")).unlink()
    with pytest.raises(CalibrationError, match="background image is missing"):
        Calibration.load(tmp_path / "lost.json")


def test_small_pictures_are_looked_at_twice_the_size():
    image, truth = _mat_scene(10, size=(800, 600))
    small = cv2.resize(image, (320, 240), interpolation=cv2.INTER_AREA)
    full, reduced = find_markers(image), find_markers(small)
    assert sorted(reduced) == [0, 1, 2, 3]
    for mid in full:  # same corners, in the small picture's pixels
        assert np.abs((full[mid] + 0.5) * 0.4 - 0.5 - reduced[mid]).max() < 1.0


@pytest.mark.parametrize("size, sigma", [((640, 480), 2.5), ((1280, 720), 4.0)])
def test_an_out_of_focus_camera_still_finds_the_markers(size, sigma):
    """Blurred markers lose their square corners; the frame is looked at again sharpened
    (before, only three of the four markers were found in these frames)."""
    image, truth = _mat_scene(3, size=size)
    rng = np.random.default_rng(3)
    soft = np.clip(cv2.GaussianBlur(image, (0, 0), sigma) + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
    calibration = calibrate([soft] * 3)
    in_image = cv2.perspectiveTransform(GRID[None], truth.image_from_mat)[0]
    back = cv2.perspectiveTransform(in_image[None], calibration.image_to_mat)[0]
    assert np.abs(back - GRID).max() < 1.5  # millimetres
    assert calibration.edge_blur_px() > calibrate([image] * 3).edge_blur_px() + 1.0
