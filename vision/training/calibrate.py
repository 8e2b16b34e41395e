"""Fit the reader's settings on the validation photos and write models/pip_reader.json.

  python -m vision.training.calibrate [--models vision/models] [--turns 4]

Runs the exported ONNX models through cv2.dnn (exactly as the reader does) on the 'val' side
of the split, matches finds to labels the way the scorer does, then picks:

* ``find_threshold`` and ``min_die_prob`` (how sure the face reader must be that a find is a
  die): the pair giving the most dice found-and-right with at most 1.5% false finds;
* ``temperature``: the softmax temperature minimising the negative log-likelihood of the
  right answer (the labelled face, or "no die" for a find with no label);
* ``trust``: a logistic regression, on val, of whether a read is right, from the face
  probability at that temperature, its margin over the second face, the "no die"
  probability, the finder's score and the die's size (``pips.trust_features``);
* the confidence curve (``confidence_knots``): the trust score ``q`` is mapped to the
  reported confidence so that (a) the reads reported at >= 0.9 are the largest top slice of
  ``q`` (at least ``--min-sure`` reads) that was right at least ``--target`` of the time on
  val (selective reading: the device asks about everything below 0.9), and (b) below that
  slice the confidence is the share right seen at that ``q`` on val (isotonic fit, pulled
  towards 0.5 for small counts), capped just under 0.9;
* ``box_scale``: how much wider and taller a die's whole silhouette is than the finder's box
  (medians over rendered scenes of made-up-symbol dice, ``fit_box_scale``). The pip reader
  itself does not use it (its crops were fitted to the finder's boxes above); taught dice
  read through this finder do, since their teaching crops were cut around whole dice.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from vision import pips
from vision.bench.scoring import labels_in_pixels, pair_up
from vision.training.split import photos


def labelled_photos(side: str = "val", root=None):
    """The photos of ``side`` with at least one labelled die. A photo of dice with none
    labelled is a labelling omission, not an empty table (epanemu's dice_417 shows 15 dice
    and labels none): every read there would count as a false find, and its sure reads
    would decide the confidence curve."""
    found = photos(side=side) if root is None else photos(root, side=side)
    return [p for p in found if p.dice]


def collect(reader: pips.PipReader, side: str = "val", low: float = 0.1):
    """Per find: (photo index, labelled dice in the photo, heat score, averaged logits, true
    class or 6 = no die, folder, die size px)."""
    rows = []
    for n, photo in enumerate(labelled_photos(side)):
        frame = cv2.imread(str(photo.image))
        h, w = frame.shape[:2]
        finds = reader.find(frame, low)
        labels = labels_in_pixels(photo.dice, w, h)
        if not finds:
            rows.append((n, len(labels), None, None, None, photo.folder, None))
            continue
        logits = reader.logits(reader.crops(frame, finds))
        truth = match(finds, labels)
        for f, lg, t in zip(finds, logits, truth):
            rows.append((n, len(labels), f.score, lg, t, photo.folder, max(f.w, f.h)))
    return rows


def match(finds, labels) -> list[int]:
    """The labelled face index (0..5) each find matches, or 6 (score_reads' rule)."""
    out = [6] * len(finds)
    for i, j in pair_up([{"x": f.x, "y": f.y} for f in finds], labels).items():
        out[i] = int(labels[j]["face"]) - 1
    return out


def nll(logits, truth, t):
    p = pips.softmax(logits, t)
    return -np.mean(np.log(p[np.arange(len(truth)), truth] + 1e-12))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=pips.MODELS)
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--target", type=float, default=0.985,
                    help="share right wanted on val at confidence >= 0.9 (val's labels have a "
                         "few errors, so 0.99 leaves a slice of a third of the reads)")
    ap.add_argument("--min-sure", type=int, default=100, help="fewest val reads in the >= 0.9 slice")
    ap.add_argument("--crop", type=int, help="the face reader's crop side (default: as recorded)")
    ap.add_argument("--find-size", type=int, help="the finder's input side (default: as recorded)")
    ap.add_argument("--mirror", action=argparse.BooleanOptionalAction, default=None,
                    help="the finder also reads a frame mirrored where its heatmap is unsure "
                         "(pips.finder_maps; default: as recorded)")
    mirror_args = ap.add_mutually_exclusive_group()
    mirror_args.add_argument("--mirror-faces", type=float, metavar="BELOW",
                    help="the face reader reads a crop again mirrored left to right (and averages "
                         "the two) when its top probability is below BELOW; 1 = every crop "
                         "(default: as recorded)")
    mirror_args.add_argument("--no-mirror-faces", action="store_true",
                    help="read each crop once")
    ap.add_argument("--thresholds", type=float, nargs=2, metavar=("FIND", "DIE_PROB"),
                    help="use this finder threshold and 'is a die' probability instead of picking "
                         "them on val (whose crowded scenes leave dice unlabelled: their finds "
                         "count as false, which pushes the pick towards missing dice)")
    faint_args = ap.add_mutually_exclusive_group()
    faint_args.add_argument("--faint", type=float, nargs=3, metavar=("FIND", "DIE_PROB", "FACE_PROB"),
                    help="also keep finds whose heat is at least FIND (below the finder threshold) "
                         "when the face reader gives 'a die' at least DIE_PROB and its face at "
                         "least FACE_PROB (pips.PipReader.keep; default: as recorded)")
    faint_args.add_argument("--no-faint", action="store_true", help="keep no faint finds")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    settings_path = args.models / "pip_reader.json"
    settings = json.loads(settings_path.read_text()) if settings_path.exists() else {}
    faint = settings.get("faint_finds")
    if args.faint:
        faint = dict(zip(pips.FAINT_KEYS, args.faint))
    if args.no_faint:
        faint = None

    def check_faint(find_threshold: float) -> None:
        if faint is not None:
            try:
                pips.check_faint(faint, find_threshold, "--faint")
            except ValueError as exc:
                ap.error(str(exc))

    # before the slow part; checked again below once a threshold is picked
    check_faint(args.thresholds[0] if args.thresholds else float("inf"))
    settings.update({"temperature": 1.0, "turns": args.turns, "find_threshold": 0.1, "min_die_prob": 0.5,
                     "confidence_knots": None, "trust": None, "faint_finds": None})
    if args.crop:
        settings["crop"] = args.crop
    if args.find_size:
        settings["find_size"] = args.find_size
    if args.mirror is not None:
        settings["find_mirror"] = args.mirror
    if args.mirror_faces is not None:
        try:
            pips.check_mirror_faces(args.mirror_faces, "--mirror-faces")
        except ValueError as exc:
            ap.error(str(exc))
        settings["mirror_faces"] = args.mirror_faces
    if args.no_mirror_faces:
        settings["mirror_faces"] = None
    settings_path.write_text(json.dumps(settings))
    reader = pips.PipReader(models=args.models)
    low = min(0.1, faint["threshold"]) if faint else 0.1
    rows = [r for r in collect(reader, low=low) if r[2] is not None]
    heat = np.array([r[2] for r in rows])
    logits = np.stack([r[3] for r in rows])
    truth = np.array([r[4] for r in rows])
    temps = np.exp(np.linspace(np.log(0.3), np.log(5), 60))
    fit = heat >= 0.25  # the many faint background finds would dominate otherwise
    t_best = float(min(temps, key=lambda t: nll(logits[fit], truth[fit], t)))
    p = pips.softmax(logits, t_best)
    k = np.argmax(p[:, :6], 1)
    best_thr, best_die = args.thresholds or pick_thresholds(heat, p, truth)
    t = t_best
    p = pips.softmax(logits, t)
    check_faint(best_thr)
    keep = pips.dice_kept(heat, p, best_thr, best_die, faint)
    k = np.argmax(p[:, :6], 1)
    size = np.array([r[6] for r in rows])
    right = (k == truth)[keep]
    x = pips.trust_features(p[keep], heat[keep], size[keep])
    w, b = logistic_fit(x, right)
    q = 1.0 / (1.0 + np.exp(-(x @ w + b)))
    knots = confidence_knots(q, right, args.target, args.min_sure)
    conf = np.interp(q, *zip(*knots))
    sure = conf >= 0.9
    rate = float(np.mean(right[sure])) if sure.any() else 1.0
    reader.find_threshold = best_thr  # boxes as read
    settings["box_scale"] = fit_box_scale(reader)
    settings.update({"temperature": round(t, 4), "find_threshold": round(best_thr, 3), "min_die_prob": best_die,
                     "faint_finds": faint,
                     "trust": {"weights": [round(float(v), 5) for v in w], "bias": round(float(b), 5)},
                     "confidence_knots": [[round(a, 5), round(c, 5)] for a, c in knots]})
    settings_path.write_text(json.dumps(settings, indent=1) + "\n")
    print(f"temperature {t:.3f}, find_threshold {best_thr:.2f}, min_die_prob {best_die}; on val: "
          f"{sure.sum()} of {len(q)} reads >= 0.9, right {rate:.4f}; found-and-right {right.sum()}"
          f" of {sum(1 for r in collect_counts(reader))} labelled", flush=True)


