"""The die-set store: taught dice sets on disk, the built-in ones, and a reader for any of them.

A taught set lives in its own folder ``DATA/dice/NAME/`` (``DATA`` is the data directory the
host passes in)::

    faces.json      {"schema": 1, "name": NAME, "origin": "taught" | "built-in",
                     "faces": [{"name": "MILK", "examples": ["examples/0-00.png", ...]}, ...]}
    examples/       the example crops, PNG, named by face position (so renaming is one edit)
    model.npz       the taught model (vision/taught.py); rebuilt from the examples if missing
                    or unreadable

A set is written whole in a hidden folder beside it, flushed to the disk, and then swapped
in (two renames when it replaces a set); a crash or power cut between those renames is
finished the next time the store is looked at (``finish_replacements``), so a set is never
lost to a half-done teaching.

Names resolve in this order: ``d6-pips`` is always the pip reader (no teaching, the name
cannot be taken); a folder under ``DATA/dice/`` is a taught set (this is also how a user
re-teaches a built-in set with real dice); ``jingle-bell-roll`` and ``christmas-romance``
fall back to defaults taught from the synthetic renderer's stand-in icons, made on first use
and kept in the store like any taught set.
"""
from __future__ import annotations

import json
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Mapping, Sequence

import cv2
import numpy as np

from vision import taught
from vision.durable import flush_to_disk
from vision.roll import FACE_SETS, Roll

PIPS = "d6-pips"
SCHEMA = 1
SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
FACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,23}$")
BUILT_IN_SHOTS = 12  # rendered examples per face for the built-in defaults (random die styles)


class DiceSetError(ValueError):
    """A die-set name, face name or stored set that cannot be used; the message says why."""


@dataclass(frozen=True)
class DiceSet:
    """A die set as stored: its faces in order and the example crop files of each."""

    name: str
    faces: tuple[str, ...]
    examples: Mapping[str, tuple[Path, ...]]
    origin: str  # "taught", "built-in" (rendered stand-ins, not yet stored) or "pips"
    folder: Path | None = None


def store_dir(data_dir) -> Path:
    return Path(data_dir) / "dice"


def check_set_name(name: str) -> str:
    if not SET_NAME.match(name or ""):
        raise DiceSetError(f"die set name {name!r}: use 1-40 letters, digits, '-' or '_', "
                           f"starting with a letter or digit")
    return name


def check_face_name(face: str) -> str:
    if not FACE_NAME.match(face or ""):
        raise DiceSetError(f"face name {face!r}: use 1-24 letters, digits, '-' or '_', "
                           f"starting with a letter or digit")
    return face


#: What loading a model.npz that is missing, torn (a crash while it was written by an older
#: version) or from another version raises; the model is then taught again from the examples.
UNUSABLE_MODEL = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile)


def _folder(name: str, data_dir) -> Path:
    check_set_name(name)
    finish_replacements(store_dir(data_dir))
    return store_dir(data_dir) / name


#: The folder ``save_set`` moves a set's previous version into while it swaps in the new one
#: (``tempfile.mkdtemp``'s names), and the one it builds the new version in.
ASIDE = re.compile(r"^\.(?P<name>[A-Za-z0-9][A-Za-z0-9_-]{0,39})\.old\.[A-Za-z0-9_]+$")


def _staged(name: str) -> re.Pattern:
    return re.compile(rf"^\.{re.escape(name)}\.[A-Za-z0-9_]+$")


def _whole(folder: Path) -> bool:
    """Whether a stored set's folder holds its faces.json and every example crop, readable."""
    try:
        example_crops(_read_faces_json(folder))
    except DiceSetError:
        return False
    return True


def finish_replacements(root: Path) -> None:
    """Finish every replacement of a set (``save_set --replace``) that a crash or power cut
    cut short between its two renames, when the set's folder had been moved aside and the
    new one not yet put in its place: the new version goes in if it is whole, otherwise the
    previous one comes back. A swap that only missed its clean-up loses its leftovers."""
    if not root.is_dir():
        return
    for aside in sorted(root.iterdir()):
        match = ASIDE.match(aside.name)
        if not match:
            continue
        name = match["name"]
        folder = root / name
        if not folder.exists():
            staged = [p for p in root.iterdir() if _staged(name).match(p.name) and _whole(p)]
            if staged:
                max(staged, key=lambda p: p.stat().st_mtime).rename(folder)   # the newest teaching
            elif (aside / "set").is_dir():
                (aside / "set").rename(folder)
            else:
                continue   # nothing to put back: leave the folder for a person to look at
        shutil.rmtree(aside, ignore_errors=True)


