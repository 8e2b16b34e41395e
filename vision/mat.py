"""The printable tray mat: four ArUco markers, a rolling area, a keep area and a scale bar.

The mat is landscape. Four markers from OpenCV's DICT_4X4_50 sit in its corners; their ids
say which paper size it is (A4: 0-3, A3: 4-7, letter: 8-11, in the order top-left,
top-right, bottom-right, bottom-left), so calibration finds the size by itself. All
geometry is in millimetres from the page's top-left corner, y down the page.

    page = render(layout("A4"), px_per_mm=300 / 25.4)   # BGR image, print at 300 dpi

``host/commands/mat.py`` writes it to a PDF at exact physical size.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.roll import KEEP, OUTSIDE, ROLLING

PAPER_MM = {"A4": (297.0, 210.0), "A3": (420.0, 297.0), "letter": (279.4, 215.9)}
FIRST_ID = {"A4": 0, "A3": 4, "letter": 8}


def is_mat_marker(marker_id: int) -> bool:
    """Whether an ArUco id is one of a dicewatch mat's corner markers (ids 0-11). Other ids
    are not ours: a die's grid of pips can decode as one (a five as id 35, say)."""
    return any(first <= marker_id < first + 4 for first in FIRST_ID.values())
MARGIN_MM = 8.0          # printers do not print to the edge
ARUCO_DICT = cv2.aruco.DICT_4X4_50
ROLLING_TINT = (236, 236, 232)   # BGR, a light warm grey so dice stand out
KEEP_TINT = (222, 236, 244)      # light straw


@dataclass(frozen=True)
class MatLayout:
    """Where everything is on a mat of one paper size (millimetres, page top-left origin)."""

    paper: str
    width: float
    height: float
    marker_mm: float
    markers: tuple[tuple[int, tuple[float, float]], ...]   # (id, top-left corner) TL, TR, BR, BL
    rolling: tuple[float, float, float, float]             # x0, y0, x1, y1
    keep: tuple[float, float, float, float]
    footer: tuple[float, float, float, float]              # scale bar and instructions

    def marker_corners(self) -> dict[int, np.ndarray]:
        """Each marker's four corners (TL, TR, BR, BL as OpenCV reports them), mm."""
        a = self.marker_mm
        return {mid: np.array([[x, y], [x + a, y], [x + a, y + a], [x, y + a]], np.float64)
                for mid, (x, y) in self.markers}

    def area_of(self, x: float, y: float) -> str:
        """ROLLING, KEEP or OUTSIDE for a mat point in millimetres."""
        for name, (x0, y0, x1, y1) in ((ROLLING, self.rolling), (KEEP, self.keep)):
            if x0 <= x <= x1 and y0 <= y <= y1:
                return name
        return OUTSIDE


def layout(paper: str = "A4") -> MatLayout:
    """The mat for ``paper`` (A4, A3 or letter)."""
    if paper not in PAPER_MM:
        raise ValueError(f"unknown mat size {paper!r}; choose one of {', '.join(PAPER_MM)}")
    width, height = PAPER_MM[paper]
    m = MARGIN_MM
    a = round(0.12 * height)
    first = FIRST_ID[paper]
    markers = ((first, (m, m)), (first + 1, (width - m - a, m)),
               (first + 2, (width - m - a, height - m - a)), (first + 3, (m, height - m - a)))
    inner_x0, inner_x1 = m + a + 4, width - m - a - 4
    footer_h = 12.0
    keep_w = max(60.0, 0.28 * (inner_x1 - inner_x0))
    rolling = (inner_x0, m, inner_x1 - keep_w - 6, height - m - footer_h - 2)
    keep = (inner_x1 - keep_w, m, inner_x1, height - m - footer_h - 2)
    footer = (inner_x0, height - m - footer_h, inner_x1, height - m)
    return MatLayout(paper, width, height, float(a), markers, rolling, keep, footer)


