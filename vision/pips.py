"""The pip-dice reader: two tiny networks run through OpenCV's ``cv2.dnn`` (no torch).

0. **Light**: a frame darker than the photos the networks learnt from (its brightest
   percent under ``DARK_LEVEL``) is scaled up first (``brightened``); the crops of an
   out-of-focus frame are sharpened before the face reader reads them (``soft_frame``).
1. **Finder** (``models/pip_finder.onnx``): the frame, shrunk so its longer side is
   ``find_size`` px (``pip_reader.json``; ``FIND_SIZE`` for older models), goes through a
   fully convolutional centre-heatmap network. Each local
   maximum of the heatmap above ``find_threshold`` is a die: centre (with a sub-cell offset)
   and box size come from the other output channels, mapped back to frame pixels. Where
   the heatmap is unsure (a busy or crowded scene), the frame is read mirrored too and the
   two heatmaps averaged (``finder_maps``; ``find_mirror`` in ``pip_reader.json``).
   A frame over twice ``find_size`` (a phone photo, a 1280x720 camera frame) whose
   whole-frame pass finds no dice or only small ones (``small_dice_likely``) is also looked
   at in overlapping tiles at finer scales, for dice too small to survive the shrink
   (``run_finder``); a die only those passes find is kept only when the face reader is
   sure it is a die and of its face (``FINE_GATE``). Any other frame also gets a pass at half
   the usual scale, for dice too big for the usual one (a close-up: ``big_dice_finds``); a
   big die it finds and the smaller finds on it (its pips, or the dice of a pile) are all
   read, and the face reader's confidences decide which stay (``big_or_small``).
2. **Face reader** (``models/pip_faces.onnx``): each die is cropped from the *full* frame
   (square, ``CONTEXT`` x its size, resized to the model's crop side, ``crop`` in
   ``pip_reader.json``) and classified as face 1..6 or "no die"; the network first evens out
   each crop's colour channels, so a smoky die with dim red pips is as clear as a white one.
   A crop the reader is not sure of (top probability below ``mirror_faces`` in
   ``pip_reader.json``) is read again mirrored left to right and the two logits averaged: a
   pip face is the same face in a mirror, and an upright camera's view stays upright, so
   the mirror is a fair second opinion. Sure crops (most of a tray's) are read once.
   Optionally (``turns`` 2 or 4) the crop is also read turned by quarter turns; the shipped
   settings do not (turning did not help on the validation photos, and costs time).
3. **Confidence**: softmax of the logits divided by a fitted temperature; then a small
   logistic "trust" model (face probability, margin over the second face, "no die"
   probability, finder score, die size) and a monotone curve, both fitted on held-out
   validation photos (``models/pip_reader.json``), turn each read into the reported
   confidence: >= 0.9 only for the kind of read that was right nearly always there, below
   that the share right seen there. A tilted, half-hidden or unusual die reads low. Finds
   that read as "no die" are dropped, and so are burnt-out blobs with no mark in them: a
   lamp's reflection, not a die (``lamp_reflection``).
4. **Faint finds** (``faint_finds`` in ``pip_reader.json``): a heatmap peak below
   ``find_threshold`` but above ``faint_finds.threshold`` (small dice in a busy scene often
   peak there) is kept only when the face reader is sure both that it is a die
   (``die_prob``) and which face it shows (``face_prob``).

Both networks were trained by ``vision/training`` on the shared real photos; see
``models/PROVENANCE.md``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.roll import Die, Roll

MODELS = Path(__file__).resolve().parent / "models"
FIND_SIZE = 320   # the finder's input side when pip_reader.json does not say ("find_size")
STRIDE = 4
CROP = 32         # default crop side; a model's own is "crop" in pip_reader.json
CONTEXT = 1.35
PAD = 127
FACES = ("1", "2", "3", "4", "5", "6")


@dataclass(frozen=True)
class Find:
    """A die the finder saw, before its face is read (frame pixels)."""
    x: float
    y: float
    w: float
    h: float
    score: float
    fine: bool = False  # from a finer, tiled pass of a big frame (``run_finder``)
    big: bool = False   # from the half-scale pass, for dice too big for the usual one

    @property
    def side(self) -> float:
        """The box's longer side: how big the finder saw the die."""
        return max(self.w, self.h)


def load_net(path: Path):
    """An ONNX model for cv2.dnn. On OpenCV 5 the new engine runs our depthwise-separable
    nets about 15% faster than the classic one (same outputs to ~1e-5; measured on the
    2-core build machine, varying batch sizes); older OpenCV has only one engine."""
    engine = getattr(cv2.dnn, "ENGINE_NEW", None)
    if engine is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine=engine)


# A frame whose bright end (99th percentile of its grey levels) lies below DARK_LEVEL is
# scaled up to put it there, by at most MAX_GAIN. The networks learnt from photos whose
# bright end lies at 114-211 (byler's at 187-191), and the finder, which takes pixel values
# as they are, misses dice in dim frames. `python -m vision.bench light --split val` (the
# val photos darkened to 15 % of their light; then also with sensor noise): per die byler
# 94.4 -> 97.7 % (81.8 -> 88.8 %), epanemu 60.5 -> 85.6 % (52.5 -> 78.4 %); as taken, 97.7
# and 86.1 % either way (it brightens no val photo and 3 'train'-side ones, of which one
# reads differently, the folders' figures do not). Levels 110 and 190 read the darkened val
# photos a little worse than 150. A calibrated tray's finder sees the frame as taken.
DARK_LEVEL = 150
MAX_GAIN = 8.0


