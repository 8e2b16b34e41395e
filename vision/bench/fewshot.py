"""Few-shot accuracy of taught dice (vision/taught.py), printed as figures.

  python -m vision.bench.fewshot [--data DIR] [--shots 8] [--seeds 3] [--real-only|--synth-only]
                                 [--read held-out|train]

(a) real: the pip dice of d6-real are taught *as if they were unknown symbols*: crops of a few
    photos (ground-truth boxes, ``--shots`` per face) from the 'train' side of the fixed split
    (vision/training/split.py) teach faces "1".."6"; the photos of the 'val' and 'test' sides
    are then read (no network has seen them: the taught-dice embedding learnt from the
    'train' side's die crops without their labels). Reported per folder: crop-level accuracy
    on ground-truth boxes, and, when a die finder is available, per-die accuracy counted like
    /work/shared/tools/score_reads.py. epanemu's augmented copies of one photo share a side.
    ``--read train`` reads the 'train' side's photos that did not teach instead: a larger
    set (about 200 distinct epanemu scenes against 28 on 'val') for trying a matcher
    setting without looking at the held-out photos; the embedding saw those dice unlabelled.
    Printed first per folder when the held-out photos are read, as a reference and not a
    few-shot figure: the pip reader's own face network, trained on these faces' labels, on
    the same ground-truth boxes (``pip_reader_accuracy``).
(b) synthetic: taught from rendered face crops, reading rendered scenes whose poses and
    lighting were not used for teaching.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from vision import taught
from vision.bench.errors import SceneRow, spread_lines
from vision.pips import FACES, Find, PipReader, softmax
from vision.training.split import group_of, side_of

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "d6-real"


def load_labels(folder: Path, stem: str, width: int, height: int) -> list[tuple[str, float, float, float, float]]:
    out = []
    path = folder / "labels" / f"{stem}.txt"
    if not path.is_file():
        return out
    for line in path.read_text().splitlines():
        p = line.split()
        if len(p) < 5:
            continue
        cls, cx, cy, w, h = int(p[0]), *map(float, p[1:5])
        out.append((str(cls + 1), cx * width, cy * height, w * width, h * height))
    return out


READ_SIDES = ("held-out", "train")


def split_photos(folder: Path, shots: int, seed: int, read: str = "held-out"):
    """Teaching crops (shots per face, from as few 'train'-side photos as it takes, in an
    order shuffled by ``seed``), how many photos taught, and the photos to read: the 'val'
    and 'test' sides (``read="held-out"``) or the 'train' side's photos that did not teach
    (``read="train"``, other copies of a teaching photo left out too)."""
    if read not in READ_SIDES:
        raise ValueError(f"read={read!r}: expected one of {', '.join(READ_SIDES)}")
    stems = sorted(p.stem for p in (folder / "images").glob("*.jpg"))
    groups = defaultdict(list)
    for stem in stems:
        groups[group_of(stem)].append(stem)
    order = sorted(g for g in groups if side_of(g) == "train")
    random.Random(seed).shuffle(order)
    examples: dict[str, list[np.ndarray]] = {str(f): [] for f in range(1, 7)}
    teach_groups = set()
    for group in order:
        if all(len(v) >= shots for v in examples.values()):
            break
        stem = groups[group][0]  # one copy per group for teaching
        image = cv2.imread(str(folder / "images" / f"{stem}.jpg"))
        used = False
        for face, x, y, w, h in load_labels(folder, stem, image.shape[1], image.shape[0]):
            if len(examples[face]) < shots:
                examples[face].append(taught.face_crop(image, x, y, w, h))
                used = True
        if used:
            teach_groups.add(group)
    if read == "train":
        tests = [s for g in sorted(groups) if side_of(g) == "train" and g not in teach_groups
                 for s in groups[g]]
    else:
        tests = [s for g in sorted(groups) if side_of(g) != "train" for s in groups[g]]
    return examples, len(teach_groups), tests


def labelled_photos(folder: Path, tests, scenes: dict[str, SceneRow]):
    """Each of the ``tests`` photos with its labels and its scene's row in ``scenes`` (a scene
    is a photo and its augmented copies, ``split.group_of``), the photo already counted in
    the row; the caller adds the dice it reads and its misreads."""
    for stem in tests:
        image = cv2.imread(str(folder / "images" / f"{stem}.jpg"))
        row = scenes.setdefault(group_of(stem), SceneRow(group_of(stem)))
        row.photos += 1
        yield image, load_labels(folder, stem, image.shape[1], image.shape[0]), row


def crop_accuracy(folder: Path, model, tests, threshold=0.9):
    """The taught model on every labelled die's ground-truth box of the ``tests`` photos:
    accuracy, how many reads are >= ``threshold`` sure and how many of those are wrong, the
    commonest confusions, and per scene (a photo and its augmented copies) the dice and
    misreads, for ``errors.scene_spread``."""
    confident = confident_wrong = 0
    confusion = defaultdict(int)
    scenes: dict[str, SceneRow] = {}
    for image, labels, row in labelled_photos(folder, tests, scenes):
        for face, x, y, w, h in labels:
            got, conf = model.classify(taught.face_crop(image, x, y, w, h))
            row.dice += 1
            row.misread += got != face
            if conf >= threshold:
                confident += 1
                confident_wrong += got != face
            if got != face:
                confusion[f"{face}->{got}"] += 1
    n = sum(r.dice for r in scenes.values())
    correct = sum(r.right for r in scenes.values())
    return {"dice": n, "acc": correct / max(n, 1), "confident": confident / max(n, 1),
            "confident_err": confident_wrong / max(confident, 1),
            "top_confusions": sorted(confusion.items(), key=lambda kv: -kv[1])[:4],
            "scenes": list(scenes.values())}


def pip_reader_accuracy(folder: Path, tests, reader) -> list[SceneRow]:
    """A reference for the real few-shot figures, not one of them: the pip reader's own face
    network (``vision.pips``, which learnt these dice's faces from the labels of the 'train'
    side) reading every labelled die of the ``tests`` photos from the same ground-truth boxes;
    per scene, the dice and misreads. A reader taught from 8 examples per face is measured
    against what full supervision reaches on the same dice."""
    scenes: dict[str, SceneRow] = {}
    for image, labels, row in labelled_photos(folder, tests, scenes):
        if not labels:
            continue
        finds = [Find(x, y, w, h, 1.0) for _, x, y, w, h in labels]
        probs = softmax(reader.logits(reader.crops(image, finds)), reader.temperature)
        read = [FACES[k] for k in np.argmax(probs[:, :6], axis=1)]
        row.dice += len(labels)
        row.misread += sum(got != face for got, (face, *_) in zip(read, labels))
    return list(scenes.values())


def finder_or_none():
    """The pip reader's die finder (finds dice whatever their faces), or None if not installed."""
    try:
        from vision.dicesets import pip_finder
        return pip_finder()
    except Exception as exc:  # noqa: BLE001 - reported, the figures on ground-truth boxes still run
        print(f"  (no die finder: {exc})")
        return None


