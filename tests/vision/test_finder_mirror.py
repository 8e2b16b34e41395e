"""The finder's mirrored second look (vision/pips.py: finder_maps): taken only where the plain
heatmap is unsure, averaged cell for cell with the plain heat, and mapped back exactly."""
import json

import numpy as np
import pytest

from vision import pips
from vision.synth import render_scene


class CellMeans:
    """Stands in for the finder network (cv2.dnn's setInput/forward): heat logit of each
    4x4 cell = a fixed map of 'planted' logits (the same whatever the input) + a tenth of
    the cell's mean red value (what the picture shows there)."""

    def __init__(self, planted: np.ndarray):
        self.planted = planted
        self.calls = 0

    def setInput(self, blob):  # noqa: N802 - cv2.dnn's name
        self.blob = blob

    def forward(self):
        self.calls += 1
        red = self.blob[0, 2]
        cells = red.reshape(red.shape[0] // pips.STRIDE, pips.STRIDE, -1, pips.STRIDE).mean(axis=(1, 3))
        out = np.zeros((1, 5) + cells.shape, np.float32)
        out[0, 0] = self.planted + 0.1 * cells
        return out


def logit(p):
    return float(np.log(p / (1 - p)))


def canvas_with_a_ramp(side=64):
    canvas = np.zeros((side, side, 3), np.uint8)
    canvas[:, :, 2] = np.linspace(0, 255, side, dtype=np.float32)[None, :].astype(np.uint8)
    return canvas


def test_mirrored_flips_only_the_picture_not_the_padding():
    canvas = np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3)
    out = pips.mirrored(canvas, 4)
    assert np.array_equal(out[:, :4], canvas[:, 3::-1])
    assert np.array_equal(out[:, 4:], canvas[:, 4:])


def test_unsure_peaks_counts_local_maxima_in_the_band():
    heat = np.full((10, 10), logit(0.01), np.float32)
    heat[2, 2], heat[2, 7], heat[7, 2], heat[7, 7] = logit(0.3), logit(0.45), logit(0.9), logit(0.1)
    heat[2, 3] = logit(0.25)   # beside a higher one: not a maximum
    assert pips.unsure_peaks(heat, (0.2, 0.5)) == 2


def test_a_sure_heatmap_is_read_once_and_left_as_it_is():
    planted = np.full((16, 16), logit(0.01), np.float32)
    planted[4, 4] = logit(0.95)
    planted[10, 12] = logit(0.3)        # one unsure peak only
    net = CellMeans(planted)
    maps = pips.finder_maps(net, canvas_with_a_ramp(), 64, mirror=True)
    assert net.calls == 1
    plain = CellMeans(planted)
    assert np.allclose(maps, pips.finder_maps(plain, canvas_with_a_ramp(), 64))


def test_an_unsure_heatmap_averages_the_mirrored_look_cell_for_cell():
    planted = np.zeros((16, 16), np.float32) + logit(0.01)
    planted[3, 3], planted[12, 9] = logit(0.3), logit(0.4)   # two unsure peaks
    net = CellMeans(planted)
    canvas = canvas_with_a_ramp()
    maps = pips.finder_maps(net, canvas, 64, mirror=True)
    assert net.calls == 2
    red = canvas[:, :, 2].astype(np.float32) / 255.0
    cells = red.reshape(16, 4, 16, 4).mean(axis=(1, 3))
    # mapped back, what the picture shows (the red ramp) agrees in both looks and stays as
    # it is, while what the stand-in answers regardless of the picture (the planted peaks,
    # like a net's quirk that fires on one arrangement only) is averaged with its mirror
    # place: each unsure peak is halved
    expected = 0.5 * (planted + planted[:, ::-1]) + 0.1 * cells
    assert np.allclose(maps[0], expected, atol=1e-5)
    assert np.allclose(maps[1:], 0.0)       # sizes and offsets: the plain pass's


def test_the_mirrored_look_finds_the_same_dice_on_a_rendered_scene():
    image, truth = render_scene(["1", "5", "3", "6"], "d6-pips", seed=11, size=(640, 480), die_px=40)
    reader = pips.PipReader()
    plain = pips.run_finder(reader.finder, image, 0.3, reader.find_size)
    both = pips.run_finder(reader.finder, image, 0.3, reader.find_size, mirror=True)
    assert len(plain) == len(both) == len(truth.dice)
    for a, b in zip(sorted(plain, key=lambda f: f.x), sorted(both, key=lambda f: f.x)):
        assert abs(a.x - b.x) < 2 and abs(a.y - b.y) < 2


def test_the_shipped_reader_takes_the_mirrored_look():
    assert pips.PipReader().find_mirror is True


@pytest.mark.parametrize("text, message", [
    ('{"temperature": 1.4, "find_threshold": 0.3, "find_mirror": "yes"}', "find_mirror must be true or false"),
    ('{"temperature": 1.4}', "no find_threshold"),
    ('{"temperature": 1.4,', "not valid JSON"),
    ('[1, 2]', "expected a JSON object"),
])
def test_damaged_settings_name_the_file_and_the_fault(pip_models, text, message):
    models = pip_models(text)
    with pytest.raises(ValueError, match=message) as caught:
        pips.PipReader(models=models)
    assert str(models / "pip_reader.json") in str(caught.value)


def test_missing_settings_say_where_they_belong(tmp_path):
    with pytest.raises(ValueError, match="settings are missing"):
        pips.PipReader(models=tmp_path)


def test_settings_without_find_mirror_read_with_one_look(pip_models):
    data = json.loads((pips.MODELS / "pip_reader.json").read_text())
    data.pop("find_mirror")
    assert pips.PipReader(models=pip_models(data)).find_mirror is False