def _read_faces_json(folder: Path) -> DiceSet:
    path = folder / "faces.json"
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise DiceSetError(f"{path}: missing; the die set folder is incomplete "
                           f"(delete it and teach the set again)") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise DiceSetError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("faces"), list):
        raise DiceSetError(f"{path}: expected {{\"schema\": {SCHEMA}, \"faces\": [...]}}")
    faces, examples = [], {}
    for entry in doc["faces"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) \
                or not isinstance(entry.get("examples"), list):
            raise DiceSetError(f"{path}: each face needs \"name\" and \"examples\"; got {entry!r}")
        faces.append(entry["name"])
        examples[entry["name"]] = tuple(folder / str(e) for e in entry["examples"])
    return DiceSet(doc.get("name", folder.name), tuple(faces), examples,
                   str(doc.get("origin", "taught")), folder)


def exists(name: str, data_dir) -> bool:
    """True for d6-pips, the built-in sets and every stored set (False for invalid names)."""
    if name == PIPS or name in FACE_SETS:
        return True
    return bool(SET_NAME.match(name or "")) and (_folder(name, data_dir) / "faces.json").is_file()


def list_sets(data_dir) -> list[DiceSet]:
    """Every die set that ``load_reader`` can read: d6-pips, the built-ins, the stored sets."""
    found = {PIPS: DiceSet(PIPS, FACE_SETS[PIPS], {}, "pips")}
    for name, faces in FACE_SETS.items():
        if name != PIPS:
            found[name] = DiceSet(name, faces, {}, "built-in")
    root = store_dir(data_dir)
    finish_replacements(root)
    if root.is_dir():
        for folder in sorted(root.iterdir()):
            if folder.is_dir() and (folder / "faces.json").is_file() and SET_NAME.match(folder.name):
                try:
                    found[folder.name] = _read_faces_json(folder)
                except DiceSetError:  # listed, so the user sees it; `dice show` says what is wrong
                    found[folder.name] = DiceSet(folder.name, (), {}, "damaged", folder)
    return [found[k] for k in sorted(found, key=lambda n: (n != PIPS, n not in FACE_SETS, n))]


def load_set(name: str, data_dir) -> DiceSet:
    """The stored set ``name``, materialising a built-in default on first use."""
    if name == PIPS:
        raise DiceSetError(f"{PIPS} is the built-in pip reader; it has no taught examples")
    folder = _folder(name, data_dir)
    if (folder / "faces.json").is_file():
        return _read_faces_json(folder)
    if name in FACE_SETS:
        return _store_built_in(name, data_dir)
    raise DiceSetError(f"no die set named {name!r}; known: {', '.join(s.name for s in list_sets(data_dir))}")


def save_set(name: str, examples: Mapping[str, Sequence[np.ndarray]], data_dir, *,
             replace: bool = False, origin: str = "taught",
             min_examples: int = taught.MIN_EXAMPLES,
             model: taught.FaceModel | None = None) -> DiceSet:
    """Teach ``name`` from example crops per face and store it (all or nothing).
    ``model``: already taught from exactly these examples (skips teaching)."""
    check_set_name(name)
    if name == PIPS:
        raise DiceSetError(f"{PIPS} is the built-in pip reader and cannot be taught; "
                           f"choose another name")
    for face in examples:
        check_face_name(face)
    folder = _folder(name, data_dir)
    if not replace and ((folder / "faces.json").is_file() or (name in FACE_SETS and origin == "taught")):
        kind = "a built-in die set" if name in FACE_SETS else "a taught die set"
        raise DiceSetError(f"{name!r} is already {kind}; use --replace to teach it again")
    if model is None:
        model = taught.teach(examples, min_examples=min_examples)
    root = store_dir(data_dir)
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=root))
    try:
        (staging / "examples").mkdir()
        entries = []
        for index, face in enumerate(model.faces):
            files = []
            for n, crop in enumerate(examples[face]):
                rel = f"examples/{index}-{n:02d}.png"
                if not cv2.imwrite(str(staging / rel), crop):
                    raise DiceSetError(f"cannot write {staging / rel}")
                files.append(rel)
            entries.append({"name": face, "examples": files})
        model.save(staging / "model.npz")
        doc = {"schema": SCHEMA, "name": name, "origin": origin, "faces": entries}
        (staging / "faces.json").write_text(json.dumps(doc, indent=1) + "\n")
        _sync_tree(staging)   # on disk before the swap: a power cut after it finds the new set whole
        if folder.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{name}.old.", dir=root))
            folder.rename(old / "set")
            staging.rename(folder)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(folder)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return _read_faces_json(folder)


def _sync_tree(folder: Path) -> None:
    """Flush every file under ``folder``, and the folders themselves, to the disk."""
    for path in sorted(folder.rglob("*"), reverse=True) + [folder]:
        flush_to_disk(path)


