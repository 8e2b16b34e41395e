"""python -m vision.bench rendered [--scenes 60] [--models DIR]

The pip reader on rendered scenes of the kind its finder trains on, but from seeds no
training run or checkpoint pick uses (7,000,000 + n; vision/training/scenes.py): dice
packed face to face in blocks, and loose dice (crowds, oblique views taken by an upright
camera, smoky dice, the mat). Prints recall, precision and per-die accuracy for each,
counted like score_reads.py. The real photos have one packed block among their held-out
photos; these scenes are where packed dice are measured. Busy tables: loose dice on a
printed game board among game pieces (vision/training/clutter.py). Then dice that are not pip dice
(numerals, letters, pictures: vision.training.symbols.not_pip_specs), which a pip reader
should not read: how many it reads all the same, and how many of those at >= 0.9.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from vision.bench.scoring import Tally
from vision.pips import MODELS, PipReader
from vision.training.scenes import MEASURE_SEED as FIRST_SEED, scene_labels, training_scene

KINDS = {"packed blocks": {"block_share": 1.0}, "loose dice": {}, "busy tables": {"busy_share": 1.0}}


def tally_scenes(reader, scenes: int, kind: dict) -> Tally:
    tally = Tally()
    for n in range(scenes):
        image, dice = training_scene(FIRST_SEED + n, upright=True, **kind)
        tally.add(scene_labels(dice), [d.to_json() for d in reader(image).dice])
    return tally


def not_pip_reads(reader, scenes: int) -> tuple[int, int, int]:
    """(dice with numerals, letters or pictures, how many the reader read as pip dice, how
    many of those at >= 0.9) over rendered scenes of such dice."""
    dice = read = sure = 0
    for n in range(scenes):
        image, truth = training_scene(FIRST_SEED + n, symbol_share=1.0, not_pips=True, upright=True)
        reads = reader(image).dice
        dice += len(truth)
        read += len(reads)
        sure += sum(d.confidence >= 0.9 for d in reads)
    return dice, read, sure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench rendered",
                                     description=__doc__.split("\n\n")[1])
    parser.add_argument("--scenes", type=int, default=60, help="scenes of each kind")
    parser.add_argument("--models", type=Path, default=MODELS, help="the pip reader's models folder")
    args = parser.parse_args(argv)
    if args.scenes < 1:
        parser.error(f"--scenes {args.scenes}: expected at least 1")
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        reader = PipReader(models=args.models)
        print(f"pip reader ({args.models}) on rendered scenes, seeds {FIRST_SEED}+n")
        for kind, options in KINDS.items():
            t = tally_scenes(reader, args.scenes, options)
            print(f"{kind:13s} {args.scenes} scenes, {t.labelled} dice: recall {t.recall:.1%}, "
                  f"precision {t.precision:.1%}, per die {t.per_die:.1%}", flush=True)
        dice, read, sure = not_pip_reads(reader, args.scenes)
        print(f"not pip dice {args.scenes} scenes, {dice} dice: {read} read as pip dice "
              f"({read / max(dice, 1):.1%}), {sure} of them at >= 0.9", flush=True)
    finally:
        cv2.setNumThreads(threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