BOX_SCENES = 80  # rendered scenes for fit_box_scale (from scenes.MEASURE_SEED: none trained on)


def fit_box_scale(reader: pips.PipReader, scenes: int = BOX_SCENES) -> list[float]:
    """[width, height] factors from the finder's boxes to the dice's silhouette boxes: the
    median label / find ratio over rendered scenes of made-up-symbol dice (upright camera),
    finds matched to labels as the scorer does."""
    from vision.training.scenes import MEASURE_SEED, scene_labels, training_scene
    widths, heights = [], []
    for n in range(scenes):
        image, dice = training_scene(MEASURE_SEED + n, symbol_share=1.0, upright=True)
        labels = scene_labels(dice)
        finds = reader.find(image)
        for i, j in pair_up([{"x": f.x, "y": f.y} for f in finds], labels).items():
            widths.append(labels[j]["w"] / finds[i].w)
            heights.append(labels[j]["h"] / finds[i].h)
    if not widths:
        return [1.0, 1.0]
    return [round(float(np.median(widths)), 3), round(float(np.median(heights)), 3)]


FALLBACK_THRESHOLDS = (0.3, 0.5)  # (find_threshold, min_die_prob) when no pair qualifies


def pick_thresholds(heat: np.ndarray, p: np.ndarray, truth: np.ndarray, slack: float = 0.002,
                    max_false: float = 0.015) -> tuple[float, float]:
    """(find_threshold, min_die_prob): among the pairs whose false finds stay under
    ``max_false`` of what they keep, those within ``slack`` (share of all matched finds) of the
    most found-and-right, and of those the one keeping the fewest false finds (then the
    fewest finds: less work for the face reader). When no pair qualifies: FALLBACK_THRESHOLDS,
    with a warning."""
    k = np.argmax(p[:, :6], 1)
    labelled = max(1, int(np.sum(truth < 6)))
    options = []
    for thr in np.arange(0.1, 0.8, 0.05):
        for die_prob in (0.3, 0.5, 0.7, 0.8, 0.9):
            keep = (heat >= thr) & (1 - p[:, 6] >= die_prob)
            right = int(np.sum(keep & (k == truth)))
            false = int(np.sum(keep & (truth == 6)))
            if false <= max_false * max(1, keep.sum()):
                options.append((right, false, int(keep.sum()), round(float(thr), 3), die_prob))
    if not options:
        # e.g. epanemu's crowded val scenes, whose unlabelled dice count as false finds
        print(f"calibrate: no finder threshold keeps false finds under {max_false:.1%} on val; "
              f"using {FALLBACK_THRESHOLDS}", flush=True)
        return FALLBACK_THRESHOLDS
    most = max(o[0] for o in options)
    near = [o for o in options if o[0] >= most - slack * labelled]
    _, _, _, thr, die_prob = min(near, key=lambda o: (o[1], o[2]))
    return thr, die_prob


