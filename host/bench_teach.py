"""Benchmark: teach a custom die set at the camera, then read rolls from that camera.

    python -m host.bench_teach                     # 4 cameras per set, 25 rolls each
    python -m host.bench_teach --cameras 8 --rolls 40 --sets jingle-bell-roll
    python -m host.bench_teach --seeds 5 6 8          # particular cameras (5: a blurry one)

What a player does on the device, on the synthetic camera: for each camera seed (its own
tray, light and die set look), teach the set there as `dicewatch teach --camera
synthetic:SEED` does (one die per face, 8 pictures each, moved and turned between them),
then throw random rolls of 3-7 dice at the same camera (a hand throws, the dice tumble and
settle, a hand hovers now and then) and read each settled frame as the device does (settle
gate, calibrated tray finder, the taught set). Every read is counted like
../shared/tools/score_reads.py counts: a die counts if it was found and its face is right.
The same frames are also read with the built-in stand-in set (taught from rendered crops of
many die looks) for comparison. These are rendered dice: real dice at a real table will read
worse; see the README for the real-photo figures.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

SETS = ("jingle-bell-roll", "christmas-romance")


def random_script(dice_set: str, rolls: int, seed: int):
    """``rolls`` random throws of 3-7 dice (faces drawn with repeats), some with a hover."""
    import numpy as np
    from vision.roll import FACE_SETS
    from vision.synthetic_camera import ScriptedRoll
    rng = np.random.default_rng([seed, 31])
    faces = FACE_SETS[dice_set]
    return [ScriptedRoll(tuple(faces[i] for i in rng.integers(0, len(faces), int(rng.integers(3, 8)))),
                         hover=bool(rng.random() < 0.25))
            for _ in range(rolls)]


def settled_reads(dice_set: str, seed: int, rolls: int, readers: dict):
    """Yield (truth dice, {reader name: roll}) for each throw's first read of still dice."""
    from host.demo_table import calibrate_synthetic
    from host.watcher import FrameWatcher
    from vision.synthetic_camera import SyntheticCamera
    calibration, note = calibrate_synthetic(seed)
    if calibration is None:
        raise RuntimeError(note)
    watchers = {name: FrameWatcher(make(calibration), calibration=calibration) for name, make in readers.items()}
    camera = SyntheticCamera(seed, script=random_script(dice_set, rolls, seed), dice_set=dice_set,
                             fps=10.0, hold=1.2, lead_in=0.4)
    done = set()
    for image, t in camera:
        truth = camera.truth
        rolls_now = {name: watcher((image, t))[1] for name, watcher in watchers.items()}
        if truth.phase != "still" or truth.roll in done:
            continue
        if all(roll is not None for roll in rolls_now.values()):
            done.add(truth.roll)
            yield truth.dice, rolls_now


def as_labels(dice) -> list[dict]:
    return [{"face": d.face, "x": d.x, "y": d.y, "w": d.w, "h": d.h} for d in dice]


def as_reads(roll) -> list[dict]:
    return [{"face": d.face, "x": d.x, "y": d.y, "confidence": d.confidence} for d in roll.dice]


def camera_seeds(cameras: int) -> list[int]:
    """The default cameras: seeds 1000, 1017, 1034, ... (each its own tray, light and die look)."""
    return [1000 + 17 * n for n in range(cameras)]


def bench_set(dice_set: str, seeds: list[int], rolls: int, shots: int) -> None:
    from host.demo_table import teach_at_synthetic_camera
    from host.watcher import dice_reader
    from vision.bench.scoring import Tally
    tallies = {"taught at the camera": Tally(), "built-in stand-ins": Tally()}
    checks, per_camera, throws, started = [], [], 0, time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dicewatch-bench-") as folder:
        builtin_data = Path(folder) / "built-in"  # nothing taught there: the built-in set
        for seed in seeds:
            data = Path(folder) / f"camera-{seed}"
            right, total = teach_at_synthetic_camera(dice_set, seed, data, shots=shots)
            checks.append(f"{right}/{total}")
            readers = {"taught at the camera": lambda cal, data=data: dice_reader(dice_set, data, cal),
                       "built-in stand-ins": lambda cal: dice_reader(dice_set, builtin_data, cal)}
            here = Tally()
            for truth, reads in settled_reads(dice_set, seed, rolls, readers):
                throws += 1
                here.add(as_labels(truth), as_reads(reads["taught at the camera"]))
                for name, roll in reads.items():
                    tallies[name].add(as_labels(truth), as_reads(roll))
            per_camera.append(f"{seed}: {here.right}/{here.labelled}")
    print(f"{dice_set}: {len(seeds)} cameras, {throws} settled throws read, "
          f"{tallies['taught at the camera'].labelled} dice ({time.perf_counter() - started:.0f} s)")
    print(f"  teaching self-check per camera (examples read right when left out): {', '.join(checks)}")
    print(f"  taught set per camera (seed: dice read right / thrown): {', '.join(per_camera)}")
    for name, tally in tallies.items():
        sure = [ok for conf, ok in tally.readings if conf >= 0.9]
        print(f"  {name:22s} per die {tally.per_die:6.1%}  recall {tally.recall:6.1%}  "
              f"precision {tally.precision:6.1%}  throws exact {tally.images_exact}/{tally.images}  "
              f"conf>=0.9 on {len(sure)} reads, {len(sure) - sum(sure)} wrong", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m host.bench_teach", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--cameras", type=int, default=4, help="camera seeds per set: 1000, 1017, ... (default 4)")
    which.add_argument("--seeds", type=int, nargs="+", metavar="SEED", help="these camera seeds instead")
    parser.add_argument("--rolls", type=int, default=25, help="throws per camera (default 25)")
    parser.add_argument("--shots", type=int, default=8, help="teaching pictures per face (default 8)")
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated (default {','.join(SETS)})")
    args = parser.parse_args(argv)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    bad = [s for s in sets if s not in SETS]
    if bad:
        parser.error(f"--sets: {bad[0]!r} is not one of {', '.join(SETS)}")
    if args.cameras < 1 or args.rolls < 1 or args.shots < 5:
        parser.error("--cameras and --rolls must be at least 1, --shots at least 5")
    import cv2
    cv2.setNumThreads(1)
    for dice_set in sets:
        bench_set(dice_set, args.seeds or camera_seeds(args.cameras), args.rolls, args.shots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
