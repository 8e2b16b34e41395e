"""Reading dice from a frame or an image file: the one public entry point of ``vision``.

    from vision.reader import read_frame, read_image
    roll = read_image("tray.jpg")            # standard pip d6
    print(roll.faces, [d.confidence for d in roll.dice])

``reader_for(dice_set)`` is the single place where a dice-set name becomes a reader (a
callable ``frame -> Roll``); the pip reader is built in, taught sets plug in there.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from vision.roll import Roll

Reader = Callable[[np.ndarray], Roll]
BUILT_IN = ("d6-pips",)


class ImageError(ValueError):
    """An image file that cannot be read: missing, empty, not an image."""

    def __init__(self, path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


class UnknownDiceSet(ValueError):
    """A dice-set name with no reader."""


@lru_cache(maxsize=8)
def reader_for(dice_set: str = "d6-pips") -> Reader:
    """The reader for a dice set name (built once, then reused)."""
    if dice_set == "d6-pips":
        from vision.pips import PipReader
        return PipReader()
    # Taught dice sets (vision/taught.py) are resolved here once their loader exists.
    raise UnknownDiceSet(f"unknown dice set {dice_set!r}; known: {', '.join(BUILT_IN)}")


def read_frame(frame_bgr: np.ndarray, dice_set: str = "d6-pips") -> Roll:
    """Every die in one BGR frame, with face, confidence, centre and outline in its pixels."""
    if frame_bgr is None or frame_bgr.size == 0:
        raise ValueError("empty frame")
    return reader_for(dice_set)(frame_bgr)


def load_image(path) -> np.ndarray:
    """A BGR image from a file, or ImageError saying why not."""
    path = Path(path)
    if not path.exists():
        raise ImageError(path, "no such file")
    if path.is_dir():
        raise ImageError(path, "is a directory, not an image file")
    if os.path.getsize(path) == 0:
        raise ImageError(path, "empty file (0 bytes)")
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        raise ImageError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error as exc:  # e.g. a header claiming more pixels than OpenCV will decode
        raise ImageError(path, f"not an image OpenCV can decode: {cv_reason(exc)}") from None
    if image is None or image.size == 0:
        raise ImageError(path, "not an image OpenCV can decode (expected JPEG, PNG, BMP, TIFF or WebP)")
    return image


def cv_reason(exc: Exception) -> str:
    """The readable part of an OpenCV error ("pixels <= CV_IO_MAX_IMAGE_PIXELS" becomes
    "too many pixels")."""
    text = str(exc)
    if "CV_IO_MAX_IMAGE_PIXELS" in text or "CV_IO_MAX_IMAGE_WIDTH" in text or "CV_IO_MAX_IMAGE_HEIGHT" in text:
        return "too many pixels (OpenCV decodes at most 2^30 pixels, 2^20 a side)"
    match = re.search(r"error: \([-\d]+:[^)]*\) (.*?)(?: in function|$)", text)
    return (match.group(1) if match else text).strip()


def read_image(path, dice_set: str = "d6-pips") -> Roll:
    """``read_frame`` on an image file; ImageError if the file is not a readable image."""
    return read_frame(load_image(path), dice_set)
