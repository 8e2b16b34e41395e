"""The box learns a taught die set as it plays: every die the player accepts or corrects
becomes an example of its face, read with from the next roll on, with no training run.

Four parts:

* ``ExampleStore``: the examples a table gave a set, stored
  durably in the set's folder (``DATA/dice/NAME/learned/``: ``examples.json`` and one PNG
  crop per example, each written beside its place, flushed, then renamed in; a crash leaves
  the previous store whole). Each example keeps its crop at the reader's scale (at most
  CROP_SIDE pixels), its face, the session and roll (journal position) and die it came from,
  and its source: ``accepted`` (the camera's read, scored without an objection) or
  ``corrected`` (a person set the face at the table).
* ``Learner``: the set's taught examples plus the stored ones, as a ``taught.FaceModel``.
  Each example's best similarity to every other (``pairs``) is kept, so a roll's few new
  examples cost a few rows and columns, not a new teaching, and the confidence is
  calibrated again from it (``taught.calibrate_pairs``, leave-one-out as teaching does).
  It stays bounded and diverse: at most MAX_PER_FACE table examples per face; a new example
  nearly the same as one of its face (NEAR_DUPLICATE) takes its place (an unchallenged read
  never takes a person's); past the cap the most redundant one gives way, unchallenged
  reads first. A correction withdraws an unchallenged example of another face that looks
  the same. A batch of new examples is taken only if the self-check does not get worse:
  the examples a person vouched for (taught, corrected), each read by all the others
  (leave-one-out), must read right at least as often as before; otherwise the batch is kept
  aside (stored, marked, not read with).
* ``TableRecord``: the table's word on the reader's confidence. Every die stored is also an
  outcome: the confidence the reader gave it and whether the face stored is the face read
  (a die the player corrected was read wrong). A read's confidence is then weighed against
  how the table's reads at about that confidence turned out (``table_confidence``): a set
  whose reads the table keeps accepting is asked about less, one whose sure reads get
  corrected more. The last OUTCOMES_KEPT outcomes are kept with the examples.
* ``TableLearner``: the table loop's collaborator. It wraps the reader to remember the
  crops of the last reads; the loop tells it when a roll is stored (``stored``), a die
  corrected after it (``corrected``) or a roll undone (``undone``); the work (features,
  pairs, the store's writes) runs on its own thread and the new model is handed to the
  reader when done, so the loop never waits for it.
"""
from __future__ import annotations

import atexit
import json
import logging
import queue
import threading
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import cv2
import numpy as np

from vision import taught
from vision.durable import flush_to_disk, write_whole

log = logging.getLogger(__name__)

FOLDER = "learned"          # inside the die set's folder
MANIFEST = "examples.json"
SCHEMA = 1
CROP_SIDE = 64              # crops are stored at most this big: the reader works at 32-64 px
MAX_PER_FACE = 24           # table examples per face, besides the taught ones
SIMILARITY_BLOCK = 4096     # template rows compared at a time (a float32 copy of this many, not of all)
LEARNED_TURNS = taught.ANGLES   # a table example's templates: every turn ...
LEARNED_SCALES = (1.0,)         # ... at the one scale this camera sees the dice at
# Two examples of one face this similar (cosine, each's best shift against the other's best
# turn) are near-duplicates: the same die lying still between rolls (a standing BELL), or the
# same throw read again. Measured on 25 rendered jingle-bell-roll scenes of one die style
# (108 table examples, ``vision.bench learn``'s way): two throws of one face match at a median
# 0.80, 99th percentile 0.96, 0.3 % of such pairs at 0.97 or more; two faces at most 0.86.
NEAR_DUPLICATE = 0.97
ACCEPTED, CORRECTED, TAUGHT = "accepted", "corrected", "taught"
SOURCES = (ACCEPTED, CORRECTED)
VOUCHED = (TAUGHT, CORRECTED)  # a person said what these show


class LearningError(ValueError):
    """A learned-example store that cannot be used; the message says which file and why."""


@dataclass(frozen=True)
class Example:
    """One example a table gave a die set; its crop is stored beside."""

    key: str
    face: str
    source: str             # ACCEPTED or CORRECTED
    session: str = ""
    seq: int = -1           # the roll's position in the session's events
    die: int = -1           # the die's index in that roll
    aside: bool = False     # kept aside by the self-check: stored, not read with


# --------------------------------------------------------------------------- the table's word