def logistic_fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50):
    """Weights and bias of an L2-regularised logistic regression (Newton steps), with the
    features standardised inside so ``l2`` means the same for each."""
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.column_stack([(x - mu) / sd, np.ones(len(x))])
    y = y.astype(float)
    beta = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(steps):
        pr = 1.0 / (1.0 + np.exp(-z @ beta))
        grad = z.T @ (pr - y) + reg * beta
        hess = (z * (pr * (1 - pr))[:, None]).T @ z + np.diag(reg + 1e-9)
        beta -= np.linalg.solve(hess, grad)
    w = beta[:-1] / sd
    return w, float(beta[-1] - (mu / sd) @ beta[:-1])


def isotonic(y: np.ndarray) -> np.ndarray:
    """Pool-adjacent-violators: the non-decreasing sequence closest to ``y`` (least squares)."""
    blocks = []  # [sum, count]
    for v in y:
        blocks.append([float(v), 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    return np.concatenate([np.full(c, s / c) for s, c in blocks]) if blocks else np.zeros(0)


def confidence_knots(q: np.ndarray, right: np.ndarray, target: float, min_sure: int = 20
                     ) -> list[tuple[float, float]]:
    """Monotone (q, confidence) knots; see the module docstring. ``min_sure``: the top slice
    must hold at least this many val reads, else nothing reads >= 0.9."""
    order = np.argsort(q)
    qs, rs = q[order], right[order].astype(float)
    # top slice: the lowest cut whose reads above it are right >= target
    tail_right = np.cumsum(rs[::-1])[::-1]
    tail_count = np.arange(len(rs), 0, -1)
    ok = (tail_right / tail_count >= target) & (tail_count >= min_sure)
    cut = float(qs[np.argmax(ok)]) if ok.any() else 1.0
    below = qs < cut
    # share right below the cut, isotonic in q, pulled towards 0.5 where few reads back it
    fit = isotonic(rs[below]) if below.any() else np.zeros(0)
    knots = [(0.0, 0.0)]
    if below.any():
        n = below.sum()
        step = max(1, n // 12)
        for i in range(0, n, step):
            j = min(n, i + step)
            share = (fit[i:j].sum() + 0.5) / (j - i + 1)
            knots.append((float(qs[below][i:j].mean()), float(min(0.899, share))))
    knots.append((cut, 0.9) if cut < 1.0 else (1.0, 0.899))
    if cut < 1.0:
        knots.append((1.0, 1.0))
    out, last_q, last_c = [], -1.0, 0.0
    for a, b in knots:  # strictly increasing q, non-decreasing confidence
        if a > last_q:
            last_c = max(last_c, b)
            out.append((a, last_c))
            last_q = a
    return out


def collect_counts(reader):
    for photo in photos(side="val"):
        yield from photo.dice


if __name__ == "__main__":
    main()
