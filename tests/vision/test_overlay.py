"""Overlay images: the strip of enlarged dice under the frame labels every die in full."""
from __future__ import annotations

import cv2
import numpy as np

from vision import overlay
from vision.roll import Die, Roll


def _label_columns(strip: np.ndarray, colour) -> np.ndarray:
    """Columns of the strip's label line drawn in ``colour`` (the label text's own colour)."""
    line = strip[overlay.TILE + 2:].astype(int)  # below the tile's coloured frame
    return np.flatnonzero((np.abs(line - np.array(colour)).sum(axis=2) < 30).any(axis=0))


def test_long_face_names_keep_their_confidence_in_the_strip():
    """SNOWFLAKE or STOCKING under a 72 px tile: the whole '#1 SNOWFLAKE 0.55' is drawn, not
    cut off by the next die's tile (the confidence was lost, and the face half-hidden)."""
    frame = np.full((480, 640, 3), 150, np.uint8)
    roll = Roll((Die("SNOWFLAKE", 0.55, 100, 100, 24, 24), Die("FACE-2", 0.93, 140, 100, 24, 24),
                 Die("STOCKING", 0.3, 300, 300, 24, 24)), "christmas-romance", (640, 480))
    image = overlay.draw(frame, roll, "cr.png")
    strip = image[480:480 + overlay.TILE + 22]
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, overlay.TILE_TEXT
    first = _label_columns(strip, overlay.UNSURE)
    second = _label_columns(strip, overlay.SURE)
    third = _label_columns(strip, overlay.DOUBT)
    for columns, text in ((first, "#1 SNOWFLAKE 0.55"), (second, "#2 FACE-2 0.93"), (third, "#3 STOCKING 0.30")):
        width = cv2.getTextSize(text, font, scale, 1)[0][0]
        assert columns.max() - columns.min() >= width - 12, text  # the whole label is there (its last glyph at least partly)
    assert first.max() < second.min() and second.max() < third.min()  # side by side, none on another


def test_a_strip_wraps_to_more_rows_and_a_tiny_frame_still_draws():
    frame = np.full((480, 640, 3), 150, np.uint8)
    roll = Roll(tuple(Die("SNOWFLAKE", 0.5, 30 + 20 * i, 100, 24, 24) for i in range(12)), "christmas-romance",
                (640, 480))
    image = overlay.draw(frame, roll)
    assert image.shape[1] == 640 and (image.shape[0] - 480) % (overlay.TILE + 22) == 0
    assert image.shape[0] - 480 >= 3 * (overlay.TILE + 22)  # wider tiles: fewer per row
    tiny = overlay.draw(np.full((45, 60, 3), 150, np.uint8), Roll((Die("SNOWFLAKE", 0.5, 30, 20, 10, 10),), "x"))
    assert tiny.shape == (45 + overlay.TILE + 22, 60, 3)


def test_labels_of_touching_dice_do_not_cover_each_other_on_the_photo():
    """Seven dice in a row, touching, as Jingle Bell Roll's kept dice lie: each label finds a
    free place (above, below, beside); before, each sat on the one before it."""
    frame = np.full((480, 640, 3), 150, np.uint8)
    row = tuple(Die(face, 0.55 + 0.05 * i, 200 + 26 * i, 240, 24, 24)
                for i, face in enumerate(("MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL", "MILK")))
    crowd = row + tuple(Die("GIFT", 0.97, 200 + 26 * i, 266, 24, 24) for i in range(7))   # a second row below
    for roll in (Roll(row, "jingle-bell-roll", (640, 480)), Roll(crowd, "jingle-bell-roll", (640, 480))):
        scale = max(0.4, 640 / 1400)
        labels = overlay.place_labels(roll, frame.shape, scale)
        rects = [rect for _, rect in labels]
        assert all(overlay._overlap(a, b) == 0 for i, a in enumerate(rects) for b in rects[i + 1:])
        assert all(0 <= r[0] and r[2] <= 640 and 0 <= r[1] and r[3] <= 480 for r in rects)
        texts = [text for text, _ in labels]
        assert all(text.startswith(f"#{n}") for n, text in enumerate(texts, 1))
    full = [text for text, _ in overlay.place_labels(Roll(row, "jingle-bell-roll", (640, 480)), frame.shape, scale)]
    assert full[3] == "#4 STOCKING 0.70"          # a single row leaves room for every full label
    assert overlay.draw(frame, Roll(crowd, "jingle-bell-roll", (640, 480))).shape[1] == 640
