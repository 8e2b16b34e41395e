"""python -m vision.bench big [--split test|val|train] [--folder NAME] [--data DIR] [--models DIR]

The pip reader on frames bigger than the 640 px photos it learnt from, made from the shared
real photos of one side of the fixed split (default 'test', the held-out photos):

* **mosaics**: k x k photos side by side (1280 px for 2x2, 1920 px for 3x3), so the frame
  grows and its dice keep their 20-40 px, as small dice in a wide camera frame or a phone
  photo taken from afar; here the finder's finer, tiled passes must find them
  (vision/pips.py: ``run_finder``);
* **blown up**: each photo enlarged 2x and 3x, so every die grows with the frame, as in a
  phone photo of big dice; here the whole-frame pass should read them as in the photo
  itself, and finer passes would mostly add false finds.

For each: per-die accuracy (found and face right), recall, precision, the reads at
confidence >= 0.9 and the share of them right, counted like score_reads.py; the same photos
read one by one at 640 px as the reference; and the median CPU milliseconds per frame (one
OpenCV thread). Photos whose dice carry no labels are left out.
"""
from __future__ import annotations

import time

import cv2
import numpy as np

from vision.bench.photos import per_folder
from vision.bench.scoring import Tally

MOSAICS = (2, 3)
ENLARGE = (2.0, 3.0)


def tally_frames(reader, frames) -> tuple[Tally, list[float]]:
    """Read each (frame, labels in pixels): the tally and the CPU milliseconds per frame."""
    tally, ms = Tally(), []
    for frame, labels in frames:
        start = time.process_time()
        roll = reader(frame)
        ms.append(1000 * (time.process_time() - start))
        tally.add(labels, [d.to_json() for d in roll.dice])
    return tally, ms


def mosaic(images: list[np.ndarray], labels: list[list[dict]], k: int) -> tuple[np.ndarray, list[dict]]:
    """k x k photos (all the same size) side by side in one frame, their labels moved with them."""
    h, w = images[0].shape[:2]
    frame = np.zeros((h * k, w * k, 3), np.uint8)
    moved = []
    for j, (image, dice) in enumerate(zip(images, labels)):
        oy, ox = h * (j // k), w * (j % k)
        frame[oy:oy + h, ox:ox + w] = image
        moved += [{**d, "x": d["x"] + ox, "y": d["y"] + oy} for d in dice]
    return frame, moved


def enlarged(labels: list[dict], factor: float) -> list[dict]:
    return [{**d, **{key: d[key] * factor for key in ("x", "y", "w", "h")}} for d in labels]


def line(name: str, tally: Tally, ms: list[float]) -> str:
    sure, right = tally.confident(0.9)
    return (f"  {name:22s} {tally.images:3d} frames, {tally.labelled:4d} dice: per die {tally.per_die:6.1%}, "
            f"recall {tally.recall:6.1%}, precision {tally.precision:6.1%}, >= 0.9: {sure:4d} reads "
            f"{right:6.1%} right, median {np.median(ms):5.0f} ms")


def measure(reader, images: list[np.ndarray], labels: list[list[dict]]) -> list[str]:
    """One printed line per kind of frame made from these photos and their labels (pixels)."""
    out = [line("each photo alone", *tally_frames(reader, zip(images, labels)))]
    same = [i for i, im in enumerate(images) if im.shape == images[0].shape]  # mosaics need one size
    for k in MOSAICS:
        groups = [same[start:start + k * k] for start in range(0, len(same) - k * k + 1, k * k)]
        if groups:
            frames = (mosaic([images[i] for i in g], [labels[i] for i in g], k) for g in groups)
            out.append(line(f"{k}x{k} mosaics", *tally_frames(reader, frames)))
    for factor in ENLARGE:
        frames = ((cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC),
                   enlarged(dice, factor)) for image, dice in zip(images, labels))
        out.append(line(f"blown up {factor:g}x", *tally_frames(reader, frames)))
    return out


def main(argv: list[str] | None = None) -> int:
    return per_folder(argv, "big", __doc__, "pip reader on big frames made from {data} ({split} split), "
                      "one OpenCV thread", measure)


if __name__ == "__main__":
    raise SystemExit(main())
