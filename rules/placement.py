"""Card layouts for Another Christmas Romance Movie, and where a roll may be placed on them.

A card is a grid of dice locations. Each location is either *marked* with a face (only a
die showing that face may go there) or *unmarked* (any face, but orthogonally touching
unmarked locations form a group that must all hold the same face and be filled in one go).
Every die placed must touch a die already on the card, except the very first one.

The rulebook has no card pictures, so users describe their cards in a small text format
(``*.layout``)::

    # lines starting with # are comments
    kind: stage            # stage | romance | element
    stage: 1               # stage cards only: 1..5
    title: Meet Cute
    text: bump into each other at the tree farm
    needs: 4               # dice that complete it (default: stage + 3; romance/element: all)
    reward: 2              # romance cards only: deferred dice in the top left corner
    exchange: ? ? -> deferred   # element cards only: dice given -> dice received
    dice:
      SNOWFLAKE  ?  ?
      .          2  .

Grid tokens: ``.`` no location, ``?`` unmarked, a face name (any case) or a face number
``1``..``6``. Numbers and the default names (SNOWFLAKE, FACE-2 .. FACE-6) always mean the
face in that position, so a layout survives renamed faces. In an exchange,
``deferred`` is a die from (or to) the headliner love interest.

Pure functions, no I/O: the caller reads the file and passes its text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from .dice import FACE_SETS

DEFAULT_FACES = FACE_SETS["christmas-romance"]
KINDS = ("stage", "romance", "element")
DEFERRED = "deferred"
UNMARKED = "?"
MAX_RESULTS = 5000
MAX_GRID = 20   # rows or columns of a card's grid: far more than any printed card holds
ROMANCE_LOCATIONS = 4   # every Christmas romance card (rulebook: Christmas Romance Cards)

Cell = tuple[int, int]


class LayoutError(Exception):
    """A layout text that cannot be used: ``str()`` is ``SOURCE:LINE: what was expected``."""

    def __init__(self, source: str, line: int, message: str):
        self.source, self.line, self.message = source, line, message
        super().__init__(f"{source}:{line}: {message}")


class PlacementError(ValueError):
    """A placement the card does not allow. The message is meant for the players."""


@dataclass(frozen=True)
class Exchange:
    """A movie element's trade: what is given up (left of the arrow) and received (right)."""

    give: tuple[str, ...] = ()       # face names or "?" (rolled dice)
    give_deferred: int = 0
    get: tuple[str, ...] = ()        # face names or "?" (a die of the player's choice)
    get_deferred: int = 0

    def describe(self) -> str:
        def side(faces, deferred):
            parts = list(faces) + [DEFERRED] * deferred
            return " ".join(parts) or "nothing"
        return f"{side(self.give, self.give_deferred)} -> {side(self.get, self.get_deferred)}"


@dataclass(frozen=True)
class Layout:
    """One card: its kind, words for the story, and its dice locations.

    ``cells`` maps (row, column) to a face name, or None for an unmarked location.
    """

    kind: str
    title: str
    cells: tuple[tuple[Cell, str | None], ...]
    stage: int = 0
    text: str = ""
    needs: int = 0
    reward: int | None = None
    exchange: Exchange | None = None
    source: str = ""

    @property
    def locations(self) -> dict[Cell, str | None]:
        return dict(self.cells)

    def groups(self) -> list[frozenset[Cell]]:
        """The unmarked groups: orthogonally connected unmarked locations."""
        return _components([cell for cell, face in self.cells if face is None])


def _neighbours(cell: Cell) -> tuple[Cell, ...]:
    r, c = cell
    return ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))


def _components(cells: Iterable[Cell]) -> list[frozenset[Cell]]:
    todo, found = set(cells), []
    while todo:
        stack, part = [min(todo)], set()
        while stack:
            cell = stack.pop()
            if cell in part:
                continue
            part.add(cell)
            stack.extend(n for n in _neighbours(cell) if n in todo and n not in part)
        todo -= part
        found.append(frozenset(part))
    return sorted(found, key=min)


# --------------------------------------------------------------------------- parsing

def face_token(token: str, faces: tuple[str, ...]) -> str | None:
    """The face a token names (any case), or None. Face numbers 1-6 and the default names
    (SNOWFLAKE, FACE-2 ..) stand for the face in that position, so layouts survive renamed faces."""
    if token.isdigit() and 1 <= int(token) <= len(faces):
        return faces[int(token) - 1]
    for names in (faces, DEFAULT_FACES):
        for position, face in enumerate(names):
            if face.upper() == token.upper() and position < len(faces):
                return faces[position]
    return None


