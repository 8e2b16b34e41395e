"""What vision hands to the rest of the device: a Roll of Die readings.

Coordinates are pixels of the frame that was read (not of any resized or warped copy).
``confidence`` is in [0, 1]; callers treat readings below their threshold (default 0.9)
as "ask the player" rather than as a face.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Built-in face sets vision can read or render. Kept equal to rules.dice.FACE_SETS by a
# test (vision does not import rules). christmas-romance names five faces by placeholder.
FACE_SETS: dict[str, tuple[str, ...]] = {
    "d6-pips": ("1", "2", "3", "4", "5", "6"),
    "jingle-bell-roll": ("MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL"),
    "christmas-romance": ("SNOWFLAKE", "FACE-2", "FACE-3", "FACE-4", "FACE-5", "FACE-6"),
}

ROLLING, KEEP, OUTSIDE = "rolling", "keep", "outside"


@dataclass(frozen=True)
class Die:
    """One die as read: its top face, how sure we are, and where it lies."""

    face: str
    confidence: float
    x: float  # centre, pixels
    y: float
    w: float  # axis-aligned box size, pixels
    h: float
    outline: tuple[tuple[float, float], ...] = ()  # polygon (e.g. rotated square), pixels
    area: str | None = None  # ROLLING / KEEP / OUTSIDE with a calibrated tray, else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "face": self.face, "confidence": round(float(self.confidence), 4),
            "x": round(float(self.x), 1), "y": round(float(self.y), 1),
            "w": round(float(self.w), 1), "h": round(float(self.h), 1),
        }
        if self.outline:
            out["outline"] = [[round(float(px), 1), round(float(py), 1)] for px, py in self.outline]
        if self.area is not None:
            out["area"] = self.area
        return out


@dataclass(frozen=True)
class Roll:
    """All dice found in one frame, in reading order (top to bottom, left to right)."""

    dice: tuple[Die, ...] = ()
    dice_set: str = "d6-pips"
    frame_size: tuple[int, int] = (0, 0)  # (width, height)
    notes: tuple[str, ...] = field(default=())  # e.g. "uncalibrated", "glare"

    @property
    def faces(self) -> list[str]:
        return [d.face for d in self.dice]

    def uncertain(self, threshold: float = 0.9) -> list[int]:
        """Indexes of dice whose reading is below ``threshold``."""
        return [i for i, d in enumerate(self.dice) if d.confidence < threshold]


@dataclass(frozen=True)
class Throw:
    """What a game asks the players to throw next: ``count`` dice, picked up from the table,
    while the dice showing ``keep`` (face names, repeats allowed) stay standing: kept dice
    and Jingle Bell Roll's BELLS lie still between rolls, and a one-die re-roll picks up one
    die of a face it may re-roll. ``count`` 0 means the game waits for a button, not dice.
    The synthetic camera's players follow it (``SyntheticCamera(dice_count=...)``)."""

    count: int
    keep: tuple[str, ...] = ()
