"""Counting reads against labels exactly as /work/shared/tools/score_reads.py does.

A read die matches the nearest unmatched labelled die whose centre lies within
max(0.75 x the label's larger side, 15 px), closest pairs first. A labelled die counts as
read right only if matched *and* its face is right; a read die that matches no label is false.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

FACE_NAMES = ("1", "2", "3", "4", "5", "6")


def pair_up(reads: list[dict], labels: list[dict]) -> dict[int, int]:
    """Read index -> label index for every matched read (the module docstring's rule)."""
    pairs = sorted((math.hypot(p["x"] - g["x"], p["y"] - g["y"]), i, j)
                   for i, p in enumerate(reads) for j, g in enumerate(labels))
    matched: dict[int, int] = {}
    used: set[int] = set()
    for d, i, j in pairs:
        g = labels[j]
        if i in matched or j in used or d > max(0.75 * max(g["w"], g["h"]), 15):
            continue
        matched[i] = j
        used.add(j)
    return matched


@dataclass
class Tally:
    """Running counts over many photos."""
    images: int = 0
    labelled: int = 0
    predicted: int = 0
    matched: int = 0
    right: int = 0
    images_exact: int = 0
    # confusion[true][read]; true "none" = a false die, read "missed" = not found
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    # (confidence, right) per read die, for the reliability table
    readings: list[tuple[float, bool]] = field(default_factory=list)

    def add(self, labels: list[dict], reads: list[dict]) -> None:
        """labels: {"face","x","y","w","h"} in pixels; reads: {"face","x","y","confidence"}."""
        self.images += 1
        self.labelled += len(labels)
        self.predicted += len(reads)
        used_p = pair_up(reads, labels)
        right_here = 0
        for i, j in used_p.items():
            g = labels[j]
            self.matched += 1
            ok = str(reads[i]["face"]) == g["face"]
            self.right += ok
            right_here += ok
            self._count(g["face"], str(reads[i]["face"]))
        used_g = set(used_p.values())
        for j, g in enumerate(labels):
            if j not in used_g:
                self._count(g["face"], "missed")
        for i, p in enumerate(reads):
            ok = i in used_p and str(p["face"]) == labels[used_p[i]]["face"]
            if i not in used_p:
                self._count("none", str(p["face"]))
            self.readings.append((float(p.get("confidence", 0.0)), ok))
        if right_here == len(labels) and len(reads) == len(labels):
            self.images_exact += 1

    def __iadd__(self, other: "Tally") -> "Tally":
        """Add another tally's counts to this one (a whole run from its parts)."""
        for name in ("images", "labelled", "predicted", "matched", "right", "images_exact"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for true, row in other.confusion.items():
            for read, count in row.items():
                self._count(true, read, count)
        self.readings += other.readings
        return self

    def _count(self, true: str, read: str, times: int = 1) -> None:
        row = self.confusion.setdefault(true, {})
        row[read] = row.get(read, 0) + times

    @property
    def per_die(self) -> float:
        return self.right / self.labelled if self.labelled else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.labelled if self.labelled else 0.0

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def image_exact(self) -> float:
        return self.images_exact / self.images if self.images else 0.0

    def confident(self, threshold: float = 0.9) -> tuple[int, float]:
        """(how many reads at or above ``threshold``, the share of them that are right)."""
        hits = [ok for c, ok in self.readings if c >= threshold]
        return len(hits), (sum(hits) / len(hits) if hits else 1.0)

    def reliability(self, edges=(0.0, 0.5, 0.7, 0.9, 0.97, 0.99, 1.0001)) -> list[tuple[str, int, float]]:
        """Rows (confidence bin, reads in it, share right)."""
        rows = []
        for lo, hi in zip(edges, edges[1:]):
            hits = [ok for c, ok in self.readings if lo <= c < hi]
            rows.append((f"{lo:.2f}-{min(hi, 1.0):.2f}", len(hits),
                         sum(hits) / len(hits) if hits else float("nan")))
        return rows


def labels_in_pixels(dice, width: int, height: int) -> list[dict]:
    """vision.training.split dice (face, cx, cy, w, h normalised) to scorer labels."""
    return [{"face": str(f), "x": cx * width, "y": cy * height, "w": w * width, "h": h * height}
            for f, cx, cy, w, h in dice]
