"""The fixed train / validation / test split of the shared real photos.

Photos are grouped so that Roboflow's augmented copies of one photo (``NAME_jpg.rf.HASH``)
always fall on the same side; a group's side comes from a hash of its name, so the split
does not depend on file order. 20% of each folder's groups are held out for testing (never
trained or tuned on), 10% are the validation part (early stopping and confidence calibration).
No torch here: the benchmark and the tests use this module too.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

FOLDERS = ("byler-train", "epanemu-train")
DEFAULT_ROOT = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "d6-real"


@dataclass(frozen=True)
class LabelledPhoto:
    image: Path
    folder: str
    dice: tuple[tuple[int, float, float, float, float], ...]  # (face 1..6, cx, cy, w, h) normalised


def group_of(stem: str) -> str:
    """Augmented copies share the part of the name before '.rf.'."""
    return stem.split(".rf.")[0]


def side_of(stem: str) -> str:
    """'test', 'val' or 'train' for a photo name (stable across machines)."""
    bucket = int(hashlib.sha1(group_of(stem).encode()).hexdigest(), 16) % 10
    return "test" if bucket < 2 else "val" if bucket == 2 else "train"


def read_labels(path: Path) -> tuple[tuple[int, float, float, float, float], ...]:
    dice = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5:
            dice.append((int(parts[0]) + 1, *map(float, parts[1:5])))
    return tuple(dice)


def photos(root: Path = DEFAULT_ROOT, folder: str | None = None, side: str | None = None
           ) -> list[LabelledPhoto]:
    """Labelled photos under ``root`` (all folders unless ``folder``), on one side or all."""
    out = []
    for name in ([folder] if folder else FOLDERS):
        for image in sorted((Path(root) / name / "images").glob("*.jpg")):
            if side and side_of(image.stem) != side:
                continue
            label = Path(root) / name / "labels" / f"{image.stem}.txt"
            out.append(LabelledPhoto(image, name, read_labels(label) if label.exists() else ()))
    return out
