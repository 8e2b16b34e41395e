"""Few-shot face classifier for custom dice the user teaches (MILK, BELL, SNOWFLAKE, ...).

Nothing here is trained on any particular die: a taught model is just the user's example
crops, normalised and turned through many angles, and reading is nearest-template matching.

Normalising a crop (``face_pattern``):

* square crop around the die's top face (``face_crop``: a slanted view's box holds the top
  face in its upper part), resized to ``SIDE`` pixels;
* colour to one channel along the crop's main colour axis, so a red symbol on a green die
  is as visible as black on white (an unsure read is tried along the second axis too: see
  SECOND_AXIS_MARGIN);
* the table around the die (the crop's corners, and table pixels joined to the border:
  ``table_around_die``) set to the top face's colour, so a die's outline is not a symbol;
* band-pass (small blur minus large blur): removes lighting gradients and exposure;
* polarity: the symbol is the minority of the face, so the sign is chosen to make it
  bright whatever the die and ink colours (an icon about as large as the face can fool that
  rule, so an unsure read is tried with the sign flipped too: see OTHER_READINGS);
* a disc mask (corners hold table, shadow and the die's sides), zero mean, unit norm.

Teaching (``teach``) stores each example at ``ANGLES`` rotations and a few scales, so
reading is rotation-invariant. Reading (``FaceModel.classify``) tries the crop at small
``SHIFTS`` (a die finder's box is never exactly centred on the top face) and takes, per
face, its best examples' cosine similarities (``NEIGHBOURS``) over their templates. Its confidence combines the margin between
the best and second face with how well the best face fits at all, both scaled by what the
teaching examples themselves score against each other (leave-one-out), so an unknown
symbol, a tilted die or a blur reads low.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import threading
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import cv2
import numpy as np

from vision.roll import Die, Roll

SIDE = 32  # normalised pattern side, pixels
ANGLES = 24  # rotations stored per example (15 degrees apart)
SCALES = (0.9, 1.0, 1.1)  # box sizes vary with how tight the die finder is
MASK_RADIUS = 0.30  # of SIDE: the top face, not the sides or the table
FINE_SIGMA = 1 / 48  # of the crop side
COARSE_SIGMA = 1 / 6
# Of the crop side: beyond this radius from the centre (the crop's corners: table, shadow,
# neighbours) the channel is set to the top face's median before the band-pass, so a dark
# die's outline against a light table does not outweigh its symbol. Picked on the 'val'
# photos of the few-shot figures (0, 0.5, 0.55, 0.6; README).
TABLE_RADIUS = 0.5
# Inside that radius, the table that shows between the die's edge and the crop's circle
# (a square die turned 45 degrees leaves a lot of it) is found by colour: pixels nearer the
# table's colour (the crop border's median) than TABLE_NEAR of the way to the die's colour,
# joined to the crop border, are set to the top face's median too, so a dark die's outline
# on a light tray stops looking like part of its symbol (pips are not joined to the border,
# so they stay, whatever their colour). Only when the border is a plain table: its spread
# (75th percentile distance from its median colour) under PLAIN_TABLE of the die-table
# colour gap; a busy background is left as it was. Picked on the few-shot figures'
# 'train'-side photos that did not teach (README).
TABLE_NEAR = 0.5
PLAIN_TABLE = 0.5
MAP_VERSION = f"table{TABLE_RADIUS}-flood{TABLE_NEAR}-{PLAIN_TABLE}"  # stored with each model: a set taught with another map is taught again
SHIFTS = (-2, 0, 2)  # pixels of SIDE: the top face is rarely centred in a die's box
MIN_EXAMPLES = 3  # fewer per face cannot be checked against each other
# A die whose body is two colours (a swirl of blue and white) has that swirl along its main
# colour axis and its symbol (red pips, say) along the second. A crop whose main-axis read is
# below SECOND_AXIS_BELOW confidence is read along the second axis too, and that read is
# taken when its best face fits better by more than SECOND_AXIS_MARGIN (cosine similarity).
# Picked on the few-shot figures' 'train'-side photos that did not teach (3 draws, true
# boxes; margin 0 / 0.02 / 0.04 / 0.06 / 0.08 / never, for every crop: byler 87.8 / 87.8 /
# 87.5 / 87.3 / 86.8 / 85.0 %, epanemu 68.3 / 69.8 / 70.8 / 71.0 / 71.3 / 71.1 %), then the
# confidence bound (0.5 / 0.7 / 0.8 / 0.9 / none: byler 86.2 / 86.6 / 87.0 / 87.4 / 87.3 %,
# epanemu 71.2 / 71.4 / 71.2 / 71.0 / 71.0 %; on 1,051 rendered christmas-romance dice
# without the bound two dark dice read a light table's tint as a symbol at >= 0.9, with
# 0.8 none), and only then checked on the held-out photos (README).
SECOND_AXIS_MARGIN = 0.06
SECOND_AXIS_BELOW = 0.8
# The other ways an unsure read (below SECOND_AXIS_BELOW) is tried, in turn, each kept when
# its best face fits better by more than SECOND_AXIS_MARGIN: along the second colour axis
# (above), and with the map's sign flipped. The sign rule (the symbol is the minority of the
# face) fails for an icon covering about half the face: a big snowflake or mug, cut without
# the table around it, came out dark where its teaching crops had it bright. Measured on
# 1,051 rendered dice per built-in set (6 die styles, true boxes): jingle-bell-roll 97.2 ->
# 98.9 %, christmas-romance 97.1 -> 98.9 %, none of the reads >= 0.9 wrong; on the
# 'train'-side photos that did not teach (3 draws) byler 91.7 -> 91.8 %, epanemu 70.8 %
# either way. Margins 0.02 / 0.06 / 0.1, or trying every crop: within 0.1 point of each other.
OTHER_READINGS = ({"axis": 1}, {"flip": True})
CROP_PAD = 1.1  # crop side / die box side, for teaching and reading alike
# A die box taller than wide is a die seen at a slant by a camera held upright (a phone over
# the table): its top face is the box's upper part, the side facing the camera below it.
# The crop then moves up by this share of the box's extra height, and shrinks by it (0 = the
# box's centre). Picked on the few-shot figures' 'train'-side photos that did not teach
# (one copy per photo, 3 draws; 0.5 / 0.7 / 1.0 / 1.3 for boxes over 1.08 times taller than
# wide: epanemu 70.1 / 70.8 / 70.0 / 68.7 %, 0.7 for every taller box 71.0 %, none 65.5 %;
# byler 84.1 -> 85.0 %), then checked on the held-out photos (README). A straight-down
# camera sees square boxes: little changes there.
TOP_FACE_SHIFT = 0.7
# A die finder's box is often a little off the die: too small (a pale die on a pale mat),
# or grown over a neighbour. A read below RESCALE_BELOW is read again from the box at these
# sizes, and the surest of the reads kept (``surest_reads``). Picked on 1,050 rendered dice
# per built-in set through the pip finder, 6 die styles no figure uses (seeds 6-11): every
# box read at 1 and 1.15 / 0.9, 1 and 1.15 / 1, 1.1 and 1.2, the surest kept:
# jingle-bell-roll 97.5 -> 97.9 / 98.1 / 98.1 %, christmas-romance 97.0 -> 97.9 / 98.1 /
# 97.9 %; only reads below 0.9 read again, 0.9 and 1.15: 98.1 / 98.1 %, the reads >= 0.9
# the same. On the 'train'-side photos that did not teach (finder boxes, every second
# epanemu photo, teaching draws 0 and 1): byler 95.3 / 94.7 -> 95.6 / 94.7 %, epanemu
# 70.1 / 65.2 -> 71.8 / 65.0 %; below 0.5 or 0.7 instead of 0.9: within 0.3 points.
RESCALE_BOXES = (0.9, 1.15)
RESCALE_BELOW = 0.9
MARGIN_GAIN = 4.0  # confidence 0.98 at the teaching examples' median margin
LOO_MIN = 12  # teaching reads that set the confidence cap (see FaceModel._share_right)
MODEL_VERSION = 1
# A face scores its best teaching examples' matches, so weighted, per feature kind (picked
# on the val photos' few-shot pip dice: best / two best / three best 0.5-0.3-0.2 read byler
# 82.9 / 84.8 / 86.0 %, epanemu 62.4 / 64.3 / 64.6 %; the patterns alone read rendered icon
# dice worse with more than one, so they keep the best example's match):
NEIGHBOURS = {"pattern": (1.0,), "embedding": (0.5, 0.3, 0.2), "fused": (0.5, 0.3, 0.2)}
SINGLE_BEST = (1.0,)  # for sets taught from many die looks: the matching look decides


class TeachError(ValueError):
    """Teaching examples that cannot make a model (too few, unreadable, duplicated face)."""


# --------------------------------------------------------------------------- crops

def crop_die(frame: np.ndarray, x: float, y: float, w: float, h: float,
             pad: float = 1.0) -> np.ndarray:
    """The square crop around a die box (centre x, y; size w, h), padded with edge pixels
    where it runs off the frame."""
    side = max(2, int(round(max(w, h) * pad)))
    x0 = int(round(x - side / 2))
    y0 = int(round(y - side / 2))
    fh, fw = frame.shape[:2]
    top, left = max(0, -y0), max(0, -x0)
    bottom, right = max(0, y0 + side - fh), max(0, x0 + side - fw)
    part = frame[max(0, y0):min(fh, y0 + side), max(0, x0):min(fw, x0 + side)]
    if part.size == 0:
        raise ValueError(f"die box ({x:.0f}, {y:.0f}, {w:.0f}x{h:.0f}) lies outside the frame")
    if top or left or bottom or right:
        part = cv2.copyMakeBorder(part, top, bottom, left, right, cv2.BORDER_REPLICATE)
    return part


def face_box(x: float, y: float, w: float, h: float,
             shift: float | None = None) -> tuple[float, float, float, float]:
    """Where in a die box (centre x, y; size w, h) its top face lies: the box itself, or for a
    box taller than wide its upper part, ``shift`` (default TOP_FACE_SHIFT) of the extra
    height."""
    shift = TOP_FACE_SHIFT if shift is None else shift
    if h <= w or not shift:
        return x, y, w, h
    extra = shift * (h - w)
    return x, y - extra / 2, w, h - extra


def face_crop(frame: np.ndarray, x: float, y: float, w: float, h: float,
              shift: float | None = None) -> np.ndarray:
    """The crop a taught die is taught and read from: its top face (``face_box``), CROP_PAD
    around it. ``shift=0`` on a calibrated tray: the camera looks down at the mat, and a
    box's extra height there is the die's shadow or perspective, not a slanted view."""
    return crop_die(frame, *face_box(x, y, w, h, shift), pad=CROP_PAD)


def _square(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    if h == w:
        return image
    side = max(h, w)
    top, left = (side - h) // 2, (side - w) // 2
    return cv2.copyMakeBorder(image, top, side - h - top, left, side - w - left,
                              cv2.BORDER_REPLICATE)


def _one_channel(crop: np.ndarray, axis: int = 0) -> np.ndarray:
    """Project colours onto the main colour axis of the crop's centre (float32); ``axis=1``:
    onto the second axis (the colour spread across the main one)."""
    img = crop.astype(np.float32)
    if img.ndim == 2:
        return img
    if img.shape[2] == 4:
        img = img[:, :, :3]
    h, w = img.shape[:2]
    inside = _centre_distance(h, w) <= MASK_RADIUS * min(h, w)
    centre = img[inside].reshape(-1, 3)
    centred = centre - centre.mean(axis=0)
    cov = centred.T @ centred / max(1, len(centred))
    if not np.isfinite(cov).all() or np.trace(cov) < 1e-3:
        return img.mean(axis=2)
    _, vectors = np.linalg.eigh(cov)  # ascending: the main axis is the last column
    # a fixed sign here does not matter: polarity is decided later
    return img @ vectors[:, -1 - axis].astype(np.float32)


_YY, _XX = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32)
_R = np.hypot(_XX - (SIDE - 1) / 2, _YY - (SIDE - 1) / 2)
MASK = (_R <= MASK_RADIUS * SIDE).astype(np.float32)


@lru_cache(maxsize=64)
def _centre_distance(h: int, w: int) -> np.ndarray:
    """Each pixel's distance from the centre of an h x w image (cached: crops come in a few
    sizes, and every crop needs it more than once)."""
    yy, xx = np.mgrid[0:h, 0:w]
    distance = np.hypot(xx - (w - 1) / 2, yy - (h - 1) / 2)
    distance.flags.writeable = False
    return distance


def _edge(image: np.ndarray) -> np.ndarray:
    """The pixels along an image's four edges (corners twice), one row per pixel."""
    return np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])


