"""Dim frames: the pip reader brightens a frame darker than its training photos before it
looks for dice (vision/pips.py: ``brightened``), and the bad-light benchmark's changes."""
import numpy as np
import pytest

from vision import pips
from vision.bench import light
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


def test_the_benchmark_says_when_there_are_no_photos(tmp_path, capsys):
    assert light.main(["--data", str(tmp_path / "nowhere")]) == 1
    assert "no photos at" in capsys.readouterr().err
