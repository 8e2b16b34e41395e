"""The box learning its dice as it plays, on real photos and on the built-in rendered sets.

  python -m vision.bench learn [--data DIR] [--folder byler-train] [--shots 8] [--seeds 1]
                               [--confidence 0.9] [--real-only|--synth-only] [--scenes 60]

Real: the pip dice of d6-real are taught as unknown symbols (faces "1".."6") from
``--shots`` ground-truth crops per face of 'train'-side photos (as ``vision.bench fewshot``
does), then the held-out photos ('val' and 'test' sides, one copy of each scene: an
augmented copy of a photo just learned would flatter the curve) are gone through in order
as if each were a roll at the table: the die finder and the reader read it; each read die is
matched to a labelled die as /work/shared/tools/score_reads.py matches them; a die read
below ``--confidence`` is one the box asks about; a wrong one the player corrects (asked or
not: the player sees the score), a right one is accepted; then the roll's dice are offered
to the learner (vision/learning.py) as the table would offer them, and the next photo is
read with what it learned. Rendered: each built-in set taught from 8 rendered crops of one
die style, then rendered scenes of that style (other poses, light, blur) the same way.

Printed per block of 10 rolls: dice on the photos, read right (per die, missed dice count
as wrong), dice asked about, sure reads (>= ``--confidence``) that were wrong, and the time
a roll took to read and to learn from (wall clock, one process: noisy on a shared machine);
then the figures after the first 30 rolls.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision import learning, taught
from vision.bench.scoring import pair_up

BLOCK = 10
WARM_UP = 30   # rolls before the goal is measured


@dataclass
class Block:
    rolls: int = 0
    dice: int = 0
    right: int = 0
    asked: int = 0
    sure: int = 0
    sure_wrong: int = 0
    false_finds: int = 0
    aside: int = 0
    read_s: float = 0.0     # reading the rolls (finder and reader)
    learn_s: float = 0.0    # learning from them

    def add(self, other: "Block") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self, label: str, examples: int | None = None) -> str:
        text = (f"{label:<14} {self.dice:>4} dice: read right {self.right / max(self.dice, 1):6.1%}, "
                f"asked about {self.asked:>3} ({self.asked / max(self.dice, 1):5.1%}), "
                f"sure and wrong {self.sure_wrong:>2} of {self.sure:>3}, false finds {self.false_finds}")
        if self.aside:
            text += f", kept aside {self.aside}"
        text += (f"; {1000 * self.read_s / max(self.rolls, 1):.0f} ms a roll to read, "
                 f"{1000 * self.learn_s / max(self.rolls, 1):.0f} to learn")
        return text + (f"; reads with {examples} examples" if examples is not None else "")


@dataclass
class Curve:
    blocks: list[Block] = field(default_factory=list)

    def roll(self, result: Block) -> None:
        if not self.blocks or self.blocks[-1].rolls == BLOCK:
            self.blocks.append(Block())
        self.blocks[-1].add(result)

    def after(self, rolls: int) -> Block:
        out = Block()
        for block in self.blocks[rolls // BLOCK:]:
            out.add(block)
        return out


def play_roll(image, labels: list[dict], learner: learning.Learner, find, threshold: float,
              roll_id: int, shift: float | None = None, learn: bool = True,
              outcomes: list | None = None) -> Block:
    """One photo as one roll: read it with the learner's model, its confidences weighed by the
    table's word on the rolls before (``outcomes``, as vision.learning.TableLearner does),
    count as the player would, then offer its dice (the player's corrections as such) to the
    learner and their outcomes to the table's word."""
    outcomes = [] if outcomes is None else outcomes
    started = time.perf_counter()
    raw = taught.read_boxes(image, find(image), learner.model(), "learning", shift=shift)
    roll = learning.TableRecord.of(outcomes).weigh(raw) if learn else raw
    read_s = time.perf_counter() - started
    reads = [{"face": d.face, "x": d.x, "y": d.y, "confidence": d.confidence} for d in roll.dice]
    matched = pair_up(reads, labels)
    out = Block(rolls=1, dice=len(labels), false_finds=len(reads) - len(matched), read_s=read_s)
    batch = []
    for i, j in matched.items():
        die, truth = roll.dice[i], labels[j]["face"]
        right = die.face == truth
        out.right += right
        out.asked += die.confidence < threshold
        out.sure += die.confidence >= threshold
        out.sure_wrong += die.confidence >= threshold and not right
        source = learning.ACCEPTED if right else learning.CORRECTED
        crop = taught.face_crop(image, die.x, die.y, die.w, die.h, shift)
        key = learning.example_key("bench", roll_id, i)
        batch.append((learning.Example(key, truth, source, "bench", roll_id, i), learning.scaled_crop(crop)))
        if learn:
            outcomes.append(learning.Outcome(key, "bench", raw.dice[i].confidence, right))
    if learn:
        started = time.perf_counter()
        out.aside = len(learner.offer(batch).aside)
        learner.model()   # built for the next roll: part of learning
        out.learn_s = time.perf_counter() - started
    return out


def print_curve(title: str, curve: Curve, learner: learning.Learner, seconds: float) -> Block:
    print(title, flush=True)
    done = 0
    for block in curve.blocks:
        print("  " + block.line(f"rolls {done + 1}-{done + block.rolls}"), flush=True)
        done += block.rolls
    late = curve.after(WARM_UP)
    counts = learner.counts()
    in_use = ", ".join(f"{face} {sum(c.values())}" for face, c in counts.items())
    print("  " + late.line(f"after {WARM_UP}"), flush=True)
    every = curve.after(0)
    print(f"  reads at or above the confidence setting that were wrong: {late.sure_wrong} of {late.sure} "
          f"({late.sure_wrong / max(late.sure, 1):.1%}) after {WARM_UP} rolls, {every.sure_wrong} of "
          f"{every.sure} ({every.sure_wrong / max(every.sure, 1):.1%}) in all (goal under 0.5%)", flush=True)
    print(f"  examples per face at the end: {in_use}; self-check {learner.self_check()[0]}/"
          f"{learner.self_check()[1]}; {seconds:.0f} s", flush=True)
    return late


def real_curves(data: Path, folders: list[str], shots: int, seeds: int, threshold: float,
                learn: bool) -> list[Block]:
    from vision.bench.fewshot import labelled_photos, split_photos
    from vision.dicesets import pip_finder
    from vision.training.split import group_of
    find = pip_finder()
    results = []
    for folder in folders:
        for seed in range(seeds):
            started = time.perf_counter()
            examples, n_teach, tests = split_photos(data / folder, shots, seed)
            seen, order = set(), []
            for stem in tests:   # one copy of each scene
                if group_of(stem) not in seen:
                    seen.add(group_of(stem))
                    order.append(stem)
            base = taught.teach(examples)
            learner = learning.Learner(tuple(examples), examples, base=base)
            curve, outcomes = Curve(), []
            for n, (image, labels, _) in enumerate(labelled_photos(data / folder, order, {})):
                labels = [{"face": f, "x": x, "y": y, "w": w, "h": h} for f, x, y, w, h in labels]
                curve.roll(play_roll(image, labels, learner, find, threshold, n, learn=learn, outcomes=outcomes))
            results.append(print_curve(
                f"real {folder} (draw {seed}): taught {shots} per face from {n_teach} photos, "
                f"{len(order)} held-out photos as rolls{'' if learn else ', NOT learning'}",
                curve, learner, time.perf_counter() - started))
    return results


def rendered_curves(seeds: int, scenes: int, shots: int, threshold: float, learn: bool) -> list[Block]:
    from vision import synth
    from vision.dicesets import pip_finder
    from vision.roll import FACE_SETS
    find = pip_finder()
    results = []
    for dice_set in ("jingle-bell-roll", "christmas-romance"):
        faces = FACE_SETS[dice_set]
        for seed in range(seeds):
            started = time.perf_counter()
            style = synth.random_style(np.random.default_rng([seed, 77]))
            examples = {face: [taught.tighten_crop(synth.render_face_crop(
                dice_set, face, seed=10_000 + 100 * i + n, style=style)) for n in range(shots)]
                for i, face in enumerate(faces)}
            learner = learning.Learner(faces, examples, base=taught.teach(examples))
            rng = np.random.default_rng([seed, 78])
            curve, outcomes = Curve(), []
            for k in range(scenes):
                roll_faces = list(rng.choice(faces, int(rng.integers(3, 7))))
                image, truth = synth.render_scene(roll_faces, dice_set, seed=50_000 + 1000 * seed + k,
                                                  style=style, background=("mat", "tray")[k % 2])
                labels = [{"face": d.face, "x": d.x, "y": d.y, "w": d.w, "h": d.h} for d in truth.dice]
                curve.roll(play_roll(image, labels, learner, find, threshold, k, learn=learn, outcomes=outcomes))
            results.append(print_curve(f"rendered {dice_set} (die style {seed}): taught {shots} per face, "
                                       f"{scenes} scenes as rolls{'' if learn else ', NOT learning'}",
                                       curve, learner, time.perf_counter() - started))
    return results


def main(argv=None) -> int:
    from vision.training.split import DEFAULT_ROOT, FOLDERS
    parser = argparse.ArgumentParser(prog="python -m vision.bench learn", description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_ROOT, help="the d6-real folder")
    parser.add_argument("--folder", choices=FOLDERS, action="append",
                        help="real photos of this folder only (repeatable; default all)")
    parser.add_argument("--shots", type=int, default=8, help="taught examples per face (default 8)")
    parser.add_argument("--seeds", type=int, default=1, help="teaching draws / die styles (default 1)")
    parser.add_argument("--scenes", type=int, default=60, help="rendered scenes per die style (default 60)")
    parser.add_argument("--confidence", type=float, default=0.9,
                        help="the box asks about reads below this (default 0.9, the config's default)")
    parser.add_argument("--no-learning", action="store_true", help="read every roll with the taught set only")
    parser.add_argument("--real-only", action="store_true")
    parser.add_argument("--synth-only", action="store_true")
    args = parser.parse_args(argv)
    if not 0.0 < args.confidence <= 1.0:
        parser.error(f"--confidence {args.confidence}: expected a number above 0 and at most 1")
    learn = not args.no_learning
    print(f"== learning at the table: {args.shots} taught examples per face, then each roll's dice "
          f"learned (asked below {args.confidence}); goal after {WARM_UP} rolls: >= 98% per die, "
          f"no sure read wrong")
    if not args.synth_only:
        if args.data.is_dir():
            real_curves(args.data, args.folder or list(FOLDERS), args.shots, args.seeds,
                        args.confidence, learn)
        else:
            print(f"real: skipped, no photos at {args.data}")
    if not args.real_only:
        rendered_curves(args.seeds, args.scenes, args.shots, args.confidence, learn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