def delete_set(name: str, data_dir) -> str:
    """Delete a stored set; returns what the name reads as afterwards."""
    if name == PIPS:
        raise DiceSetError(f"{PIPS} is the built-in pip reader and cannot be deleted")
    folder = _folder(name, data_dir)
    if not (folder / "faces.json").is_file() and not folder.is_dir():
        if name in FACE_SETS:
            raise DiceSetError(f"{name!r} is built in and has not been taught; nothing to delete")
        raise DiceSetError(f"no die set named {name!r}")
    shutil.rmtree(folder)
    return "the built-in default" if name in FACE_SETS else "nothing"


def rename_face(name: str, old: str, new: str, data_dir) -> DiceSet:
    """Rename one face of a set (e.g. christmas-romance's FACE-2 to its real name)."""
    check_face_name(new)
    dice_set = load_set(name, data_dir)
    if old not in dice_set.faces:
        raise DiceSetError(f"{name!r} has no face {old!r}; its faces: {', '.join(dice_set.faces)}")
    if new in dice_set.faces and new != old:
        raise DiceSetError(f"{name!r} already has a face {new!r}")
    path = dice_set.folder / "faces.json"
    doc = json.loads(path.read_text())
    for entry in doc["faces"]:
        if entry["name"] == old:
            entry["name"] = new
    model_path = dice_set.folder / "model.npz"
    try:
        taught.FaceModel.load(model_path).renamed(old, new).save(model_path)
    except UNUSABLE_MODEL:
        model_path.unlink(missing_ok=True)  # rebuilt from the examples on next load
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    tmp.replace(path)
    return _read_faces_json(dice_set.folder)


def example_crops(dice_set: DiceSet) -> dict[str, list[np.ndarray]]:
    """The example crops per face, read back from the store."""
    out = {}
    for face in dice_set.faces:
        crops = []
        for path in dice_set.examples[face]:
            crop = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if crop is None:
                raise DiceSetError(f"{path}: example crop missing or unreadable; teach "
                                   f"{dice_set.name!r} again")
            crops.append(crop)
        out[face] = crops
    return out


def vote_for(origin: str) -> tuple[float, ...]:
    """How a set of this origin weighs each face's best examples (``taught.teach``'s
    ``neighbours``; () = the feature kind's default). The built-in stand-ins are taught from
    many random die looks, where only the example of the look being read matches well, so
    the single best example decides."""
    return taught.SINGLE_BEST if origin == "built-in" else ()


def load_model(name: str, data_dir) -> taught.FaceModel:
    """The taught model of a set, rebuilt from its examples if the file is missing or old."""
    dice_set = load_set(name, data_dir)
    path = dice_set.folder / "model.npz"
    try:
        model = taught.FaceModel.load(path)
        if model.faces == dice_set.faces and model.neighbours == vote_for(dice_set.origin):
            return model
    except UNUSABLE_MODEL:
        pass
    model = taught.teach(example_crops(dice_set), min_examples=1, neighbours=vote_for(dice_set.origin))
    try:
        model.save(path)
    except OSError:
        pass  # read-only store: use the rebuilt model without caching it
    return model


def built_in_examples(name: str, shots: int = BUILT_IN_SHOTS) -> dict[str, list[np.ndarray]]:
    """Rendered example crops of a built-in set's stand-in icons (vision/synth.py)."""
    from vision.synth import render_face_crop
    return {face: [taught.tighten_crop(render_face_crop(name, face, seed=1000 * i + n, size=64,
                                                        tilt=0.0))
                   for n in range(shots)]
            for i, face in enumerate(FACE_SETS[name])}


_BUILT_IN: dict[str, tuple[dict, taught.FaceModel]] = {}  # rendered and taught once per process


def _store_built_in(name: str, data_dir) -> DiceSet:
    if name not in _BUILT_IN:
        examples = built_in_examples(name)
        _BUILT_IN[name] = (examples, taught.teach(examples, neighbours=vote_for("built-in")))
    examples, model = _BUILT_IN[name]
    return save_set(name, examples, data_dir, replace=True, origin="built-in", model=model)


