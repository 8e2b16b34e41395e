"""The Dice page's numbers: how often each face came up, over all the games stored in the box.

:func:`face_counts` reads the sessions database through a connection of its own, opened
read-only (``mode=ro``) in the thread that asks (the server's, never the table loop's),
replays each session's still-standing events through its game's rules, and counts the
faces of the dice each throw actually threw: the faces in the public view of a throw event
(``roll``, ``reroll``, ``fate_roll``, ``penalty_roll``, or any event with ``"faces"`` in a
game with dice), less the dice the game's ``chance`` says were left standing (Jingle Bell
Roll's BELLS are part of a roll's faces but were not thrown again). A throw the box rolled
itself (a ``seed`` instead of ``faces``) is not counted: no die was thrown.

:func:`chi_square` tests the counts against a fair die; its p-value is the regularized upper
incomplete gamma function :func:`upper_gamma_q` (no scipy).
"""
from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from host.session_store import EVENT, UNDO, Entry, effective_events
from rules import get_game
from rules.core import PUBLIC, Game, Session
from rules.dice import faces_of

THROWS = frozenset({"roll", "reroll", "fate_roll", "penalty_roll"})


def upper_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the regularized upper incomplete gamma function (a > 0, x >= 0):
    a series below x = a + 1, a continued fraction (modified Lentz) above it."""
    if a <= 0:
        raise ValueError("expected a > 0")
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:   # P(a, x) by its series, Q = 1 - P
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def chi_square(counts: dict[str, int]) -> tuple[float, int, float | None]:
    """(chi-square, degrees of freedom, p-value) of ``counts`` (every face, zeros included)
    against a fair die; p is None with fewer than two faces or no throws."""
    n = sum(counts.values())
    k = len(counts)
    if k < 2 or n == 0:
        return 0.0, max(k - 1, 0), None
    expected = n / k
    chi2 = sum((observed - expected) ** 2 / expected for observed in counts.values())
    return chi2, k - 1, upper_gamma_q((k - 1) / 2, chi2 / 2)


@dataclass
class DieSet:
    """One kind of dice: its faces in order, how often each came up, in how many throws."""

    name: str
    faces: tuple[str, ...]
    counts: Counter = field(default_factory=Counter)
    throws: int = 0
    games: set = field(default_factory=set)

    def table(self) -> dict[str, int]:
        """Every face of the set (zeros included), then any face seen that the set does not name."""
        out = {face: self.counts.get(face, 0) for face in self.faces}
        out.update({face: n for face, n in self.counts.items() if face not in out})
        return out

    def test(self) -> tuple[float, int, float | None]:
        return chi_square({face: self.counts.get(face, 0) for face in self.faces})


def set_faces(game: Game, setup: dict) -> tuple[str, ...]:
    """The face names of ``game``'s dice in this session (a game whose setup renames them:
    Another Christmas Romance Movie's ``faces``)."""
    named = setup.get("faces")
    if isinstance(named, list) and named and all(isinstance(f, str) for f in named):
        return tuple(named)
    try:
        return faces_of(game.dice)
    except LookupError:
        return ()


def thrown_faces(game: Game, state, event: dict) -> list[str] | None:
    """The faces the dice of ``event`` (played on ``state``) showed when thrown, in public, or
    None when it is not a throw (or the box rolled it)."""
    shown = game.event_view(event, PUBLIC)
    if not isinstance(shown, dict):
        return None
    faces = shown.get("faces")
    if not isinstance(faces, list) or not all(isinstance(f, str) for f in faces):
        return None
    if shown.get("type") not in THROWS and not game.dice:
        return None
    chance = None
    try:
        chance = game.chance(state)
        if chance is None or chance.event.get("type") != event.get("type"):
            chance = game.chance(state, {k: v for k, v in event.items() if k != "faces"})
    except Exception:  # noqa: BLE001 - a game's chance that cannot say: count all the faces
        chance = None
    if chance is not None and chance.total == len(faces) and chance.standing:
        left = Counter(faces) - Counter(chance.standing)
        return list(left.elements())
    return list(faces)


def face_counts(path: Path | str, games: Callable[[str], Game] = get_game) -> dict[str, DieSet]:
    """Each dice set's face counts over every session in the database at ``path``
    (opened read-only here), keyed by the set's name."""
    sets: dict[str, DieSet] = {}
    path = Path(path)
    if not path.exists():
        return sets
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        sessions = db.execute("SELECT id, game, setup FROM sessions ORDER BY created, rowid").fetchall()
        for sid, name, setup_text in sessions:
            try:
                game = games(name)
                setup = json.loads(setup_text)
            except (LookupError, ValueError, TypeError):
                continue   # a game this box does not know (nothing of it can be shown) or a damaged row
            if not game.dice or not isinstance(setup, dict):
                continue
            rows = db.execute("SELECT seq, kind, body FROM journal WHERE session_id=? AND kind IN (?, ?) "
                              "ORDER BY seq", (sid, EVENT, UNDO)).fetchall()
            entries = []
            for seq, kind, body in rows:
                try:
                    entries.append(Entry(seq, kind, json.loads(body), 0.0))
                except ValueError:
                    continue
            faces = set_faces(game, setup)
            key = game.dice if faces == tuple(_builtin(game.dice)) else f"{game.dice}: {', '.join(faces)}"
            die_set = sets.setdefault(key, DieSet(key, faces))
            try:
                session = Session(game, setup)
            except Exception:  # noqa: BLE001 - a setup the rules refuse now: nothing of it is counted
                continue
            for event in effective_events(entries):
                if not isinstance(event, dict):
                    continue
                before = session.state
                try:
                    session.replay(event)
                except Exception:  # noqa: BLE001 - the rules changed since: stop this session here
                    break
                thrown = thrown_faces(game, before, event)
                if thrown:
                    die_set.counts.update(thrown)
                    die_set.throws += 1
                    die_set.games.add(sid)
    finally:
        db.close()
    return {name: s for name, s in sets.items() if s.throws}


def _builtin(name: str) -> tuple[str, ...]:
    try:
        return faces_of(name)
    except LookupError:
        return ()


def bar_chart(die_set: DieSet, *, width: int = 560, bar_height: int = 36, gap: int = 10) -> str:
    """The counts as an inline SVG bar chart: one bar per face, each labelled with its face and
    its count as text (nothing said by colour alone), black on white."""
    import html
    table = die_set.table()
    top = max(table.values(), default=0) or 1
    label_w, count_w = 150, 70
    room = width - label_w - count_w
    height = len(table) * (bar_height + gap) + gap
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class=chart role=img width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" aria-label="{html.escape(die_set.name, quote=True)}: '
             f'how often each face came up">']
    for i, (face, n) in enumerate(table.items()):
        y = gap + i * (bar_height + gap)
        w = round(room * n / top)
        face_text = html.escape(face)
        parts.append(f'<g class=bar><text x="{label_w - 8}" y="{y + bar_height * 0.7:.0f}" text-anchor="end" '
                     f'font-size="22" font-weight="bold" fill="#000">{face_text}</text>'
                     f'<rect x="{label_w}" y="{y}" width="{max(w, 1)}" height="{bar_height}" fill="#000" '
                     f'stroke="#000" stroke-width="2"><title>{face_text}: {n}</title></rect>'
                     f'<text x="{label_w + max(w, 1) + 8}" y="{y + bar_height * 0.7:.0f}" font-size="22" '
                     f'fill="#000">{n}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
