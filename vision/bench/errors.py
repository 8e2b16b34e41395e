"""Where a reader goes wrong on labelled photos, so a person can look instead of guess.

Every labelled die is either read right, misread (found, wrong face) or missed, and every
read die that matches no label is a false find, paired exactly as the scorer pairs them
(``scoring.pair_up``). ``errors_in`` lists the errors of one photo; ``scene_table`` adds
them up per scene (a photo and its augmented copies, ``split.group_of``), worst first,
because on the mixed photos a few crowded scenes hold most of the errors and a single
figure over all dice hides that (``scene_spread`` says how far the figures move with the
mix of scenes); ``write_errors`` writes them as JSON lines and as contact
sheets: one tile per error, the labels drawn green, the read or missed die red, captioned
with the photo, the labelled and read faces and the confidence.

  python -m vision.bench pips --errors DIR      # DIR/FOLDER.errors.jsonl, DIR/FOLDER-KIND-N.png
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

from vision.bench.scoring import pair_up
from vision.overlay import square_around

KINDS = ("missed", "misread", "false")
TILE = 160           # a tile's side in pixels (its caption below it)
CAPTION = 18
CONTEXT = 3.0        # a tile shows this many times the die's larger side around it
MIN_VIEW = 30.0      # ... but at least this many pixels across, for tiny dice
PER_ROW, ROWS = 8, 6
LABEL_COLOUR, ERROR_COLOUR = (0, 200, 0), (0, 0, 255)


@dataclass(frozen=True)
class ReadError:
    """One error: ``kind`` is "missed" (``label`` set), "misread" (both) or "false"
    (``read`` set); labels and reads are scorer dicts (face, x, y, w, h[, confidence])."""
    kind: str
    photo: str
    scene: str
    label: dict | None = None
    read: dict | None = None

    @property
    def box(self) -> dict:
        """The box a tile centres on: the read for a false find, else the label."""
        return self.read if self.kind == "false" else self.label

    def caption(self, number: int) -> str:
        face = lambda d: d["face"] if d else "-"
        sure = f" {self.read['confidence']:.2f}" if self.read and "confidence" in self.read else ""
        return f"{number} {self.scene[:14]} L{face(self.label)} R{face(self.read)}{sure}"


def errors_in(photo: str, scene: str, labels: list[dict], reads: list[dict]) -> list[ReadError]:
    """The misreads, missed dice and false finds of one photo, paired as the scorer pairs."""
    matched = pair_up(reads, labels)
    out = [ReadError("misread", photo, scene, labels[j], reads[i])
           for i, j in matched.items() if str(reads[i]["face"]) != labels[j]["face"]]
    found = set(matched.values())
    out += [ReadError("missed", photo, scene, label=g) for j, g in enumerate(labels) if j not in found]
    out += [ReadError("false", photo, scene, read=r) for i, r in enumerate(reads) if i not in matched]
    return out


@dataclass
class SceneRow:
    scene: str
    photos: int = 0
    dice: int = 0
    missed: int = 0
    misread: int = 0
    false: int = 0

    @property
    def errors(self) -> int:
        return self.missed + self.misread + self.false

    @property
    def right(self) -> int:
        return self.dice - self.missed - self.misread


def scene_table(photos: Iterable[tuple[str, int]], errors: Iterable[ReadError]) -> list[SceneRow]:
    """Per scene (``photos``: (scene, labelled dice) per photo), its photos, dice and errors,
    the scenes with the most errors first."""
    rows: dict[str, SceneRow] = {}
    for scene, dice in photos:
        row = rows.setdefault(scene, SceneRow(scene))
        row.photos += 1
        row.dice += dice
    for e in errors:
        row = rows.setdefault(e.scene, SceneRow(e.scene))
        setattr(row, e.kind, getattr(row, e.kind) + 1)
    return sorted(rows.values(), key=lambda r: (-r.errors, r.scene))


def scene_lines(rows: list[SceneRow], top: int = 5) -> list[str]:
    """The report's lines: the ``top`` scenes by errors, and what share of the dice and of
    the errors they hold."""
    worst = [r for r in rows[:top] if r.errors]
    if not worst:
        return ["no errors"]
    dice, errors = sum(r.dice for r in rows), sum(r.errors for r in rows)
    lines = [f"{'scene':24}{'photos':>7}{'dice':>6}{'right':>7}{'missed':>8}{'misread':>9}{'false':>7}"]
    lines += [f"{r.scene[:24]:24}{r.photos:>7}{r.dice:>6}{r.right:>7}{r.missed:>8}{r.misread:>9}{r.false:>7}"
              for r in worst]
    share = lambda part, whole: f"{100 * part / whole:.0f}%" if whole else "n/a"
    lines.append(f"these {len(worst)} of {len(rows)} scenes hold {share(sum(r.dice for r in worst), dice)} "
                 f"of the labelled dice and {share(sum(r.errors for r in worst), errors)} of the errors")
    return lines


def scene_spread(rows: list[SceneRow], draws: int = 2000, level: float = 0.9,
                 seed: int = 0) -> dict | None:
    """How much the per-die accuracy and precision hang on which scenes happened to be
    photographed: the per-die figure with every scene weighted equally, and the middle
    ``level`` of the two figures over ``draws`` bootstrap draws of the scenes (a scene and
    its copies drawn together, with replacement). The goals are checked on other photos of
    the same kinds; on the mixed photos two crowded scenes hold a third of the dice, so this
    says how far another set of such photos could land from ours. None without dice."""
    rows = [r for r in rows if r.dice]
    if not rows:
        return None
    dice = np.array([r.dice for r in rows], float)
    right = np.array([r.right for r in rows], float)
    found = dice - np.array([r.missed for r in rows], float)
    reads = found + np.array([r.false for r in rows], float)
    picks = np.random.default_rng(seed).integers(0, len(rows), size=(draws, len(rows)))
    per_die = right[picks].sum(1) / dice[picks].sum(1)
    precision = found[picks].sum(1) / np.maximum(reads[picks].sum(1), 1.0)
    tail = 100 * (1 - level) / 2
    return {"scenes": len(rows), "scene_mean": float(np.mean(right / dice)), "level": level, "draws": draws,
            "per_die": tuple(float(v) for v in np.percentile(per_die, [tail, 100 - tail])),
            "precision": tuple(float(v) for v in np.percentile(precision, [tail, 100 - tail]))}


def spread_lines(rows: list[SceneRow], precision: bool = True) -> list[str]:
    """The report's lines for ``scene_spread`` (``precision``: False where every die was
    read from its labelled box, so there are no false finds to count)."""
    s = scene_spread(rows)
    if s is None:
        return []
    span = lambda lo_hi: f"{100 * lo_hi[0]:.1f}-{100 * lo_hi[1]:.1f}%"
    return [f"per die with each of the {s['scenes']} scenes weighted equally: {100 * s['scene_mean']:.1f}%",
            f"scenes drawn again at random ({s['draws']} draws), middle {100 * s['level']:.0f}%: "
            f"per die {span(s['per_die'])}" + (f", precision {span(s['precision'])}" if precision else "")]


def _rect(image: np.ndarray, d: dict, colour, thickness: int) -> None:
    x0, y0 = int(round(d["x"] - d["w"] / 2)), int(round(d["y"] - d["h"] / 2))
    x1, y1 = int(round(d["x"] + d["w"] / 2)), int(round(d["y"] + d["h"] / 2))
    cv2.rectangle(image, (x0, y0), (x1, y1), colour, thickness)


def error_tile(image: np.ndarray, labels: list[dict], error: ReadError, number: int) -> np.ndarray:
    """A TILE x (TILE + CAPTION) picture of one error in its photo (BGR): every label drawn
    green, the error's die red and centred, the view CONTEXT times the die's side (black past
    the photo's edge), captioned below."""
    drawn = image.copy()
    for g in labels:
        _rect(drawn, g, LABEL_COLOUR, 1)
    box = error.box
    _rect(drawn, box, ERROR_COLOUR, 1)
    side = int(round(max(box["w"], box["h"], MIN_VIEW) * CONTEXT))
    tile = square_around(drawn, box["x"], box["y"], side, TILE)
    tile = cv2.copyMakeBorder(tile, 0, CAPTION, 0, 0, cv2.BORDER_CONSTANT, value=(0, 0, 0))
    cv2.putText(tile, error.caption(number), (2, TILE + CAPTION - 5), cv2.FONT_HERSHEY_SIMPLEX,
                0.38, (255, 255, 255), 1, cv2.LINE_AA)
    return tile


def contact_sheets(tiles: list[np.ndarray]) -> list[np.ndarray]:
    """The tiles PER_ROW to a row, ROWS rows to a sheet, blank tiles filling the last row."""
    sheets = []
    for start in range(0, len(tiles), PER_ROW * ROWS):
        chunk = list(tiles[start:start + PER_ROW * ROWS])
        chunk += [np.zeros_like(chunk[0])] * (-len(chunk) % PER_ROW)
        sheets.append(np.vstack([np.hstack(chunk[r:r + PER_ROW]) for r in range(0, len(chunk), PER_ROW)]))
    return sheets


def write_errors(out_dir: Path, folder: str, errors: list[ReadError],
                 images: dict[str, np.ndarray], labels: dict[str, list[dict]]) -> list[Path]:
    """``out_dir/FOLDER.errors.jsonl`` (one error a line, numbered as on the sheets) and
    ``out_dir/FOLDER-KIND-N.png`` contact sheets per kind of error; ``images`` and
    ``labels`` by photo name. Returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / f"{folder}.errors.jsonl"]
    with open(written[0], "w") as out:
        for kind in KINDS:
            for number, e in enumerate(x for x in errors if x.kind == kind):
                out.write(json.dumps({"number": number, **asdict(e)}) + "\n")
    for kind in KINDS:
        of_kind = [e for e in errors if e.kind == kind]
        tiles = [error_tile(images[e.photo], labels[e.photo], e, n) for n, e in enumerate(of_kind)]
        for n, sheet in enumerate(contact_sheets(tiles), 1):
            path = out_dir / f"{folder}-{kind}-{n}.png"
            cv2.imwrite(str(path), sheet)
            written.append(path)
    return written