def detector_accuracy(folder: Path, model, tests, finder):
    """Per-die accuracy of finder + taught model, counted like score_reads.py."""
    from vision.bench.scoring import Tally
    tally = Tally()
    for stem in tests:
        image = cv2.imread(str(folder / "images" / f"{stem}.jpg"))
        labels = [{"face": f, "x": x, "y": y, "w": w, "h": h}
                  for f, x, y, w, h in load_labels(folder, stem, image.shape[1], image.shape[0])]
        roll = taught.read_boxes(image, finder(image), model, "taught")
        tally.add(labels, [{"face": d.face, "x": d.x, "y": d.y, "confidence": d.confidence}
                           for d in roll.dice])
    return tally


def real_figures(data: Path, shots: int, seeds: int, use_finder: bool, read: str = "held-out") -> None:
    if use_finder and read == "train":
        # the pip finder learnt from these photos' labels: its boxes there would flatter
        print("real: reading the 'train' side on ground-truth boxes only (the die finder "
              "was trained on those photos)")
        use_finder = False
    finder = finder_or_none() if use_finder else None
    pip_reader = None
    if read == "held-out":  # on the 'train' side the pip reader learnt the very dice it would read
        pip_reader = PipReader()
    for folder in sorted(p for p in data.iterdir() if (p / "images").is_dir()):
        accs, per_die = [], []
        if pip_reader is not None:
            rows = pip_reader_accuracy(folder, split_photos(folder, shots, 0, read)[2], pip_reader)
            total = sum(r.dice for r in rows)
            print(f"real {folder.name}: reference, not a few-shot figure: the pip reader's face "
                  f"network, which learnt these dice from the 'train' side's labels, reads "
                  f"{sum(r.right for r in rows) / max(total, 1):.1%} of the same {total} "
                  f"ground-truth boxes", flush=True)
            for line in spread_lines(rows, precision=False):
                print(f"  reference, {line}", flush=True)
        for seed in range(seeds):
            t0 = time.perf_counter()
            examples, n_teach, tests = split_photos(folder, shots, seed, read)
            short = {f: len(v) for f, v in examples.items() if len(v) < shots}
            if short:
                print(f"  {folder.name} seed {seed}: not enough examples {short}")
                continue
            model = taught.teach(examples)
            t_teach = time.perf_counter() - t0
            res = crop_accuracy(folder, model, tests)
            accs.append(res["acc"])
            print(f"real {folder.name} seed {seed} [{model.kind}]: taught from {n_teach} photos "
                  f"({shots}/face, {t_teach:.1f}s), reading {len(tests)} {read} photos; "
                  f"ground-truth boxes: {res['dice']} dice, "
                  f"accuracy {res['acc']:.1%}; conf>=0.9 on {res['confident']:.1%} "
                  f"with {res['confident_err']:.1%} wrong; confusions {res['top_confusions']}",
                  flush=True)
            for line in spread_lines(res["scenes"], precision=False):
                print(f"  ground-truth boxes, {line}", flush=True)
            if finder is not None:
                tally = detector_accuracy(folder, model, tests, finder)
                n_conf, share = tally.confident()
                per_die.append(tally.per_die)
                print(f"real {folder.name} seed {seed} [{model.kind}]: with the die finder: "
                      f"per-die accuracy {tally.per_die:.1%} (recall {tally.recall:.1%}, "
                      f"precision {tally.precision:.1%}, photos all right {tally.image_exact:.1%}; "
                      f"conf>=0.9: {n_conf} reads, {share:.1%} right)", flush=True)
        if accs:
            line = (f"real {folder.name}: mean over {len(accs)} splits: ground-truth boxes "
                    f"{np.mean(accs):.1%}")
            if per_die:
                line += f", with the die finder {np.mean(per_die):.1%} per die"
            print(line + " (goal >= 97% per die)", flush=True)


