"""Overlay images: what the reader saw, so a person can check a reading at a glance.

Every die gets its outline and a label ``#n face confidence`` on the frame, coloured by
confidence (green >= 0.9, amber >= 0.5, red below: "the device would ask"), placed where it
covers no other label (dice touching each other: above, below or beside each die). Under the
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


def label_rect(text: str, org, scale: float, shape) -> tuple[int, int, int, int]:
    """Where ``_label`` draws ``text`` with its baseline's left end at ``org`` on an image of
    ``shape``: (x0, y0, x1, y1) of its black box, moved inside the image."""
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, round(scale * 2)))
    x = min(max(0, int(org[0])), max(0, shape[1] - tw - 2))
    y = min(max(th + 2, int(org[1])), shape[0] - base - 1)
    return x, y - th - 2, x + tw + 2, y + base


def _label(canvas, text, org, colour, scale):
    x0, y0, x1, y1 = label_rect(text, org, scale, canvas.shape)
    (_, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, round(scale * 2)))
    cv2.rectangle(canvas, (x0, y0), (x1, y1), (0, 0, 0), -1)
    cv2.putText(canvas, text, (x0 + 1, y0 + th + 2), cv2.FONT_HERSHEY_SIMPLEX, scale, colour,
                max(1, round(scale * 2)), cv2.LINE_AA)


def _overlap(a, b) -> int:
    """Area shared by two (x0, y0, x1, y1) boxes."""
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


def place_labels(roll: Roll, shape, scale: float, taken=()) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Each die's label and its box on the photo, placed so that labels of dice lying close
    together cover neither each other nor the other dice: right above or below the die if
    free, else beside it, else a line further up or down (``draw`` joins such a label to its
    die with a thin line). Where no place is free, the label shrinks to the die's number
    (the strip under the photo still has it in full); where even that finds no free place,
    it goes where it covers the least."""
    dice_boxes = [tuple(int(round(v)) for v in (d.x - d.w / 2, d.y - d.h / 2, d.x + d.w / 2, d.y + d.h / 2))
                  for d in roll.dice]
    placed = list(taken)
    out = []
    for n, (die, (x0, y0, x1, y1)) in enumerate(zip(roll.dice, dice_boxes), 1):
        best = None
        for short, text in enumerate((f"#{n} {die.face} {die.confidence:.2f}", f"#{n}")):
            (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, round(scale * 2)))
            line = th + base + 4
            spots = [(0, (x0, y0 - 3)), (0, (x0, y1 + th + 4)), (0, (x1 - tw, y0 - 3)), (0, (x1 - tw, y1 + th + 4)),
                     (0, (x1 + 3, (y0 + y1) / 2 + th / 2)), (0, (x0 - tw - 5, (y0 + y1) / 2 + th / 2))]
            for away in range(1, 5):  # further up and down, for a crowd
                spots += [(away, (x0, y0 - 3 - away * line)), (away, (x0, y1 + th + 4 + away * line))]
            for order, (away, spot) in enumerate(spots):
                rect = label_rect(text, spot, scale, shape)
                on_labels = sum(_overlap(rect, other) for other in placed)
                on_dice = sum(_overlap(rect, box) for k, box in enumerate(dice_boxes) if k != n - 1)
                score = (on_labels > 0, on_dice > 0, short, on_labels + on_dice, away, order)
                if best is None or score < best[0]:
                    best = (score, text, rect)
            if best[0][:2] == (False, False):
                break  # the full label found a free place
        out.append((best[1], best[2]))
        placed.append(best[2])
    return out


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
    for die in roll.dice:
        outline = die.outline or ((die.x - die.w / 2, die.y - die.h / 2), (die.x + die.w / 2, die.y - die.h / 2),
                                  (die.x + die.w / 2, die.y + die.h / 2), (die.x - die.w / 2, die.y + die.h / 2))
        pts = np.round(np.array(outline, np.float32)).astype(np.int32)
        cv2.polylines(canvas, [pts], True, colour_for(die.confidence), thick, cv2.LINE_AA)
    faces = [d.face for d in roll.dice]
    total = sum(int(f) for f in faces) if faces and all(f.isdigit() for f in faces) else None
    unsure = len(roll.uncertain())
    head = f"{title}  " if title else ""
    head += f"{len(faces)} dice" + (f", total {total}" if total is not None else "")
    head += f", {unsure} below 0.90" if unsure else ""
    head_at = (4, 4 + 30 * scale)
    labels = place_labels(roll, canvas.shape, scale, taken=[label_rect(head, head_at, scale, canvas.shape)])
    for die, (_, rect) in zip(roll.dice, labels):
        near = (rect[0] - 8 <= die.x + die.w / 2 and rect[2] + 8 >= die.x - die.w / 2
                and rect[1] - 8 <= die.y + die.h / 2 and rect[3] + 8 >= die.y - die.h / 2)
        if not near:  # a label moved away from a crowd: a thin line (under every label) shows whose it is
            end = (int(np.clip(die.x, rect[0], rect[2])), rect[3] if rect[3] < die.y else rect[1])
            cv2.line(canvas, end, (int(die.x), int(die.y)), colour_for(die.confidence), 1, cv2.LINE_AA)
    for die, (text, rect) in zip(roll.dice, labels):
        (_, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, round(scale * 2)))
        _label(canvas, text, (rect[0], rect[1] + th + 2), colour_for(die.confidence), scale)
    _label(canvas, head, head_at, (255, 255, 255), scale)
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
