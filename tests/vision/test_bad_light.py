"""Dim frames: the pip reader brightens a frame darker than its training photos before it
looks for dice (vision/pips.py: ``brightened``); out-of-focus frames: their crops are
sharpened and their reads trusted less (``soft_frame``); and the bad-light benchmark's
changes."""
import numpy as np
import pytest

from vision import pips
from vision.bench import light
from vision.bench.tray_finder import match
from vision.pips import PipReader
from vision.synth import render_scene


def test_a_dark_frame_is_brightened_to_the_dark_level():
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 50, (480, 640, 3)).astype(np.uint8)
    assert pips.bright_end(frame) < 50
    assert pips.bright_end(pips.brightened(frame)) == pytest.approx(pips.DARK_LEVEL, abs=4)


def test_a_well_lit_frame_is_left_as_it_is():
    frame = np.random.default_rng(1).integers(0, 220, (480, 640, 3)).astype(np.uint8)
    assert pips.brightened(frame) is frame


def test_the_gain_is_capped():
    black = np.zeros((100, 100, 3), np.uint8)
    assert not pips.brightened(black).any()
    faint = np.full((100, 100, 3), 5, np.uint8)
    assert pips.brightened(faint).max() == 5 * pips.MAX_GAIN


@pytest.mark.parametrize("seed, gain", [(4400, 0.1), (4403, 0.1), (4404, 0.15)])
def test_a_dim_scene_reads_like_the_lit_one(seed, gain):
    """Rendered scenes whose dice the finder loses when the frame is this dark, unless it is
    brightened first."""
    faces = [str(1 + (seed + k) % 6) for k in range(5)]
    image, scene = render_scene(faces, "d6-pips", seed=seed, die_px=32)
    dim = (image.astype(np.float32) * gain).astype(np.uint8)
    roll = PipReader()(dim)
    assert sorted(d.face for d in roll.dice) == sorted(d.face for d in scene.dice)


def test_the_benchmark_changes_light_as_it_says():
    rng = np.random.default_rng(2)
    image = np.full((10, 20, 3), 200, np.uint8)
    assert (light.lit(image, 0.15, 0, rng) == 30).all()
    warm = light.lit(image, light.WARM, 0, rng)[0, 0]
    assert warm[0] < warm[1] < warm[2]  # blue down, red up (BGR)
    ramp = light.lit(image, light.falling_off(image), 0, rng)[0, :, 0]
    assert ramp[0] == 30 and ramp[-1] == 200 and (np.diff(ramp.astype(int)) >= 0).all()
    noisy = light.lit(image, 0.5, 6, rng)
    assert 3 < noisy.astype(float).std() < 9
    assert (light.CONDITIONS["as taken"](image, rng) == image).all()
    edge = np.zeros((40, 40, 3), np.uint8)
    edge[:, 20:] = 200
    grey = np.full((480, 640, 3), 100, np.uint8)
    shiny = light.glare(grey, rng)
    assert shiny.max() == 255 and 0.001 < (shiny > 200).mean() < 0.05 and shiny.min() == 100
    soft = light.CONDITIONS["out of focus 2.5"](edge, rng).astype(float)
    assert soft[:, 18].mean() > 20 and soft[:, 21].mean() < 180  # the edge spread over pixels


def test_the_benchmark_says_when_there_are_no_photos(tmp_path, capsys):
    assert light.main(["--data", str(tmp_path / "nowhere")]) == 1
    assert "no photos at" in capsys.readouterr().err


def _blurred(image: np.ndarray, sigma: float) -> np.ndarray:
    """Out of focus, then sensor noise, as the benchmark's condition."""
    return light.CONDITIONS[f"out of focus {sigma}"](image, np.random.default_rng(0))