def table_around_die(crop: np.ndarray, near: float = TABLE_NEAR, plain: float = PLAIN_TABLE) -> np.ndarray:
    """Boolean mask of the table seen around the die in a square BGR crop: pixels whose
    colour lies within ``near`` of the way from the table's colour (the crop border's median)
    to the die's (the centre's median) and that are joined to the crop's border. Empty for a
    gray crop, or when the border is not a plain table (spread over ``plain`` of that gap)."""
    h, w = crop.shape[:2]
    if crop.ndim == 2 or min(h, w) < 3:
        return np.zeros((h, w), bool)
    img = crop[:, :, :3].astype(np.float32)
    border = _edge(img)
    table = np.median(border, axis=0)
    body = np.median(img[_centre_distance(h, w) <= MASK_RADIUS * min(h, w)], axis=0)
    gap = float(np.linalg.norm(body - table))
    spread = float(np.percentile(np.linalg.norm(border - table, axis=1), 75))
    if gap < 1e-3 or spread > plain * gap:
        return np.zeros((h, w), bool)
    close = (np.linalg.norm(img - table, axis=2) < near * gap).astype(np.uint8)
    _, parts = cv2.connectedComponents(close, connectivity=4)
    on_border = np.zeros(int(parts.max()) + 1, bool)   # component number -> touches the border
    on_border[_edge(parts)] = True
    on_border[0] = False                               # (0: the pixels not near the table's colour)
    return on_border[parts]