SYNTH_SETS = ("jingle-bell-roll", "christmas-romance")


def synthetic_figures(shots: int, seeds: int, scenes: int, use_finder: bool) -> None:
    """Teach each built-in set from rendered crops of one die style, read rendered scenes of
    the same dice (other poses, places, light, blur and noise)."""
    from vision import synth
    from vision.roll import FACE_SETS
    finder = finder_or_none() if use_finder else None
    for dice_set in SYNTH_SETS:
        faces = FACE_SETS[dice_set]
        right = total = sure = sure_wrong = 0
        tally = None
        if finder is not None:
            from vision.bench.scoring import Tally
            tally = Tally()
        for seed in range(seeds):
            style = synth.random_style(np.random.default_rng([seed, 77]))
            examples = {face: [taught.tighten_crop(synth.render_face_crop(dice_set, face, seed=10_000 + 100 * i + n,
                                                      style=style))
                               for n in range(shots)]
                        for i, face in enumerate(faces)}
            model = taught.teach(examples)
            rng = np.random.default_rng([seed, 78])
            for k in range(scenes):
                roll_faces = list(rng.choice(faces, int(rng.integers(3, 7))))
                image, truth = synth.render_scene(roll_faces, dice_set, seed=50_000 + 1000 * seed + k,
                                                  style=style, background=("mat", "tray")[k % 2])
                for die in truth.dice:
                    got, conf = model.classify(taught.face_crop(image, die.x, die.y, die.w, die.h))
                    total += 1
                    right += got == die.face
                    sure += conf >= 0.9
                    sure_wrong += conf >= 0.9 and got != die.face
                if tally is not None:
                    roll = taught.read_boxes(image, finder(image), model, dice_set)
                    tally.add([{"face": d.face, "x": d.x, "y": d.y, "w": d.w, "h": d.h} for d in truth.dice],
                              [{"face": d.face, "x": d.x, "y": d.y, "confidence": d.confidence}
                               for d in roll.dice])
        print(f"synthetic {dice_set} [{model.kind}]: {seeds} die styles, {shots} crops/face, "
              f"{total} dice in {seeds * scenes} scenes: ground-truth boxes {right / total:.1%}; "
              f"conf>=0.9 on {sure / total:.1%} with {sure_wrong} wrong (goal >= 99%)", flush=True)
        if tally is not None:
            print(f"synthetic {dice_set} [{model.kind}]: with the die finder: per-die accuracy "
                  f"{tally.per_die:.1%} (recall {tally.recall:.1%}, precision {tally.precision:.1%})",
                  flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench.fewshot", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--shots", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=2, help="teaching splits / die styles")
    parser.add_argument("--scenes", type=int, default=20, help="synthetic scenes per die style")
    parser.add_argument("--no-finder", action="store_true", help="ground-truth boxes only")
    parser.add_argument("--real-only", action="store_true")
    parser.add_argument("--synth-only", action="store_true")
    parser.add_argument("--read", choices=READ_SIDES, default="held-out",
                        help="real photos to read: the 'val' and 'test' sides, or the 'train' "
                             "side's photos that did not teach (for trying settings)")
    parser.add_argument("--kind", choices=sorted(taught.KINDS), help="features to teach with (default: the installed)")
    parser.add_argument("--embedding", type=Path, help="read with this embedding model (.onnx) instead of the installed")
    args = parser.parse_args(argv)
    if args.embedding:
        taught.use_embedding(args.embedding)
    if args.kind:
        taught.DEFAULT_KIND = args.kind
    print(f"== few-shot taught dice ({args.shots} examples per face)")
    if not args.synth_only:
        if args.data.is_dir():
            real_figures(args.data, args.shots, args.seeds, not args.no_finder, args.read)
        else:
            print(f"real: skipped, no photos at {args.data}")
    if not args.real_only:
        synthetic_figures(args.shots, args.seeds, args.scenes, not args.no_finder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
