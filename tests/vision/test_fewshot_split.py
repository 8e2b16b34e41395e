"""Which photos the few-shot benchmark teaches from and which it reads."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.bench.fewshot import split_photos
from vision.training.split import side_of


def _photo(folder, stem):
    cv2.imwrite(str(folder / "images" / f"{stem}.jpg"), np.full((60, 360, 3), 180, np.uint8))
    # one die of each face in a row, 60 px apart
    lines = [f"{face} {(30 + 60 * face) / 360:.4f} 0.5 0.1 0.3" for face in range(6)]
    (folder / "labels" / f"{stem}.txt").write_text("\n".join(lines) + "\n")


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    names = [f"dice_{n}" for n in range(200)]
    by_side = {side: [n for n in names if side_of(f"{n}_jpg.rf.a1") == side] for side in ("train", "val", "test")}
    for name in by_side["train"][:5] + by_side["val"][:2] + by_side["test"][:2]:
        for copy in ("a1", "b2"):  # two augmented copies of each photo, as Roboflow names them
            _photo(tmp_path, f"{name}_jpg.rf.{copy}")
    return tmp_path


def test_held_out_reading_reads_only_the_val_and_test_sides(folder):
    examples, photos_used, tests = split_photos(folder, shots=2, seed=0)
    assert photos_used == 2 and all(len(v) == 2 for v in examples.values())
    assert len(tests) == 8 and {side_of(s) for s in tests} == {"val", "test"}


def test_train_reading_leaves_out_every_copy_of_a_teaching_photo(folder):
    _, photos_used, tests = split_photos(folder, shots=2, seed=0, read="train")
    held_out = {s for s in split_photos(folder, shots=2, seed=0)[2]}
    assert {side_of(s) for s in tests} == {"train"} and not held_out & set(tests)
    assert len(tests) == 2 * (5 - photos_used) == 6   # 3 train photos x 2 copies did not teach


def test_an_unknown_reading_side_is_refused(folder):
    with pytest.raises(ValueError, match="held-out, train"):
        split_photos(folder, shots=2, seed=0, read="everything")


class _ReadsSixAsFive:
    """A taught model that reads every die right except a 6, which it reads as a 5."""

    def __init__(self, faces):
        self.faces = iter(faces)  # the labelled face of each crop it will be shown, in order

    def classify(self, crop):
        face = next(self.faces)
        return ("5" if face == "6" else face), 0.95


def test_crop_accuracy_counts_dice_and_misreads_per_scene(folder):
    from vision.bench import fewshot
    _, _, tests = split_photos(folder, shots=2, seed=0)
    # the crops come in label order: faces 1..6 per photo
    model = _ReadsSixAsFive([str(face) for _ in tests for face in range(1, 7)])
    result = fewshot.crop_accuracy(folder, model, tests)
    assert result["dice"] == 6 * len(tests) and result["acc"] == pytest.approx(5 / 6)
    rows = result["scenes"]
    assert len(rows) == len(tests) // 2  # two augmented copies make one scene
    assert all((r.photos, r.dice, r.misread, r.right) == (2, 12, 2, 10) for r in rows)


class _PipReaderReadingSixAsFive:
    """Stands in for vision.pips.PipReader: face logits that read every die right except a
    6, which they read as a 5 (the labelled faces come in the order the crops are cut)."""

    temperature = 1.0

    def __init__(self, faces):
        self.faces = iter(faces)

    def crops(self, image, finds):
        return [None] * len(finds)

    def logits(self, crops):
        out = np.zeros((len(crops), 7))
        for row in out:
            face = int(next(self.faces))
            row[(5 if face == 6 else face) - 1] = 10.0
        return out


def test_the_pip_reader_reference_counts_dice_and_misreads_per_scene(folder):
    from vision.bench import fewshot
    _, _, tests = split_photos(folder, shots=2, seed=0)
    reader = _PipReaderReadingSixAsFive([str(face) for _ in tests for face in range(1, 7)])
    rows = fewshot.pip_reader_accuracy(folder, tests, reader)
    assert len(rows) == len(tests) // 2
    assert all((r.photos, r.dice, r.misread, r.right) == (2, 12, 2, 10) for r in rows)
