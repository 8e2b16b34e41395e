"""Fit the reader's settings on the validation photos and write models/pip_reader.json.

  python -m vision.training.calibrate [--models vision/models] [--turns 4]

Runs the exported ONNX models through cv2.dnn (exactly as the reader does) on the 'val' side
of the split, matches finds to labels the way the scorer does, then picks:

* ``find_threshold`` and ``min_die_prob`` (how sure the face reader must be that a find is a
  die): the pair giving the most dice found-and-right with at most 1.5% false finds;
* ``temperature``: the softmax temperature minimising the negative log-likelihood of the
  right answer (the labelled face, or "no die" for a find with no label);
* checks that reads with confidence >= 0.9 are right >= 99.5% of the time on val, raising
  the temperature until they are.
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import cv2
import numpy as np

from vision import pips
from vision.bench.scoring import Tally, labels_in_pixels
from vision.training.split import photos


def collect(reader: pips.PipReader, side: str = "val", low: float = 0.1):
    """Per find: (photo index, heat score, averaged logits, true class or 6 = no die)."""
    rows = []
    for n, photo in enumerate(photos(side=side)):
        frame = cv2.imread(str(photo.image))
        h, w = frame.shape[:2]
        canvas, scale = pips.letterbox(frame)
        reader.finder.setInput(cv2.dnn.blobFromImage(canvas, 1 / 255.0))
        finds = pips.peaks(reader.finder.forward()[0], scale, low)
        labels = labels_in_pixels(photo.dice, w, h)
        if not finds:
            rows.append((n, len(labels), None, None, None, photo.folder))
            continue
        logits = reader.logits([pips.crop(frame, f) for f in finds])
        truth = match(finds, labels)
        for f, lg, t in zip(finds, logits, truth):
            rows.append((n, len(labels), f.score, lg, t, photo.folder))
    return rows


def match(finds, labels) -> list[int]:
    """The labelled face index (0..5) each find matches, or 6 (score_reads' rule)."""
    pairs = sorted((math.hypot(f.x - g["x"], f.y - g["y"]), i, j)
                   for i, f in enumerate(finds) for j, g in enumerate(labels))
    out, used_g = [6] * len(finds), set()
    used_f = set()
    for d, i, j in pairs:
        g = labels[j]
        if i in used_f or j in used_g or d > max(0.75 * max(g["w"], g["h"]), 15):
            continue
        used_f.add(i); used_g.add(j)
        out[i] = int(g["face"]) - 1
    return out


def nll(logits, truth, t):
    p = pips.softmax(logits, t)
    return -np.mean(np.log(p[np.arange(len(truth)), truth] + 1e-12))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=pips.MODELS)
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--target", type=float, default=0.997, help="share right wanted at confidence >= 0.9")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    settings_path = args.models / "pip_reader.json"
    settings = json.loads(settings_path.read_text()) if settings_path.exists() else {}
    settings.update({"temperature": 1.0, "turns": args.turns, "find_threshold": 0.1, "min_die_prob": 0.5})
    settings_path.write_text(json.dumps(settings))
    reader = pips.PipReader(models=args.models)
    rows = [r for r in collect(reader) if r[2] is not None]
    heat = np.array([r[2] for r in rows])
    logits = np.stack([r[3] for r in rows])
    truth = np.array([r[4] for r in rows])
    temps = np.exp(np.linspace(np.log(0.3), np.log(5), 60))
    fit = heat >= 0.25  # the many faint background finds would dominate otherwise
    t_best = float(min(temps, key=lambda t: nll(logits[fit], truth[fit], t)))
    p = pips.softmax(logits, t_best)
    k = np.argmax(p[:, :6], 1)
    best_thr, best_die, best_right = 0.3, 0.5, -1
    for thr in np.arange(0.1, 0.8, 0.05):
        for die_prob in (0.3, 0.5, 0.7, 0.8, 0.9):
            keep = (heat >= thr) & (1 - p[:, 6] >= die_prob)
            right = np.sum(keep & (k == truth))
            false = np.sum(keep & (truth == 6))
            if false <= 0.015 * max(1, keep.sum()) and right > best_right:
                best_right, best_thr, best_die = right, float(thr), die_prob
    t = t_best
    while True:
        p = pips.softmax(logits, t)
        keep = (heat >= best_thr) & (1 - p[:, 6] >= best_die)
        k = np.argmax(p[:, :6], 1)
        conf = p[np.arange(len(k)), k]
        sure = keep & (conf >= 0.9)
        rate = np.mean(k[sure] == truth[sure]) if sure.any() else 1.0
        if rate >= args.target or t > 20:
            break
        t *= 1.1
    settings.update({"temperature": round(t, 4), "find_threshold": round(best_thr, 3), "min_die_prob": best_die})
    settings_path.write_text(json.dumps(settings, indent=1) + "\n")
    print(f"temperature {t:.3f} (NLL-best {t_best:.3f}), find_threshold {best_thr:.2f}; on val: "
          f"{sure.sum()} reads >= 0.9, right {rate:.4f}; found-and-right {np.sum(keep & (k == truth))}"
          f" of {sum(1 for r in collect_counts(reader))} labelled", flush=True)


def collect_counts(reader):
    for photo in photos(side="val"):
        yield from photo.dice


if __name__ == "__main__":
    main()
