"""The pip reader on the held-out real photos (vision/training/split.py 'test' side: no model
was trained or tuned on them), counted like /work/shared/tools/score_reads.py. Skipped when
../shared/data/d6-real is absent. Full figures: `python -m vision.bench pips`.

Two kinds of check: ``FLOORS`` are what the shipped models measured (minus a small margin),
so a worse model or a broken reader fails; ``GOALS`` are the customer's targets: met on the
tray photos (asserted); on the mixed photos the confidence goal is met (asserted), per die
and precision not yet (strict expected failures: when a better model reaches a goal, the
test reports XPASS-strict, a failure, and the mark must go).
"""
import cv2
import pytest

from vision.bench.scoring import Tally, labels_in_pixels
from vision.pips import PipReader
from vision.training.split import photos

# folder: (per-die, precision, share right among confidence >= 0.9)
FLOORS = {"byler-train": (0.99, 0.98, 0.99), "epanemu-train": (0.845, 0.94, 0.97)}
GOALS = {"byler-train": (0.98, 0.98, 0.995), "epanemu-train": (0.90, 0.98, 0.995)}
MEASURED = ("held-out epanemu per-die 85.3%, precision 95.5% (confidence >= 0.9 right 99.5%, met); "
            "byler 99.3%, 99.3%, 99.6%")
NOT_YET = pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"accuracy goals not reached yet: {MEASURED}")

_CACHE: dict = {}


@pytest.fixture
def tallies(real_data):
    """Every held-out photo read once per test session (both tests use the same reads)."""
    if real_data in _CACHE:
        return _CACHE[real_data]
    reader = PipReader()
    out = _CACHE[real_data] = {}
    for folder in GOALS:
        tally = Tally()
        for photo in photos(real_data, folder, "test"):
            frame = cv2.imread(str(photo.image))
            roll = reader(frame)
            tally.add(labels_in_pixels(photo.dice, frame.shape[1], frame.shape[0]),
                      [d.to_json() for d in roll.dice])
        out[folder] = tally
    return out


def figures(tally):
    return tally.per_die, tally.precision, tally.confident(0.9)[1]


@pytest.mark.parametrize("folder", sorted(FLOORS))
def test_held_out_photos_read_at_least_as_well_as_measured(tallies, folder):
    tally = tallies[folder]
    assert tally.labelled > 200
    per_die, precision, sure_right = figures(tally)
    floor_die, floor_precision, floor_sure = FLOORS[folder]
    assert per_die >= floor_die, f"per-die {per_die:.3f}"
    assert precision >= floor_precision, f"precision {precision:.3f}"
    assert sure_right >= floor_sure, f"right among confidence >= 0.9: {sure_right:.4f}"
    assert tally.confident(0.9)[0] > 0.08 * tally.labelled  # confidence is not uniformly low


@pytest.mark.parametrize("folder", ["byler-train", pytest.param("epanemu-train", marks=NOT_YET)])
def test_held_out_photos_meet_the_accuracy_goals(tallies, folder):
    per_die, precision, _ = figures(tallies[folder])
    goal_die, goal_precision, _ = GOALS[folder]
    assert per_die >= goal_die and precision >= goal_precision


@pytest.mark.parametrize("folder", sorted(GOALS))
def test_confident_held_out_reads_meet_the_goal(tallies, folder):
    assert figures(tallies[folder])[2] >= GOALS[folder][2]