def _without_table(gray: np.ndarray, table: np.ndarray) -> np.ndarray:
    """The channel with everything beyond TABLE_RADIUS, and the ``table`` mask's pixels, set
    to the top face's median."""
    h, w = gray.shape[:2]
    r = _centre_distance(h, w) / min(h, w)
    out = gray.copy()
    out[(r > TABLE_RADIUS) | table] = np.median(gray[r <= MASK_RADIUS])
    return out


def _band(crop: np.ndarray, work: int, axis: int = 0, flip: bool = False) -> np.ndarray:
    """One channel (colour ``axis``, see ``_one_channel``), table left out
    (``table_around_die``), band-passed, at ``work`` pixels square, its sign set so the
    face's minority is bright (``flip``: the other sign)."""
    square = _square(crop)
    gray = _without_table(_one_channel(square, axis), table_around_die(square))
    gray = cv2.resize(gray, (work, work), interpolation=cv2.INTER_AREA)
    fine = cv2.GaussianBlur(gray, (0, 0), work * FINE_SIGMA)
    coarse = cv2.GaussianBlur(gray, (0, 0), work * COARSE_SIGMA)
    band = fine - coarse
    inner = band[_inner_mask(work)]
    skew = float(((inner - inner.mean()) ** 3).mean())
    return -band if (skew < 0) != flip else band


@lru_cache(maxsize=16)
def _inner_mask(work: int) -> np.ndarray:
    """The top-face disc of a work x work map (cached like ``_centre_distance``)."""
    return _centre_distance(work, work) <= MASK_RADIUS * work


def _finish(band: np.ndarray) -> np.ndarray:
    v = band * MASK
    v = v - (v.sum() / MASK.sum()) * MASK
    n = float(np.linalg.norm(v))
    return (v / n if n > 1e-6 else v).reshape(-1).astype(np.float32)


MIN_CROP_PX = 4  # the smallest die crop (either way) the taught reader can look at


def _check(crop: np.ndarray) -> None:
    if crop is None or crop.size == 0 or min(crop.shape[:2]) < MIN_CROP_PX:
        raise ValueError(f"die crop is empty or smaller than {MIN_CROP_PX} pixels")


def face_pattern(crop: np.ndarray) -> np.ndarray:
    """The normalised, masked, unit-norm pattern of one die crop (a SIDE*SIDE vector)."""
    _check(crop)
    return _finish(_band(crop, SIDE))


def shifted_patterns(crop: np.ndarray, shifts: Sequence[float] = SHIFTS, axis: int = 0,
                     flip: bool = False) -> np.ndarray:
    """``face_pattern`` of a crop (along colour ``axis``, sign ``flip``ped or not, see
    ``_band``) at small offsets (the die finder's box is not exact)."""
    _check(crop)
    band = _band(crop, SIDE, axis, flip)
    out = []
    for dy in shifts:
        for dx in shifts:
            m = np.float32([[1, 0, dx], [0, 1, dy]])
            out.append(_finish(cv2.warpAffine(band, m, (SIDE, SIDE), flags=cv2.INTER_LINEAR,
                                              borderMode=cv2.BORDER_REPLICATE)))
    return np.stack(out)


