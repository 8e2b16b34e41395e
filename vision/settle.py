"""The settle gate: read a roll once, when the dice have stopped, and never read a hand.

Every frame is shrunk to a small colour copy (about 320 pixels wide; under 2 ms for a
1280x720 frame, see ``python -m vision.bench settle``). The gate then asks three questions:

1. **Still?** Fewer than ``motion`` of the small copy's pixels changed by more than
   ``pixel_threshold`` levels (in any colour channel) since the previous frame, for
   ``window`` seconds (default 0.3 s).
2. **A hand?** Compared with a picture known to have no hand in it (the calibrated empty
   tray if given, else the last scene it reported), a changed region bigger than
   ``hand_fraction`` of the frame that is partly skin-coloured, or that touches the frame's
   edge, is a hand or an arm reaching in. While it is there nothing is read, however still
   (a non-skin region at the edge that stays perfectly still for ``stale_after`` seconds,
   such as a person's shadow, becomes part of the scene).
3. **New?** Compared with the last scene it reported, has anything die-sized changed? The
   same dice lying still (a hand passed over them, a shadow came and went) are not reported
   twice; a die nudged afterwards is.

Then ``update`` returns a ``Settle`` (the frame to read). ``reads_from_stream`` wires a
stream of frames and a reading function together::

    for settle, roll in reads_from_stream(camera, lambda image: read_frame(image, "d6-pips")):
        print(settle.timestamp, roll.faces)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import cv2
import numpy as np

MOVING, HAND, SETTLING, SETTLED = "moving", "hand", "settling", "settled"
_SUM_CHANNELS = np.ones((1, 3), np.float32)
RATIO_FLOOR = 24    # grey levels: darker pixels do not vote on a change of light's gain
MAX_GAIN = 4.0      # a brighter or darker change than this is not "the same scene, relit"
SAMPLE = 8          # light_change looks at every 8th pixel of every 8th row (~900 of a small copy)
BURNT = 250         # a pixel this bright may have been clipped by the camera


@dataclass(frozen=True)
class Settle:
    """A newly settled scene: the full-size ``image`` to read, when, and how much of the
    picture changed since the last reported scene (fraction of the frame)."""

    image: np.ndarray
    timestamp: float
    index: int
    changed: float


class SettleGate:
    """Decides, frame by frame, when a new roll lies still and can be read.

        gate = SettleGate()
        for image, t in camera:
            settle = gate.update(image, t)
            if settle:
                roll = read_frame(settle.image, "d6-pips")

    :param window: seconds of stillness before a roll counts as settled.
    :param motion: fraction of the frame allowed to change between frames while still
        (default: half the area of the smallest die).
    :param pixel_threshold: change (levels, in any colour channel) that counts as a changed pixel.
    :param hand_fraction: a changed region at least this fraction of the frame, touching the
        frame's edge, is a hand or arm.
    :param min_die_px: the smallest die side in full-frame pixels (sets what "die-sized" means).
    :param background: the empty tray (BGR, the frames' size or the same aspect ratio), e.g.
        from calibration; makes hand detection independent of what was reported before.
    :param work_width: width of the small colour copy.
    :param report_first: report the first still scene (dice already on the table when the
        camera starts); if False, it only becomes the reference.
    :param stale_after: seconds after which a perfectly still change at the frame's edge that
        is not a big skin-coloured region (a person's shadow, a moved lamp, orange dice by the
        edge) counts as part of the scene instead of an arm. Big skin-coloured regions never do.
    """

    def __init__(self, *, window: float = 0.3, motion: float | None = None, pixel_threshold: int = 18,
                 hand_fraction: float = 0.03, min_die_px: float = 16.0, background: np.ndarray | None = None,
                 work_width: int = 320, report_first: bool = True, stale_after: float = 3.0):
        if window < 0:
            raise ValueError(f"settle window must be 0 s or more, not {window}")
        self.window = window
        self.motion = motion
        self.pixel_threshold = pixel_threshold
        self.hand_fraction = hand_fraction
        self.min_die_px = min_die_px
        self.work_width = work_width
        self.report_first = report_first
        self.stale_after = stale_after
        self._background_full = background
        self._background: np.ndarray | None = None
        self._previous: np.ndarray | None = None
        self._reference: np.ndarray | None = None   # small copy of the last reported scene
        self._resized = False                        # the frames changed size since that report
        self._still_since: float | None = None
        self._decided = False
        self._index = -1
        self._scale = 1.0
        self.state = SETTLING
        self.last_motion = 0.0

    # ----------------------------------------------------------------------- helpers

    def _small(self, image: np.ndarray) -> np.ndarray:
        """Small colour copy: averaged over blocks (so sensor noise averages out), lightly
        blurred. Colour, not grey: a hand or a die can be as bright as the table it is on."""
        h, w = image.shape[:2]
        factor = max(1, int(round(w / self.work_width)))
        self._scale = float(factor)
        size = (max(1, w // factor), max(1, h // factor))
        small = image
        if factor % 2 == 0:
            # Halving with INTER_LINEAR averages 2x2 blocks and is several times cheaper than
            # INTER_AREA on the full frame; the rest is area-averaged on the half-size copy.
            small = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR)
        if factor > 2 or factor % 2:
            small = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
        if small.ndim == 3 and small.shape[2] == 4:
            small = cv2.cvtColor(small, cv2.COLOR_BGRA2BGR)
        return cv2.GaussianBlur(small, (3, 3), 0)

    def _fit_background(self, image: np.ndarray) -> np.ndarray:
        """The background at the frames' size (same camera at another resolution is fine)."""
        background = self._background_full
        (bh, bw), (h, w) = background.shape[:2], image.shape[:2]
        if (bh, bw) == (h, w):
            return background
        if abs(bw / bh - w / h) > 0.01:
            raise ValueError(f"the background is {bw}x{bh} but the frames are {w}x{h} (another camera?)")
        return cv2.resize(background, (w, h), interpolation=cv2.INTER_AREA)

    def _moved(self, a: np.ndarray, b: np.ndarray) -> int:
        """How many small pixels changed between two frames: the change summed over the
        colour channels above twice ``pixel_threshold`` (a cheap stand-in for "any channel")."""
        diff = cv2.absdiff(a, b)
        if diff.ndim == 3:
            return cv2.countNonZero(cv2.compare(cv2.transform(diff, _SUM_CHANNELS), 2 * self.pixel_threshold,
                                                cv2.CMP_GT))
        return cv2.countNonZero(cv2.compare(diff, self.pixel_threshold, cv2.CMP_GT))

    def _changed_mask(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Pixels of ``a`` that differ from ``b`` (summed over the colour channels, as in
        ``_moved``), after taking out an overall change of light per channel (``relit``).

        When the light went up, the camera burns out the brightest parts, and a pixel of the
        small copy averages a patch of them: a marker's black and burnt-out white together
        brighten far less than the gain says. So then a pixel anywhere between its old value
        and the relit one is no change (brighter light never darkens a pixel)."""
        gains, shifts = light_change(b, a)
        expected = relit(b, gains, shifts)
        if max(gains) > 1.03:
            diff = cv2.max(cv2.subtract(b, a), cv2.subtract(a, expected))
        else:
            diff = cv2.absdiff(a, expected)
        if diff.ndim == 3:
            return cv2.compare(cv2.transform(diff, _SUM_CHANNELS), 2 * self.pixel_threshold, cv2.CMP_GT) // 255
        return cv2.compare(diff, self.pixel_threshold, cv2.CMP_GT) // 255

    def _die_area(self) -> float:
        side = self.min_die_px / self._scale
        return max(2.0, 0.15 * side * side)

    def _hand_in(self, image: np.ndarray, small: np.ndarray) -> str | None:
        """Is an arm or hand in the picture? Compared with a hand-free picture (the empty tray,
        else the last reported scene), a big changed region is ``"skin"`` when a good part of
        it is skin-coloured; ``"edge"`` is a big region touching the frame's edge (an arm in a
        sleeve, or a shadow) or a smaller skin-coloured one there (fingertips reaching in, or
        orange dice by the edge: these wait ``stale_after`` seconds); None if there is none.
        Without a hand-free picture (the first scene of a stream with no calibration) there
        is nothing to compare with: None."""
        base = self._background if self._background is not None else self._reference
        if base is None:
            return None
        h, w = small.shape[:2]
        big = self.hand_fraction * h * w
        mask = self._changed_mask(small, base)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        verdict = None
        fingers = 0.4 * big  # fingertips reaching in: smaller, but still bigger than a few dice
        for i in range(1, count):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            at_edge = x == 0 or y == 0 or x + bw >= w or y + bh >= h
            if area < big and not (at_edge and area >= fingers):
                continue
            skin = self._skin_fraction(small[y:y + bh, x:x + bw], labels[y:y + bh, x:x + bw] == i)
            if area < big:  # smaller, at the edge: fingers reaching in (or skin-coloured dice)
                if skin > 0.5:
                    verdict = "edge"
                continue
            if skin > (0.25 if at_edge else 0.5):
                return "skin"
            if at_edge:
                verdict = "edge"
        return verdict

    @staticmethod
    def _skin_fraction(patch: np.ndarray, region: np.ndarray) -> float:
        """Share of ``region`` (a mask over the small colour ``patch``) that is skin-coloured."""
        if patch.ndim != 3:
            return 0.0
        skin = cv2.inRange(cv2.cvtColor(patch, cv2.COLOR_BGR2YCrCb), (40, 138, 80), (240, 173, 125)) > 0
        return float(skin[region].mean())

    def _changed_since_report(self, small: np.ndarray) -> float:
        """Fraction of the frame in die-sized changed regions since the last report (0 = same)."""
        if self._reference is None:
            return 1.0
        mask = self._changed_mask(small, self._reference)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        changed = sum(int(stats[i][cv2.CC_STAT_AREA]) for i in range(1, count)
                      if stats[i][cv2.CC_STAT_AREA] >= self._die_area())
        return changed / (mask.shape[0] * mask.shape[1])

    # --------------------------------------------------------------------- the gate

    def update(self, image: np.ndarray, timestamp: float) -> Settle | None:
        """Feed one frame; returns a Settle when a new still scene (without a hand) is ready."""
        self._index += 1
        small = self._small(image)
        if self._reference is not None and self._reference.shape != small.shape:
            # the frames changed size (a camera reconnected at another resolution): the last
            # reported scene cannot be compared with them, so the next still scene is reported
            self._reference, self._resized = None, True
        if self._background_full is not None and (self._background is None or self._background.shape != small.shape):
            self._background = self._small(self._fit_background(image))
        previous, self._previous = self._previous, small
        if previous is None or previous.shape != small.shape:
            self._still_since, self._decided = timestamp, False
            self.state = SETTLING
            return None
        pixels = small.shape[0] * small.shape[1]
        self.last_motion = self._moved(small, previous) / pixels
        allowed = self.motion if self.motion is not None else 0.5 * self._die_area() / 0.15 / pixels
        if self.last_motion > allowed:
            self._still_since, self._decided = None, False
            self.state = MOVING
            return None
        if self._still_since is None:
            self._still_since = timestamp
        if self._decided or timestamp - self._still_since < self.window:
            return None
        hand = self._hand_in(image, small)
        if hand == "skin" or (hand == "edge" and timestamp - self._still_since < self.stale_after):
            self.state = HAND
            return None
        self._decided = True
        self.state = SETTLED
        changed = self._changed_since_report(small)
        first = self._reference is None and not self._resized
        self._resized = False
        if changed == 0.0 or (first and not self.report_first):
            if first:
                self._reference = small
            return None
        self._reference = small
        return Settle(image=image, timestamp=timestamp, index=self._index, changed=changed)

    def reset(self) -> None:
        """Forget the last reported scene (the next still scene is reported again)."""
        self._reference = None
        self._decided = False


def light_change(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How the light changed from ``before`` to ``after`` (uint8, one picture of one scene):
    per channel a gain (the median ratio of the two pictures' pixels) and the shift left
    after it (the median difference).

    A lamp switched on or off, or the camera's exposure changing, multiplies the picture (a
    dark pip brightens by fewer levels than the pale mat around it, and pixels burn out at
    255), so a gain takes it out where an offset alone left the dice's dark parts changed;
    the shift catches a white-balance or black-level drift. Works on every ``SAMPLE``-th
    pixel of every ``SAMPLE``-th row."""
    channels = 1 if before.ndim == 2 else before.shape[2]
    a = after[::SAMPLE, ::SAMPLE].reshape(-1, channels).astype(np.float32)
    b = before[::SAMPLE, ::SAMPLE].reshape(-1, channels).astype(np.float32)
    usable = (b.min(axis=1) >= RATIO_FLOOR) & (b.max(axis=1) < BURNT) & (a.max(axis=1) < BURNT)
    if usable.sum() < 16:  # dark ratios are noise, burnt-out ones wrong
        gains = np.ones(channels, np.float32)
    else:
        gains = np.clip(np.median(a[usable] / b[usable], axis=0), 1 / MAX_GAIN, MAX_GAIN)
    return gains, np.median(a - np.minimum(b * gains, 255.0), axis=0)


def relit(before: np.ndarray, gains: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """``before`` (uint8) under the changed light ``light_change`` measured: scaled and
    shifted, clipped at 0 and 255 as the camera clips."""
    if before.ndim == 2:
        return cv2.convertScaleAbs(before, alpha=float(gains[0]), beta=float(shifts[0]))
    matrix = np.hstack([np.diag(gains), np.asarray(shifts, np.float32)[:, None]]).astype(np.float32)
    return cv2.transform(before, matrix)


def reads_from_stream(frames: Iterable, read_fn: Callable[[np.ndarray], object], *,
                      gate: SettleGate | None = None, skip_empty: bool = True,
                      fps: float = 30.0) -> Iterator[tuple[Settle, object]]:
    """Yield ``(Settle, read_fn(image))`` once per settled roll in ``frames``.

    ``frames``: Frames / (image, timestamp) pairs, or bare images (then ``fps`` apart).
    ``read_fn``: image -> Roll (or anything with ``dice``). ``skip_empty``: don't yield reads
    with no dice (an empty tray after the dice were picked up)."""
    gate = gate or SettleGate()
    for i, item in enumerate(frames):
        if isinstance(item, np.ndarray):
            image, timestamp = item, i / fps
        else:
            image, timestamp = item[0], float(item[1])
        settle = gate.update(image, timestamp)
        if settle is None:
            continue
        roll = read_fn(settle.image)
        if skip_empty and not getattr(roll, "dice", True):
            continue
        yield settle, roll
