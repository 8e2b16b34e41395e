"""The pip finder's boxes, grown to whole dice for taught sets (pip_reader.json: box_scale)."""
import json

import numpy as np
import pytest

from vision import dicesets, pips
from vision.training import calibrate
from vision.training.scenes import training_scene


class ShrunkFinder:
    """Finds every rendered die exactly, its box 0.8 x 0.9 of the die's: a finder whose boxes
    fall short of the whole die by a known amount."""
    find_threshold = 0.3
    box_scale = (1.0, 1.0)

    def find(self, frame):
        return [pips.Find(x, y, 0.8 * w, 0.9 * h, 1.0) for x, y, w, h in self.boxes]


def test_fit_box_scale_undoes_a_finder_that_shrinks_its_boxes(monkeypatch):
    finder = ShrunkFinder()
    real_scene = training_scene

    def scene(seed, **kw):
        image, dice = real_scene(seed, **kw)
        finder.boxes = [(x, y, w, h) for _, x, y, w, h in dice]
        return image, dice

    monkeypatch.setattr("vision.training.scenes.training_scene", scene)
    sw, sh = calibrate.fit_box_scale(finder, scenes=3)
    assert sw == pytest.approx(1 / 0.8, abs=0.002) and sh == pytest.approx(1 / 0.9, abs=0.002)


def test_fit_box_scale_is_one_when_nothing_is_found(monkeypatch):
    finder = ShrunkFinder()
    finder.find = lambda frame: []
    assert calibrate.fit_box_scale(finder, scenes=1) == [1.0, 1.0]


def test_taught_sets_read_through_the_pip_finder_get_whole_die_boxes(monkeypatch):
    finder = ShrunkFinder()
    finder.box_scale = (1.25, 1.1)
    finder.boxes = [(100.0, 80.0, 40.0, 50.0)]
    monkeypatch.setattr(dicesets, "_finder_net", lambda: finder)
    (x, y, w, h), = dicesets.pip_finder()(np.full((200, 200, 3), 200, np.uint8))
    assert (x, y) == (100.0, 80.0)
    assert w == pytest.approx(40.0) and h == pytest.approx(49.5)


def test_the_shipped_finder_records_its_box_scale():
    reader = pips.PipReader()
    assert len(reader.box_scale) == 2 and all(1.0 <= v < 1.3 for v in reader.box_scale)


def test_settings_without_a_box_scale_keep_the_finder_boxes(pip_models):
    data = json.loads((pips.MODELS / "pip_reader.json").read_text())
    data.pop("box_scale")
    assert pips.PipReader(models=pip_models(data)).box_scale == (1.0, 1.0)
