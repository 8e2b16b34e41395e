"""What the benchmarks over the shared real photos share: their options (``--data``,
``--split``, ``--folder``, ``--models``) and the loop that reads each folder's labelled
photos of one side of the fixed split with the pip reader on one OpenCV thread."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Iterable

import cv2
import numpy as np

from vision.bench.scoring import labels_in_pixels
from vision.pips import MODELS, PipReader
from vision.training.split import DEFAULT_ROOT, FOLDERS, photos

# (reader, images, their labels in pixels) -> the lines to print for one folder
Report = Callable[[PipReader, list[np.ndarray], list[list[dict]]], Iterable[str]]


def per_folder(argv: list[str] | None, name: str, doc: str, heading: str, report: Report) -> int:
    """``python -m vision.bench NAME``: parse the options (the help is ``doc``'s second
    paragraph), then print ``heading`` (formatted with ``data`` and ``split``) and, for each
    folder, its name and the lines of ``report``. 1 when there are no photos."""
    ap = argparse.ArgumentParser(prog=f"python -m vision.bench {name}", description=doc.split("\n\n")[1])
    ap.add_argument("--data", type=Path, default=DEFAULT_ROOT, help="the d6-real folder")
    ap.add_argument("--split", choices=("test", "val", "train"), default="test")
    ap.add_argument("--folder", choices=FOLDERS, action="append", help="only this folder (repeatable)")
    ap.add_argument("--models", type=Path, default=MODELS, help="the pip reader's models folder")
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"vision.bench.{name}: no photos at {args.data}; nothing to measure", file=sys.stderr)
        return 1
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        reader = PipReader(models=args.models)
        print(heading.format(data=args.data, split=args.split))
        for folder in args.folder or FOLDERS:
            labelled = [p for p in photos(args.data, folder=folder, side=args.split) if p.dice]
            images = [cv2.imread(str(p.image)) for p in labelled]
            labels = [labels_in_pixels(p.dice, im.shape[1], im.shape[0]) for p, im in zip(labelled, images)]
            print(folder, flush=True)
            for text in report(reader, images, labels):
                print(text, flush=True)
    finally:
        cv2.setNumThreads(threads)
    return 0
