"""The accuracy goals on the held-out real photos (vision/training/split.py 'test' side: no
model was trained or tuned on them). Counted like /work/shared/tools/score_reads.py.
Skipped when ../shared/data/d6-real is absent. Figures: `python -m vision.bench pips`."""
import cv2
import pytest

from vision.bench.scoring import Tally, labels_in_pixels
from vision.pips import PipReader
from vision.training.split import photos

GOALS = {"byler-train": 0.98, "epanemu-train": 0.90}


@pytest.fixture(scope="module")
def reader():
    return PipReader()


@pytest.mark.parametrize("folder", sorted(GOALS))
def test_held_out_accuracy_goals(real_data, reader, folder):
    tally = Tally()
    for photo in photos(real_data, folder, "test"):
        frame = cv2.imread(str(photo.image))
        roll = reader(frame)
        tally.add(labels_in_pixels(photo.dice, frame.shape[1], frame.shape[0]), [d.to_json() for d in roll.dice])
    assert tally.labelled > 200
    assert tally.per_die >= GOALS[folder], f"per-die {tally.per_die:.3f}"
    assert tally.precision >= 0.98, f"precision {tally.precision:.3f}"
    count, right = tally.confident(0.9)
    assert count > 0.5 * tally.labelled
    assert right >= 0.995, f"{right:.4f} of {count} reads with confidence >= 0.9 right"
