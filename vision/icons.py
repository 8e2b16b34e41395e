"""Face art for the synthetic dice, drawn by our own code with OpenCV primitives.

These are stand-ins, not the games' printed art: simple pictures a person would name the
same way (a milk bottle, a cookie, a bell ...). They let the renderer make custom-face dice
for tests, the demo and training; a real die set is always *taught* from photos of the
real dice (``dicewatch teach``).

``christmas-romance``: the rulebook names only the SNOWFLAKE. Its five other faces have
placeholder names (FACE-2 .. FACE-6) and get stand-in pictures here: a heart, a tree, a mug,
a star and a candy cane. They are ours, chosen only to be easy to tell apart.

Every icon is drawn into a square canvas of side ``size`` in one ink colour, centred, with
its "up" towards row 0, so the die's rotation turns the icon with it.
"""
from __future__ import annotations

import math
from typing import Callable

import cv2
import numpy as np

LINE = cv2.LINE_AA
SHIFT = 4  # sub-pixel bits for OpenCV drawing
ONE = 1 << SHIFT

# Stand-in pictures for the placeholder faces of christmas-romance (see module docstring).
STAND_INS = {"FACE-2": "heart", "FACE-3": "tree", "FACE-4": "mug", "FACE-5": "star", "FACE-6": "candy cane"}


class _Pen:
    """Draws in coordinates where the canvas is the unit square (0..1), with sub-pixel accuracy."""

    def __init__(self, canvas: np.ndarray, ink: tuple[int, int, int]):
        self.canvas = canvas
        self.size = canvas.shape[0]
        self.ink = tuple(int(c) for c in ink)

    def p(self, x: float, y: float) -> tuple[int, int]:
        return int(round(x * self.size * ONE)), int(round(y * self.size * ONE))

    def n(self, length: float) -> int:
        return max(1, int(round(length * self.size * ONE)))

    def w(self, width: float) -> int:
        return max(1, int(round(width * self.size)))

    def poly(self, points, colour=None) -> None:
        pts = np.array([self.p(x, y) for x, y in points], np.int32)
        cv2.fillPoly(self.canvas, [pts], colour or self.ink, LINE, SHIFT)

    def circle(self, x, y, r, colour=None, width=-1) -> None:
        thickness = -1 if width < 0 else self.w(width)
        cv2.circle(self.canvas, self.p(x, y), self.n(r), colour or self.ink, thickness, LINE, SHIFT)

    def ellipse(self, x, y, rx, ry, angle=0.0, start=0.0, end=360.0, colour=None, width=-1) -> None:
        thickness = -1 if width < 0 else self.w(width)
        cv2.ellipse(self.canvas, self.p(x, y), (self.n(rx), self.n(ry)), angle, start, end,
                    colour or self.ink, thickness, LINE, SHIFT)

    def line(self, x0, y0, x1, y1, width, colour=None) -> None:
        cv2.line(self.canvas, self.p(x0, y0), self.p(x1, y1), colour or self.ink, self.w(width), LINE, SHIFT)

    def rect(self, x0, y0, x1, y1, colour=None) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], colour)

    def rounded_rect(self, x0, y0, x1, y1, r, colour=None) -> None:
        self.rect(x0 + r, y0, x1 - r, y1, colour)
        self.rect(x0, y0 + r, x1, y1 - r, colour)
        for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r)):
            self.circle(cx, cy, r, colour)


def milk(pen: _Pen, hole) -> None:
    """A milk bottle: cap, neck, shoulders, body, and a label band cut out."""
    pen.rect(0.43, 0.16, 0.57, 0.22)                                   # cap
    pen.poly([(0.44, 0.22), (0.56, 0.22), (0.57, 0.32), (0.66, 0.42), (0.66, 0.84),
              (0.34, 0.84), (0.34, 0.42), (0.43, 0.32)])               # neck + body
    pen.rect(0.38, 0.52, 0.62, 0.66, hole)                             # label
    pen.line(0.42, 0.59, 0.58, 0.59, 0.025)                            # "MILK" line on the label


def cookie(pen: _Pen, hole) -> None:
    """A round cookie with a bite out of it and chocolate chips (holes)."""
    pen.circle(0.5, 0.5, 0.33)
    pen.circle(0.79, 0.27, 0.12, hole)                                 # the bite
    for x, y, r in ((0.40, 0.38, 0.045), (0.56, 0.50, 0.05), (0.37, 0.60, 0.04),
                    (0.52, 0.70, 0.045), (0.66, 0.64, 0.035)):
        pen.circle(x, y, r, hole)


def shopping_list(pen: _Pen, hole) -> None:
    """A sheet with a folded corner and written lines (Santa's list)."""
    pen.poly([(0.28, 0.14), (0.60, 0.14), (0.72, 0.26), (0.72, 0.86), (0.28, 0.86)])
    pen.poly([(0.60, 0.14), (0.60, 0.26), (0.72, 0.26)], hole)         # folded corner
    for i, y in enumerate((0.36, 0.48, 0.60, 0.72)):
        pen.circle(0.36, y, 0.025, hole)                               # tick boxes
        pen.line(0.42, y, 0.64 - 0.05 * (i % 2), y, 0.035, hole)


