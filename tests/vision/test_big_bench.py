"""The big-frame benchmark (python -m vision.bench big): mosaics and blown-up photos keep
their labels in place, and the pip reader reads rendered small dice in a mosaic."""
import numpy as np

from vision.bench import big
from vision.pips import PipReader
from vision.synth import render_scene


def test_a_mosaic_moves_each_photos_labels_with_it():
    images = [np.full((40, 60, 3), 10 * (j + 1), np.uint8) for j in range(4)]
    labels = [[{"face": str(j + 1), "x": 5.0, "y": 7.0, "w": 4.0, "h": 4.0}] for j in range(4)]
    frame, moved = big.mosaic(images, labels, 2)
    assert frame.shape == (80, 120, 3)
    for j, lab in enumerate(moved):
        assert lab["face"] == str(j + 1) and (lab["w"], lab["h"]) == (4.0, 4.0)
        assert frame[int(lab["y"]), int(lab["x"]), 0] == 10 * (j + 1)  # the label sits on its own photo


def test_blown_up_labels_grow_with_the_photo():
    (lab,) = big.enlarged([{"face": "3", "x": 10.0, "y": 20.0, "w": 30.0, "h": 40.0}], 2.0)
    assert lab == {"face": "3", "x": 20.0, "y": 40.0, "w": 60.0, "h": 80.0}


def test_small_dice_in_a_mosaic_are_read():
    images, labels = [], []
    for s in range(4):
        image, scene = render_scene([str(1 + (s + k) % 6) for k in range(3)], seed=4300 + s, die_px=22,
                                    touching=0.0)
        images.append(image)
        labels.append([{"face": d.face, "x": d.x, "y": d.y, "w": d.w, "h": d.h} for d in scene.dice])
    lines = big.measure(PipReader(), images, labels)
    mosaic = next(text for text in lines if "2x2 mosaics" in text)
    assert "1 frames,   12 dice: per die 100.0%" in mosaic
    assert len(lines) == 4  # alone, 2x2, blown up 2x and 3x (too few photos for 3x3)
