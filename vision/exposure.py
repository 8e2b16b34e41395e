"""Keeping a calibrated tray as bright as it was when it was calibrated.

The camera's exposure and white balance are locked after warm-up, so a hand or a dark die
passing through the picture does not change how the rest looks (``vision.sources``). The
price: when the room's light changes (a lamp switched on, the evening coming in), the
locked camera sees the whole tray brighter or darker. Darker costs little. Brighter burns
the pale mat and pale dice out to the same 255, and a die that no longer differs from the
empty tray cannot be found (``python -m vision.bench tray_finder``, 120 rendered scenes of 7
dice: 98.3 % of the dice found as calibrated, 95.6 % with the light 12-30 % brighter or
darker, a gradient and a colour cast, and 98.1 % there once the keeper has set the exposure).

``ExposureKeeper`` compares the mat's free parts with the calibration's empty-tray picture
(``mat_light``: the median brightness ratio over the mat, so dice, a cup or a shadow on part
of it do not count) and says by what factor the camera's exposure should change to bring
the mat back to its calibrated brightness. It is a slow, deliberate loop, unlike a camera's
own auto-exposure: it looks only at still frames, only at the mat (never at a hand or the
dice), acts only on a drift beyond ``tolerance`` that has lasted ``hold`` seconds, and aims at
the calibration's picture, so the empty-tray model stays right::

    keeper = ExposureKeeper(calibration)
    for image, t in camera:
        factor = keeper.update(image, t, still=True)
        if factor is not None and camera.adjust_exposure(factor):
            keeper.adjusted(t)

``check(image)`` judges one frame at once (the device loop asks before reading a settled roll,
so a roll is not read burnt out when the camera can do better).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibrate import empty_tray
from vision.settle import BURNT, RATIO_FLOOR

SAMPLES = 4000        # mat pixels looked at (spread evenly over the rolling and keep areas)
MAX_STEP = 4.0        # largest exposure change asked for at once
BURNT_SHARE = 0.05    # this much more of the mat burnt out than in the empty tray is too bright
BURNT_STEP = 0.75     # the exposure factor at most, while it is


@dataclass(frozen=True)
class MatLight:
    """How the mat looks now against the calibration's empty tray.

    ``level``: the median brightness ratio (1.0 = as calibrated, 1.3 = 30 % brighter). Where
    more than half the mat is burnt out it is a lower bound (the true light is brighter).
    ``burnt``: the share of the mat burnt out now beyond the share in the empty tray."""

    level: float
    burnt: float

    def off_by(self, tolerance: float) -> bool:
        """Whether the light differs from the calibration's by more than ``tolerance`` (either
        way), or a noticeable part of the mat has burnt out."""
        return abs(math.log(self.level)) > math.log1p(tolerance) or self.burnt > BURNT_SHARE

    def describe(self) -> str:
        """In words, for the screen and the log."""
        if self.burnt > BURNT_SHARE:
            return f"The tray is brighter than at calibration ({100 * self.burnt:.0f} % of the mat burnt out)"
        return f"The tray is {self.level:.1f} times as bright as at calibration"

    @property
    def correction(self) -> float:
        """The exposure factor that brings the mat back to its calibrated brightness. While a
        good part of the mat is burnt out, ``level`` understates the light, so the exposure
        goes down by at least ``BURNT_STEP`` (a look after that corrects any overshoot)."""
        factor = 1.0 / self.level
        if self.burnt > BURNT_SHARE:
            factor = min(factor, BURNT_STEP)
        return min(max(factor, 1.0 / MAX_STEP), MAX_STEP)


@dataclass(frozen=True)
class MatSample:
    """About ``SAMPLES`` frame pixels spread over the mat's rolling and keep areas (not its
    markers), for frames of one size: their rows, columns and empty-tray grey levels."""

    rows: np.ndarray
    cols: np.ndarray
    empty: np.ndarray


def mat_sample(calibration, width: int, height: int, count: int = SAMPLES) -> MatSample:
    """The ``MatSample`` of ``calibration`` for frames of ``width`` x ``height``."""
    cal = calibration.for_frame_size(width, height)
    mask = np.zeros((height, width), np.uint8)
    for x0, y0, x1, y1 in (cal.layout.rolling, cal.layout.keep):
        rect = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float64)
        corners = cv2.perspectiveTransform(rect, cal.mat_to_image)[0]
        cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 255)
    rows, cols = np.nonzero(mask)
    if len(rows) == 0:
        raise ValueError("the calibrated mat's areas lie outside these frames; calibrate again")
    step = max(1, len(rows) // count)
    rows, cols = rows[::step], cols[::step]
    return MatSample(rows, cols, _grey(empty_tray(cal)[rows, cols]))


def _grey(pixels: np.ndarray) -> np.ndarray:
    """Grey levels (mean of the channels) of an (n, channels) or (n,) pixel array, float32."""
    pixels = pixels.astype(np.float32)
    return pixels if pixels.ndim == 1 else pixels[:, :3].mean(axis=1)


def mat_light(frame: np.ndarray, calibration, sample: MatSample | None = None) -> MatLight:
    """How bright the mat in ``frame`` is against the calibration's empty tray (``MatLight``).
    ``sample`` (from ``mat_sample``) saves working it out again for every frame."""
    empty_tray(calibration)
    h, w = frame.shape[:2]
    sample = sample if sample is not None else mat_sample(calibration, w, h)
    now, then = _grey(frame[sample.rows, sample.cols]), sample.empty
    usable = then >= RATIO_FLOOR   # darker empty-tray pixels' ratios are noise
    if not usable.any():
        return MatLight(1.0, 0.0)
    level = float(np.median(now[usable] / then[usable]))
    burnt = float(np.mean(now >= BURNT) - np.mean(then >= BURNT))
    return MatLight(max(level, 1e-3), max(burnt, 0.0))


class ExposureKeeper:
    """Watches a calibrated tray's brightness and says when the camera's exposure should
    change, and by how much (see the module's docstring).

    :param calibration: a ``vision.calibrate.Calibration`` with its empty-tray picture.
    :param tolerance: a drift of the light (either way) left alone: 0.12 = 12 %. The tray
        finder follows smaller drifts by itself (its gain field).
    :param hold: seconds a drift must last, over still frames, before the keeper acts (a
        cloud, a person's shadow or a hand held over the tray pass sooner).
    :param every: seconds between looks (each costs well under a millisecond).
    :param wait: seconds after an adjustment before looking again (a camera takes a few
        frames to apply new exposure settings).
    """

    def __init__(self, calibration, *, tolerance: float = 0.12, hold: float = 1.0, every: float = 0.2,
                 wait: float = 0.5):
        empty_tray(calibration)
        if not 0 < tolerance < 1:
            raise ValueError(f"light tolerance must be between 0 and 1 (a share), not {tolerance}")
        self.calibration = calibration
        self.tolerance, self.hold, self.every, self.wait = float(tolerance), float(hold), float(every), float(wait)
        self.last: MatLight | None = None      # the latest look
        self.adjustments = 0
        self._samples: dict[tuple[int, int], MatSample] = {}
        self._off_since: float | None = None
        self._following = False     # adjusting: the next look that is still off acts at once
        self._next_look = -math.inf

    def check(self, frame: np.ndarray) -> MatLight:
        """Look at one frame now (``last`` keeps it)."""
        h, w = frame.shape[:2]
        if (w, h) not in self._samples:
            self._samples[(w, h)] = mat_sample(self.calibration, w, h)
        self.last = mat_light(frame, self.calibration, self._samples[(w, h)])
        return self.last

    def update(self, frame: np.ndarray, timestamp: float, *, still: bool) -> float | None:
        """Feed one frame; returns the exposure factor to apply once the light has been off
        for ``hold`` seconds of still frames, else None. Call ``adjusted`` when applied."""
        if not still:
            self._off_since = None
            return None
        if timestamp < self._next_look:
            return None
        self._next_look = timestamp + self.every
        light = self.check(frame)
        if not light.off_by(self.tolerance):
            self._off_since, self._following = None, False
            return None
        if self._off_since is None:
            self._off_since = timestamp
        if timestamp - self._off_since < self.hold and not self._following:
            return None
        return light.correction

    def adjusted(self, timestamp: float) -> None:
        """The camera's exposure was changed at ``timestamp``: wait for it, then look again
        (and, if the light is still off, adjust again without waiting ``hold``)."""
        self.adjustments += 1
        self._off_since, self._following = None, True
        self._next_look = timestamp + self.wait