def test_sharpness_sees_blur_not_contrast_or_noise():
    image, scene = render_scene(["5"], "d6-pips", seed=1, die_px=30)
    die = scene.dice[0]
    where = pips.Find(die.x, die.y, die.w, die.h, 1.0)
    crop = pips.crop(image, where, 48)
    sharp = pips.sharpness(crop)
    assert pips.sharpness(pips.crop(_blurred(image, 2.5), where, 48)) < sharp / 3
    faint = (crop.astype(np.float32) * 0.4 + 60).astype(np.uint8)  # less contrast, as sharp
    assert pips.sharpness(faint) == pytest.approx(sharp, rel=0.35)
    noisy = np.clip(crop + np.random.default_rng(0).normal(0, 3, crop.shape), 0, 255).astype(np.uint8)
    assert pips.sharpness(noisy) == pytest.approx(sharp, rel=0.35)
    assert pips.sharpness(pips.unsharp(crop)) > sharp


def test_only_an_out_of_focus_frame_is_soft():
    image, _ = render_scene(["1", "3", "5", "6"], "d6-pips", seed=1, die_px=30)
    reader = PipReader()
    assert not pips.soft_frame(reader.crops(image, reader.find(image)))
    soft = _blurred(image, 2.5)
    assert pips.soft_frame(reader.crops(soft, reader.find(soft)))
    assert not pips.soft_frame([])


def test_an_out_of_focus_frame_is_read_with_less_trust(monkeypatch):
    """Its crops are sharpened before reading, and no read is surer than SOFT_TRUST."""
    faces = ["2", "3", "4", "5", "6"]
    image, scene = render_scene(faces, "d6-pips", seed=1, die_px=30)
    soft = _blurred(image, 2.5)
    roll = PipReader()(soft)
    assert sorted(d.face for d in roll.dice) == sorted(d.face for d in scene.dice)
    assert max(d.confidence for d in roll.dice) <= pips.SOFT_TRUST
    monkeypatch.setattr(pips, "SOFT_LEVEL", -1.0)  # never soft: read as it is
    plain = PipReader()(soft)
    assert max(d.confidence for d in plain.dice) > pips.SOFT_TRUST


def _false_finds(roll, scene) -> int:
    return len(roll.dice) - match([(d.x, d.y) for d in roll.dice], scene.dice)


def test_lamp_reflections_are_mostly_not_dice(monkeypatch):
    """Twelve burnt-out spots on each of five rendered trays. The face reader (trained with
    reflections as "no die" since the tenth session) reports none of them; with its "no die"
    gate all but open, the reflection test still drops most of those it would report."""
    scenes = []
    for seed in range(5):
        faces = [str(1 + (seed + k) % 6) for k in range(4)]
        image, scene = render_scene(faces, "d6-pips", seed=seed, die_px=30)
        scenes.append((light.glare(image, np.random.default_rng(seed), spots=12), scene))
    assert sum(_false_finds(PipReader()(image), scene) for image, scene in scenes) == 0

    def false_finds_with_the_gate_open() -> int:
        reader = PipReader()
        reader.min_die_prob = 0.02
        return sum(_false_finds(reader(image), scene) for image, scene in scenes)

    kept = false_finds_with_the_gate_open()
    monkeypatch.setattr(pips, "GLARE_BURNT", 2.0)  # never burnt out
    without = false_finds_with_the_gate_open()
    assert without >= 15 and kept * 3 <= without, (kept, without)


def test_a_burnt_out_die_with_pips_is_no_reflection():
    frame = np.full((100, 100, 3), 90, np.uint8)
    frame[30:71, 30:71] = 255  # a burnt-out blob ...
    find = pips.Find(50, 50, 40, 40, 1.0)
    assert pips.lamp_reflection(frame, find)
    frame[47:53, 47:53] = 30  # ... with a pip in it: a white die
    assert not pips.lamp_reflection(frame, find)
    dark = np.full((100, 100, 3), 60, np.uint8)  # a dark die's burnt-out white pips
    for y, x in ((38, 38), (38, 62), (62, 38), (62, 62), (50, 50)):
        dark[y - 5:y + 5, x - 5:x + 5] = 255
    assert not pips.lamp_reflection(dark, find)
    assert not pips.lamp_reflection(np.full((100, 100, 3), 200, np.uint8), find)  # bright, not burnt
