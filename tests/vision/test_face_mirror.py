"""The face reader's mirrored second read (vision/pips.py: PipReader.logits): a crop it is
not sure of is read again mirrored left to right and the two logits averaged; a sure crop
is read once."""
import json

import numpy as np
import pytest

from vision import pips
from vision.synth import render_scene


class LeftRight:
    """Stands in for the face network (cv2.dnn's setInput/forward): per crop, the "1" logit
    is 10 x (mean of the left half - mean of the right half) of the first channel, the
    other six logits are 0. A crop brighter on its left reads "1" surely; its mirror image
    reads "1" as surely not."""

    def __init__(self):
        self.batches = []

    def setInput(self, blob):  # noqa: N802 - cv2.dnn's name
        self.blob = blob

    def forward(self):
        self.batches.append(len(self.blob))
        half = self.blob.shape[3] // 2
        first = self.blob[:, 0]
        out = np.zeros((len(self.blob), 7), np.float32)
        out[:, 0] = 10 * (first[:, :, :half].mean(axis=(1, 2)) - first[:, :, half:].mean(axis=(1, 2)))
        return out


def crop(left: int, right: int, side: int = 8) -> np.ndarray:
    image = np.zeros((side, side, 3), np.uint8)
    image[:, : side // 2] = left
    image[:, side // 2:] = right
    return image


def reader_with(net, mirror_faces):
    reader = pips.PipReader()
    reader.reader, reader.turns, reader.mirror_faces = net, 1, mirror_faces
    return reader


def test_a_sure_crop_is_read_once_and_an_unsure_one_averaged_with_its_mirror():
    net = LeftRight()
    sure, unsure = crop(255, 0), crop(140, 100)    # "1" logit 10.0 and about 1.6
    logits = reader_with(net, 0.97).logits([sure, unsure])
    assert net.batches == [2, 1]                   # both once, then only the unsure one mirrored
    assert logits[0, 0] == pytest.approx(10.0, abs=1e-4)
    assert logits[1, 0] == pytest.approx(0.0, abs=1e-4)   # +1.6 and -1.6 averaged


def test_without_the_setting_every_crop_is_read_once():
    net = LeftRight()
    logits = reader_with(net, None).logits([crop(140, 100), crop(100, 140)])
    assert net.batches == [2]
    assert logits[0, 0] > 1 and logits[1, 0] < -1


def test_at_one_every_crop_reads_the_same_as_its_mirror_image_with_the_shipped_network():
    image, truth = render_scene(["2", "3", "6"], "d6-pips", seed=4, die_px=44, tilt=0.3)
    reader = pips.PipReader()
    reader.mirror_faces = 1.0
    crops = reader.crops(image, reader.find(image))
    assert len(crops) == 3
    plain = reader.logits(crops)
    mirrored = reader.logits([np.ascontiguousarray(c[:, ::-1]) for c in crops])
    assert np.allclose(plain, mirrored, atol=1e-4)


def test_the_shipped_reader_mirrors_its_unsure_crops():
    assert 0.5 < pips.PipReader().mirror_faces < 1


@pytest.mark.parametrize("value", ["yes", True, 1.5, -0.1])
def test_a_bad_mirror_setting_names_the_file_and_what_is_expected(pip_models, value):
    data = json.loads((pips.MODELS / "pip_reader.json").read_text())
    data["mirror_faces"] = value
    models = pip_models(data)
    with pytest.raises(ValueError, match="mirror_faces must be a probability from 0 to 1") as caught:
        pips.PipReader(models=models)
    assert str(models / "pip_reader.json") in str(caught.value)


def test_settings_without_mirror_faces_read_each_crop_once(pip_models):
    data = json.loads((pips.MODELS / "pip_reader.json").read_text())
    data.pop("mirror_faces")
    assert pips.PipReader(models=pip_models(data)).mirror_faces is None
