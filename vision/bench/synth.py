"""python -m vision.bench synth [--scenes 100] [--dice 10]

Speed of the synthetic dice renderer: milliseconds per 640x480 scene, on a plain tray and
on the mat, pip dice and custom-face dice.
"""
from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from vision import synth
from vision.roll import FACE_SETS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench synth", description=__doc__.split("\n\n")[1])
    parser.add_argument("--scenes", type=int, default=100)
    parser.add_argument("--dice", type=int, default=10)
    args = parser.parse_args(argv)
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # one core; CPU time of this thread
    try:
        _run(args)
    finally:
        cv2.setNumThreads(threads)
    return 0


def _run(args) -> None:
    for dice_set in ("d6-pips", "jingle-bell-roll"):
        faces = [FACE_SETS[dice_set][i % 6] for i in range(args.dice)]
        for background in ("tray", "mat"):
            synth.render_scene(faces, dice_set, seed=0, background=background)  # warm the caches
            times = []
            for seed in range(args.scenes):
                t0 = time.thread_time()
                synth.render_scene(faces, dice_set, seed=seed, background=background,
                                   die_px=30 if background == "tray" else None)
                times.append((time.thread_time() - t0) * 1000)
            arr = np.array(times)
            print(f"{dice_set:17s} {background:4s} {args.dice} dice 640x480: CPU median {np.median(arr):.1f} ms, "
                  f"p95 {np.percentile(arr, 95):.1f} ms (one thread)")


if __name__ == "__main__":
    raise SystemExit(main())