def stocking(pen: _Pen, hole) -> None:
    """A Christmas stocking: a cuff on top, the leg, and the foot pointing left."""
    pen.rect(0.42, 0.14, 0.72, 0.27)                                   # cuff
    pen.poly([(0.45, 0.30), (0.69, 0.30), (0.69, 0.66), (0.60, 0.80), (0.44, 0.86),
              (0.26, 0.84), (0.20, 0.74), (0.28, 0.66), (0.45, 0.60)])
    pen.line(0.42, 0.285, 0.72, 0.285, 0.02, hole)                     # gap under the cuff


def gift(pen: _Pen, hole) -> None:
    """A wrapped present: box, lid, ribbon (holes) and a bow on top."""
    pen.rect(0.22, 0.42, 0.78, 0.50)                                   # lid
    pen.rect(0.26, 0.53, 0.74, 0.84)                                   # box
    pen.rect(0.46, 0.42, 0.54, 0.84, hole)                             # ribbon
    pen.ellipse(0.40, 0.33, 0.11, 0.07, angle=20)                      # bow loops
    pen.ellipse(0.60, 0.33, 0.11, 0.07, angle=-20)
    pen.circle(0.5, 0.37, 0.045)


def bell(pen: _Pen, hole) -> None:
    """A bell: hanger loop, flared dome, rim and clapper."""
    pen.circle(0.5, 0.18, 0.05, width=0.03)                           # hanger loop
    pen.poly([(0.5, 0.21), (0.60, 0.25), (0.65, 0.36), (0.67, 0.58), (0.80, 0.70),
              (0.20, 0.70), (0.33, 0.58), (0.35, 0.36), (0.40, 0.25)])
    pen.rect(0.17, 0.70, 0.83, 0.75)                                   # rim
    pen.circle(0.5, 0.81, 0.06)                                        # clapper
    pen.line(0.42, 0.34, 0.40, 0.55, 0.03, hole)                       # shine


def snowflake(pen: _Pen, hole) -> None:
    """A six-armed snowflake with side branches."""
    for k in range(6):
        a = math.pi / 2 + k * math.pi / 3
        dx, dy = math.cos(a), -math.sin(a)
        pen.line(0.5, 0.5, 0.5 + 0.34 * dx, 0.5 + 0.34 * dy, 0.045)
        for t, b in ((0.20, 0.10), (0.28, 0.07)):
            bx, by = 0.5 + t * dx, 0.5 + t * dy
            for side in (-1, 1):
                c = a + side * math.pi / 4
                pen.line(bx, by, bx + b * math.cos(c), by - b * math.sin(c), 0.035)
    pen.circle(0.5, 0.5, 0.06)


def heart(pen: _Pen, hole) -> None:
    pen.circle(0.38, 0.40, 0.14)
    pen.circle(0.62, 0.40, 0.14)
    pen.poly([(0.25, 0.46), (0.75, 0.46), (0.5, 0.80)])


def tree(pen: _Pen, hole) -> None:
    pen.poly([(0.5, 0.14), (0.66, 0.38), (0.58, 0.38), (0.74, 0.60), (0.64, 0.60),
              (0.80, 0.78), (0.20, 0.78), (0.36, 0.60), (0.26, 0.60), (0.42, 0.38), (0.34, 0.38)])
    pen.rect(0.45, 0.78, 0.55, 0.88)


def mug(pen: _Pen, hole) -> None:
    pen.rect(0.24, 0.36, 0.64, 0.80)
    pen.ellipse(0.64, 0.55, 0.12, 0.12, width=0.055)                   # handle
    for x in (0.36, 0.48):                                             # steam
        pen.ellipse(x, 0.24, 0.03, 0.08, start=-90, end=90, width=0.03)


def star(pen: _Pen, hole) -> None:
    points = []
    for k in range(10):
        r = 0.36 if k % 2 == 0 else 0.15
        a = -math.pi / 2 + k * math.pi / 5
        points.append((0.5 + r * math.cos(a), 0.53 + r * math.sin(a)))
    pen.poly(points)


def candy_cane(pen: _Pen, hole) -> None:
    pen.ellipse(0.44, 0.32, 0.13, 0.13, start=180, end=360, width=0.10)  # the hook
    pen.line(0.57, 0.32, 0.57, 0.84, 0.10)
    for y in (0.44, 0.58, 0.72):                                       # stripes
        pen.line(0.52, y + 0.04, 0.62, y - 0.02, 0.03, hole)


ICONS: dict[str, Callable[[_Pen, tuple], None]] = {
    "MILK": milk, "COOKIE": cookie, "LIST": shopping_list, "STOCKING": stocking,
    "GIFT": gift, "BELL": bell, "SNOWFLAKE": snowflake,
    "heart": heart, "tree": tree, "mug": mug, "star": star, "candy cane": candy_cane,
}


def icon_for(face: str) -> Callable[[_Pen, tuple], None]:
    """The drawing function for a custom face name (KeyError if we have no picture for it)."""
    return ICONS[STAND_INS.get(face, face)]


def draw_icon(canvas: np.ndarray, face: str, ink: tuple[int, int, int],
              hole: tuple[int, int, int]) -> np.ndarray:
    """Draw ``face``'s picture on a square BGR ``canvas`` in place; ``hole`` is the die colour
    used for cut-outs (ribbon, chips). Returns the canvas."""
    if canvas.shape[0] != canvas.shape[1]:
        raise ValueError(f"icon canvas must be square, got {canvas.shape[1]}x{canvas.shape[0]}")
    icon_for(face)(_Pen(canvas, ink), tuple(int(c) for c in hole))
    return canvas