OUTCOMES_KEPT = 400     # the last stored dice whose read is remembered (a few games' worth)
# How a read's confidence is weighed against the table's outcomes (``table_confidence``), picked
# by replaying the reads of ``python -m vision.bench learn`` (real and rendered) and of
# ``python -m host.bench_games`` in order with each setting (prior 4/8/16, window
# 0.1/0.2/0.3, 0/10/20 to raise): the rendered sets' dice asked about after 30 rolls fell from
# 14-26 % to 3.5-6 % with no sure read wrong; on byler's real photos the sure reads that were
# wrong went from 1.2 to 1.1 %, and on epanemu's oblique ones (where 10 % of the reader's sure
# reads are wrong) nearly every die is asked about once the table has corrected a few.
PRIOR_WEIGHT = 8.0      # the reader's own confidence counts as this many stored dice
WINDOW = 0.3            # stored reads this much less sure than a new one, and no surer, speak for it
MIN_TO_RAISE = 10       # right ones among them before the table may raise a confidence (it may lower it at once)


@dataclass(frozen=True)
class Outcome:
    """One stored die: the confidence its read had and whether the face stored was the one read."""

    key: str            # as its example's (``example_key``)
    session: str
    confidence: float
    right: bool


def table_confidence(confidence: float, confidences: np.ndarray, rights: np.ndarray) -> float:
    """A read's ``confidence`` weighed against the table's outcomes (``confidences``, ``rights``
    of the dice stored): the stored reads at most WINDOW less sure than this one, and no surer,
    are a sample of how such reads turn out; each right one counts for it, each wrong one
    against, and the reader's own figure counts as PRIOR_WEIGHT of them. Only reads no surer
    than this one speak for it, so a few wrong close calls cannot be outvoted by many sure
    right reads; and the table raises a confidence only with MIN_TO_RAISE right ones behind it
    (so each right outcome can only raise a confidence, each wrong one only lower it)."""
    if not len(confidences):
        return float(confidence)
    near = (confidences <= confidence + 1e-9) & (confidences >= confidence - WINDOW)
    right = float(rights[near].sum())
    estimate = (PRIOR_WEIGHT * confidence + right) / (PRIOR_WEIGHT + int(near.sum()))
    if estimate > confidence and right < MIN_TO_RAISE:
        return float(confidence)
    return float(min(max(estimate, 0.0), 1.0))


@dataclass(frozen=True)
class TableRecord:
    """The outcomes of the dice a table stored (oldest first), and the confidence they give a
    new read. Immutable: the reader's thread keeps one while the learner's makes the next."""

    confidences: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    rights: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))

    @classmethod
    def of(cls, outcomes: Iterable[Outcome]) -> "TableRecord":
        outcomes = list(outcomes)[-OUTCOMES_KEPT:]
        return cls(np.array([o.confidence for o in outcomes], np.float32),
                   np.array([o.right for o in outcomes], bool))

    def __len__(self) -> int:
        return len(self.rights)

    def confidence(self, confidence: float) -> float:
        return table_confidence(confidence, self.confidences, self.rights)

    def weigh(self, roll):
        """``roll`` (a vision.roll.Roll) with each die's confidence weighed by the table."""
        if not len(self) or not roll.dice:
            return roll
        return replace(roll, dice=tuple(replace(d, confidence=self.confidence(d.confidence)) for d in roll.dice))


def example_key(session: str, seq: int, die: int) -> str:
    return f"{session}-{seq}-{die}"


def of_roll(outcome: "Outcome", session: str, seq: int) -> bool:
    """Whether ``outcome`` is of a die of roll ``seq`` of ``session`` (its key is
    ``example_key(session, seq, die)``; session ids hold dashes, so the key is read from the
    session's end)."""
    if outcome.session != session or not outcome.key.startswith(f"{session}-"):
        return False
    roll, _, die = outcome.key[len(session) + 1:].partition("-")
    return roll == str(seq) and die.isdigit()