def contact_sheet(dice_set: DiceSet, cell: int = 64, per_row: int = 8) -> np.ndarray:
    """One row per face: its name, then its example crops (BGR image)."""
    crops = example_crops(dice_set)
    label_w = 150
    rows = []
    for face in dice_set.faces:
        examples = crops[face]
        lines = max(1, -(-len(examples) // per_row))
        row = np.full((cell * lines + 8, label_w + per_row * (cell + 4), 3), 255, np.uint8)
        cv2.putText(row, face, (6, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
        cv2.putText(row, f"{len(examples)} examples", (6, 48), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (90, 90, 90), 1, cv2.LINE_AA)
        for n, crop in enumerate(examples):
            tile = cv2.resize(crop, (cell, cell), interpolation=cv2.INTER_AREA)
            y, x = 4 + (n // per_row) * cell, label_w + (n % per_row) * (cell + 4)
            row[y:y + cell, x:x + cell] = tile
        rows.append(row)
        rows.append(np.full((2, row.shape[1], 3), 200, np.uint8))
    title = np.full((36, rows[0].shape[1], 3), 255, np.uint8)
    cv2.putText(title, f"{dice_set.name} ({dice_set.origin})", (6, 24), cv2.FONT_HERSHEY_SIMPLEX,
                0.7, (0, 0, 0), 2, cv2.LINE_AA)
    return np.vstack([title] + rows[:-1])


# --------------------------------------------------------------------------- reading

Finder = Callable[[np.ndarray], Sequence[taught.Box]]


# The pip finder's heatmap level for taught sets; None = the pip reader's own
# (models/pip_reader.json: find_threshold, 0.3 for the current finder, which was trained
# with made-up-symbol dice among the pips and finds ~97 % of rendered icon dice at it).
FIND_THRESHOLD: float | None = None


@lru_cache(maxsize=1)
def _finder_net():
    from vision.pips import PipReader
    return PipReader(find_threshold=FIND_THRESHOLD)


def pip_finder(one_die: bool = False) -> Finder:
    """The pip reader's die finder (it finds dice whatever their faces show), never on the
    mat's ArUco markers (black squares with white blocks look like dice to it; only the mat's
    own ids count: on byler's tray photos the pips of four dice decoded as ids 13 and 35). Its boxes
    are grown by the finder's fitted ``box_scale`` (pip_reader.json) to the whole die's box,
    which is what teaching crops are cut around; the surest find comes first. ``one_die``: for
    a teaching photo, meant to show one die: the half-scale pass's big die is kept over the
    pips on it and specks are left out (``one_die_finds``)."""
    from vision.calibrate import find_markers
    from vision.mat import is_mat_marker

    def find(frame: np.ndarray) -> list[taught.Box]:
        # the network loads on first use: a reader on a calibrated tray never needs it
        markers = [np.asarray(c, np.float32).reshape(-1, 1, 2) for mid, c in find_markers(frame).items()
                   if is_mat_marker(mid)]   # a die's five can decode as a marker of no mat of ours
        net = _finder_net()
        sw, sh = net.box_scale  # the whole die, as teaching crops show it
        finds = net.find(frame)
        finds = sorted(one_die_finds(finds) if one_die else without_pile_doubts(finds), key=lambda f: -f.score)
        return [(f.x, f.y, f.w * sw, f.h * sh) for f in finds
                if not any(cv2.pointPolygonTest(m, (float(f.x), float(f.y)), True) > -0.15 * f.side
                           for m in markers)]
    return find


# A teaching photo shows one die, often close up, on a table with specks and crumbs. The
# pip finder sees such a die's pips as small dice on it, and the finer detail of a close-up
# (a crumb, a scratch) as dice a fraction of its size; so for a teaching photo a find is
# dropped when it lies on a bigger find (``pips.on_die``) or when another find is at least
# SPECK_RATIO times its size and surer: dice of one set are one size. Found on byler tray
# photos cut around one die and grown to 800 px (three times the die's size): 6 of 48 were
# refused as "2-4 dice found" before, none after.
SPECK_RATIO = 2.0


def one_die_finds(finds: list) -> list:
    """The pip finder's ``finds`` of a photo meant to show one die, less its pips and specks
    (see SPECK_RATIO); more than one left means more than one die (or none sure)."""
    from vision.pips import on_die
    kept = [f for f in finds if not any(g is not f and on_die(f, g) for g in finds)]
    return [f for f in kept
            if not any(g is not f and g.side >= SPECK_RATIO * f.side and g.score > f.score for g in kept)]


def without_pile_doubts(finds: list) -> list:
    """The pip finder's finds less each die of its half-scale pass (``Find.big``) that has
    smaller finds on it: the pip reader asks its face reader which of the two to keep
    (``pips.big_or_small``); a taught set has no such reader before its boxes are read, so
    the usual finds stay (a big die there is likelier a pile of dice than one die)."""
    from vision.pips import on_die
    usual = [f for f in finds if not f.big]
    return usual + [b for b in finds if b.big and not any(on_die(f, b) for f in usual)]


def load_reader(name: str, data_dir, *, find_dice: Finder | None = None) -> Callable[[np.ndarray], Roll]:
    """A reader ``frame -> Roll`` for any die-set name (d6-pips, built-in or taught)."""
    if name == PIPS:
        from vision.reader import reader_for
        return reader_for(PIPS)
    model = load_model(name, data_dir)
    return taught.TaughtReader(model, name, find_dice or pip_finder())