def parse_layout(text: str, source: str = "<layout>", faces: tuple[str, ...] = DEFAULT_FACES) -> Layout:
    """Read a layout text; LayoutError names the line and what was expected."""
    header: dict[str, tuple[int, str]] = {}
    grid: list[tuple[int, list[str]]] = []
    in_grid = False
    dice_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if in_grid and ":" not in line:
            grid.append((number, line.split()))
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep:
            raise LayoutError(source, number, f"expected 'key: value' (kind, stage, title, text, needs, "
                              f"reward, exchange) or 'dice:' followed by grid rows, got {line.strip()!r}")
        if key not in ("kind", "stage", "title", "text", "needs", "reward", "exchange", "dice"):
            raise LayoutError(source, number, f"unknown key {key!r}; expected one of kind, stage, title, "
                              "text, needs, reward, exchange, dice")
        if key in header or (key == "dice" and dice_line):
            raise LayoutError(source, number, f"{key!r} is given twice")
        if key == "dice":
            if value.strip():
                raise LayoutError(source, number, "put the grid rows on the lines after 'dice:'")
            in_grid, dice_line = True, number
            continue
        in_grid = False
        header[key] = (number, value.strip())

    def number_of(key: str, low: int, high: int) -> int | None:
        if key not in header:
            return None
        line, value = header[key]
        if not value.isdigit() or not low <= int(value) <= high:
            raise LayoutError(source, line, f"{key}: expected a whole number from {low} to {high}, got {value!r}")
        return int(value)

    kind_line, kind = header.get("kind", (1, ""))
    kind = kind.lower()
    if kind not in KINDS:
        raise LayoutError(source, kind_line, f"kind: expected one of {', '.join(KINDS)}, got {kind!r}"
                          if "kind" in header else "missing 'kind: stage|romance|element'")
    if not dice_line:
        raise LayoutError(source, max([n for n, _ in header.values()] or [1]),
                          "missing 'dice:' followed by the grid rows of dice locations")
    cells: list[tuple[Cell, str | None]] = []
    for row, (line, tokens) in enumerate(grid):
        for col, token in enumerate(tokens):
            if token == ".":
                continue
            if token == UNMARKED:
                cells.append(((row, col), None))
                continue
            face = face_token(token, faces)
            if face is None:
                raise LayoutError(source, line, f"grid column {col + 1}: expected '.', '?', a face "
                                  f"({', '.join(faces)}) or a face number 1-{len(faces)}, got {token!r}")
            cells.append(((row, col), face))
    if not cells:
        raise LayoutError(source, dice_line, "the grid after 'dice:' has no dice locations")
    if len(grid) > MAX_GRID or max(len(tokens) for _, tokens in grid) > MAX_GRID:
        raise LayoutError(source, dice_line, f"the grid is {len(grid)} rows by {max(len(t) for _, t in grid)} "
                          f"columns; a card has at most {MAX_GRID} of each")

    stage = number_of("stage", 1, 5) or 0
    if kind == "stage" and not stage:
        raise LayoutError(source, kind_line, "a stage card needs 'stage: N' (1 to 5)")
    if kind != "stage" and "stage" in header:
        raise LayoutError(source, header["stage"][0], f"'stage' is only for stage cards, this is a {kind} card")
    if kind == "romance" and len(cells) != ROMANCE_LOCATIONS:
        raise LayoutError(source, dice_line, f"a Christmas romance card has {ROMANCE_LOCATIONS} dice locations "
                          f"(rulebook: Christmas Romance Cards), this grid has {len(cells)}")
    needs = number_of("needs", 1, len(cells))
    if kind == "stage" and needs is not None and needs < stage + 3:
        raise LayoutError(source, header["needs"][0], f"needs: a stage {stage} card needs {stage + 3} dice "
                          f"(rulebook: stage + 3); a layout may ask for more, never fewer, got {needs}")
    if kind == "romance" and needs is not None and needs != ROMANCE_LOCATIONS:
        raise LayoutError(source, header["needs"][0], f"needs: a Christmas romance card is completed by its "
                          f"{ROMANCE_LOCATIONS} dice, got {needs}")
    if needs is None:
        needs = stage + 3 if kind == "stage" else len(cells)
        if needs > len(cells):
            raise LayoutError(source, dice_line, f"a stage {stage} card needs {needs} dice but the grid has "
                              f"only {len(cells)} locations (add locations or a 'needs:' line)")
    reward = number_of("reward", 0, 99)
    if reward is not None and kind != "romance":
        raise LayoutError(source, header["reward"][0], "'reward' is only for Christmas romance cards")
    exchange = None
    if "exchange" in header:
        if kind != "element":
            raise LayoutError(source, header["exchange"][0], "'exchange' is only for movie element cards")
        exchange = _parse_exchange(*header["exchange"], source, faces)
    title = header.get("title", (0, ""))[1] or (f"stage {stage} card" if kind == "stage" else f"{kind} card")
    return Layout(kind=kind, title=title, cells=tuple(sorted(cells)), stage=stage,
                  text=header.get("text", (0, ""))[1], needs=needs, reward=reward,
                  exchange=exchange, source=source)


