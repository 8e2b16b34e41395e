"""The exposure keeper: a calibrated tray's light measured against its empty-tray picture,
and the camera's exposure changed to make up for a lamp switched on or off."""
from __future__ import annotations

import numpy as np
import pytest

from vision.bench.tray_finder import empty_frames, exposure_kept, mat_scene, match, on_the_mat, relight
from vision.calibrate import calibrate
from vision.exposure import ExposureKeeper, MatLight, mat_light
from vision.tray_finder import TrayFinder


@pytest.fixture(scope="module")
def tray():
    """A calibration from rendered empty-mat frames and a scene of 7 dice on that mat."""
    seed = 41
    image, truth = mat_scene(seed)
    return calibrate(empty_frames(seed), name="test"), image, truth


def scaled(image, level):
    return np.clip(image.astype(np.float32) * level, 0, 255).astype(np.uint8)


def test_the_mats_light_is_measured_with_dice_on_it(tray):
    calibration, image, _ = tray
    assert abs(mat_light(image, calibration).level - 1.0) < 0.03   # 7 dice on the mat: no drift
    darker = mat_light(scaled(image, 0.7), calibration)
    assert abs(darker.level - 0.7) < 0.03 and darker.burnt == 0.0
    assert darker.off_by(0.12) and not mat_light(scaled(image, 0.95), calibration).off_by(0.12)
    assert abs(darker.correction - 1 / 0.7) < 0.07
    brighter = mat_light(scaled(image, 1.3), calibration)      # the pale mat burns out
    assert brighter.off_by(0.12) and brighter.burnt > 0.05 and brighter.correction < 1.0


def test_the_keeper_acts_only_on_a_drift_that_lasts_over_still_frames(tray):
    calibration, image, _ = tray
    dark = scaled(image, 0.6)
    keeper = ExposureKeeper(calibration, hold=1.0, every=0.2, wait=0.5)
    assert keeper.update(image, 0.0, still=True) is None            # as calibrated
    assert keeper.update(dark, 0.2, still=True) is None              # off, not for long yet
    assert keeper.update(dark, 0.8, still=False) is None             # a hand: starts again
    assert keeper.update(dark, 1.0, still=True) is None
    assert keeper.update(dark, 1.5, still=True) is None
    factor = keeper.update(dark, 2.0, still=True)
    assert factor is not None and abs(factor - 1 / 0.6) < 0.08
    keeper.adjusted(2.0)
    assert keeper.update(dark, 2.2, still=True) is None and keeper.adjustments == 1  # waits for the camera
    assert keeper.update(image, 2.6, still=True) is None and keeper.last.level == pytest.approx(1.0, abs=0.03)


def test_dice_lost_to_a_brighter_room_are_found_once_the_exposure_is_kept():
    """Scenes lit up to 30 % brighter after calibration (the gradient and colour cast of the
    tray finder's benchmark): the pale mat and dice burn out; with the exposure kept the tray
    finder finds them again."""
    found = {"relit": 0, "kept": 0}
    total = 0
    for seed in range(900, 930):  # the finder finds pale dice better: it takes more scenes to lose some
        rng = np.random.default_rng([seed, 11])
        if rng.choice([-1, 1]) < 0:     # relight's first draw: the darker scenes lose little
            continue
        image, truth = mat_scene(seed)
        calibration = calibrate(empty_frames(seed), name="test")
        finder = TrayFinder(calibration)
        total += len(truth.dice)
        for name, frame in (("relit", relight(image, np.random.default_rng([seed, 11]))),
                            ("kept", exposure_kept(image, seed, calibration))):
            found[name] += match(on_the_mat([tuple(b) for b in finder(frame)], calibration), truth.dice)
    assert total >= 35
    assert found["kept"] >= 0.97 * total and found["kept"] > found["relit"]


def test_bad_settings_and_a_calibration_without_its_empty_tray_are_refused(tray):
    calibration, image, _ = tray
    from dataclasses import replace
    bare = replace(calibration, background=None)
    with pytest.raises(ValueError, match="no empty-tray picture"):
        ExposureKeeper(bare)
    with pytest.raises(ValueError, match="no empty-tray picture"):
        mat_light(image, bare)
    with pytest.raises(ValueError, match="between 0 and 1"):
        ExposureKeeper(calibration, tolerance=12)
    assert MatLight(8.0, 0.0).correction == 0.25     # at most 4x either way at once
