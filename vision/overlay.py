"""Overlay images: what the reader saw, so a person can check a reading at a glance.

Every die gets its outline and a label ``#n face confidence`` on the frame, coloured by
confidence (green >= 0.9, amber >= 0.5, red below: "the device would ask"). Under the
frame a strip repeats each die enlarged beside the face that was read, so a misread is
obvious even when the dice are small in the photo.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.roll import Roll

SURE, UNSURE, DOUBT = (60, 200, 60), (0, 170, 255), (40, 40, 230)  # BGR
TILE = 72
TILE_TEXT = 0.42  # font scale of the labels under the enlarged dice


def colour_for(confidence: float) -> tuple[int, int, int]:
    return SURE if confidence >= 0.9 else UNSURE if confidence >= 0.5 else DOUBT


def _label(canvas, text, org, colour, scale):
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, round(scale * 2))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    x, y = int(org[0]), int(org[1])
    x = min(max(0, x), max(0, canvas.shape[1] - tw - 2))
    y = min(max(th + 2, y), canvas.shape[0] - base - 1)
    cv2.rectangle(canvas, (x, y - th - 2), (x + tw + 2, y + base), (0, 0, 0), -1)
    cv2.putText(canvas, text, (x + 1, y), font, scale, colour, thick, cv2.LINE_AA)


def square_around(frame: np.ndarray, x: float, y: float, side: int, out: int) -> np.ndarray:
    """The ``side`` x ``side`` square of ``frame`` centred on (x, y), black where it runs
    past the frame's edge (so the point stays centred), resized to ``out`` x ``out``."""
    x0, y0 = int(round(x - side / 2)), int(round(y - side / 2))
    padded = cv2.copyMakeBorder(frame, side, side, side, side, cv2.BORDER_CONSTANT, value=(0, 0, 0))
    roi = padded[y0 + side:y0 + 2 * side, x0 + side:x0 + 2 * side]
    return cv2.resize(roi, (out, out), interpolation=cv2.INTER_AREA if side > out else cv2.INTER_CUBIC)


def _tile(frame, die, index) -> np.ndarray:
    """The die enlarged to TILE x TILE over its label; wider than TILE when the label is (a
    long face name such as SNOWFLAKE), so the face and confidence are never cut off."""
    side = max(8, int(round(1.3 * max(die.w, die.h))))
    tile = square_around(frame, die.x, die.y, side, TILE)
    text = f"#{index} {die.face} {die.confidence:.2f}"
    (text_w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, TILE_TEXT, max(1, round(TILE_TEXT * 2)))
    width = max(TILE, text_w + 4)
    left = (width - TILE) // 2
    out = np.zeros((TILE + 22, width, 3), np.uint8)
    out[:TILE, left:left + TILE] = tile
    cv2.rectangle(out, (left, 0), (left + TILE - 1, TILE - 1), colour_for(die.confidence), 2)
    _label(out, text, (2, TILE + 17), colour_for(die.confidence), TILE_TEXT)
    return out


def draw(frame: np.ndarray, roll: Roll, title: str = "") -> np.ndarray:
    """A copy of ``frame`` with every die outlined and labelled, plus the enlarged strip."""
    canvas = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    scale = max(0.4, max(canvas.shape[:2]) / 1400)
    thick = max(1, round(scale * 2.5))
    for n, die in enumerate(roll.dice, 1):
        colour = colour_for(die.confidence)
        outline = die.outline or ((die.x - die.w / 2, die.y - die.h / 2), (die.x + die.w / 2, die.y - die.h / 2),
                                  (die.x + die.w / 2, die.y + die.h / 2), (die.x - die.w / 2, die.y + die.h / 2))
        pts = np.round(np.array(outline, np.float32)).astype(np.int32)
        cv2.polylines(canvas, [pts], True, colour, thick, cv2.LINE_AA)
        _label(canvas, f"#{n} {die.face} {die.confidence:.2f}",
               (die.x - die.w / 2, die.y - die.h / 2 - 3), colour, scale)
    faces = [d.face for d in roll.dice]
    total = sum(int(f) for f in faces) if faces and all(f.isdigit() for f in faces) else None
    unsure = len(roll.uncertain())
    head = f"{title}  " if title else ""
    head += f"{len(faces)} dice" + (f", total {total}" if total is not None else "")
    head += f", {unsure} below 0.90" if unsure else ""
    _label(canvas, head, (4, 4 + 30 * scale), (255, 255, 255), scale)
    if not roll.dice:
        return canvas
    tiles = [_tile(frame, d, n) for n, d in enumerate(roll.dice, 1)]
    width = canvas.shape[1]
    rows, x = [], width
    for tile in tiles:
        if x + tile.shape[1] > width and (x > 0 or not rows):  # full: a new row (each holds one at least)
            rows.append(np.zeros((TILE + 22, width, 3), np.uint8))
            x = 0
        part = tile[:, :max(0, min(tile.shape[1], width - x))]
        rows[-1][:, x:x + part.shape[1]] = part
        x += tile.shape[1]
    return np.vstack([canvas, *rows])