def scaled_crop(crop: np.ndarray) -> np.ndarray:
    """A die crop at the reader's scale: at most CROP_SIDE pixels a side, BGR uint8."""
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    h, w = crop.shape[:2]
    if max(h, w) > CROP_SIDE:
        scale = CROP_SIDE / max(h, w)
        crop = cv2.resize(crop, (max(1, round(w * scale)), max(1, round(h * scale))),
                          interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(crop[:, :, :3]).astype(np.uint8)


# --------------------------------------------------------------------------- the store

class ExampleStore:
    """The examples a set learned, in ``folder`` (``DATA/dice/NAME/learned``); oldest first."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.examples: dict[str, Example] = {}
        self.outcomes: dict[str, Outcome] = {}   # oldest first, at most OUTCOMES_KEPT
        path = self.folder / MANIFEST
        self._stamp = self._disk_stamp()
        if not path.is_file():
            return
        try:
            doc = json.loads(path.read_text())
            rows = doc["examples"] if doc.get("schema") == SCHEMA else None
            if not isinstance(rows, list):
                raise ValueError(f"expected {{\"schema\": {SCHEMA}, \"examples\": [...]}}")
            for row in rows:
                example = Example(**row)
                if example.source not in SOURCES:
                    raise ValueError(f"example {example.key}: source {example.source!r}, "
                                     f"expected one of {', '.join(SOURCES)}")
                self.examples[example.key] = example
            for row in doc.get("outcomes", []):   # stores written before outcomes have none
                outcome = Outcome(**row)
                confidence = outcome.confidence
                if (not isinstance(outcome.right, bool) or isinstance(confidence, bool)
                        or not isinstance(confidence, (int, float)) or not 0.0 <= confidence <= 1.0):
                    raise ValueError(f"outcome {outcome.key}: expected a confidence in [0, 1] "
                                     f"and right true or false")
                self.outcomes[outcome.key] = outcome
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            raise LearningError(f"{path}: not a learned-example list ({exc}); delete the "
                                f"folder {self.folder} to start learning afresh") from None

    def _disk_stamp(self) -> tuple[int, int] | None:
        try:
            st = (self.folder / MANIFEST).stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def changed_elsewhere(self) -> bool:
        """Whether the list on disk is no longer the one this store read or wrote (another
        process changed it: ``dicewatch dice forget`` while a box plays)."""
        return self._disk_stamp() != self._stamp

    @classmethod
    def of_set(cls, set_folder: Path) -> "ExampleStore":
        return cls(Path(set_folder) / FOLDER)

    def crop_path(self, key: str) -> Path:
        return self.folder / "crops" / f"{key}.png"

    def crop(self, key: str) -> np.ndarray:
        crop = cv2.imread(str(self.crop_path(key)), cv2.IMREAD_COLOR)
        if crop is None:
            raise LearningError(f"{self.crop_path(key)}: missing or unreadable")
        return crop

    def change(self, added: Sequence[tuple[Example, np.ndarray]] = (), dropped: Iterable[str] = (),
               outcomes: Sequence[Outcome] = (), unsaid: Iterable[str] = ()) -> None:
        """Add examples (with their crops) and drop some by key, record the ``outcomes`` of
        stored dice and take back those of ``unsaid`` keys, in one durable step: the new crops
        first, then the list, then the dropped crops go."""
        for key in unsaid:
            self.outcomes.pop(key, None)
        for outcome in outcomes:
            self.outcomes.pop(outcome.key, None)
            self.outcomes[outcome.key] = outcome
        for key in list(self.outcomes)[:max(0, len(self.outcomes) - OUTCOMES_KEPT)]:
            del self.outcomes[key]
        crops = self.folder / "crops"
        crops.mkdir(parents=True, exist_ok=True)
        for example, crop in added:
            ok, png = cv2.imencode(".png", scaled_crop(crop))
            if not ok:
                raise LearningError(f"cannot encode the crop of example {example.key}")
            write_whole(self.crop_path(example.key), png.tobytes())
            self.examples[example.key] = example
        dropped = [key for key in dropped if key in self.examples]
        for key in dropped:
            del self.examples[key]
        flush_to_disk(crops)
        self._save()
        for key in dropped:
            self.crop_path(key).unlink(missing_ok=True)

    def _save(self) -> None:
        doc = {"schema": SCHEMA, "examples": [asdict(e) for e in self.examples.values()],
               "outcomes": [asdict(o) for o in self.outcomes.values()]}
        write_whole(self.folder / MANIFEST, (json.dumps(doc, indent=0) + "\n").encode())
        flush_to_disk(self.folder)
        self._stamp = self._disk_stamp()

    def of_session(self, session: str) -> list[str]:
        return [key for key, e in self.examples.items() if e.session == session]

    def outcomes_of_session(self, session: str) -> list[str]:
        return [key for key, o in self.outcomes.items() if o.session == session]

    def record(self) -> TableRecord:
        return TableRecord.of(self.outcomes.values())

    def sessions(self) -> dict[str, int]:
        """Each session that taught the set, with how many examples it left, oldest first; then
        those whose stored dice left only their outcomes (0 examples)."""
        out: dict[str, int] = {}
        for e in self.examples.values():
            out[e.session] = out.get(e.session, 0) + 1
        for o in self.outcomes.values():
            out.setdefault(o.session, 0)
        return out


def kept_through(set_folder: Path, replace_set: Callable[[], object]):
    """``replace_set()`` (a die set stored again in ``set_folder``'s place: ``teach --add``)
    with what the set learned at the table carried over into the new folder: copied beside
    first (a crash in between leaves the copy, ``.NAME-learned``, to put back by hand)."""
    import shutil
    learned = Path(set_folder) / FOLDER
    if not learned.is_dir():
        return replace_set()
    kept = learned.parent.parent / f".{learned.parent.name}-learned"
    shutil.rmtree(kept, ignore_errors=True)
    shutil.copytree(learned, kept)
    try:
        result = replace_set()
    except BaseException:   # nothing was replaced: the set keeps its own folder
        shutil.rmtree(kept, ignore_errors=True)
        raise
    if (Path(set_folder) / FOLDER).exists():
        shutil.rmtree(kept)
    else:
        kept.rename(Path(set_folder) / FOLDER)
        flush_to_disk(set_folder)
    return result


# --------------------------------------------------------------------------- the learner

@dataclass
class _Entry:
    key: str
    face: int
    source: str
    templates: np.ndarray
    query: np.ndarray
    age: int


@dataclass(frozen=True)
class Offer:
    """What became of a batch of new examples."""

    used: tuple[str, ...] = ()      # read with from now on
    aside: tuple[str, ...] = ()     # kept aside by the self-check
    dropped: tuple[str, ...] = ()   # gave way (near-duplicates, over the cap, contradicted)
    skipped: tuple[str, ...] = ()   # not stored: a near-duplicate of a better example


class Learner:
    """A die set's model: its taught examples and what the table taught (module docstring).

    ``taught_crops``: the crops the set was taught from, per face, in the set's face order;
    ``base``: the model taught from exactly those (saves working out their templates again).
    """

    def __init__(self, faces: Sequence[str], taught_crops: Mapping[str, Sequence[np.ndarray]], *,
                 base: taught.FaceModel | None = None, kind: str | None = None,
                 neighbours: Sequence[float] = (), max_per_face: int = MAX_PER_FACE):
        self.faces = tuple(faces)
        self.extract = taught.features(base.kind if base is not None else kind)
        self.neighbours = tuple(neighbours)
        self.vote = taught._vote(self.neighbours, self.extract.name)
        self.max_per_face = max_per_face
        self.entries: list[_Entry] = []
        self.pairs = np.zeros((0, 0), np.float32)
        self._age = 0
        base_templates = _templates_by_example(base) if base is not None else None
        crops = [(index, crop) for index, face in enumerate(self.faces) for crop in taught_crops[face]]
        if base_templates is not None and len(base_templates) != len(crops):
            base_templates = None
        new = []
        for n, (index, crop) in enumerate(crops):
            templates = base_templates[n] if base_templates is not None else self.extract.example(crop)
            new.append(self._entry(f"taught-{n}", index, TAUGHT, crop, templates))
        self._join(new)
        self._model: taught.FaceModel | None = None

    # -- building blocks -------------------------------------------------------------------
    def _entry(self, key: str, face: int, source: str, crop: np.ndarray,
               templates: np.ndarray | None = None) -> _Entry:
        if templates is None:
            templates = taught.example_templates(crop, self.extract.name, LEARNED_TURNS, LEARNED_SCALES)
        self._age += 1
        # float16 here (half the memory): the model and the pairs work in float32
        return _Entry(key, face, source, np.ascontiguousarray(templates, np.float16),
                      np.ascontiguousarray(self.extract.query(crop), np.float32), self._age)

    def _similarities(self, queries: Sequence[_Entry], targets: Sequence[_Entry]) -> np.ndarray:
        """[i, j]: the best similarity of ``queries[i]``'s query against ``targets[j]``'s templates.
        The targets are taken a block at a time (a float32 copy of one block, never of all:
        the peak memory of a box that learns stays near what it reads with)."""
        out = np.empty((len(queries), len(targets)), np.float32)
        if not queries or not targets:
            return out
        first, rows = 0, 0
        for j, target in enumerate(targets):
            rows += len(target.templates)
            if j == len(targets) - 1 or rows >= SIMILARITY_BLOCK:
                block = targets[first:j + 1]
                templates = np.concatenate([t.templates for t in block]).astype(np.float32)
                starts = np.cumsum([0] + [len(t.templates) for t in block[:-1]])
                for i, entry in enumerate(queries):
                    out[i, first:j + 1] = np.maximum.reduceat((entry.query @ templates.T).max(axis=0), starts)
                first, rows = j + 1, 0
        return out

    def _join(self, new: list[_Entry]) -> None:
        """Add entries (their pairs with everyone worked out)."""
        if not new:
            return
        old = self.entries
        across = self._similarities(old, new)
        back = self._similarities(new, old)
        within = self._similarities(new, new)
        n, k = len(old), len(new)
        pairs = np.empty((n + k, n + k), np.float32)
        pairs[:n, :n] = self.pairs
        pairs[:n, n:] = across
        pairs[n:, :n] = back
        pairs[n:, n:] = within
        self.entries = old + new
        self.pairs = pairs
        self._model = None

    def _drop(self, keys: Iterable[str]) -> None:
        keys = set(keys)
        keep = [i for i, e in enumerate(self.entries) if e.key not in keys]
        if len(keep) == len(self.entries):
            return
        self.entries = [self.entries[i] for i in keep]
        self.pairs = self.pairs[np.ix_(keep, keep)]
        self._model = None

    def keys(self) -> set[str]:
        return {e.key for e in self.entries}

    def counts(self) -> dict[str, dict[str, int]]:
        """Per face, how many examples it reads with, by source."""
        out = {face: {} for face in self.faces}
        for e in self.entries:
            mine = out[self.faces[e.face]]
            mine[e.source] = mine.get(e.source, 0) + 1
        return out

    # -- the self-check ------------------------------------------------------------------------
    def _left_out_right(self, active: np.ndarray, checked: np.ndarray) -> int:
        """How many of the ``checked`` entries (indexes) read right from the ``active`` ones
        (a boolean mask) other than themselves."""
        faces = np.array([e.face for e in self.entries])
        right = 0
        for i in checked:
            others = active.copy()
            others[i] = False
            if not others.any():
                continue
            scores = taught.face_scores(self.pairs[i, others], faces[others], np.flatnonzero(others),
                                        len(self.faces), self.vote)
            right += int(np.argmax(scores)) == faces[i]
        return right

    def self_check(self) -> tuple[int, int]:
        """The examples a person vouched for that read right when left out, and how many."""
        active = np.ones(len(self.entries), bool)
        checked = np.array([i for i, e in enumerate(self.entries) if e.source in VOUCHED])
        return self._left_out_right(active, checked), len(checked)

    # -- changes -------------------------------------------------------------------------------
    def offer(self, batch: Sequence[tuple[Example, np.ndarray]]) -> Offer:
        """A roll's new examples: taken if the self-check does not get worse (and then the set
        kept bounded and diverse), else kept aside. Examples already known are left alone."""
        batch = [(e, c) for e, c in batch if e.key not in self.keys() and e.face in self.faces]
        if not batch:
            return Offer()
        before = len(self.entries)
        checked = np.array([i for i, e in enumerate(self.entries) if e.source in VOUCHED])
        was_right = self._left_out_right(np.ones(before, bool), checked)
        new = [self._entry(e.key, self.faces.index(e.face), e.source, c) for e, c in batch]
        self._join(new)
        active = np.ones(len(self.entries), bool)
        if self._left_out_right(active, checked) < was_right:
            self._drop(e.key for e in new)
            return Offer(aside=tuple(e.key for e in new))
        _, dropped = self._tidy(new)
        present, mine = self.keys(), {e.key for e in new}
        return Offer(used=tuple(e.key for e in new if e.key in present),
                     dropped=tuple(k for k in dropped if k not in mine),
                     skipped=tuple(e.key for e in new if e.key not in present))

    def _tidy(self, new: list[_Entry]) -> tuple[list[str], list[str]]:
        """Near-duplicates give way, corrections withdraw look-alike unchallenged reads of other
        faces, and each face keeps at most ``max_per_face`` table examples."""
        skipped, dropped = [], []
        rank = {ACCEPTED: 0, CORRECTED: 1, TAUGHT: 2}
        for entry in new:
            while self._index(entry.key) is not None:
                loser = self._gives_way(entry, rank)
                if loser is None:
                    break
                (skipped if loser is entry else dropped).append(loser.key)
                self._drop([loser.key])
        for face in range(len(self.faces)):
            while True:
                mine = [i for i, e in enumerate(self.entries) if e.face == face and e.source != TAUGHT]
                if len(mine) <= self.max_per_face:
                    break
                dropped.append(self._most_redundant(face, mine, rank))
                self._drop([dropped[-1]])
        return skipped, dropped

    def _gives_way(self, entry: _Entry, rank: dict[str, int]) -> _Entry | None:
        """The first example that gives way to ``entry`` or to which it gives way (a
        near-duplicate of its face: the newer stays unless the older is better vouched for; an
        unchallenged read of another face that looks the same as a correction), or None.
        Taught examples never give way."""
        index = self._index(entry.key)
        sims = np.maximum(self.pairs[index], self.pairs[:, index])
        for j in np.argsort(-sims):
            other = self.entries[j]
            if sims[j] < NEAR_DUPLICATE:
                return None
            if other is entry:
                continue
            if other.face == entry.face:
                loser = entry if rank[other.source] > rank[entry.source] else other
            elif entry.source == CORRECTED and other.source == ACCEPTED:
                loser = other
            else:
                continue
            if loser.source != TAUGHT:
                return loser
        return None

    def _index(self, key: str) -> int | None:
        return next((i for i, e in enumerate(self.entries) if e.key == key), None)

    def _most_redundant(self, face: int, mine: list[int], rank: dict[str, int]) -> str:
        """The table example of ``face`` that adds least: unchallenged reads before a
        person's, then the one most like another example of the face, then the oldest."""
        same = [i for i, e in enumerate(self.entries) if e.face == face]

        def closeness(i: int) -> float:
            return max((max(self.pairs[i, j], self.pairs[j, i]) for j in same if j != i), default=-1.0)
        worst = min(mine, key=lambda i: (rank[self.entries[i].source], -closeness(i), self.entries[i].age))
        return self.entries[worst].key

    def withdraw(self, keys: Iterable[str]) -> None:
        self._drop(keys)

    # -- the model -----------------------------------------------------------------------------
    def model(self) -> taught.FaceModel:
        """The reading model of every example in use (built once per change)."""
        if self._model is None:
            self._model = self._build()
        return self._model

    def _build(self) -> taught.FaceModel:
        faces = np.array([e.face for e in self.entries])
        templates = np.concatenate([e.templates for e in self.entries])   # float16, as a loaded model's
        labels = np.concatenate([np.full(len(e.templates), e.face) for e in self.entries])
        owners = np.concatenate([np.full(len(e.templates), n) for n, e in enumerate(self.entries)])
        margin_scale, fit_floor, fit_scale, loo_margins, loo_right = taught.calibrate_pairs(
            len(self.faces), self.pairs, faces, self.vote)
        return taught.FaceModel(self.faces, templates, labels.astype(np.int64), margin_scale,
                                fit_floor, fit_scale, (int(loo_right.sum()), len(loo_right)),
                                self.extract.name, self.extract.version, loo_margins, loo_right,
                                owners.astype(np.int64), self.neighbours)


def _templates_by_example(model: taught.FaceModel) -> list[np.ndarray]:
    owners = model.example_owners()
    starts = list(taught.example_starts(owners)) + [len(owners)]
    return [model.templates[a:b] for a, b in zip(starts, starts[1:])]   # views, no copies


def learner_for(name: str, data_dir, store: ExampleStore | None = None,
                max_per_face: int = MAX_PER_FACE) -> tuple[Learner, ExampleStore]:
    """The learner of a stored die set with every stored example in use joined (those kept
    aside stay aside), and its store."""
    from vision import dicesets
    dice_set = dicesets.load_set(name, data_dir)
    store = store or ExampleStore.of_set(dice_set.folder)
    learner = Learner(dice_set.faces, dicesets.example_crops(dice_set),
                      base=dicesets.load_model(name, data_dir),
                      neighbours=dicesets.vote_for(dice_set.origin), max_per_face=max_per_face)
    entries = []
    for e in store.examples.values():
        if e.aside or e.face not in learner.faces:
            continue
        try:
            crop = store.crop(e.key)
        except LearningError as exc:   # a crop deleted by hand: that example is left out
            log.warning("%s; the example is left out", exc)
            continue
        entries.append(learner._entry(e.key, learner.faces.index(e.face), e.source, crop))
    learner._join(entries)
    return learner, store


def as_learned(reader: taught.TaughtReader, name: str, data_dir) -> Callable:
    """``reader`` (stored set ``name``'s) reading as a box playing now would: with what the set
    learned at the table and the table's word on its confidence; it learns nothing more
    (``dicewatch read --dice NAME``)."""
    learner, store = learner_for(name, data_dir)
    reader.model = learner.model()
    record = store.record()

    def read(frame):
        return record.weigh(reader(frame))
    return read


# --------------------------------------------------------------------------- at the table

READS_KEPT = 4          # the last reads whose crops are remembered
CLOSE_WAIT = 10.0       # seconds the learner may take to finish its work when the box stops
SAME_PLACE = 0.25       # of a die's size: a stored die and a read die this close are the same


@dataclass
class _Read:
    spots: list[tuple[float, float, float]]
    crops: list[np.ndarray]
    faces: list[str]
    confidences: list[float]   # as the reader gave them, before the table's word


@dataclass(frozen=True)
class _Seen:
    """A stored die as it was read: its crop, and the face and confidence the reader gave it."""

    crop: np.ndarray
    face: str
    confidence: float


class TableLearner:
    """The table loop's learner for one taught die set (see the module docstring).

    ``reader``: the set's ``taught.TaughtReader`` (its model is replaced as the set learns);
    ``reading()`` is the reader to give the watcher. ``background=False`` does the work in
    the caller's thread (tests, benchmarks)."""

    def __init__(self, name: str, data_dir, reader: taught.TaughtReader, *, background: bool = True,
                 max_per_face: int = MAX_PER_FACE):
        self.name, self.data_dir, self.reader = name, data_dir, reader
        self.max_per_face = max_per_face
        self.learner: Learner | None = None
        self.store: ExampleStore | None = None
        self._reads: list[_Read] = []
        self._last_roll: dict[str, _Seen] = {}   # the dice of the last roll stored, by key
        self.record = TableRecord()   # the table's word on the reads; replaced, never changed
        self._lock = threading.Lock()
        self._notice: str | None = None
        self._noticed = False
        self.failed: str | None = None
        self.jobs: "queue.Queue | None" = queue.Queue() if background else None
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._work, name=f"learn-{name}", daemon=True)
            self._thread.start()
            atexit.register(self.close)   # the last roll's examples are stored before the box stops
        self._do(self._open)

    # -- the reader's side ----------------------------------------------------------------------
    def reading(self, reader: Callable | None = None) -> Callable:
        """``reader`` (default: the set's) reading as before, the crops of its dice remembered
        and their confidence weighed by the table's word (``TableRecord``)."""
        reader = reader or self.reader

        def read(frame):
            roll = reader(frame)
            image = frame[0] if isinstance(frame, tuple) else frame
            if roll.dice:
                self._remember(image, roll)
            return self.record.weigh(roll)
        return read

    def _remember(self, image: np.ndarray, roll) -> None:
        shift = getattr(self.reader, "top_face_shift", None)
        read = _Read([], [], [], [])
        for d in roll.dice:
            try:
                read.crops.append(scaled_crop(taught.face_crop(image, d.x, d.y, d.w, d.h, shift)))
            except ValueError:
                continue
            read.spots.append((float(d.x), float(d.y), float(max(d.w, d.h))))
            read.faces.append(d.face)
            read.confidences.append(float(d.confidence))
        with self._lock:
            self._reads = (self._reads + [read])[-READS_KEPT:]

    def _seen_at(self, spot) -> _Seen | None:
        """The die last read at ``spot`` (x, y, size), or None."""
        x, y, size = spot
        if size <= 0:
            return None
        with self._lock:
            reads = list(reversed(self._reads))
        for read in reads:
            for n, (rx, ry, rsize) in enumerate(read.spots):
                if np.hypot(rx - x, ry - y) <= SAME_PLACE * max(size, rsize):
                    return _Seen(read.crops[n], read.faces[n], read.confidences[n])
        return None

    # -- the loop's side -------------------------------------------------------------------------
    def stored(self, session: str, seq: int, faces: Sequence[str], spots: Sequence | None,
               corrected: Iterable[int] = ()) -> None:
        """A roll was stored as event ``seq`` of ``session``: its dice (``spots``: x, y, size
        each, as read) become examples; ``corrected``: the dice a person set."""
        if not spots:
            return
        corrected = set(corrected)
        batch, outcomes, seen = [], [], {}
        for die, (face, spot) in enumerate(zip(faces, spots)):
            read = self._seen_at(spot)
            if read is not None:
                key = example_key(session, seq, die)
                source = CORRECTED if die in corrected else ACCEPTED
                batch.append((Example(key, face, source, session, seq, die), read.crop))
                outcomes.append(Outcome(key, session, read.confidence, read.face == face))
                seen[key] = read
        with self._lock:
            self._last_roll = seen
        if batch:
            self._do(lambda: self._offer(batch, withdraw=[example_key(session, seq, d) for d in range(len(faces))],
                                         outcomes=outcomes))

    def corrected(self, session: str, seq: int, die: int, face: str) -> None:
        """Die ``die`` of roll ``seq`` was shown wrong after it was stored: its example is
        withdrawn and the die learned as ``face``, a person's word."""
        key = example_key(session, seq, die)

        with self._lock:
            read = self._last_roll.get(key)

        def change():
            self._withdraw([key])
            if read is not None:
                self._offer([(Example(key, face, CORRECTED, session, seq, die), read.crop)],
                            outcomes=[Outcome(key, session, read.confidence, read.face == face)])
        self._do(change)

    def undone(self, session: str, seq: int) -> None:
        """Roll ``seq`` was taken back: what it taught unchallenged is withdrawn, and its
        reads no longer count as right."""
        def change():
            if self.store is None:
                return
            keys = [k for k, e in self.store.examples.items()
                    if e.session == session and e.seq == seq and e.source == ACCEPTED]
            unsaid = [k for k, o in self.store.outcomes.items() if o.right and of_roll(o, session, seq)]
            self._withdraw(keys, unsaid)
        self._do(change)

    def take_notice(self) -> str | None:
        """What the screen should say once (a batch kept aside), or None."""
        with self._lock:
            text, self._notice = self._notice, None
        return text

    def wait(self) -> None:
        """Until the work handed over so far is done."""
        if self.jobs is not None:
            self.jobs.join()

    def close(self, timeout: float = CLOSE_WAIT) -> None:
        """Finish the work handed over (at most ``timeout`` seconds), then stop the thread."""
        if self._thread is not None and self._thread.is_alive():
            self.jobs.put(None)
            self._thread.join(timeout)

    # -- the worker ------------------------------------------------------------------------------
    def _do(self, job: Callable[[], None]) -> None:
        if self.jobs is not None:
            self.jobs.put(job)
        else:
            self._run(job)

    def _work(self) -> None:
        while True:
            job = self.jobs.get()
            try:
                if job is None:
                    return
                self._run(job)
            finally:
                self.jobs.task_done()

    def _run(self, job) -> None:
        if self.failed is not None and job is not self._open:
            return
        try:
            if job is not self._open and self.store is not None and self.store.changed_elsewhere():
                self._open()   # forgotten elsewhere (dicewatch dice forget): read with what is left
            job()
        except Exception as exc:  # noqa: BLE001 - learning stops; the game and its reads go on
            log.exception("learning the %s dice failed", self.name)
            self.failed = f"{type(exc).__name__}: {exc}"

    def _open(self) -> None:
        self.learner, self.store = learner_for(self.name, self.data_dir, max_per_face=self.max_per_face)
        self._hand_over()

    def _hand_over(self) -> None:
        self.reader.model = self.learner.model()
        self.record = self.store.record()

    def _withdraw(self, keys: Sequence[str], unsaid: Sequence[str] = ()) -> None:
        if self.learner is None:
            return
        self.learner.withdraw(keys)
        self.store.change(dropped=keys, unsaid=unsaid)
        self._hand_over()

    def _offer(self, batch, withdraw: Sequence[str] = (), outcomes: Sequence[Outcome] = ()) -> None:
        if self.learner is None:
            return
        if withdraw:  # a roll stored again at the same place (after an undo): its old dice go
            stale = [k for k in withdraw if k in self.store.examples]
            if stale:
                self.learner.withdraw(stale)
                self.store.change(dropped=stale)
        offer = self.learner.offer(batch)
        by_key = dict((e.key, (e, c)) for e, c in batch)
        added = [by_key[k] for k in offer.used]
        added += [(replace(by_key[k][0], aside=True), by_key[k][1]) for k in offer.aside]
        self.store.change(added=added, dropped=offer.dropped, outcomes=outcomes)
        if offer.aside and not self._noticed:
            self._noticed = True
            with self._lock:
                self._notice = (f"{len(offer.aside)} new {self.name} example(s) kept aside: they "
                                f"made the check of your taught dice worse "
                                f"(dicewatch dice show {self.name})")
        if offer.used or offer.dropped:
            self._hand_over()
        else:
            self.record = self.store.record()   # the model is as it was; the outcomes are not
