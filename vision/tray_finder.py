"""Finding dice on a calibrated tray: what differs from the empty mat, cut into single dice.

With a calibration (``vision.calibrate``) we know three things a plain photo does not: the
empty tray's picture, where the rolling and keep areas are, and how many pixels a 16 mm die
spans anywhere on the mat. ``TrayFinder`` uses all three, so it finds any die (pips, icons,
any colour) without having been trained on it:

1. **Difference from the empty tray**, in log colour: per pixel, ``log(frame) - log(empty)``
   per channel. Light drifting (a cloud, a lamp, auto-exposure) multiplies the picture, so
   it is an offset there; a smooth gain field (robust medians over a coarse grid) takes it
   out. In a dim room the constant added before the log shrinks with the empty tray's light
   (``log_table``), and a frame whose pixel-to-pixel noise would set the thresholds is
   blurred a little first (``pixel_noise``). An out-of-focus camera (soft marker edges in
   the empty tray, ``Calibration.edge_blur_px``) has the empty tray and every frame
   sharpened alike (``SHARPEN``). What is left is split into a lightness change
   and a chroma change. A cast shadow only darkens, by at most about half, and keeps the
   hue, and its edges are soft; a die changes hue, or brightens, or darkens a lot, or has
   sharp edges (its outline, bevel and symbol). Only those count; holes (a light die's
   plain top face) are filled.
2. **Only the mat's rolling and keep areas** (grown a few mm) are looked at: the corner
   markers, the footer and the table around the mat never give a die. A big blob crossing
   the edge of the looked-at rectangle is an arm reaching in: it and what lies near it are
   left out (a light hand on the light mat is only partly seen, so fingers can still pass for
   dice; the settle gate holds reads while a hand is in view anyway).
3. **Splitting touching dice** with the known die size: a blob covering ``n`` dice' worth of
   area is cut into ``n`` equal parts (k-means on its pixels, which cuts a row of equal squares
   at their seams), and the count (``n - 1``, ``n``, ``n + 1``) whose squares of the die's size
   cover the blob best wins. A blob's own rim and shadow count once (``HALO``), not per die.
   The die size is ``die_mm`` unless several clearly single dice in the frame agree on a
   clearly different size (so 12-22 mm dice work with the 16 mm default).
4. **Boxes** come from the strong evidence alone (no faint shadow edge), so a face reader's
   crop sits on the die; the outline is a rotated square.

    finder = TrayFinder(calibration)            # calibration.background must exist
    for die in finder.find(frame):              # FoundDie: centre, box, rotated-square outline
        ...
    reader = load_reader("jingle-bell-roll", data, find_dice=finder)   # boxes for any reader

Speed: about 10 ms of CPU per 1280x720 frame on one thread of the (busy, 2-core) development
machine, where one 1280x720 Gaussian blur takes 3 ms (``python -m vision.bench tray_finder``).
Weak spot: pale dice on the pale mat, whose plain faces barely differ from it: such a die
counts when its thin blob spans a die (``spans_a_die``), a blob of one die's area but
longer than a die is split (``_long_side``), and a blob whose shape holds several dice side by
side (two or three in a row, an L: ``dice_spanned``), each part spanning a die, may be that
many though their squares are poorly covered (``dice_side_by_side``); yet a white die whose
blob is mostly its bright outline can still be taken as part of its neighbour, and after the
light brightened so far that the mat burns out, pale dice may not differ from it at all.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibrate import DIE_MM, empty_tray
from vision.pips import DARK_LEVEL, bright_end, unsharp

WORK_DIE_PX = 20.0       # dice are looked at this size (pixels) or smaller
EPS = 8.0                # grey levels added before log: dark pixels are noisy
DARK = 0.90              # log darkening beyond what a shadow does (to ~45% of the light)
BRIGHT = 0.14            # log brightening: shadows never brighten
CHROMA = 0.16            # log hue change
EDGE = 0.30              # log-lightness step within 2 px: a sharp edge, not a soft shadow
WEAK = 0.6               # of EDGE: a faint edge, kept next to strong evidence
NEAR_PX = 5              # how near (work pixels, disc diameter)
NOISE_K = 5.0            # thresholds are at least this many noise sigmas
NOISY_BLUR = 0.6         # Gaussian sigma (work pixels) for a frame whose noise sets the thresholds
SOFT_EDGE = 1.4          # markers' edge blur (work pixels) beyond which the camera is out of focus
SHARPEN = (2.0, 2.0)     # then the empty tray and every frame are sharpened: unsharp (sigma, amount)
# (both picked on rendered mat scenes no benchmark uses, seeds 500-539: in focus the markers'
# blur reads 0.8-1.3 px; blurred by 1.5 / 2 px, (2, 2) found 280 / 278 of 280 dice, 0 / 1 false)
CAST = 0.08              # largest colour cast (log) the gain field follows
GRID_DICE = 5.0          # gain-field cell side, in dice
CLOSE_PX = 9             # gaps this wide in a die's outline are closed before filling it
MAX_DICE_PER_BLOB = 12   # bigger blobs are arms, boxes or cups, not dice
MIN_DIE_AREA = 0.3       # blobs under this share of a die are crumbs or noise (but see SPAN)
SIZE_RANGE_MM = (12.0, 22.0)
SPAN = (0.7, 1.5)        # a thin blob spanning this many dice both ways (and SPAN_FILL of its
SPAN_FILL = 0.3          # rectangle) is a pale die on the pale mat (``spans_a_die``)


@dataclass(frozen=True)
class FoundDie:
    """One die on the tray, in frame pixels: centre, axis-aligned box (the crop a face reader
    wants), the rotated square around it and its side, and how many dice shared its blob."""

    x: float
    y: float
    w: float
    h: float
    outline: tuple[tuple[float, float], ...]
    side: float
    blob_dice: int = 1

    @property
    def box(self) -> tuple[float, float, float, float]:
        return (self.x, self.y, self.w, self.h)


@dataclass
class _Geometry:
    """Everything that depends only on the calibration and the frame size."""

    scale: float                 # work pixels per frame pixel
    roi: tuple[int, int, int, int]   # x0, y0, x1, y1 in frame pixels
    size: tuple[int, int]        # work (width, height)
    region: np.ndarray           # uint8 work mask: where dice are looked for
    field: np.ndarray            # uint8 work mask: the whole rectangle less the markers
    die_work: float              # nominal die side at the mat's centre, work pixels
    log_empty: np.ndarray        # float32 work, 3 channels
    calibration: object
    log_table: np.ndarray        # grey level -> log, with EPS scaled to the tray's light
    sharpen: bool                # the camera is out of focus: work images are sharpened


class TrayFinder:
    """Finds every die on a calibrated tray by comparing with the empty tray's picture.

    :param calibration: a ``vision.calibrate.Calibration`` with its ``background``.
    :param die_mm: the dice's edge in millimetres (16 for standard dice); the real size is
        also learnt from the frames, within ``SIZE_RANGE_MM``.
    :param margin_mm: how far beyond the rolling and keep areas a die may lie and be found.
    :param sensitivity: thresholds are divided by it (above 1 finds fainter differences).

    Call it (``finder(frame)``) for die boxes ``(x, y, w, h)`` as readers take them, or use
    ``find`` for ``FoundDie`` with the outlines.
    """

    def __init__(self, calibration, *, die_mm: float = DIE_MM, margin_mm: float = 5.0,
                 sensitivity: float = 1.0):
        empty_tray(calibration)
        if not SIZE_RANGE_MM[0] <= die_mm <= SIZE_RANGE_MM[1]:
            raise ValueError(f"die size {die_mm} mm: expected {SIZE_RANGE_MM[0]:.0f}-"
                             f"{SIZE_RANGE_MM[1]:.0f} mm")
        self.calibration = calibration
        self.die_mm = float(die_mm)
        self.margin_mm = float(margin_mm)
        self.sensitivity = float(sensitivity)
        self.size_ratio = 1.0    # learnt die size / die_mm (kept between frames)
        self._geometry: dict[tuple[int, int], _Geometry] = {}
        self._matrices: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def out_of_focus(self, width: int, height: int) -> bool:
        """Whether frames of this size come from an out-of-focus camera (the calibration's
        markers have soft edges), so the finder sharpens them."""
        return self._prepare(width, height).sharpen

    # ------------------------------------------------------------------ geometry

    def die_px(self, x: float, y: float, calibration=None) -> float:
        """Expected die side in frame pixels at frame point (x, y) (local perspective scale)."""
        cal = calibration or self.calibration
        key = id(cal)
        if key not in self._matrices:
            self._matrices[key] = (cal.image_to_mat, cal.mat_to_image)
        to_mat, to_image = self._matrices[key]
        p = to_mat @ np.array([x, y, 1.0])
        u, v = p[0] / p[2], p[1] / p[2]
        pts = np.array([[u, v, 1.0], [u + 1, v, 1.0], [u, v + 1, 1.0]]) @ to_image.T
        pts = pts[:, :2] / pts[:, 2:]
        (ax, ay), (bx, by) = pts[1] - pts[0], pts[2] - pts[0]
        px_per_mm = math.sqrt(abs(ax * by - ay * bx))
        return self.die_mm * self.size_ratio * px_per_mm

    def _prepare(self, width: int, height: int) -> _Geometry:
        key = (width, height)
        if key in self._geometry:
            return self._geometry[key]
        cal = self.calibration.for_frame_size(width, height)
        layout = cal.layout
        die_px = self.die_mm / cal.mm_per_pixel
        shrink = max(1, int(round(die_px / WORK_DIE_PX)))  # whole steps: INTER_AREA's fast path
        grow = self.margin_mm
        polys = []
        for x0, y0, x1, y1 in (layout.rolling, layout.keep):
            rect = np.array([[[x0 - grow, y0 - grow], [x1 + grow, y0 - grow], [x1 + grow, y1 + grow],
                              [x0 - grow, y1 + grow]]], np.float64)
            polys.append(cv2.perspectiveTransform(rect, cal.mat_to_image)[0])
        markers = []
        for corners in layout.marker_corners().values():
            c = corners.mean(axis=0)
            big = c + (corners - c) * 1.25
            markers.append(cv2.perspectiveTransform(big[None], cal.mat_to_image)[0])
        every = np.vstack(polys)
        pad = int(math.ceil(die_px))
        x0 = int(max(0, math.floor(every[:, 0].min()) - pad))
        y0 = int(max(0, math.floor(every[:, 1].min()) - pad))
        x1 = int(min(width, math.ceil(every[:, 0].max()) + pad))
        y1 = int(min(height, math.ceil(every[:, 1].max()) + pad))
        if x1 - x0 < 8 or y1 - y0 < 8:
            raise ValueError("the calibrated mat's areas lie outside these frames; calibrate again")
        x1, y1 = x0 + (x1 - x0) // shrink * shrink, y0 + (y1 - y0) // shrink * shrink
        ww, wh = (x1 - x0) // shrink, (y1 - y0) // shrink
        sx, sy = ww / (x1 - x0), wh / (y1 - y0)
        region = np.zeros((wh, ww), np.uint8)

        def to_work(points):
            return np.round((points - (x0, y0)) * (sx, sy) * 8).astype(np.int32)

        for poly in polys:
            cv2.fillPoly(region, [to_work(poly)], 255, cv2.LINE_8, 3)
        field = np.full((wh, ww), 255, np.uint8)
        for poly in markers:
            cv2.fillPoly(region, [to_work(poly)], 0, cv2.LINE_8, 3)
            cv2.fillPoly(field, [to_work(poly)], 0, cv2.LINE_8, 3)
        blur = cal.edge_blur_px()
        sharpen = blur is not None and blur / shrink > SOFT_EDGE
        empty = self._work_image(cal.background, (x0, y0, x1, y1), (ww, wh), sharpen)
        table = log_table(bright_end(empty))
        geometry = _Geometry(scale=1.0 / shrink, roi=(x0, y0, x1, y1), size=(ww, wh), region=region,
                             field=field, die_work=die_px / shrink,
                             log_empty=cv2.LUT(empty, table), calibration=cal, log_table=table, sharpen=sharpen)
        self._geometry[key] = geometry
        return geometry

    @staticmethod
    def _work_image(image: np.ndarray, roi, size, sharpen: bool = False) -> np.ndarray:
        """The ROI at work size, uint8 BGR; sharpened for an out-of-focus camera (a blurred
        pale die on the pale mat has no edge left steep enough to count, ``EDGE``)."""
        x0, y0, x1, y1 = roi
        part = image[y0:y1, x0:x1]
        if part.ndim == 2:
            part = cv2.cvtColor(part, cv2.COLOR_GRAY2BGR)
        elif part.shape[2] == 4:
            part = cv2.cvtColor(part, cv2.COLOR_BGRA2BGR)
        if part.shape[1] != size[0] or part.shape[0] != size[1]:
            part = cv2.resize(part, size, interpolation=cv2.INTER_AREA)
        return unsharp(part, *SHARPEN) if sharpen else part

    def foreground(self, frame: np.ndarray) -> tuple[np.ndarray, _Geometry]:
        """The work-resolution mask (uint8 0/255) of what is not empty tray, and its geometry."""
        h, w = frame.shape[:2]
        geo = self._prepare(w, h)
        diff = cv2.subtract(cv2.LUT(self._work_image(frame, geo.roi, geo.size, geo.sharpen), geo.log_table),
                            geo.log_empty)
        diff = cv2.subtract(diff, gain_field(diff, max(2, int(round(GRID_DICE * geo.die_work)))))
        few = (geo.region > 0)[::3, ::3]  # every ninth pixel is plenty for the noise level
        light = cv2.transform(diff, _MEAN)
        if NOISE_K * pixel_noise(light, geo.region) > BRIGHT:
            # sensor noise, not the fixed thresholds, would set the bar (a dim room, a noisy
            # sensor): a slight blur takes out more of the noise than of a die's edges
            diff = cv2.GaussianBlur(diff, (0, 0), NOISY_BLUR * geo.die_work / WORK_DIE_PX)
            light = cv2.transform(diff, _MEAN)
        noise_l = _robust_sigma(light[::3, ::3][few])
        # chroma: distance of the three channels' changes from their mean (a shadow moves all alike)
        chroma = cv2.sqrt(cv2.max(cv2.transform(cv2.multiply(diff, diff), _SUM)
                                  - 3 * cv2.multiply(light, light), 0.0))
        chroma_few = chroma[::3, ::3][few]
        noise_c = _robust_sigma(chroma_few)
        k = self.sensitivity
        dark = max(DARK, NOISE_K * noise_l) / k
        bright = max(BRIGHT, NOISE_K * noise_l) / k
        hue = max(CHROMA, float(np.median(chroma_few)) + NOISE_K * noise_c) / k if chroma_few.size else CHROMA
        edge = max(EDGE, 2 * NOISE_K * noise_l) / k
        step = cv2.dilate(light, None) - cv2.erode(light, None)
        field = geo.field > 0
        strong = ((light < -dark) | (light > bright) | (chroma > hue) | (step > edge)) & field
        # fainter edges count next to strong ones: they close a light die's outline, while a
        # shadow's soft edge lies a shadow's length away from the die
        near = cv2.dilate(strong.astype(np.uint8), _disc(_px(NEAR_PX, geo))) > 0
        mask = (strong | ((step > edge * WEAK) & near & field)).astype(np.uint8) * 255
        # a wide closing finds the inside of a light die's broken outline; only what it encloses
        # is added, so it does not bridge dice lying close together
        closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _disc(_px(CLOSE_PX, geo)))
        inner = cv2.subtract(_fill_holes(closed), closed)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _disc(_px(5, geo)))
        mask = _fill_holes(cv2.bitwise_or(mask, inner))
        opening = _disc(_px(WORK_DIE_PX * 0.25, geo))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, opening)
        count, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
        arms = _reaching_in(stats, mask.shape, 2.0 * geo.die_work ** 2)
        keep = geo.region.copy()
        if arms:  # an arm and what is near it (fingers, dice under the hand) are no roll
            arm = np.isin(labels, arms).astype(np.uint8)
            keep[cv2.dilate(arm, _disc(int(geo.die_work) | 1)) > 0] = 0
        # blobs count when their centre lies in the mat's areas (away from an arm); a die
        # across an area's edge keeps all its pixels
        self._blobs = [(k, stats[k]) for k in range(1, count)
                       if k not in arms and keep[int(centres[k][1]), int(centres[k][0])]]
        self._labels = labels
        mask &= keep
        # the strong evidence alone, filled: tighter round a die (no faint shadow edge)
        self._strict = _fill_holes(cv2.morphologyEx(strong.astype(np.uint8) * 255, cv2.MORPH_CLOSE,
                                                    _disc(_px(CLOSE_PX, geo)))) & keep
        return mask, geo

    def find(self, frame: np.ndarray) -> list[FoundDie]:
        """Every die on the mat's areas, in reading order (top to bottom, left to right)."""
        _, geo = self.foreground(frame)
        labels = self._labels
        x0, y0 = geo.roi[:2]
        s = geo.scale
        cal = geo.calibration
        blobs = []
        smallest = 0.5 * MIN_DIE_AREA * (SIZE_RANGE_MM[0] / cal.mm_per_pixel * s) ** 2
        for k, blob_stats in self._blobs:
            bx, by, bw, bh, area = (int(v) for v in blob_stats)
            if area < smallest:
                continue  # crumbs, whatever the die size
            ys, xs = np.nonzero(labels[by:by + bh, bx:bx + bw] == k)
            pts = np.column_stack([xs + bx, ys + by]).astype(np.float32)
            cx, cy = pts.mean(axis=0)
            side = self.die_px(x0 + cx / s, y0 + cy / s, cal) * s / self.size_ratio  # nominal, work px
            blobs.append((pts, area, side))
        self._learn_size(blobs)
        found = []
        for pts, area, nominal in blobs:
            side = nominal * self.size_ratio
            dice_area = (area / (side * side) - HALO) / SILHOUETTE
            if dice_area > MAX_DICE_PER_BLOB or (dice_area < MIN_DIE_AREA and not spans_a_die(pts, side)):
                continue
            parts = list(split_blob(pts, side, dice_area))
            for centre, square, rect_side, part in parts:
                tight = part[self._strict[part[:, 1].astype(int), part[:, 0].astype(int)] > 0]
                if len(tight) >= TIGHT_SHARE * side * side:
                    part = tight
                    centre, square, rect_side = _square_of(part, rect_side if len(parts) > 1 else None)
                # the box: the die's own pixels (work pixel i spans frame x0 + i / s .. (i + 1) / s)
                px0, py0 = part.min(axis=0)
                px1, py1 = part.max(axis=0) + 1
                if len(parts) > 1:  # a cut along a diagonal row: the die's square bounds it too
                    (qx0, qy0), (qx1, qy1) = square.min(axis=0), square.max(axis=0)
                    px0, py0, px1, py1 = max(px0, qx0), max(py0, qy0), min(px1, qx1), min(py1, qy1)
                outline = tuple((float(x0 + (px + 0.5) / s - 0.5), float(y0 + (py + 0.5) / s - 0.5))
                                for px, py in square)
                found.append(FoundDie(x=float(x0 + (px0 + px1) / 2 / s - 0.5),
                                      y=float(y0 + (py0 + py1) / 2 / s - 0.5),
                                      w=float((px1 - px0) / s), h=float((py1 - py0) / s), outline=outline,
                                      side=rect_side / s, blob_dice=len(parts)))
        found.sort(key=lambda d: (round(d.y / max(d.side, 1.0)), d.x))
        return found

    def _learn_size(self, blobs) -> None:
        """The dice's real size from clearly single dice (square, solid blobs of a plausible size)."""
        ratios = []
        for pts, area, nominal in blobs if len(blobs) >= 3 else ():
            ratio = math.sqrt(area / (SILHOUETTE + HALO)) / nominal
            if len(pts) < 12 or not SIZE_RANGE_MM[0] * 0.9 <= ratio * self.die_mm <= SIZE_RANGE_MM[1] * 1.1:
                continue
            (_, _), (rw, rh), _ = cv2.minAreaRect(_hull(pts))
            if min(rw, rh) > 0 and max(rw, rh) / min(rw, rh) < 1.3 and area / (rw * rh) > 0.8:
                ratios.append(ratio)
        # several single dice agreeing on a size clearly not ``die_mm``: the dice are that size
        middle = np.sort(ratios)[len(ratios) // 4:len(ratios) - len(ratios) // 4 or None]
        if len(ratios) >= 3 and np.ptp(middle) < 0.3:
            ratio = float(np.median(ratios))
            # (pale dice look smaller than they are, so smaller needs a clearer case)
            self.size_ratio = 1.0 if -RESIZE_BEYOND[0] < ratio - 1.0 < RESIZE_BEYOND[1] else float(
                np.clip(ratio, SIZE_RANGE_MM[0] / self.die_mm, SIZE_RANGE_MM[1] / self.die_mm))

    def boxes(self, frame: np.ndarray) -> list[tuple[float, float, float, float]]:
        """Die boxes (centre x, centre y, w, h) in frame pixels, as ``load_reader`` wants them."""
        return [d.box for d in self.find(frame)]

    __call__ = boxes


TIGHT_SHARE = 0.5  # strong evidence covering this share of a die's square gives its box
MIN_COVER = 0.55  # each die cut from a blob must cover this share of its square with blob
PAIR_LENGTH = 1.8  # ... unless the blob is this many dice long and both halves span a die (dice_side_by_side)
SILHOUETTE = 1.3  # a die's blob / its top face's square: visible sides, bevel, contact shadow
HALO = 0.5        # ... plus this once per blob (the outline's rim and shadow touching dice share)
KMEANS_SEED = 12345  # any fixed number: see split_blob
RESIZE_BEYOND = (0.2, 0.12)  # single dice measuring this much smaller / bigger than die_mm change the size used


_MEAN = np.full((1, 3), 1 / 3, np.float32)
_SUM = np.ones((1, 3), np.float32)


def log_table(tray_bright_end: float) -> np.ndarray:
    """Grey level -> log(level + eps), as a 256-entry lookup table. ``eps`` (``EPS`` in a
    well-lit room) shrinks with the empty tray's light below ``DARK_LEVEL`` (the level under
    which the pip reader calls a frame dim): in a dim room every level is a few times
    smaller, and a fixed ``EPS`` would squash the difference between a die and the mat."""
    eps = EPS * min(1.0, max(tray_bright_end, 1.0) / DARK_LEVEL)
    return np.log(np.arange(256, dtype=np.float32) + eps).reshape(1, 256).astype(np.float32)


# ---------------------------------------------------------------------- pieces


def gain_field(diff: np.ndarray, cell: int) -> np.ndarray:
    """The smooth light change (log, per channel) behind a log difference: medians over a grid
    of ``cell``-pixel cells (dice fill few of them), median-filtered, interpolated back."""
    h, w = diff.shape[:2]
    step = max(1, cell // 8)
    sub = diff[::step, ::step]
    c = max(1, cell // step)
    gh, gw = -(-sub.shape[0] // c), -(-sub.shape[1] // c)
    padded = np.pad(sub, ((0, gh * c - sub.shape[0]), (0, gw * c - sub.shape[1]), (0, 0)), mode="edge")
    blocks = padded.reshape(gh, c, gw, c, 3).transpose(0, 2, 1, 3, 4).reshape(gh, gw, c * c, 3)
    grid = np.median(blocks, axis=2).astype(np.float32)
    if gh >= 3 and gw >= 3:
        grid = cv2.medianBlur(grid, 3)
    # light changes colour only a little (a warmer lamp); a big coloured thing (a hand, a sleeve)
    # must not pass for a colour cast
    level = grid.mean(axis=2, keepdims=True)
    grid = (level + np.clip(grid - level, -CAST, CAST)).astype(np.float32)
    # cell centres back to pixel positions
    return cv2.resize(grid, (gw * c * step, gh * c * step), interpolation=cv2.INTER_LINEAR)[:h, :w]


def _px(size: float, geo) -> int:
    """A kernel size given for WORK_DIE_PX-pixel dice, for the dice of this geometry (odd, >= 3)."""
    return max(3, int(round(size * geo.die_work / WORK_DIE_PX)) | 1)


def _reaching_in(stats: np.ndarray, shape, min_area: float) -> list[int]:
    """The big blobs that cross the edge of the looked-at rectangle: an arm reaching in from
    outside the mat."""
    h, w = shape
    return [k for k in range(1, len(stats)) if stats[k, cv2.CC_STAT_AREA] >= min_area and (
        stats[k, 0] == 0 or stats[k, 1] == 0 or stats[k, 0] + stats[k, 2] >= w or stats[k, 1] + stats[k, 3] >= h)]


def _hull(pts: np.ndarray) -> np.ndarray:
    """The outline points of a pixel set: enough for its minimum-area rectangle, at a fraction
    of the points."""
    ipts = pts.astype(np.int32)
    (ax, ay), (bx, by) = ipts.min(axis=0), ipts.max(axis=0)
    grid = np.zeros((by - ay + 3, bx - ax + 3), np.uint8)
    grid[ipts[:, 1] - ay + 1, ipts[:, 0] - ax + 1] = 1
    contours, _ = cv2.findContours(grid, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return (np.vstack(contours).reshape(-1, 2) + (ax - 1, ay - 1)).astype(np.float32)


def pixel_noise(light: np.ndarray, region: np.ndarray) -> float:
    """The sensor noise in a log-lightness difference: the spread of the step from each pixel
    to its right-hand neighbour, over sqrt(2). Unlike the spread of the difference itself,
    light left over from a changed lamp or a gradient (smooth) does not count."""
    step = (light[:, 1:] - light[:, :-1])[::3, ::3]
    return _robust_sigma(step[(region[:, 1:] > 0)[::3, ::3]]) / math.sqrt(2)


def _robust_sigma(values: np.ndarray) -> float:
    if values.size == 0:
        return 0.0
    sample = values[:: max(1, values.size // 5000)]
    return float(1.4826 * np.median(np.abs(sample - np.median(sample))))


_DISCS: dict[int, np.ndarray] = {}


def _disc(size: int) -> np.ndarray:
    if size not in _DISCS:
        _DISCS[size] = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    return _DISCS[size]


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    """The mask with every enclosed hole filled (a light die's plain face inside its outline)."""
    h, w = mask.shape
    flood = np.zeros((h + 2, w + 2), np.uint8)
    flood[1:-1, 1:-1] = mask
    cv2.floodFill(flood, None, (0, 0), 128)
    return np.where(flood[1:-1, 1:-1] == 128, 0, 255).astype(np.uint8)


def square_outline(cx: float, cy: float, side: float, angle_deg: float) -> np.ndarray:
    """The four corners of a square (centre, side, turned by ``angle_deg``)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a) * side / 2, math.sin(a) * side / 2
    return np.array([[cx - c + s, cy - s - c], [cx + c + s, cy + s - c],
                     [cx + c - s, cy + s + c], [cx - c - s, cy - s + c]], np.float64)


def _rect_sides(pts: np.ndarray) -> tuple[float, float]:
    """The sides of the blob's rotated rectangle (0, 0 for fewer than 3 pixels)."""
    if len(pts) < 3:
        return 0.0, 0.0
    (_, _), (rw, rh), _ = cv2.minAreaRect(_hull(pts))
    return rw, rh


def _long_side(pts: np.ndarray) -> float:
    """The long side of the blob's rotated rectangle: pale dice touching make a blob of one
    die's area or so, but longer than any one die."""
    return max(_rect_sides(pts))


def spans_a_die(pts: np.ndarray, side: float) -> bool:
    """A blob too thin for a die's area that still spans one (``side``: a top face, work px):
    a pale die on the pale mat, of which only the symbol and part of the outline differ
    from the mat. Its rotated rectangle is about a die across both ways and well filled,
    unlike a crumb (smaller), a hair or a thread (thin, or sparse over a long span)."""
    rw, rh = _rect_sides(pts)
    lo, hi = SPAN
    return lo * side <= min(rw, rh) and max(rw, rh) <= hi * side and len(pts) >= SPAN_FILL * rw * rh


def dice_along(length: float, side: float) -> int:
    """How many dice lying in a row a blob's side of ``length`` work pixels can hold: a row of
    ``k`` dice' blob, sides and shadow included, is at least ``k - 2 + PAIR_LENGTH`` dice
    long (one die's blob is at most 1.67 dice long, two dice' 2.05 and more)."""
    return max(1, int(length / side + 2.0 - PAIR_LENGTH))


def dice_spanned(pts: np.ndarray, side: float) -> int:
    """How many dice the blob's rotated rectangle holds, side by side both ways: the most dice
    its length and width allow (three in a row: 3 by 1; three in an L: 2 by 2)."""
    rw, rh = _rect_sides(pts)
    return dice_along(rw, side) * dice_along(rh, side)


def dice_side_by_side(parts: list[np.ndarray], holds: int, side: float) -> bool:
    """Whether a blob cut into ``parts`` is that many dice touching side by side (in a row, an
    L, a pair); ``holds``: the most dice the blob's shape holds (``dice_spanned``). Pale dice
    on the pale mat leave a blob too thin to cover their squares well
    (``MIN_COVER``), as one pale die's is too thin for its area; its shape still tells: big
    enough for that many dice (``dice_spanned``; for two, ``PAIR_LENGTH`` dice long: on the
    tuning scenes, seeds 500-539, single dice' blobs were at most 1.67 dice long, pale pairs
    taken for one die 2.05 and more) and each part spanning a die (``spans_a_die``). The
    squares' score still decides between the counts."""
    return (2 <= len(parts) <= holds
            and all(spans_a_die(part, side) for part in parts))


def _square_of(pts: np.ndarray, side: float | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """(centre, rotated square, its side) fitted to one die's pixels; ``side`` forces the size."""
    if len(pts) >= 3:
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(_hull(pts))
    else:
        (cx, cy), (rw, rh), angle = tuple(pts.mean(axis=0)), (1.0, 1.0), 0.0
    fit = math.sqrt(max(rw, 1.0) * max(rh, 1.0))
    use = side if side is not None else fit
    return np.array([cx, cy]), square_outline(cx, cy, use + 1.0, angle), use + 1.0


def square_mask(square: np.ndarray, shape, origin) -> np.ndarray:
    """A mask of ``shape`` with the ``square`` (work px, drawn from ``origin``) filled in at an
    eighth of a pixel's precision."""
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round((square - origin) * 8).astype(np.int32)], 1, cv2.LINE_8, 3)
    return mask


def faces_overlap(faces: list[np.ndarray], masks: list[np.ndarray]) -> float:
    """How much of the dice' top faces (``faces``: squares, work px; ``masks``: each drawn by
    ``square_mask``) lie on one another, in work pixels: squares piled up for one die. Their
    silhouettes' squares would also overlap for dice merely touching, whose sides and shadows
    the blob shows once."""
    union = np.bitwise_or.reduce(masks)
    return sum(float(cv2.contourArea(face.astype(np.float32))) for face in faces) - float(cv2.countNonZero(union))


def split_blob(pts: np.ndarray, side: float, dice_area: float):
    """Cut one blob's pixels (N x 2, work px) into single dice of about ``side`` pixels:
    yields (centre, rotated-square outline, side, the die's pixels) per die."""
    n0 = max(1, int(round(dice_area)))
    if n0 == 1 and dice_area < 1.45 and _long_side(pts) <= SPAN[1] * side:
        yield (*_square_of(pts), pts)
        return
    # pale dice leave less area than they cover: as many as the blob's shape holds may be there
    holds = dice_spanned(pts, side)
    most = min(MAX_DICE_PER_BLOB, max(n0 + 1, holds))
    candidates = list(range(max(1, n0 - 1), most + 1))
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    pad = int(side)
    shape = (int(y1 - y0) + 2 * pad + 1, int(x1 - x0) + 2 * pad + 1)
    origin = (x0 - pad, y0 - pad)
    blob = np.zeros(shape, np.uint8)
    local = (pts - origin).astype(np.int32)
    blob[local[:, 1], local[:, 0]] = 1
    blob_area = float(blob.sum())
    best, best_score = None, -1.0
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.2)
    for n in candidates:
        if n == 1:
            parts = [pts]
        else:
            few = np.ascontiguousarray(pts[::max(1, len(pts) // 600)], np.float32)
            # k-means++ starts from OpenCV's (per-thread) random generator: seeded, the same blob
            # splits the same way whatever ran before (a replayed session finds the same dice)
            cv2.setRNGSeed(KMEANS_SEED)
            _, _, centres = cv2.kmeans(few, n, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
            labels = np.argmin(((pts[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
            parts = [pts[labels == i] for i in range(n)]
            if any(len(p) < 3 for p in parts):
                continue
        squares = [_square_of(p, side * math.sqrt(SILHOUETTE)) for p in parts]
        masks = [square_mask(square, shape, origin) for _, square, _ in squares]
        cover = np.bitwise_or.reduce(masks)
        each = [cv2.countNonZero(mask & blob) / max(cv2.countNonZero(mask), 1) for mask in masks]
        poorly_covered = n > 1 and min(each) < MIN_COVER
        pale_side_by_side = poorly_covered and dice_side_by_side(parts, holds, side)
        if poorly_covered and not pale_side_by_side:
            continue  # a square mostly off the blob: a shadow or a die's side, not another die
        both = float(cv2.countNonZero(cover & blob))
        union = blob_area + float(cv2.countNonZero(cover)) - both
        # squares piled on one another also cover the blob: count overlap against them. Pale dice
        # side by side show their shared sides once, so only their top faces must not overlap
        # (their silhouettes' would make three in a row lose to two)
        if pale_side_by_side:
            faces = [centre + (sq - centre) * (side + 1.0) / used for centre, sq, used in squares]
            overlap = faces_overlap(faces, [square_mask(face, shape, origin) for face in faces])
        else:
            overlap = faces_overlap([sq for _, sq, _ in squares], masks)
        score = (both - overlap) / max(union, 1.0)
        if score > best_score:
            best, best_score = (parts, squares), score
    if best is None:
        yield (*_square_of(pts), pts)
        return
    parts, squares = best
    for part, (centre, square, side_used) in zip(parts, squares):
        if len(parts) == 1:
            yield (*_square_of(part), part)
        else:
            yield centre, square, side_used, part


# ---------------------------------------------------------------------- readers

def with_finder(reader, finder: TrayFinder):
    """``reader`` finding its dice with ``finder``.

    A taught reader (``find_dice``) gets the finder's boxes, its crops centred on them (the
    camera looks down at the mat: no slanted views, see ``taught.face_crop``); the pip reader (which finds dice
    with its own network, ``find``) is copied with ``find`` replaced, so its face network reads
    the tray finder's dice; its "no die" class still drops anything that is not a die. Other
    readers are returned unchanged."""
    import copy
    if hasattr(reader, "find_dice"):
        reader.find_dice = finder
        reader.top_face_shift = 0.0
        return reader
    if callable(getattr(reader, "find", None)) and callable(getattr(reader, "logits", None)):
        from vision.pips import Find
        clone = copy.copy(reader)
        clone.find = lambda frame, threshold=None: [Find(d.x, d.y, d.w, d.h, 1.0) for d in finder.find(frame)]
        return clone
    return reader


def on_tray(reader, calibration):
    """``reader`` finding its dice with the calibrated tray's finder (``with_finder``) when the
    calibration holds the empty tray's picture; else ``reader`` unchanged. The device, the
    demos and ``dicewatch read --calibration`` all read a calibrated tray this way."""
    if calibration is None or getattr(calibration, "background", None) is None:
        return reader
    return with_finder(reader, TrayFinder(calibration))