@lru_cache(maxsize=8)
def marker_image(marker_id: int, pixels: int) -> np.ndarray:
    """One ArUco marker (with its black border), pixels x pixels, grey."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    return cv2.aruco.generateImageMarker(dictionary, marker_id, pixels)


def render(mat: MatLayout, px_per_mm: float = 4.0) -> np.ndarray:
    """The mat as a BGR image at ``px_per_mm`` (white paper)."""
    k = float(px_per_mm)
    w, h = int(round(mat.width * k)), int(round(mat.height * k))
    page = np.full((h, w, 3), 255, np.uint8)

    def px(v: float) -> int:
        return int(round(v * k))

    def box(rect, colour, thickness=-1):
        x0, y0, x1, y1 = rect
        cv2.rectangle(page, (px(x0), px(y0)), (px(x1), px(y1)), colour, thickness, cv2.LINE_AA)

    box(mat.rolling, ROLLING_TINT)
    box(mat.keep, KEEP_TINT)
    line = max(1, px(0.6))
    box(mat.rolling, (150, 150, 150), line)
    _dashed_rect(page, mat.keep, k, (60, 110, 170), max(1, px(0.8)))
    _label(page, "ROLL", mat.rolling, k, (205, 205, 200))
    _label(page, "KEEP", mat.keep, k, (150, 190, 215))
    for mid, (x, y) in mat.markers:
        size = px(mat.marker_mm)
        marker = marker_image(mid, size)
        page[px(y):px(y) + size, px(x):px(x) + size] = marker[..., None]
    _footer(page, mat, k)
    return page


def _dashed_rect(page, rect, k, colour, thickness) -> None:
    x0, y0, x1, y1 = (v * k for v in rect)
    dash = 4 * k
    for (ax, ay), (bx, by) in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        length = float(np.hypot(bx - ax, by - ay))
        steps = max(1, int(length / dash))
        for i in range(0, steps, 2):
            t0, t1 = i / steps, min(1.0, (i + 1) / steps)
            cv2.line(page, (int(ax + (bx - ax) * t0), int(ay + (by - ay) * t0)),
                     (int(ax + (bx - ax) * t1), int(ay + (by - ay) * t1)), colour, thickness, cv2.LINE_AA)


def _label(page, text, rect, k, colour) -> None:
    """Big pale word at the top of an area (pale so it never looks like a die)."""
    x0, y0, x1, _ = rect
    scale = 7 * k / 22  # about 7 mm tall
    thickness = max(1, int(0.8 * k))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    org = (int((x0 + x1) / 2 * k - tw / 2), int((y0 + 4) * k + th))
    cv2.putText(page, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv2.LINE_AA)


def _footer(page, mat: MatLayout, k) -> None:
    """A 50 mm scale bar with 10 mm ticks, and one line of instructions."""
    x0, y0, x1, y1 = mat.footer
    bar_y = y0 + 3
    black = (0, 0, 0)
    t = max(1, int(0.5 * k))
    cv2.line(page, (int(x0 * k), int(bar_y * k)), (int((x0 + 50) * k), int(bar_y * k)), black, t, cv2.LINE_AA)
    for i in range(6):
        x = int((x0 + 10 * i) * k)
        cv2.line(page, (x, int((bar_y - 1.5) * k)), (x, int((bar_y + 1.5) * k)), black, t, cv2.LINE_AA)
    small = 2.6 * k / 22
    ts = max(1, int(0.25 * k))
    cv2.putText(page, "50 mm", (int((x0 + 52) * k), int((bar_y + 1) * k)), cv2.FONT_HERSHEY_SIMPLEX, small,
                black, ts, cv2.LINE_AA)
    lines = [f"dicewatch tray mat {mat.paper} - print at 100% (no 'fit to page'); the bar must measure 50 mm.",
             "Roll in ROLL, set kept dice in KEEP; keep the four corner squares visible to the camera."]
    for i, text in enumerate(lines):
        cv2.putText(page, text, (int(x0 * k), int((bar_y + 4.5 + 3.3 * i) * k)), cv2.FONT_HERSHEY_SIMPLEX,
                    small, (60, 60, 60), ts, cv2.LINE_AA)
