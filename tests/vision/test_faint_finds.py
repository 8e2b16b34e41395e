"""Faint finds (vision/pips.py: PipReader.keep, ``faint_finds`` in pip_reader.json): a
heatmap peak under the finder threshold is a die only when the face reader is sure both that
it is a die and of its face."""
import numpy as np
import pytest

from vision import pips

FAINT = {"threshold": 0.15, "die_prob": 0.97, "face_prob": 0.9}


def probs_of(face_prob: float, no_die: float, face: int = 2) -> np.ndarray:
    """Seven probabilities: ``face_prob`` on ``face`` (0..5), ``no_die`` on "no die", the rest
    spread over the other faces."""
    p = np.full(7, (1.0 - face_prob - no_die) / 5)
    p[face], p[6] = face_prob, no_die
    return p


def reader_with(faint):
    reader = pips.PipReader()
    reader.find_threshold, reader.min_die_prob, reader.faint = 0.3, 0.5, faint
    return reader


CASES = [  # (heat score, face probability, "no die" probability, kept with faint finds)
    (0.6, 0.55, 0.40, True),     # found clearly, the reader says a die: kept
    (0.6, 0.40, 0.55, False),    # found clearly, the reader says no die
    (0.2, 0.95, 0.01, True),     # faint, and the reader is sure of die and face
    (0.2, 0.60, 0.01, False),    # faint, sure it is a die but not of its face
    (0.2, 0.92, 0.05, False),    # faint, sure of the face but not quite that it is a die
    (0.1, 0.99, 0.00, False),    # under the faint threshold (the finder was asked at 0.15)
]


def test_keep_takes_faint_finds_only_when_the_reader_is_sure():
    finds = [pips.Find(10.0 * i, 10.0, 20.0, 20.0, score) for i, (score, *_rest) in enumerate(CASES)]
    probs = np.stack([probs_of(face, none) for _score, face, none, _kept in CASES])
    keep = reader_with(FAINT).keep(probs[:-1], finds[:-1])  # the finder never returns the last
    assert keep.tolist() == [case[3] for case in CASES[:-1]]
    without = reader_with(None).keep(probs, finds)
    assert without.tolist() == [True, False, False, False, False, False]


def test_finds_under_the_faint_threshold_are_never_kept():
    """The calibration collects finds from 0.1 up and keeps them with ``dice_kept`` too."""
    sure = np.stack([probs_of(0.99, 0.0)] * 3)
    keep = pips.dice_kept(np.array([0.1, 0.15, 0.3]), sure, 0.3, 0.5, FAINT)
    assert keep.tolist() == [False, True, True]


def test_read_asks_the_finder_for_faint_peaks_and_keeps_the_sure_ones(monkeypatch):
    reader = reader_with(FAINT)
    asked = []
    finds = [pips.Find(40.0, 40.0, 24.0, 24.0, 0.8),     # a clear die: face 5
             pips.Find(120.0, 40.0, 24.0, 24.0, 0.2),    # faint, read surely as a 3: kept
             pips.Find(200.0, 40.0, 24.0, 24.0, 0.2)]    # faint, unsure face: dropped
    logits = np.log(np.stack([probs_of(0.9, 0.02, 4), probs_of(0.99, 0.001, 2), probs_of(0.5, 0.01, 0)]))
    monkeypatch.setattr(reader, "find", lambda frame, threshold=None: asked.append(threshold) or finds)
    monkeypatch.setattr(reader, "logits", lambda crops: logits * reader.temperature)
    roll = reader(np.zeros((100, 240, 3), np.uint8))
    assert asked == [FAINT["threshold"]]
    assert [(d.face, d.x) for d in roll.dice] == [("5", 40.0), ("3", 120.0)]


def test_the_shipped_reader_keeps_faint_finds():
    faint = pips.PipReader().faint
    assert faint is not None and faint["threshold"] < pips.PipReader().find_threshold


def settings_with(faint) -> dict:
    return {"temperature": 1.4, "find_threshold": 0.3, "faint_finds": faint}


@pytest.mark.parametrize("faint, message", [
    ([0.15, 0.97, 0.9], "faint_finds must be an object with exactly threshold, die_prob, face_prob"),
    ({"threshold": 0.15, "die_prob": 0.97}, "must be an object with exactly"),
    ({"threshold": 0.15, "die_prob": 1.5, "face_prob": 0.9}, "faint_finds.die_prob must be a number from 0 to 1"),
    ({"threshold": 0.15, "die_prob": 0.97, "face_prob": "high"}, "faint_finds.face_prob must be a number"),
    ({"threshold": 0.3, "die_prob": 0.97, "face_prob": 0.9}, "must be below find_threshold 0.3"),
])
def test_bad_faint_settings_name_the_file_and_the_fault(pip_models, faint, message):
    models = pip_models(settings_with(faint))
    with pytest.raises(ValueError, match=message) as caught:
        pips.PipReader(models=models)
    assert str(models / "pip_reader.json") in str(caught.value)


def test_settings_without_faint_finds_keep_none(pip_models):
    assert pips.PipReader(models=pip_models(settings_with(None))).faint is None