def _parse_exchange(line: int, value: str, source: str, faces: tuple[str, ...]) -> Exchange:
    left, arrow, right = value.partition("->")
    if not arrow:
        raise LayoutError(source, line, "exchange: expected 'GIVE -> GET', e.g. '? ? -> deferred'")
    sides = []
    for part in (left, right):
        named, deferred = [], 0
        for token in part.split():
            if token.lower() == DEFERRED:
                deferred += 1
            elif token == UNMARKED:
                named.append(UNMARKED)
            else:
                face = face_token(token, faces)
                if face is None:
                    raise LayoutError(source, line, f"exchange: expected faces, '?' or 'deferred', got {token!r}")
                named.append(face)
        sides.append((tuple(named), deferred))
    if not (sides[0][0] or sides[0][1]) or not (sides[1][0] or sides[1][1]):
        raise LayoutError(source, line, "exchange: both sides of '->' need at least one die")
    return Exchange(sides[0][0], sides[0][1], sides[1][0], sides[1][1])


def render(layout: Layout, placed: Mapping[Cell, str] | None = None,
           new: Mapping[Cell, str] | None = None) -> str:
    """The card as text: marked faces, ``?`` unmarked, ``[FACE]`` placed, ``*FACE*`` new."""
    placed, new = placed or {}, new or {}
    locations = layout.locations
    rows = max(r for r, _ in locations) + 1
    cols = max(c for _, c in locations) + 1
    def token(cell):
        if cell in new:
            return f"*{new[cell]}*"
        if cell in placed:
            return f"[{placed[cell]}]"
        if cell not in locations:
            return "."
        return locations[cell] or UNMARKED
    table = [[token((r, c)) for c in range(cols)] for r in range(rows)]
    width = max(len(t) for row in table for t in row)
    return "\n".join("  ".join(t.ljust(width) for t in row).rstrip() for row in table)


# --------------------------------------------------------------------------- checking

def check_placement(layout: Layout, placed: Mapping[Cell, str], new: Mapping[Cell, str]) -> None:
    """Raise PlacementError unless dice ``new`` (cell -> face) may go on the card at once."""
    if not new:
        raise PlacementError("no dice to place")
    room = layout.needs - len(placed)
    if len(new) > room:
        raise PlacementError(f"{layout.title} is complete with {layout.needs} dice: room for {max(room, 0)} "
                             f"more, not {len(new)}")
    locations = layout.locations
    for cell, face in sorted(new.items()):
        if cell not in locations:
            raise PlacementError(f"row {cell[0] + 1}, column {cell[1] + 1} is not a dice location on {layout.title}")
        if cell in placed:
            raise PlacementError(f"row {cell[0] + 1}, column {cell[1] + 1} already holds a {placed[cell]}")
        if locations[cell] is not None and locations[cell] != face:
            raise PlacementError(f"row {cell[0] + 1}, column {cell[1] + 1} takes a {locations[cell]}, not a {face}")
    for group in layout.groups():
        touched = group & set(new)
        if not touched:
            continue
        faces = {new.get(cell) or placed.get(cell) for cell in group} - {None}
        if len(faces) > 1:
            raise PlacementError(f"touching unmarked locations must all hold the same face, got {', '.join(sorted(faces))}")
        missing = sorted(cell for cell in group if cell not in placed and cell not in new)
        if missing:
            raise PlacementError(f"touching unmarked locations are filled together in one turn: "
                                 f"{len(missing) + len(touched)} dice of one face are needed, "
                                 f"{len(touched)} given")
    old = set(placed)
    for part in _components(old | set(new)):
        if old and not part & old and part & set(new):
            cell = min(part & set(new))
            raise PlacementError(f"the die at row {cell[0] + 1}, column {cell[1] + 1} must touch a die "
                                 "already placed on the card")
    if not old and len(_components(new)) > 1:
        raise PlacementError("dice placed on an empty card must touch each other (only the first may go anywhere)")