def turned_patterns(crop: np.ndarray, angles: int = ANGLES,
                    scales: Sequence[float] = SCALES) -> np.ndarray:
    """``face_pattern`` of a crop turned through ``angles`` rotations and ``scales``."""
    work = SIDE * 2
    band = _band(crop, work)
    out = []
    centre = ((work - 1) / 2, (work - 1) / 2)
    for scale in scales:
        for k in range(angles):
            m = cv2.getRotationMatrix2D(centre, 360.0 * k / angles, scale)
            turned = cv2.warpAffine(band, m, (work, work), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
            small = cv2.resize(turned, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
            out.append(_finish(small))
    return np.stack(out)


# --------------------------------------------------------------------------- features

class PatternFeatures:
    """Hand-built: band-passed pixel patterns; examples turned through ANGLES x SCALES,
    queries tried at small SHIFTS."""

    name = "pattern"
    version = f"side{SIDE}-{MAP_VERSION}"

    def example(self, crop: np.ndarray) -> np.ndarray:
        return turned_patterns(crop)

    def query(self, crop: np.ndarray, axis: int = 0, flip: bool = False) -> np.ndarray:
        return shifted_patterns(crop, axis=axis, flip=flip)

    def queries(self, crops: Sequence[np.ndarray], axis: int = 0, flip: bool = False) -> list[np.ndarray]:
        return [self.query(c, axis, flip) for c in crops]


EMBEDDING_MODEL = Path(__file__).resolve().parent / "models" / "die_embedding.onnx"
EMBED_SIDE = 48    # the embedding network's input side
EMBED_TURNS = 8    # turns (45 degrees apart) each teaching example is stored at


def symbol_map(crop: np.ndarray, axis: int = 0, flip: bool = False) -> np.ndarray:
    """What the embedding network sees of a die crop (EMBED_SIDE square, BGR): one channel
    along the crop's main colour axis (``axis=1``: the second), band-passed against lighting,
    its sign set so the symbol (the minority of the top face) is bright, scaled to unit
    spread (``flip``: the other sign). Die and ink colours are gone before the network
    starts: white pips on a black die look like black pips on a white one, a red symbol on
    green like one on white."""
    band = _band(crop, EMBED_SIDE, axis, flip)
    inner = band[_inner_mask(EMBED_SIDE)]
    return ((band - inner.mean()) / max(float(inner.std()), 1e-3)).astype(np.float32)


class EmbeddingFeatures:
    """Learned: a small network (``models/die_embedding.onnx``, trained only on made-up die
    sets and unlabelled real die crops, see vision/training/train_embedding.py) turns a die
    crop into a unit vector; two pictures of one face lie close whatever the die's colour,
    turn and light. Examples are stored at EMBED_TURNS turns; a query is one vector."""

    name = "embedding"

    def __init__(self, path: Path = EMBEDDING_MODEL):
        from vision.pips import load_net
        if not Path(path).is_file():
            raise ValueError(f"the taught-dice embedding model {path} is not installed; "
                             f"teach with the hand-built patterns (kind 'pattern') instead")
        self.net = load_net(path)
        self._net_lock = threading.Lock()  # one net, used from the loop's and the read worker's threads
        self.version = f"{hashlib.sha1(Path(path).read_bytes()).hexdigest()[:12]}-{MAP_VERSION}"

    @staticmethod
    def _prepare(crop: np.ndarray) -> np.ndarray:
        crop = _bgr(crop)
        interp = cv2.INTER_AREA if crop.shape[0] > EMBED_SIDE else cv2.INTER_LINEAR
        return cv2.resize(crop, (EMBED_SIDE, EMBED_SIDE), interpolation=interp)

    def embed(self, crops: Sequence[np.ndarray], axis: int = 0, flip: bool = False) -> np.ndarray:
        """Unit vectors (N, dim) of prepared EMBED_SIDE crops (maps along colour ``axis``,
        sign ``flip``ped or not: see ``symbol_map``)."""
        maps = np.stack([symbol_map(c, axis, flip) for c in crops])[:, None]
        with self._net_lock:   # an OpenCV net keeps its input and output: one caller at a time
            self.net.setInput(maps)
            z = self.net.forward().reshape(len(crops), -1)
        return (z / np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-6)).astype(np.float32)

    def example(self, crop: np.ndarray) -> np.ndarray:
        return self.turned(crop, EMBED_TURNS, (1.0,))

    def turned(self, crop: np.ndarray, angles: int, scales: Sequence[float]) -> np.ndarray:
        """Vectors of a crop turned through ``angles`` rotations at each of ``scales``, in the
        order of ``turned_patterns`` (scale by scale, then angle by angle)."""
        _check(crop)
        base = self._prepare(crop)
        centre = ((EMBED_SIDE - 1) / 2, (EMBED_SIDE - 1) / 2)
        turned = [cv2.warpAffine(base, cv2.getRotationMatrix2D(centre, 360.0 * k / angles, scale),
                                 (EMBED_SIDE, EMBED_SIDE), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)
                  for scale in scales for k in range(angles)]
        return self.embed(turned)

    def query(self, crop: np.ndarray, axis: int = 0, flip: bool = False) -> np.ndarray:
        return self.queries([crop], axis, flip)[0]

    def queries(self, crops: Sequence[np.ndarray], axis: int = 0, flip: bool = False) -> list[np.ndarray]:
        for crop in crops:
            _check(crop)
        if not crops:
            return []
        return list(self.embed([self._prepare(c) for c in crops], axis, flip)[:, None, :])


# Share of a fused match that comes from the hand-built patterns. 0.5 until 2026-12-02; once
# the table was taken out of the symbol map the patterns read the real tray dice better,
# and on the few-shot figures' 'train'-side photos that did not teach (3 draws, true boxes)
# 0.3 / 0.4 / 0.5 / 0.6 / 0.7 / 0.8 read byler 89.3 / 90.8 / 91.9 / 93.3 / 94.4 / 94.8 %,
# epanemu 72.6 / 73.6 / 74.2 / 74.4 / 74.1 / 72.9 %; rendered icon dice (6 styles, true
# boxes) 99.4 / 98.9 % at 0.5, 99.2 / 98.8 % at 0.7.
FUSE_PATTERN_SHARE = 0.7
PATTERN_LENGTH = SIDE * SIDE  # a fused template: this many pattern values, then the embedding's
# A fused read the two matchers, each alone, do not both agree with is reported at most this
# sure (below the 0.9 a player can trust without a look). On the few-shot figures'
# 'train'-side photos that did not teach (3 draws, true boxes), of the reads >= 0.9 without
# it: byler 0.7 % wrong (coverage 74 %) -> 0.5 % (68 %), epanemu 13.7 % (55 %) -> 6.5 % (38 %).
DISAGREE_CAP = 0.85


class FusedFeatures:
    """Both at once: each template is a pattern and an embedding vector of the same turn and
    scale of a teaching example, side by side and weighted, so one dot product scores
    FUSE_PATTERN_SHARE x pattern match + the rest x embedding match, and the best turn is
    the one where both agree. A query is its patterns at small shifts, each beside the
    crop's one embedding vector. (Measured, 8 examples per face: a few points above either
    alone on real and rendered dice; see the README's few-shot figures.)"""

    name = "fused"

    def __init__(self):
        self.embedding = features("embedding")
        # the share weighs the stored templates too: a set taught with another is taught again
        self.version = f"{PatternFeatures.version}+{self.embedding.version}+share{FUSE_PATTERN_SHARE}"
        self.a = math.sqrt(FUSE_PATTERN_SHARE)
        self.b = math.sqrt(1.0 - FUSE_PATTERN_SHARE)

    def example(self, crop: np.ndarray) -> np.ndarray:
        patterns = turned_patterns(crop)
        vectors = self.embedding.turned(crop, ANGLES, SCALES)
        return np.hstack([self.a * patterns, self.b * vectors]).astype(np.float32)

    def query(self, crop: np.ndarray, axis: int = 0, flip: bool = False) -> np.ndarray:
        return self.queries([crop], axis, flip)[0]

    def queries(self, crops: Sequence[np.ndarray], axis: int = 0, flip: bool = False) -> list[np.ndarray]:
        out = []
        for crop, vector in zip(crops, self.embedding.queries(crops, axis, flip)):
            patterns = shifted_patterns(crop, axis=axis, flip=flip)
            out.append(np.hstack([self.a * patterns,
                                  self.b * np.repeat(vector, len(patterns), axis=0)]).astype(np.float32))
        return out


def _bgr(crop: np.ndarray) -> np.ndarray:
    crop = _square(crop)
    if crop.ndim == 2:
        return cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    if crop.shape[2] == 4:
        return cv2.cvtColor(crop, cv2.COLOR_BGRA2BGR)
    return crop


KINDS = {"pattern": PatternFeatures, "embedding": EmbeddingFeatures, "fused": FusedFeatures}
_FEATURES: dict[str, object] = {}
DEFAULT_KIND: str | None = None  # None: see default_kind


def default_kind() -> str:
    """Patterns and the learned embedding fused when its model file is installed, else the
    hand-built patterns alone."""
    if DEFAULT_KIND:
        return DEFAULT_KIND
    return "fused" if EMBEDDING_MODEL.is_file() or "embedding" in _FEATURES else "pattern"


def use_embedding(path: Path) -> None:
    """Read and teach with the embedding model at ``path`` (benchmarks of a candidate model)."""
    _FEATURES["embedding"] = EmbeddingFeatures(Path(path))
    _FEATURES.pop("fused", None)  # built on the embedding: rebuilt with the new one


def features(kind: str | None = None):
    """The feature extractor by name (stored with each model, with the extractor's version,
    so a model is never read with other features than it was taught with)."""
    kind = kind or default_kind()
    if kind not in _FEATURES:
        if kind not in KINDS:
            raise ValueError(f"unknown feature kind {kind!r}; expected one of {', '.join(KINDS)}")
        _FEATURES[kind] = KINDS[kind]()
    return _FEATURES[kind]


# --------------------------------------------------------------------------- model

@dataclass(frozen=True)
class FaceModel:
    """A taught die: template patterns per face and how to turn scores into confidence.

    ``margin_scale``: the typical margin (best face minus second face) seen when the teaching
    examples read each other; ``fit_floor``/``fit_scale``: the low end and spread of the
    best-face similarity seen then. Both come from ``teach``.
    """

    faces: tuple[str, ...]
    templates: np.ndarray  # (n, feature length) float32, unit rows
    labels: np.ndarray  # (n,) face index of each template
    margin_scale: float
    fit_floor: float
    fit_scale: float
    self_check: tuple[int, int] = (0, 0)  # teaching examples read right when left out, of all
    kind: str = "pattern"  # which features (see ``features``)
    features_version: str = PatternFeatures.version  # the extractor's version when taught
    # leave-one-out reads of the teaching examples: margin of each read and whether it was right
    loo_margins: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    loo_right: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    owners: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # see example_owners
    neighbours: tuple[float, ...] = ()  # weights of a face's best examples; () = the kind's NEIGHBOURS

    def vote(self) -> tuple[float, ...]:
        """The weights of each face's best examples' matches used for this model."""
        return _vote(self.neighbours, self.kind)

    def face_scores(self, patterns: np.ndarray) -> np.ndarray:
        """Per face, its best-matching teaching examples' similarities weighted by ``vote()``,
        each example matching at its best turn and scale (cosine similarity, over one or more
        patterns of the same crop)."""
        return self._scores(self._similarities([patterns])[0].max(axis=0))

    def _scores(self, sims: np.ndarray) -> np.ndarray:
        """``face_scores`` of each template's best similarity."""
        return face_scores(sims, self.labels, self.example_owners(), len(self.faces), self.vote())

    @cached_property
    def _matcher_templates(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """What reading multiplies queries by, matcher by matcher (a fused model: the patterns,
        then the embedding; other kinds: one): the feature columns it uses and the templates'
        values there, float32 and contiguous. Only the columns some template uses are kept: a
        pattern is zero outside the top-face disc (``MASK``: ``_finish`` masks it), so the same
        dot products come from about a quarter of the pattern's columns (3.6 times fewer bytes
        of templates read per product, and a 7 MB copy instead of 23 MB for a built-in set)."""
        length = self.templates.shape[1]
        parts = ((0, PATTERN_LENGTH), (PATTERN_LENGTH, length)) if self.kind == "fused" else ((0, length),)
        used = [start + np.flatnonzero(np.any(self.templates[:, start:end] != 0, axis=0)) for start, end in parts]
        return tuple((columns, np.ascontiguousarray(self.templates[:, columns], dtype=np.float32).T)
                     for columns in used)

    def _similarities(self, queries: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each query's (its rows') cosine similarity to every template, the matchers' parts
        summed; all queries in one product per matcher (the templates are read once a batch)."""
        return [sum(parts) for parts in self._matcher_similarities(queries)]

    def _matcher_similarities(self, queries: Sequence[np.ndarray]) -> list[tuple[np.ndarray, ...]]:
        """Per query, each matcher's part of its rows' similarities to every template."""
        rows = [q.reshape(-1, self.templates.shape[1]) for q in queries]
        if not rows:
            return []
        stacked = np.concatenate(rows) if len(rows) > 1 else rows[0]
        ends = np.cumsum([len(r) for r in rows])[:-1]
        each = [np.split(_distinct_rows_product(stacked[:, columns], templates), ends)
                for columns, templates in self._matcher_templates]
        return list(zip(*each))

    def read_scores(self, query: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """``face_scores`` of one crop's query and, for a fused model, each matcher's own
        (patterns, then embedding) from the same pass over the templates: a fused
        similarity is the sum of the two matchers' parts, so reading and checking that the
        matchers agree cost one product with the templates, not three."""
        return self.read_scores_many([query])[0]

    def read_scores_many(self, queries: Sequence[np.ndarray]) -> list[tuple[np.ndarray, tuple[np.ndarray, ...]]]:
        """``read_scores`` of several crops' queries, from one product with the templates."""
        out = []
        for parts in self._matcher_similarities(queries):
            if len(parts) == 1:
                out.append((self._scores(parts[0].max(axis=0)), ()))
            else:
                out.append((self._scores(sum(parts).max(axis=0)),
                            tuple(self._scores(sims.max(axis=0)) for sims in parts)))
        return out

    def example_owners(self) -> np.ndarray:
        """The teaching example each template was made from (models saved before this was
        stored made the same number of templates from every example, in order)."""
        if len(self.owners) == len(self.labels):
            return self.owners
        count = max(1, len(self.loo_right))
        return np.arange(len(self.labels)) // max(1, len(self.labels) // count)

    def example_faces(self) -> np.ndarray:
        """The face index of each teaching example, in teaching order (as ``loo_right``)."""
        return self.labels[example_starts(self.example_owners())]

    def confidence(self, scores: np.ndarray) -> float:
        order = np.argsort(scores)[::-1]
        best = float(scores[order[0]])
        second = float(scores[order[1]]) if len(order) > 1 else -1.0
        margin = max(0.0, best - second)
        by_margin = 1.0 - math.exp(-MARGIN_GAIN * margin / max(self.margin_scale, 1e-3))
        by_fit = 1.0 / (1.0 + math.exp(-(best - self.fit_floor) / max(self.fit_scale, 1e-3)))
        return float(min(by_margin, self._share_right(margin)) * by_fit)

    def _share_right(self, margin: float) -> float:
        """How often teaching examples read right when left out, among those read with at least
        this margin (at least LOO_MIN of the surest), smoothed: faces that look alike in the
        teaching photos cap the confidence however big one read's margin is."""
        if not len(self.loo_margins):
            return 1.0
        order = np.sort(self.loo_margins)[::-1]
        floor = min(margin, float(order[min(LOO_MIN, len(order)) - 1]))
        sure = self.loo_margins >= floor
        return float((self.loo_right[sure].sum() + 1.0) / (sure.sum() + 1.1))

    def classify(self, crop: np.ndarray) -> tuple[str, float]:
        """The top face of one die crop and the confidence in [0, 1]."""
        return self.classify_many([crop])[0]

    def classify_many(self, crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
        """``classify`` for many crops at once (one pass of the network for all of them, and
        one more per other reading for those read again): each crop is read along its main
        colour axis; a read below SECOND_AXIS_BELOW confidence is read each OTHER_READINGS
        way too (second colour axis, flipped sign), and that read kept where it fits clearly
        better (``better_reading``)."""
        extract = features(self.kind)
        reads = self.read_scores_many(extract.queries(crops))
        for reading in OTHER_READINGS:
            unsure = [i for i, (s, _) in enumerate(reads) if self.confidence(s) < SECOND_AXIS_BELOW]
            again = extract.queries([crops[i] for i in unsure], **reading)
            for i, other in zip(unsure, self.read_scores_many(again)):
                if better_reading(reads[i][0], other[0]) is other[0]:
                    reads[i] = other
        out = []
        for s, each in reads:
            best = int(np.argmax(s))
            confidence = self.confidence(s)
            if not self.agree(each, best):
                confidence = min(confidence, DISAGREE_CAP)
            out.append((self.faces[best], confidence))
        return out

    @staticmethod
    def agree(matcher_scores: Sequence[np.ndarray], face: int) -> bool:
        """Whether each matcher's own face scores (``read_scores``: for a fused model the
        hand-built patterns' and the learned embedding's; none for other kinds) pick
        ``face``. Where they part, the fused read is a close call whatever its margin."""
        return all(int(np.argmax(scores)) == face for scores in matcher_scores)

    # ---- persistence (numpy .npz; the face names live with it so the file stands alone)
    def save(self, path) -> None:
        meta = {"version": MODEL_VERSION, "faces": list(self.faces), "side": SIDE,
                "margin_scale": self.margin_scale, "fit_floor": self.fit_floor,
                "fit_scale": self.fit_scale, "self_check": list(self.self_check),
                "kind": self.kind, "features_version": self.features_version,
                "neighbours": list(self.neighbours)}
        # written beside it, then put in its place: a crash or power cut mid-write leaves the
        # previous file (or none), never a torn one
        path = Path(path)
        part = path.with_name(path.name + ".part")
        try:
            with open(part, "wb") as fh:
                np.savez_compressed(fh, templates=self.templates.astype(np.float16),
                                    labels=self.labels.astype(np.int16),
                                    loo_margins=self.loo_margins.astype(np.float32),
                                    loo_right=self.loo_right.astype(bool),
                                    owners=self.example_owners().astype(np.int16),
                                    meta=np.array(json.dumps(meta)))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(part, path)
        finally:
            part.unlink(missing_ok=True)

    @classmethod
    def load(cls, path) -> "FaceModel":
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            kind = meta.get("kind", "pattern")
            version = meta.get("features_version", PatternFeatures.version)
            try:
                installed = features(kind).version if kind in KINDS else None
            except (ValueError, cv2.error) as exc:
                raise ValueError(f"{path}: taught with {kind} features, which cannot be loaded here "
                                 f"({exc}): teach the set again") from exc
            if meta.get("version") != MODEL_VERSION or version != installed:
                raise ValueError(f"{path}: model version {meta.get('version')} with {kind} features "
                                 f"{version}; expected version {MODEL_VERSION} with the installed "
                                 f"features: teach the set again")
            return cls(faces=tuple(meta["faces"]),
                       templates=data["templates"],   # float16 as saved: reading uses a float32 copy of the columns it needs
                       labels=data["labels"].astype(np.int64),
                       margin_scale=float(meta["margin_scale"]),
                       fit_floor=float(meta["fit_floor"]), fit_scale=float(meta["fit_scale"]),
                       self_check=tuple(meta.get("self_check", (0, 0))),
                       kind=kind, features_version=version,
                       loo_margins=data["loo_margins"].astype(np.float32),
                       loo_right=data["loo_right"].astype(bool),
                       owners=(data["owners"].astype(np.int64) if "owners" in data.files
                               else np.zeros(0, np.int64)),
                       neighbours=tuple(float(w) for w in meta.get("neighbours", ())))

    def renamed(self, old: str, new: str) -> "FaceModel":
        return replace(self, faces=tuple(new if f == old else f for f in self.faces))


def teach(examples: Mapping[str, Sequence[np.ndarray]], *,
          min_examples: int = MIN_EXAMPLES, kind: str | None = None,
          neighbours: Sequence[float] | None = None) -> FaceModel:
    """Build a FaceModel from example crops per face name (BGR or gray arrays).

    ``neighbours``: weights of each face's best examples' matches (default: the feature
    kind's NEIGHBOURS); SINGLE_BEST for examples of many different die looks, where only
    the example of the look being read matches well.

    Raises TeachError naming the face when a face has fewer than ``min_examples`` crops or
    when fewer than two faces are given.
    """
    faces = tuple(examples)
    if len(faces) < 2:
        raise TeachError(f"a die set needs at least 2 faces; got {len(faces)}")
    for face in faces:
        if len(examples[face]) < min_examples:
            raise TeachError(f"face {face}: {len(examples[face])} example(s); "
                             f"at least {min_examples} needed")
    extract = features(kind)
    templates, labels, owners, plain = [], [], [], []
    example_id = 0
    for index, face in enumerate(faces):
        for crop in examples[face]:
            turned = extract.example(crop)
            templates.append(turned)
            labels.append(np.full(len(turned), index))
            owners.append(np.full(len(turned), example_id))
            plain.append((index, example_id, extract.query(crop)))
            example_id += 1
    templates_arr = np.concatenate(templates).astype(np.float32, copy=False)
    del templates   # (a built-in set's templates are 23 MB: one copy at a time)
    labels_arr = np.concatenate(labels).astype(np.int64)
    owners_arr = np.concatenate(owners)
    margin_scale, fit_floor, fit_scale, loo_margins, loo_right = _calibrate(
        faces, templates_arr, labels_arr, owners_arr, plain, _vote(neighbours, extract.name))
    return FaceModel(faces, templates_arr, labels_arr, margin_scale, fit_floor, fit_scale,
                     (int(loo_right.sum()), len(plain)), extract.name, extract.version,
                     loo_margins, loo_right, owners_arr, tuple(float(w) for w in neighbours or ()))


def example_templates(crop: np.ndarray, kind: str | None = None, angles: int = ANGLES,
                      scales: Sequence[float] = SCALES) -> np.ndarray:
    """A teaching example's templates at ``angles`` turns and ``scales`` (what
    ``features(kind).example`` makes at ANGLES x SCALES for the patterns and fused kinds):
    the dice a table teaches (vision/learning.py) are all seen at this camera's scale, so
    they are stored at one scale, a third of the templates to read against."""
    extract = features(kind)
    if extract.name == "pattern":
        return turned_patterns(crop, angles, scales)
    if extract.name == "embedding":
        return extract.turned(crop, angles, scales)
    patterns = turned_patterns(crop, angles, scales)
    vectors = extract.embedding.turned(crop, angles, scales)
    return np.hstack([extract.a * patterns, extract.b * vectors]).astype(np.float32)


def _distinct_rows_product(rows: np.ndarray, templates: np.ndarray) -> np.ndarray:
    """``rows @ templates``, each run of equal rows multiplied once (a fused query repeats its
    crop's one embedding vector beside each shifted pattern)."""
    if len(rows) < 2:
        return rows @ templates
    first = np.r_[True, np.any(rows[1:] != rows[:-1], axis=1)]
    if first.all():
        return rows @ templates
    return (rows[first] @ templates)[np.cumsum(first) - 1]


def better_reading(first: np.ndarray, other: np.ndarray, margin: float = SECOND_AXIS_MARGIN) -> np.ndarray:
    """The face scores of one crop as first read, or those of another reading of it (second
    colour axis, flipped sign: OTHER_READINGS) when its best face fits by more than
    ``margin`` better (SECOND_AXIS_MARGIN). ``FaceModel.classify_many`` asks only for crops
    it is unsure of."""
    return other if float(other.max()) > float(first.max()) + margin else first


def _vote(neighbours: Sequence[float] | None, kind: str) -> tuple[float, ...]:
    """The weights given, else the feature kind's NEIGHBOURS."""
    return tuple(neighbours) if neighbours else NEIGHBOURS.get(kind, SINGLE_BEST)


def example_starts(owners: np.ndarray) -> np.ndarray:
    """Templates come in runs, one run per teaching example (as ``teach`` makes them): the
    index of each run's first template."""
    return np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])


def face_scores(sims: np.ndarray, labels: np.ndarray, owners: np.ndarray, faces: int,
                neighbours: Sequence[float] = (1.0,)) -> np.ndarray:
    """Per face, its best teaching examples' similarities weighted by ``neighbours`` (best,
    second best, ...; NEIGHBOURS per feature kind), each example's similarity its best over its
    templates (``labels``: face of each template, ``owners``: its example). The next-best
    examples steady the vote: with 8 examples a single look-alike example of the wrong face
    otherwise decides a read (measured on the val photos, few-shot pip dice: 2 to 3 points
    better than the best example alone)."""
    weights = np.asarray(neighbours, np.float32)
    scores = np.full(faces, -1.0, dtype=np.float32)
    if not len(owners):
        return scores
    if len(weights) == 1:  # the single best example: the best template of the face
        np.maximum.at(scores, labels, sims)
        return scores
    starts = example_starts(owners)
    per_example = np.maximum.reduceat(sims, starts)
    example_face = labels[starts]
    for face in range(faces):
        mine = np.sort(per_example[example_face == face])[::-1][:len(weights)]
        if len(mine):
            scores[face] = float(mine @ weights[:len(mine)] / weights[:len(mine)].sum())
    return scores


def _calibrate(faces, templates, labels, owners, plain, neighbours):
    """Leave-one-out: read every example against all the others' templates."""
    margins, fits, read_margins, read_right = [], [], [], []
    for index, example_id, pattern in plain:
        keep = owners != example_id
        sims = (pattern @ templates[keep].T).max(axis=0)
        scores = face_scores(sims, labels[keep], owners[keep], len(faces), neighbours)
        _left_out_read(scores, index, margins, fits, read_margins, read_right)
    return _calibration_figures(margins, fits, read_margins, read_right)


def _left_out_read(scores, true, margins, fits, read_margins, read_right) -> None:
    """One left-out example's face ``scores`` (its face: index ``true``) added to the lists."""
    margins.append(float(scores[true]) - float(np.max(np.delete(scores, true))))
    fits.append(float(scores[true]))
    ranked = np.sort(scores)[::-1]
    read_margins.append(float(ranked[0] - ranked[1]))
    read_right.append(int(np.argmax(scores)) == true)


def calibrate_pairs(faces: int, pair_sims: np.ndarray, example_face: np.ndarray,
                    neighbours: Sequence[float]):
    """``_calibrate``'s figures (leave-one-out) from each example's best similarity to every
    other example (``pair_sims[i, j]``: example i's query against example j's templates; the
    diagonal is left out), so a set that grows by a few examples (vision/learning.py) is
    calibrated again without reading every example against every template."""
    margins, fits, read_margins, read_right = [], [], [], []
    everyone = np.arange(len(example_face))
    for index in everyone:
        keep = everyone != index
        scores = face_scores(pair_sims[index, keep], example_face[keep], everyone[keep], faces, neighbours)
        _left_out_read(scores, int(example_face[index]), margins, fits, read_margins, read_right)
    return _calibration_figures(margins, fits, read_margins, read_right)


def _calibration_figures(margins, fits, read_margins, read_right):
    """margin_scale, fit_floor, fit_scale, read margins, reads right: from the leave-one-out
    reads' margins and fits (see FaceModel)."""
    margins_arr, fits_arr = np.array(margins), np.array(fits)
    margin_scale = float(np.clip(np.median(margins_arr), 0.03, 0.5))
    fit_scale = float(np.clip(np.std(fits_arr), 0.02, 0.1))
    fit_floor = float(np.percentile(fits_arr, 10)) - 2.5 * fit_scale
    return (margin_scale, fit_floor, fit_scale, np.array(read_margins, np.float32),
            np.array(read_right, bool))


# --------------------------------------------------------------------------- reading

Box = tuple[float, float, float, float]  # centre x, centre y, w, h in frame pixels


def read_boxes(frame: np.ndarray, boxes: Iterable[Box], model: FaceModel,
               dice_set: str, notes: Sequence[str] = (), shift: float | None = None) -> Roll:
    """Read the top face of each die box in a BGR frame; a Roll in reading order.
    ``shift``: see ``face_crop``. A read below RESCALE_BELOW is read again from the box
    at each of RESCALE_BOXES its size, and the surest of them kept (``surest_reads``)."""
    boxes = list(boxes)
    reads = model.classify_many([face_crop(frame, x, y, w, h, shift) for x, y, w, h in boxes])
    unsure = [i for i, (_, confidence) in enumerate(reads) if confidence < RESCALE_BELOW]
    if unsure:
        again = model.classify_many([face_crop(frame, x, y, w * s, h * s, shift)
                                     for x, y, w, h in (boxes[i] for i in unsure) for s in RESCALE_BOXES])
        reads = surest_reads(reads, unsure, again)
    dice = [Die(face=face, confidence=confidence, x=x, y=y, w=w, h=h)
            for (x, y, w, h), (face, confidence) in zip(boxes, reads)]
    dice.sort(key=lambda d: (round(d.y / max(d.h, 1.0)), d.x))
    height, width = frame.shape[:2]
    return Roll(tuple(dice), dice_set, (width, height), tuple(notes))


def surest_reads(reads: list[tuple[str, float]], unsure: Sequence[int],
                 again: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """``reads`` with each ``unsure`` one replaced by the surest of it and its rereads
    (``again``: len(RESCALE_BOXES) per unsure read, in order). A reread that wins keeps
    at most DISAGREE_CAP confidence: the surest of three tries is surer than it should be
    (kept as it came, the reads >= 0.9 of the 'train'-side photos went from 93.3 to 88.9 %
    right), so a die only a resized box reads is always a close call."""
    reads = list(reads)
    per = len(again) // max(len(unsure), 1)
    for k, i in enumerate(unsure):
        face, confidence = max(again[k * per:(k + 1) * per], key=lambda read: read[1])
        if confidence > reads[i][1]:
            reads[i] = (face, min(confidence, DISAGREE_CAP))
    return reads


class TaughtReader:
    """Reads frames of a taught die set: a die finder gives the boxes, the model the faces.

    ``find_dice(frame)`` returns die boxes as (centre x, centre y, w, h) in frame pixels,
    whatever the faces show (the pip reader's detector does this). ``top_face_shift``: how
    far a crop moves up a box taller than wide (``face_crop``; None = TOP_FACE_SHIFT, for
    photos; 0 on a calibrated tray).
    """

    def __init__(self, model: FaceModel, dice_set: str,
                 find_dice: Callable[[np.ndarray], Sequence[Box]],
                 top_face_shift: float | None = None):
        self.model = model
        self.dice_set = dice_set
        self.find_dice = find_dice
        self.top_face_shift = top_face_shift

    @property
    def faces(self) -> tuple[str, ...]:
        return self.model.faces

    def read(self, frame: np.ndarray) -> Roll:
        return read_boxes(frame, self.find_dice(frame), self.model, self.dice_set,
                          shift=self.top_face_shift)

    __call__ = read


# --------------------------------------------------------------------------- finding one die

def locate_single_die(image: np.ndarray, min_fraction: float = 0.001) -> Box | None:
    """The box of the one die in a photo of a plain background (teaching photos), or None.

    The background (with its shading) is estimated by a wide median filter, which wipes
    out anything die-sized; the die is the largest blob that differs from it.
    """
    h, w = image.shape[:2]
    scale = min(1.0, 200.0 / max(h, w))
    small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                       interpolation=cv2.INTER_AREA)
    if small.ndim == 2:
        small = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
    k = 2 * (max(small.shape[:2]) // 5) + 1
    backdrop = cv2.medianBlur(small, min(k, 255))
    distance = np.abs(small.astype(np.int16) - backdrop.astype(np.int16)).max(axis=2)
    distance = cv2.GaussianBlur(distance.astype(np.uint8), (3, 3), 0)
    if int(distance.max()) < 25:
        return None
    _, mask = cv2.threshold(distance, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    if count <= 1:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, bw, bh, area = stats[best]
    if area < min_fraction * mask.size:
        return None
    return ((x + bw / 2) / scale, (y + bh / 2) / scale, bw / scale, bh / scale)


# Of a loose crop's largest colour difference from its border: what counts as the die when a
# crop is tightened. 0.35 before 2026-12-02: on rendered black dice with yellow icons on dark
# tables, 48 of 576 teaching crops came out under 35 px, the icon alone (the built-in christmas-romance
# stand-ins read 91.4 % at the camera with the table left out of the maps, 94.5 % with 0.15).
TIGHTEN_SHARE = 0.15


def tighten_crop(crop: np.ndarray) -> np.ndarray:
    """A loose crop of one die, re-cut to the die (CROP_PAD around it) when the die clearly
    stands out from the table at the crop's border; else the crop unchanged."""
    h, w = crop.shape[:2]
    img = _bgr(crop).astype(np.float32)
    img = cv2.GaussianBlur(img, (0, 0), max(1.0, min(h, w) / 64))
    border = _edge(img)
    distance = np.linalg.norm(img - np.median(border, axis=0), axis=2)
    if distance.max() < 30:
        return crop
    # TIGHTEN_SHARE of the largest difference: a dark die on a dark table differs from it far
    # less than its bright symbol does, and a higher share kept the symbol alone
    mask = (distance > max(20.0, TIGHTEN_SHARE * float(distance.max()))).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    if count <= 1:
        return crop
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, bw, bh, _ = stats[best]
    side = max(bw, bh)
    if not 0.3 * max(h, w) <= side <= 0.85 * max(h, w):
        return crop
    return face_crop(crop, x + bw / 2, y + bh / 2, bw, bh)


def find_by_background(frame: np.ndarray, background: np.ndarray, *, threshold: int = 40,
                       min_side: float = 10.0) -> list[Box]:
    """Die boxes where a frame differs from the empty tray (for teaching at the camera).

    Blobs smaller than ``min_side`` pixels across are noise. A die's own shadow is part of
    its blob (so the box is a little larger on the side away from the light).
    """
    if background.shape != frame.shape:
        raise ValueError(f"background is {background.shape[1]}x{background.shape[0]}, "
                         f"frame is {frame.shape[1]}x{frame.shape[0]}")
    a = cv2.GaussianBlur(frame, (5, 5), 0).astype(np.int16)
    b = cv2.GaussianBlur(background, (5, 5), 0).astype(np.int16)
    mask = ((np.abs(a - b).max(axis=2) > threshold) * 255).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # a light die on a light tray differs mostly at its symbol and edges: join them
    grow = max(3, int(min_side // 2))
    joined = cv2.dilate(mask, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined)
    boxes = []
    for k in range(1, count):
        ys, xs = np.nonzero((labels == k) & (mask > 0))
        if len(xs) == 0:
            continue
        bw, bh = xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
        if min(bw, bh) >= min_side and len(xs) >= 0.3 * min_side * min_side:
            boxes.append(((xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2, float(bw), float(bh)))
    return boxes
