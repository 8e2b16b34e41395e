"""How the pip reader's confidence is fitted (vision/training/calibrate.py) and applied
(vision/pips.py): monotone, selective at 0.9, never more sure than the validation reads."""
import json

import numpy as np
import pytest

from vision import pips
from vision.training.calibrate import (FALLBACK_THRESHOLDS, confidence_knots, isotonic, labelled_photos,
                                       logistic_fit, pick_thresholds)
from vision.training.split import photos


def test_isotonic_is_non_decreasing_and_keeps_the_mean():
    rng = np.random.default_rng(0)
    y = (rng.random(300) < np.linspace(0.1, 0.99, 300)).astype(float)
    fit = isotonic(y)
    assert np.all(np.diff(fit) >= -1e-12)
    assert fit.mean() == pytest.approx(y.mean())
    assert np.array_equal(isotonic(np.array([0.0, 0.5, 1.0])), [0.0, 0.5, 1.0])


def reads(n=3000, seed=1):
    """Scores in 0..1 whose reads are right more often the higher the score."""
    rng = np.random.default_rng(seed)
    q = rng.random(n)
    right = rng.random(n) < np.clip(0.3 + 0.72 * q, 0, 1)
    return q, right


def test_reads_at_confidence_0_9_or_more_meet_the_target():
    q, right = reads()
    knots = confidence_knots(q, right, target=0.99)
    qs, cs = map(np.array, zip(*knots))
    assert np.all(np.diff(qs) > 0) and np.all(np.diff(cs) >= 0)
    conf = np.interp(q, qs, cs)
    sure = conf >= 0.9
    assert sure.sum() >= 100
    assert right[sure].mean() >= 0.99
    # below the cut the confidence follows the share right
    middle = (conf > 0.4) & (conf < 0.8)
    assert abs(right[middle].mean() - conf[middle].mean()) < 0.08


def test_nothing_reads_sure_when_no_slice_is_good_enough():
    q, right = reads()
    right[np.argsort(-q)[:50:5]] = False  # errors among the very top reads
    knots = confidence_knots(q, right, target=0.999)
    assert max(c for _, c in knots) < 0.9


def test_logistic_fit_finds_the_telling_feature():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2000, 3))
    y = rng.random(2000) < 1 / (1 + np.exp(-(3 * x[:, 1] - 1)))
    w, b = logistic_fit(x, y, l2=0.1)
    assert abs(w[1] - 3) < 0.5 and abs(w[0]) < 0.3 and abs(w[2]) < 0.3 and abs(b + 1) < 0.3


def test_thresholds_keep_the_right_reads_and_drop_false_finds():
    """Finds: 100 dice (heat 0.6-1, read right), 30 false finds with low heat, 5 with high
    heat that the face reader calls "no die". The pick keeps every die and no false find."""
    rng = np.random.default_rng(3)
    heat = np.concatenate([rng.uniform(0.6, 1.0, 100), rng.uniform(0.1, 0.35, 30), rng.uniform(0.7, 0.9, 5)])
    truth = np.concatenate([rng.integers(0, 6, 100), np.full(35, 6)])
    p = np.full((135, 7), 0.01)
    p[np.arange(100), truth[:100]] = 0.94
    p[100:130, 0] = 0.94            # faint false finds that look like a 1
    p[130:, 6] = 0.94               # the face reader says: no die
    p /= p.sum(axis=1, keepdims=True)
    thr, die_prob = pick_thresholds(heat, p, truth)
    keep = pips.dice_kept(heat, p, thr, die_prob, None)
    assert keep[:100].all() and not keep[100:].any()
    assert thr >= 0.35


def test_reader_applies_the_fitted_curve(pip_models):
    settings = json.loads((pips.MODELS / "pip_reader.json").read_text())
    settings["trust"] = None
    settings["confidence_knots"] = [[0.0, 0.0], [0.5, 0.2], [1.0, 0.6]]
    reader = pips.PipReader(models=pip_models(settings))
    probs = np.array([[0.75, 0.1, 0.05, 0.05, 0.03, 0.01, 0.01]])
    find = pips.Find(10, 10, 30, 30, 0.9)
    assert reader.confidences(probs, [find])[0] == pytest.approx(0.4)


def test_thresholds_fall_back_with_a_warning_when_false_finds_are_everywhere(capsys):
    """Strong finds that match no label (dice a crowded photo leaves unlabelled) look false at
    every threshold: the pick says so and falls back."""
    rng = np.random.default_rng(4)
    heat = rng.uniform(0.5, 1.0, 200)
    truth = np.where(np.arange(200) < 150, rng.integers(0, 6, 200), 6)
    p = np.full((200, 7), 0.01)
    p[np.arange(200), np.where(truth < 6, truth, 2)] = 0.94
    p /= p.sum(axis=1, keepdims=True)
    assert pick_thresholds(heat, p, truth) == FALLBACK_THRESHOLDS
    assert "no finder threshold keeps false finds under 1.5%" in capsys.readouterr().out


def test_calibration_leaves_out_photos_of_dice_that_label_none(real_data):
    """epanemu's dice_417 shows 15 dice and labels none: its reads would all count as false."""
    every, kept = photos(real_data, side="val"), labelled_photos("val", real_data)
    left_out = {p.image.name.split("_jpg")[0] for p in every if p not in kept}
    assert left_out == {"dice_417"} and all(p.dice for p in kept)