def check_on_card(layout: Layout, placed: Mapping[Cell, str]) -> None:
    """Raise PlacementError unless ``placed`` (cell -> face) is a card the rules could have
    built: each die on a location that takes its face, no more dice than complete the card,
    every unmarked group empty or filled with one face, and all the dice touching."""
    locations = layout.locations
    for cell, face in sorted(placed.items()):
        where = f"row {cell[0] + 1}, column {cell[1] + 1}"
        if cell not in locations:
            raise PlacementError(f"{where} is not a dice location on {layout.title}")
        if locations[cell] is not None and locations[cell] != face:
            raise PlacementError(f"{where} takes a {locations[cell]}, not a {face}")
    if len(placed) > layout.needs:
        raise PlacementError(f"{layout.title} is complete with {layout.needs} dice; {len(placed)} are given")
    for group in layout.groups():
        held = {cell: placed[cell] for cell in group if cell in placed}
        if held and (len(held) < len(group) or len(set(held.values())) > 1):
            raise PlacementError(f"touching unmarked locations are filled together with dice of one face: "
                                 f"{len(group)} dice, here {len(held)} of {', '.join(sorted(set(held.values())))}")
    if len(_components(placed)) > 1:
        apart = sorted(_components(placed), key=min)[1]
        cell = min(apart)
        raise PlacementError(f"the die at row {cell[0] + 1}, column {cell[1] + 1} touches none of the others: "
                             "every die on a card touches one placed before it")


def legal_placements(layout: Layout, placed: Mapping[Cell, str], roll: Iterable[str]) -> list[dict[Cell, str]]:
    """Every legal way to place some of ``roll`` on the card, biggest first (at most MAX_RESULTS),
    never more dice than complete it (``layout.needs``).

    A placement is built from *units*: one empty marked location, or all empty locations of
    an unmarked group at once with dice of one face. Units are added while they touch the
    dice on the card, so the result is exactly what :func:`check_placement` accepts.
    """
    dice: dict[str, int] = {}
    for face in roll:
        dice[face] = dice.get(face, 0) + 1
    units: list[tuple[frozenset[Cell], str]] = []
    for cell, face in layout.cells:
        if face is not None and cell not in placed and dice.get(face):
            units.append((frozenset([cell]), face))
    for group in layout.groups():
        empty = frozenset(cell for cell in group if cell not in placed)
        if not empty:
            continue
        fixed = {placed[cell] for cell in group if cell in placed}
        for face in sorted(dice):
            if dice[face] >= len(empty) and (not fixed or fixed == {face}):
                units.append((empty, face))

    found: set[frozenset[tuple[Cell, str]]] = set()
    def touches(cells: frozenset[Cell], on_card: set[Cell]) -> bool:
        return not on_card or any(n in on_card for cell in cells for n in _neighbours(cell))

    def grow(chosen: frozenset[tuple[Cell, str]], on_card: set[Cell], left: dict[str, int]) -> None:
        if len(found) >= MAX_RESULTS:
            return
        for cells, face in units:
            if (cells & on_card or left.get(face, 0) < len(cells) or not touches(cells, on_card)
                    or len(on_card) + len(cells) > layout.needs):
                continue
            bigger = chosen | {(cell, face) for cell in cells}
            if bigger in found:
                continue
            found.add(bigger)
            grow(bigger, on_card | cells, {**left, face: left[face] - len(cells)})

    grow(frozenset(), set(placed), dice)
    results = [dict(sorted(p)) for p in found]
    results.sort(key=lambda p: (-len(p), sorted(p.items())))
    return results


def ways_to_pay(exchange: Exchange, roll: Iterable[str]) -> list[tuple[str, ...]]:
    """The dice of ``roll`` that can pay a movie element's trade (named faces, plus one face
    for all its ``?`` dice); empty when the roll cannot pay. Deferred dice are not counted."""
    left = list(roll)
    named = [face for face in exchange.give if face != UNMARKED]
    for face in named:
        if face not in left:
            return []
        left.remove(face)
    unmarked = len(exchange.give) - len(named)
    if not unmarked:
        return [tuple(named)]
    return [tuple(named) + (face,) * unmarked for face in sorted(set(left)) if left.count(face) >= unmarked]


def suggest(layout: Layout, placed: Mapping[Cell, str], roll: Iterable[str]) -> dict[Cell, str] | None:
    """The legal placement that fills the most locations (ties: the first in reading order)."""
    options = legal_placements(layout, placed, roll)
    return options[0] if options else None
