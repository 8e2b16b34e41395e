"""python -m vision.bench settle [--size 1280x720] [--rolls 3] [--seed 0]

Cost of the settle gate per frame (goal: at most 2 ms at 1280x720 on one core), measured on
synthetic camera frames rendered beforehand (throws, hands, hovers, nudges), and how many
reads it made against the number of settles the script holds.
"""
from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from vision.settle import SettleGate
from vision.sources import ScriptedRoll, SyntheticCamera


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x720, not {text!r}") from None
    return w, h


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench settle", description=__doc__.split("\n\n")[1])
    parser.add_argument("--size", type=parse_size, default=(1280, 720))
    parser.add_argument("--rolls", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    script = [ScriptedRoll(tuple(str(f) for f in rng.integers(1, 7, rng.integers(2, 6))),
                           hover=bool(i % 2 == 0), nudge=bool(i % 3 == 1)) for i in range(args.rolls)]
    expected = len(script) + sum(r.nudge for r in script)
    camera = SyntheticCamera(args.seed, script=script, size=args.size, hold=1.0)
    started = time.perf_counter()
    frames = list(camera)
    render_ms = (time.perf_counter() - started) * 1000 / len(frames)

    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # one core, as on a busy Pi; CPU time of this thread
    gate = SettleGate()
    costs, walls, reads = [], [], 0
    try:
        for image, t in frames:
            t0, w0 = time.thread_time(), time.perf_counter()
            settle = gate.update(image, t)
            costs.append((time.thread_time() - t0) * 1000)
            walls.append((time.perf_counter() - w0) * 1000)
            reads += settle is not None
    finally:
        cv2.setNumThreads(threads)
    costs_arr = np.array(costs)
    w, h = args.size
    print(f"settle gate on {len(frames)} synthetic {w}x{h} frames ({render_ms:.1f} ms each to render)")
    print(f"  CPU per frame, one thread: median {np.median(costs_arr):.2f} ms, p95 {np.percentile(costs_arr, 95):.2f} ms, "
          f"max {costs_arr.max():.2f} ms (goal: <= 2 ms); wall-clock median {np.median(walls):.2f} ms")
    print(f"  reads: {reads} (first scene = empty tray) + expected {expected} settles of "
          f"{len(script)} throws, {sum(r.hover for r in script)} hovers, {sum(r.nudge for r in script)} nudges")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