def bright_end(frame: np.ndarray) -> float:
    """The 99th percentile of a frame's grey levels, from about 100 x 100 of its pixels."""
    step = max(1, max(frame.shape[:2]) // 100)
    grey = cv2.cvtColor(np.ascontiguousarray(frame[::step, ::step]), cv2.COLOR_BGR2GRAY).ravel()
    k = int(0.99 * (grey.size - 1))
    return float(np.partition(grey, k)[k])


def brightened(frame: np.ndarray) -> np.ndarray:
    """``frame`` itself, or scaled up so its bright end reaches ``DARK_LEVEL`` when it is
    darker (a dim room, a webcam that has not settled its exposure)."""
    gain = min(MAX_GAIN, DARK_LEVEL / max(bright_end(frame), 1.0))
    return frame if gain <= 1.0 else cv2.convertScaleAbs(frame, alpha=gain)


# An out-of-focus frame (a fixed-focus camera closer than it focuses) softens every die, and
# the face reader learnt from sharp photos. When the median ``sharpness`` of a frame's crops
# is under SOFT_LEVEL, every crop is sharpened (an unsharp mask) before it is read, and the
# reads' confidences are scaled by SOFT_TRUST: sharpened crops are read right more often,
# but a sure-looking misread is likelier. Picked with `python -m vision.bench light` on the
# val photos, checked on the 'train' side (blurred by sigma 1.5 / 2.5 px, then noise of
# sigma 2): per die byler 98.7 -> 99.0 / 90.2 -> 93.3 %, epanemu 84.7 -> 86.1 / 71.5 ->
# 73.2 %, reads >= 0.9 right 99.2 -> 99.4 / 98.1 -> 98.4 % and 98.9 -> 98.9 / 99.2 -> 99.6 %
# (without SOFT_TRUST they were right less often than unsharpened reads). The photos as
# taken read the same (the val photos' crops' median sharpness is 0.013 or more), but for one more
# false find on a soft 'train'-side tray photo.
SOFT_LEVEL = 0.01
UNSHARP_SIGMA = 2.0   # crop pixels
UNSHARP_AMOUNT = 1.0
SOFT_TRUST = 0.94


def sharpness(crop: np.ndarray) -> float:
    """How sharp a crop is, whatever its contrast and its sensor noise: the variance of the
    Laplacian of its grey levels smoothed a little (sigma 1 px, which takes out pixel noise
    and keeps a pip's edge) over the variance of its grey levels (plus 25, so a plain crop
    is not sharp)."""
    grey = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    return float(cv2.Laplacian(grey, cv2.CV_32F).var() / (grey.var() + 25.0))


def soft_frame(crops: list[np.ndarray]) -> bool:
    """Whether the frame these crops come from is out of focus (their median sharpness)."""
    return bool(crops) and float(np.median([sharpness(c) for c in crops])) < SOFT_LEVEL


def unsharp(image: np.ndarray, sigma: float = UNSHARP_SIGMA, amount: float = UNSHARP_AMOUNT) -> np.ndarray:
    """The image with its fine detail strengthened (image + amount x (image - its blur))."""
    soft = cv2.GaussianBlur(image, (0, 0), sigma)
    return cv2.addWeighted(image, 1.0 + amount, soft, -amount, 0)


# A lamp's reflection on a glossy table or tray is a bright blob a die's size, and the finder
# and the face reader take some for dice (a big "1" or "2"). Every pip face has a pip, so a
# find is dropped as a reflection when its inner box (the middle 70 %) is largely burnt out
# (over GLARE_BURNT of it at 250 or more in every channel), the bright part of its box
# (grey GLARE_BRIGHT and up) encloses no darker spot (a pip on a white face), and even its
# darkest twentieth is brighter than GLARE_NO_MARK (a dark die's white pips are burnt out
# too, but the die round them is dark). Picked on the val and 'train'-side photos with 8
# reflections drawn on each (`python -m vision.bench light`, "glare") and on rendered pip
# scenes (white dice on a white tray burn out): burnt share 0.05-0.3, enclosed spots at 150
# / 200, with and without the darkest-twentieth test tried. It drops 199 of val's 332 false
# finds there and 742 of 1,222 on half the 'train' side, and no real die of 622 / 1,723 as
# taken nor of 166 rendered ones; 3 real dice under a drawn reflection on the 'train' side.
# Precision with the reflections, val / whole 'train' side: tray 74.0 -> 94.3 / 71.4 ->
# 93.1 %, mixed 59.6 -> 71.7 / 53.6 -> 69.1 % (many mixed photos' reflections lie on darker,
# busier tables, where the darkest-twentieth test keeps them).
GLARE_BURNT = 0.2
GLARE_BRIGHT = 200
GLARE_NO_MARK = 120


def lamp_reflection(frame: np.ndarray, find) -> bool:
    """Whether the find (anything with x, y, w, h) is a burnt-out blob with no mark in it."""
    inner = _box(frame, find, 0.7)
    if inner.size == 0 or float((inner.min(axis=2) >= 250).mean()) <= GLARE_BURNT:
        return False
    if float(np.percentile(inner.mean(axis=2), 5)) <= GLARE_NO_MARK:
        return False
    # a mark is a darker spot the bright part encloses; the table round a reflection (and
    # round a die) reaches the box's edge
    bright = cv2.cvtColor(_box(frame, find, 1.0), cv2.COLOR_BGR2GRAY) >= GLARE_BRIGHT
    outside = np.pad((~bright).astype(np.uint8), 1, constant_values=1)
    cv2.floodFill(outside, None, (0, 0), 2)
    return not (outside == 1).any()


def _box(frame: np.ndarray, find, share: float) -> np.ndarray:
    """The middle ``share`` of a find's box (clipped to the frame), contiguous."""
    h, w = frame.shape[:2]
    x0, x1 = max(0, int(find.x - share / 2 * find.w)), min(w, int(find.x + share / 2 * find.w) + 1)
    y0, y1 = max(0, int(find.y - share / 2 * find.h)), min(h, int(find.y + share / 2 * find.h) + 1)
    return np.ascontiguousarray(frame[y0:y1, x0:x1])


def letterbox(frame: np.ndarray, side: int = FIND_SIZE) -> tuple[np.ndarray, float]:
    """The frame shrunk (or grown) so its longer side is ``side``, padded to a square.

    Shrinking by more than half averages pixels (INTER_AREA); a milder shrink interpolates,
    which differs from averaging by about half a grey level here and is five times faster
    (OpenCV's area resize is slow for scales like 640 -> 384)."""
    h, w = frame.shape[:2]
    scale = side / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    interp = cv2.INTER_AREA if scale <= 0.5 else cv2.INTER_LINEAR
    small = cv2.resize(frame, (nw, nh), interpolation=interp)
    canvas = np.full((side, side, 3), PAD, np.uint8)
    canvas[:nh, :nw] = small
    return canvas, scale


def heat_maxima(heat_logit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The heatmap (from the finder's logits) and where its 3x3 local maxima are."""
    heat = 1.0 / (1.0 + np.exp(-heat_logit))
    return heat, heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))


def peaks(maps: np.ndarray, scale: float, threshold: float) -> list[Find]:
    """Local maxima of the heatmap, as dice boxes in frame pixels."""
    heat, maxima = heat_maxima(maps[0])
    ys, xs = np.nonzero(maxima & (heat >= threshold))
    finds = []
    for iy, ix in sorted(zip(ys, xs), key=lambda p: -heat[p]):
        w = 16.0 * float(np.exp(np.clip(maps[1, iy, ix], -4, 4))) / scale
        h = 16.0 * float(np.exp(np.clip(maps[2, iy, ix], -4, 4))) / scale
        cx = (ix + float(np.clip(maps[3, iy, ix], 0, 1))) * STRIDE / scale
        cy = (iy + float(np.clip(maps[4, iy, ix], 0, 1))) * STRIDE / scale
        find = Find(cx, cy, w, h, float(heat[iy, ix]))
        if not covered(find, finds):  # two maxima on one die (a long oblique die): keep the stronger
            finds.append(find)
    return finds


def crop(frame: np.ndarray, find: Find, out: int = CROP) -> np.ndarray:
    """out x out square around a die, CONTEXT x its size, edge-reflected off the frame."""
    side = max(4, int(round(CONTEXT * find.side)))
    x0, y0 = int(round(find.x - side / 2)), int(round(find.y - side / 2))
    fh, fw = frame.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + side > fw or y0 + side > fh:
        pad = side
        frame = cv2.copyMakeBorder(frame, pad, pad, pad, pad, cv2.BORDER_REFLECT)
        x0, y0 = x0 + pad, y0 + pad
    roi = frame[max(0, y0):y0 + side, max(0, x0):x0 + side]
    interp = cv2.INTER_AREA if side > out else cv2.INTER_LINEAR
    return cv2.resize(roi, (out, out), interpolation=interp)


def mirrored(canvas: np.ndarray, width: int) -> np.ndarray:
    """A letterboxed canvas with its picture (the first ``width`` columns) mirrored left to
    right; the padding stays where it was."""
    out = canvas.copy()
    out[:, :width] = canvas[:, :width][:, ::-1]
    return out


# The mirrored second look (``finder_maps``) is taken only for a frame whose plain heatmap
# has at least MIRROR_PEAKS local maxima in MIRROR_BAND (finds the finder is unsure of, or
# nearly finds): a clean tray photo rarely has two, a crowded or busy scene often does.
# Picked on the 'val' photos (mixed ones: precision 86.7 -> 90.7 %, per die 82.8 % either
# way, the same as mirroring every frame; 12 % of tray photos take the second look) and
# checked on the 'train' side (mixed precision 89.5 -> 92.7 %) before the held-out photos.
MIRROR_BAND = (0.2, 0.5)
MIRROR_PEAKS = 2


def unsure_peaks(heat_logit: np.ndarray, band: tuple[float, float] = MIRROR_BAND) -> int:
    """How many local maxima of the heatmap (given as logits) lie within ``band``."""
    heat, maxima = heat_maxima(heat_logit)
    return int(np.count_nonzero(maxima & (heat >= band[0]) & (heat < band[1])))


def finder_maps(finder, canvas: np.ndarray, width: int, mirror: bool = False) -> np.ndarray:
    """The finder's output maps (heat logit, box size, offsets) for one letterboxed canvas
    whose picture is ``width`` columns wide. ``mirror``: where the plain heatmap is unsure
    (``unsure_peaks`` >= MIRROR_PEAKS), the canvas is read mirrored too and the heat logit
    becomes the mean of the two (mirrored back), so a speck or a printed pattern that looks
    like a die from one side only is damped while a die is a die both ways round (sizes and
    offsets stay the plain pass's)."""
    finder.setInput(cv2.dnn.blobFromImage(canvas, 1 / 255.0))
    maps = finder.forward()[0].copy()
    if mirror and unsure_peaks(maps[0]) >= MIRROR_PEAKS:
        # mirror whole heatmap cells (a few padding columns may come along) so that cell i
        # of the mirror image is cell cells-1-i of the plain one
        cells = min(maps.shape[2], -(-width // STRIDE))
        finder.setInput(cv2.dnn.blobFromImage(mirrored(canvas, cells * STRIDE), 1 / 255.0))
        other = finder.forward()[0][0]
        maps[0, :, :cells] = 0.5 * (maps[0, :, :cells] + other[:, :cells][:, ::-1])
    return maps


# A big frame is also looked at in tiles at finer scales (``finer_scales``), or its small
# dice would shrink below what the finder sees: it learnt from 640 px photos shrunk to its
# 320 px input, where the smallest dice (20 px) are 10 px. FINEST_SCALE keeps that promise
# for any frame: a 20 px die is 10 px at the finest pass. A finer pass only adds dice that
# would be under HANDOFF_PX at the next coarser one (the coarser pass sees bigger ones
# whole); where passes find the same die, the one that sees it biggest (up to
# GOOD_INPUT_PX) keeps it (``merged``). Tiles overlap by TILE_OVERLAP of their side, more
# than twice the biggest die a finer pass adds.
FINEST_SCALE = 0.5
HANDOFF_PX = 28.0
GOOD_INPUT_PX = 10.0
TILE_OVERLAP = 0.2


def finer_scales(height: int, width: int, size: int = FIND_SIZE) -> list[float]:
    """The scales (frame -> finder input) of the tiled passes a frame gets after the
    whole-frame one: each twice the one before, the last FINEST_SCALE; none for a frame
    whose whole-frame pass is already at FINEST_SCALE or finer (640 px and smaller)."""
    scale, out = size / max(height, width), []
    while scale < FINEST_SCALE - 1e-9:
        scale = min(2 * scale, FINEST_SCALE)
        out.append(scale)
    return out


def tile_origins(length: int, side: int, overlap: float = TILE_OVERLAP) -> list[int]:
    """Where tiles of ``side`` start along ``length`` so that they cover it, overlapping by
    at least ``overlap`` of ``side``."""
    if length <= side:
        return [0]
    step = max(1, int(side * (1 - overlap)))
    starts = list(range(0, length - side, step))
    return starts + [length - side]


def tiled_finds(finder, frame: np.ndarray, scale: float, threshold: float, size: int,
                mirror: bool) -> list[Find]:
    """The finder on ``size`` px tiles of the frame shrunk by ``scale``, in frame pixels."""
    h, w = frame.shape[:2]
    sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA if scale <= 0.5 else cv2.INTER_LINEAR)
    margin = TILE_OVERLAP * size / 2

    def inside(at: float, start: int, length: int, whole: int) -> bool:
        # a die near a tile's inner edge is cut off there: the next tile sees it whole
        return (start == 0 or at >= margin) and (start + length >= whole or at < length - margin)

    finds = []
    for oy in tile_origins(sh, size):
        for ox in tile_origins(sw, size):
            tile = small[oy:oy + size, ox:ox + size]
            th, tw = tile.shape[:2]
            canvas = np.full((size, size, 3), PAD, np.uint8)
            canvas[:th, :tw] = tile
            for f in peaks(finder_maps(finder, canvas, tw, mirror), scale, threshold):
                tx, ty = f.x * scale, f.y * scale  # tile pixels
                if tx < tw and ty < th and inside(tx, ox, tw, sw) and inside(ty, oy, th, sh):
                    finds.append(Find(f.x + ox / scale, f.y + oy / scale, f.w, f.h, f.score, fine=True))
    return finds


def covered(find: Find, finds: list[Find]) -> bool:
    """Whether ``find`` lies on one of ``finds`` (as ``peaks`` tells two maxima of one die)."""
    return any(abs(f.x - find.x) < 0.45 * max(f.w, find.w) and abs(f.y - find.y) < 0.45 * max(f.h, find.h)
               for f in finds)


def merged(candidates: list[tuple[Find, float]], confirm: float = 0.0) -> list[Find]:
    """One find per die from the finds of several passes (each with its pass's scale): the
    coarsest pass that sees the die at least GOOD_INPUT_PX across keeps it (the finder's
    usual view, read with the usual gates); a die no pass sees that big goes to the pass
    that sees it biggest; between finds of one pass, the surer; finds under ``confirm``
    only where no surer find lies. A finer pass's find that a
    coarser pass found too (at ``confirm`` or surer) is read with the usual gates (``Find.fine``
    False)."""
    def rank(candidate: tuple[Find, float]) -> tuple:
        find, scale = candidate
        seen = find.side * scale
        faint = find.score < confirm  # a faint find never hides a surer one
        return (faint, 0, scale, -find.score) if seen >= GOOD_INPUT_PX else (faint, 1, -seen, -find.score)
    out: list[Find] = []
    for find, scale in sorted(candidates, key=rank):
        if covered(find, out):
            continue
        if find.fine and any(s < scale and f.score >= confirm and covered(f, [find]) for f, s in candidates):
            find = replace(find, fine=False)  # a coarser pass saw it too: not a finer pass's alone
        out.append(find)
    return out


# The finer passes run only where the whole-frame pass suggests small dice: it found none
# (at the usual threshold), or the median die it found is under SMALL_DICE_PX in its input,
# near the smallest it finds reliably (10 px: a 20 px die in a 640 px photo). A big photo of
# big dice (a phone photo) is read by the whole-frame pass alone, as its 640 px copy would
# be: finer passes there see pips and specks as big as small dice.
SMALL_DICE_PX = 12.0
# A finer pass adds no die under FINE_MIN_SHARE of the median die the whole-frame pass found:
# the dice of one frame are of a size, and what a finer pass finds far smaller is mostly a
# pip or a speck. Picked on the 'train'-side mixed photos blown up 3x (precision with finer
# passes 87.2 -> 89.6 %, 92.6 % without them) and val mosaics (byler 2x2 / 3x3 unchanged,
# epanemu 2x2 73.8 -> 73.5 %); 0.7 lost a sixth of byler's 3x3 mosaic dice.
FINE_MIN_SHARE = 0.5


def median_die(finds: list[Find], confirm: float) -> float | None:
    """The median longer side (frame pixels) of the finds at ``confirm`` or surer; None if none."""
    sides = [f.side for f in finds if f.score >= confirm]
    return float(np.median(sides)) if sides else None


def small_dice_likely(median: float | None, scale: float) -> bool:
    """Whether a frame whose whole-frame pass (at ``scale``) found dice of this ``median_die``
    (None: none) has dice too small for that pass."""
    return median is None or median * scale < SMALL_DICE_PX


# A die filling a fifth or more of the frame (a close-up, a photo zoomed in) is out of the
# finder's reach at its usual scale: it learnt dice up to about 90 px in its input, and it
# takes the pips of a bigger die for small dice. So a frame the finer passes do not look
# at also gets a pass at half the usual scale (``big_dice_finds``: a 160 px input, a
# quarter of the finder's usual work, about 1.8 ms here with its resize). Its finds seen
# at BIG_DIE_PX or more there (80 px or more in the usual input) are read too where the
# usual pass has no die at least BIG_SHARE of their size; a big die read at BIG_SURE or
# surer, and surer than every smaller find on it, takes their place (they were its pips);
# otherwise they stay and it goes (at half the scale a pile of dice can look like one die:
# ``big_or_small``). Picked on the 'val' photos blown up around a die (a window a third /
# half of the photo's side, specks of the photo's own noise taken out first, then 3x /
# 2x), first with the choice made by the finder's score alone: mixed photos at 3x per die
# 65.0 -> 81.3 %, precision 71.6 -> 78.0 %; BIG_SHARE 0.5 / 0.6 / 0.75 / 0.9 read 74.0 /
# 75.6 / 81.3 / 81.3 %; BIG_SURE 0.3 lost real dice on the photos as taken (86.1 -> 82.6
# %), 0.8 kept more pips; BIG_DIE_PX 30 / 40 / 50 the same. That rule read piles as big
# dice in 'val' frames blown up 2x (`vision.bench big`: 85.4 -> 83.5 %), so the face
# reader's confidences decide instead: 3x 79.7 %, precision 78.6 %; 2x 78.9 % either way;
# the photos as taken 85.9 -> 86.1 %; `vision.bench big` the same or better in every row.
# Checked on the 'train' side (every fourth mixed photo, 3x): 77.1 -> 87.9 % per die,
# precision 70.2 -> 79.6 %.
BIG_DIE_PX = 40.0
BIG_SHARE = 0.75
BIG_SURE = 0.5


def big_dice_finds(finder, frame: np.ndarray, threshold: float, size: int = FIND_SIZE) -> list[Find]:
    """The finder's finds at ``threshold`` or surer on the frame shrunk to ``size // 2`` px,
    only those seen at BIG_DIE_PX or more there (frame pixels)."""
    canvas, scale = letterbox(frame, size // 2)
    width = max(1, round(frame.shape[1] * scale))
    return [f for f in peaks(finder_maps(finder, canvas, width), scale, threshold)
            if f.side * scale >= BIG_DIE_PX]


def with_big_dice(finds: list[Find], big: list[Find]) -> list[Find]:
    """``finds`` and the ``big`` dice (marked ``Find.big``) they have no die of at least
    BIG_SHARE their size for. Which of a big die and the smaller finds on it stay is decided
    once their faces are read (``big_or_small``)."""
    new = [replace(b, big=True) for b in big
           if not any(covered(b, [f]) and f.side >= BIG_SHARE * b.side for f in finds)]
    return finds + new


def on_die(find: Find, big: Find) -> bool:
    """Whether ``find`` is a smaller find whose centre lies on the ``big`` die's box."""
    return (abs(find.x - big.x) < big.w / 2 and abs(find.y - big.y) < big.h / 2
            and find.side < BIG_SHARE * big.side)


def big_or_small(finds: list[Find], kept: np.ndarray, confidence: np.ndarray) -> np.ndarray:
    """``kept`` with, for each kept big die (``Find.big``), either it or the kept smaller
    finds on it: the big die when its read is at least BIG_SURE sure and surer than each of
    theirs (they were its pips), else they (it was a pile of dice seen as one)."""
    kept = kept.copy()
    for i, b in enumerate(finds):
        if not (b.big and kept[i]):
            continue
        smaller = [j for j, f in enumerate(finds) if j != i and kept[j] and not f.big and on_die(f, b)]
        if confidence[i] >= BIG_SURE and all(confidence[i] > confidence[j] for j in smaller):
            kept[smaller] = False
        elif smaller:
            kept[i] = False
    return kept


def run_finder(finder, frame: np.ndarray, threshold: float, size: int = FIND_SIZE,
               mirror: bool = False, confirm: float | None = None) -> list[Find]:
    """The finder network (input ``size`` x ``size``) on one frame: its heatmap's peaks above
    ``threshold``, in frame pixels (``mirror``: see ``finder_maps``). A frame bigger than
    twice ``size`` whose whole-frame finds at ``confirm`` (default ``threshold``) or surer
    are none or small (``small_dice_likely``) is also looked at in tiles at finer scales
    (``with_finer_finds``); any other frame at half the scale, for dice too big for the
    whole-frame pass (``big_dice_finds`` at ``confirm``, merged by ``with_big_dice``). (Not
    both: at half the scale, a big frame of small dice shows whole groups of dice as big
    dice of pips.)"""
    canvas, scale = letterbox(frame, size)
    width = max(1, round(frame.shape[1] * scale))
    finds = peaks(finder_maps(finder, canvas, width, mirror), scale, threshold)
    confirm = threshold if confirm is None else confirm
    finer = finer_scales(*frame.shape[:2], size)
    median = median_die(finds, confirm)
    if finer and small_dice_likely(median, scale):
        return with_finer_finds(finder, frame, finds, scale, finer, median, threshold, size, mirror, confirm)
    return with_big_dice(finds, big_dice_finds(finder, frame, confirm, size))


def with_finer_finds(finder, frame: np.ndarray, finds: list[Find], scale: float, finer: list[float],
                     median: float | None, threshold: float, size: int, mirror: bool,
                     confirm: float) -> list[Find]:
    """The whole-frame ``finds`` (at ``scale``) with the small dice of tiled passes at the
    ``finer`` scales (none under FINE_MIN_SHARE of the ``median`` die the whole-frame pass
    found); a die they find that the whole-frame pass found at ``confirm`` or surer is not
    theirs alone (``merged``)."""
    candidates, coarser = [(f, scale) for f in finds], scale
    least = FINE_MIN_SHARE * (median or 0.0)
    for fine in finer:  # each adds dice too small for the coarser pass, but not far smaller than its dice
        candidates += [(f, fine) for f in tiled_finds(finder, frame, fine, threshold, size, mirror)
                       if least <= f.side and f.side * coarser < HANDOFF_PX]
        coarser = fine
    return merged(candidates, confirm)


def softmax(logits: np.ndarray, temperature: float) -> np.ndarray:
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def trust_features(p: np.ndarray, heat: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Per read (rows of softmax ``p`` over faces 1..6 + "no die", finder ``heat``, die
    ``size`` in pixels): what says whether a read is right, for the confidence model."""
    top2 = np.sort(p[:, :6], axis=1)[:, -2:]
    eps = 1e-6
    return np.column_stack([np.log(top2[:, 1] + eps) - np.log(1 - top2[:, 1] + eps),
                            np.log(top2[:, 1] - top2[:, 0] + eps),
                            np.log(p[:, 6] + eps), heat, np.log(np.maximum(size, 1.0))])


def box_outline(x: float, y: float, w: float, h: float) -> tuple[tuple[float, float], ...]:
    return ((x - w / 2, y - h / 2), (x + w / 2, y - h / 2), (x + w / 2, y + h / 2), (x - w / 2, y + h / 2))


SETTINGS_NEEDED = ("temperature", "find_threshold")


def load_settings(path: Path) -> dict:
    """The reader's fitted settings (``pip_reader.json``, written by
    ``vision.training.calibrate``), checked enough that a damaged or hand-edited file names
    itself and what is wrong instead of failing somewhere inside the reader."""
    try:
        settings = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ValueError(f"{path}: the pip reader's settings are missing (they belong beside "
                         f"pip_finder.onnx and pip_faces.onnx)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(settings, dict):
        raise ValueError(f"{path}: expected a JSON object of settings, got {type(settings).__name__}")
    missing = [key for key in SETTINGS_NEEDED if key not in settings]
    if missing:
        raise ValueError(f"{path}: no {', '.join(missing)} (run python -m vision.training.calibrate)")
    if not isinstance(settings.get("find_mirror", False), bool):
        raise ValueError(f"{path}: find_mirror must be true or false, got {settings['find_mirror']!r}")
    if settings.get("mirror_faces") is not None:
        check_mirror_faces(settings["mirror_faces"], f"{path}: mirror_faces")
    if settings.get("faint_finds") is not None:
        check_faint(settings["faint_finds"], settings["find_threshold"], path)
    return settings


def check_mirror_faces(value, where: str) -> None:
    """``mirror_faces`` (a crop is read again mirrored below this top probability) must be
    a number from 0 to 1; ``where`` names the file's key or the flag in the message."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{where} must be a probability from 0 to 1, got {value!r}")


FAINT_KEYS = ("threshold", "die_prob", "face_prob")


def check_faint(faint, find_threshold, path) -> None:
    """``faint_finds`` must be {"threshold", "die_prob", "face_prob"}, each in [0, 1], the
    threshold below ``find_threshold`` (else there is nothing faint to keep)."""
    if not isinstance(faint, dict) or sorted(faint) != sorted(FAINT_KEYS):
        raise ValueError(f"{path}: faint_finds must be an object with exactly "
                         f"{', '.join(FAINT_KEYS)}, got {faint!r}")
    for key in FAINT_KEYS:
        value = faint[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{path}: faint_finds.{key} must be a number from 0 to 1, got {value!r}")
    if faint["threshold"] >= find_threshold:
        raise ValueError(f"{path}: faint_finds.threshold {faint['threshold']} must be below "
                         f"find_threshold {find_threshold}")


# A finer pass's find (``Find.fine``) is held to this bar whatever its heat: a big frame's
# finer passes see its texture and specks as big as small dice, and the finder fires on
# them: on the 'train'-side mixed photos blown up to 1280 px, where the whole-frame pass
# sees every die as in the photo itself, finer passes on every photo with the plain gates
# cut precision from 92 % to 69 %; with these it was 90 %, per die 93.2 -> 94.1 %. Since
# then only photos whose dice look small take finer passes (``small_dice_likely``). Held
# to 0.99 / 0.97 instead, the finer passes lost most of what they find (val photos set
# 2x2: byler 97.6 -> 90.4 %, epanemu 73.8 -> 70.7 % per die) for no steady precision.
FINE_GATE = {"die_prob": 0.97, "face_prob": 0.9}


def dice_kept(heat: np.ndarray, probs: np.ndarray, find_threshold: float, min_die_prob: float,
              faint: dict | None, fine: np.ndarray | None = None) -> np.ndarray:
    """Which finds are dice, from their heat scores and face probabilities (N x 7, "no die"
    last): a find at ``find_threshold`` or above unless the face reader says "no die"
    (``min_die_prob``); a fainter one (``faint["threshold"]`` or above) only when the face
    reader is sure it is a die and of its face (``faint_finds``); a find of a finer pass
    (``fine``) only when the face reader is that sure (``FINE_GATE``). The calibration keeps
    the same finds."""
    die = 1.0 - probs[:, 6]
    face = probs[:, :6].max(axis=1)
    fine = np.zeros(len(heat), bool) if fine is None else np.asarray(fine, bool)
    strong = heat >= find_threshold
    keep = strong & ~fine & (die >= min_die_prob)
    if faint is not None:
        keep |= (~strong & ~fine & (heat >= faint["threshold"]) & (die >= faint["die_prob"])
                 & (face >= faint["face_prob"]))
    floor = find_threshold if faint is None else min(find_threshold, faint["threshold"])
    keep |= fine & (heat >= floor) & (die >= FINE_GATE["die_prob"]) & (face >= FINE_GATE["face_prob"])
    return keep


class PipReader:
    """Reads standard pip d6 in a BGR frame: ``PipReader()(frame) -> Roll``.

    Parameters (keyword-only): ``models`` folder holding ``pip_finder.onnx``,
    ``pip_faces.onnx`` and ``pip_reader.json``; ``turns`` (1, 2 or 4) readings per die at
    90-degree turns; ``find_threshold`` heatmap level that counts as a die.
    """

    def __init__(self, *, models: Path = MODELS, turns: int | None = None,
                 find_threshold: float | None = None):
        settings = load_settings(Path(models) / "pip_reader.json")
        self.finder = load_net(Path(models) / "pip_finder.onnx")
        self.reader = load_net(Path(models) / "pip_faces.onnx")
        self.temperature = float(settings["temperature"])
        self.turns = int(turns or settings.get("turns", 4))
        self.find_threshold = float(find_threshold or settings["find_threshold"])
        self.min_die_prob = float(settings.get("min_die_prob", 0.5))
        self.crop_side = int(settings.get("crop", CROP))
        self.find_size = int(settings.get("find_size", FIND_SIZE))
        # an unsure frame is read mirrored too and the finder's heat averaged (finder_maps)
        self.find_mirror = settings.get("find_mirror", False)
        # a crop whose first read's top probability is below this is also read mirrored
        self.mirror_faces = settings.get("mirror_faces")
        knots = settings.get("confidence_knots")
        self.knots = tuple(np.array(k, float) for k in zip(*knots)) if knots else None
        # finder box -> whole-die box (fitted on rendered dice; for taught sets, see dicesets)
        self.box_scale = tuple(float(v) for v in settings.get("box_scale", (1.0, 1.0)))
        trust = settings.get("trust")
        self.trust = (np.array(trust["weights"], float), float(trust["bias"])) if trust else None
        # peaks between faint_finds.threshold and find_threshold: kept only when the face
        # reader is sure of the die and its face (see ``keep``); None = no faint finds
        self.faint = settings.get("faint_finds")

    def confidences(self, probs: np.ndarray, finds: list[Find]) -> np.ndarray:
        """The reported confidence of each read: a trust score (fitted on validation photos
        from the face probabilities, the finder's score and the die's size) put through the
        fitted curve; without those settings, the face probability itself."""
        k = np.argmax(probs[:, :6], axis=1)
        score = probs[np.arange(len(k)), k]
        if self.trust is not None:
            x = trust_features(probs, np.array([f.score for f in finds]),
                               np.array([f.side for f in finds]))
            score = 1.0 / (1.0 + np.exp(-(x @ self.trust[0] + self.trust[1])))
        return np.interp(score, *self.knots) if self.knots else score

    def crops(self, frame: np.ndarray, finds: list[Find]) -> list[np.ndarray]:
        """The face reader's input crop for each find, cut from the frame ``brightened`` if
        it is dim."""
        frame = brightened(frame)
        return [crop(frame, f, self.crop_side) for f in finds]

    def find(self, frame: np.ndarray, threshold: float | None = None) -> list[Find]:
        """The dice the finder sees, at ``threshold`` (default: the fitted ``find_threshold``),
        in the frame ``brightened`` if it is dim. (A calibrated tray's reader replaces this
        with the tray's own finder, which compares the frame as taken with the empty tray.)"""
        return run_finder(self.finder, brightened(frame), self.find_threshold if threshold is None else threshold,
                          self.find_size, self.find_mirror, confirm=self.find_threshold)

    def keep(self, probs: np.ndarray, finds: list[Find]) -> np.ndarray:
        """Which finds are dice (``dice_kept`` with this reader's settings)."""
        return dice_kept(np.array([f.score for f in finds], float), probs, self.find_threshold,
                         self.min_die_prob, self.faint, np.array([f.fine for f in finds], bool))

    def logits(self, crops: list[np.ndarray]) -> np.ndarray:
        """Face logits per crop (N x 7), averaged over ``turns`` quarter turns; a crop whose
        top probability (softmax at temperature 1) is below ``mirror_faces`` is read again
        mirrored left to right, and the two averaged."""
        blob = cv2.dnn.blobFromImages(crops, 1 / 255.0)
        out = self._forward(blob)
        if self.mirror_faces is not None:
            top = softmax(out, 1.0).max(axis=1)
            # at 1, every crop (a top probability can round to exactly 1.0)
            unsure = np.flatnonzero(top < self.mirror_faces) if self.mirror_faces < 1 else np.arange(len(out))
            if len(unsure):
                out[unsure] = 0.5 * (out[unsure] + self._forward(blob[unsure, :, :, ::-1]))
        return out

    def _forward(self, blob: np.ndarray) -> np.ndarray:
        """The face reader's logits for a blob of crops, averaged over ``turns``."""
        views = [np.rot90(blob, k, axes=(2, 3)) for k in range(self.turns)]
        self.reader.setInput(np.ascontiguousarray(np.concatenate(views)))
        return self.reader.forward().reshape(len(views), len(blob), -1).mean(axis=0)

    def read(self, frame: np.ndarray) -> Roll:
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        elif frame.shape[2] == 4:
            frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
        finds = self.find(frame) if self.faint is None else self.find(frame, self.faint["threshold"])
        dice = []
        if finds:
            crops = self.crops(frame, finds)
            soft = soft_frame(crops)
            probs = softmax(self.logits([unsharp(c) for c in crops] if soft else crops), self.temperature)
            trust = SOFT_TRUST if soft else 1.0
            confidences = trust * self.confidences(probs, finds)
            for f, p, confidence, keep in zip(finds, probs, confidences,
                                              big_or_small(finds, self.keep(probs, finds), confidences)):
                if not keep or lamp_reflection(frame, f):
                    continue  # "no die", a faint find the face reader is not sure of, or glare
                k = int(np.argmax(p[:6]))
                dice.append(Die(face=FACES[k], confidence=float(confidence), x=f.x, y=f.y, w=f.w,
                                h=f.h, outline=box_outline(f.x, f.y, f.w, f.h)))
        dice.sort(key=lambda d: (round(d.y / max(d.h, 1.0)), d.x))
        h, w = frame.shape[:2]
        return Roll(tuple(dice), "d6-pips", (w, h), ("uncalibrated",))

    __call__ = read
