"""Durable game sessions: every event is on disk before anybody sees it.

A session is one game at the table: the game's name, its setup (players, options) and a
*journal* of what happened, in order. The journal holds three kinds of entry:

``event``
    a rules event (a roll, a score, a gift card...) that the rules accepted;
``undo``
    the Undo button: drops the last still-standing event;
``note``
    something the device wants in the history without it being a rules event: a die
    the camera read with low confidence and the player corrected, a roll the rules
    refused. Notes never change the game state.

The journal lives in SQLite (``sessions.db`` in the data directory) in WAL mode with
``synchronous=FULL``: when :meth:`StoredSession.play` returns, the event has reached the
disk, so a power cut or SIGKILL loses nothing that was shown. Resuming folds the
journal again (:func:`effective_events`), exactly like a replay file.

Every session also has a second durable record, a log file beside the database
(host/session_log.py), written before each database transaction: a damaged database loses
no game (host/session_recovery.py checks the two and rebuilds the database from the logs).

>>> store = SessionStore(data_dir() / "sessions.db")                     # doctest: +SKIP
>>> table = store.create(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben"]})  # doctest: +SKIP
>>> table.play({"type": "roll", ...})                                     # doctest: +SKIP
>>> store.open(table.id).session.state == table.session.state             # doctest: +SKIP
"""
from __future__ import annotations

import fcntl
import functools
import json
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from host.session_log import (DATABASE_RIGHT, LOG_BEHIND, UNCONFIRMED, Entry, SessionLog, SessionRecord, closed_line,
                              compare, entries_line, log_folder)
from rules.core import Event, Game, RuleError, Session

EVENT, UNDO, NOTE = "event", "undo", "note"
# The table loop's own notes (host/loop.py), kept only so that --resume continues exactly where
# it stopped; exports leave them out unless asked.
ANSWERS = "answers"     # answers given but not yet events (TableLoop._keep_answers)
PLACES = "dice-places"  # where the last stored roll's dice lie (TableLoop._places_note)
BOOKKEEPING = (ANSWERS, PLACES)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    created REAL NOT NULL,
    closed REAL
);
CREATE TABLE IF NOT EXISTS journal (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'undo', 'note')),
    body TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (session_id, seq)
);
"""


class StoreError(Exception):
    """A session that cannot be found or read; the message says which and why."""


@dataclass(frozen=True)
class SessionInfo:
    """A row of ``dicewatch run --list``: which game, who, how far."""

    id: str
    game: str
    players: tuple[str, ...]
    created: float
    closed: float | None
    entries: int


def effective_events(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """The rules events still standing after the journal's undos."""
    events: list[dict[str, Any]] = []
    for entry in entries:
        if entry.kind == EVENT:
            events.append(entry.body)
        elif entry.kind == UNDO and events:
            events.pop()
    return events


def new_session_id(players: Iterable[str], now: float | None = None) -> str:
    """A readable id: date, time and the players, e.g. ``20261130-0133-ann-ben-cy``."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now if now is not None else time.time()))
    names = "-".join(re.sub(r"[^a-z0-9]+", "", str(p).lower()) or "p" for p in players)[:40]
    return f"{stamp}-{names}" if names else stamp


OUR_TABLES = {"sessions", "journal"}
LOCK_FILE = ".lock"


def lock_logs(folder: Path, exclusive: bool) -> int | None:
    """Lock the log folder: shared by every open store, exclusive for a repair (which must not
    rewrite a log that a running box is appending to). The file descriptor, or None when an
    exclusive lock is not to be had now."""
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX | fcntl.LOCK_NB) if exclusive else fcntl.LOCK_SH)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def guarded(method):
    """SQLite's own errors (a damaged page, a full disk) as a StoreError that names the file."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: the sessions database cannot be read or written ({exc}); it may be "
                             "damaged: dicewatch sessions check --repair rebuilds it from its logs") from None
    return call


class SessionStore:
    """The sessions database. One connection, used from one thread (the table loop).

    It never writes into a file that is not its own: an SQLite file holding other tables
    is refused, not given ours."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.log = SessionLog(log_folder(self.path))
        self._logs_in_step: set[str] = set()   # sessions whose log is known to match the database
        self._lock: int | None = None
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None)
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and not OUR_TABLES <= tables:
                self._db.close()
                raise StoreError(f"{self.path}: an SQLite database of something else (tables: "
                                 f"{', '.join(sorted(tables))}); dicewatch keeps its sessions in a file of its own")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable dicewatch sessions database ({exc})") from None
        try:
            self.log.folder.mkdir(exist_ok=True)
            self._lock = lock_logs(self.log.folder, exclusive=False)
        except OSError as exc:
            self._db.close()
            raise StoreError(f"{self.log.folder}: the sessions' log folder cannot be used ({exc.strerror})") from None

    def close(self) -> None:
        self._db.close()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def __enter__(self) -> "SessionStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sessions ---------------------------------------------------------------------------
    @guarded
    def create(self, game: Game, setup: Mapping[str, Any], session_id: str | None = None) -> "StoredSession":
        """Start a new session (the setup is checked by the rules first)."""
        session = Session(game, setup)  # raises RuleError for a bad setup
        players = session.setup_options.get("players", [])
        base = session_id or new_session_id(players if isinstance(players, list) else [])
        sid, n = base, 1
        while self._db.execute("SELECT 1 FROM sessions WHERE id=?", (sid,)).fetchone() or self.log.path(sid).exists():
            n += 1
            sid = f"{base}-{n}"
        record = SessionRecord(sid, game.name, json.loads(json.dumps(session.setup_options, sort_keys=True)),
                               time.time())
        self._write_log(lambda: self.log.start(record))
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("INSERT INTO sessions (id, game, setup, created) VALUES (?,?,?,?)",
                                 (sid, game.name, json.dumps(record.setup, sort_keys=True), record.created))
        except BaseException:
            self.log.remove(sid)
            raise
        self._logs_in_step.add(sid)
        return StoredSession(self, sid, session, [])

    @guarded
    def open(self, session_id: str, games: Callable[[str], Game]) -> "StoredSession":
        """Reopen a session and replay its journal through the rules."""
        row = self._db.execute("SELECT game, setup FROM sessions WHERE id=?", (session_id,)).fetchone()
        if row is None:
            known = ", ".join(info.id for info in self.list()[:5]) or "none yet"
            raise StoreError(f"no session {session_id!r} in {self.path} (latest: {known})")
        name, setup = row
        try:
            game = games(name)
        except LookupError as exc:
            raise StoreError(f"session {session_id!r} is a game of {name!r}, which this dicewatch "
                             f"does not know ({exc})") from None
        entries = self.entries(session_id)
        try:
            session = Session(game, self._setup(session_id, setup))
        except RuleError as exc:
            raise StoreError(f"session {session_id!r}: its setup is refused by the rules ({exc})") from None
        for entry in entries:
            try:
                if entry.kind == EVENT:
                    session.replay(entry.body)
                elif entry.kind == UNDO and session.events:
                    session.undo()
            except RuleError as exc:
                raise StoreError(f"session {session_id!r}, journal entry {entry.seq}: the rules refuse "
                                 f"{entry.body.get('type')!r} on replay ({exc}); the rules changed since "
                                 "it was recorded. Export it and start a new session.") from None
        return StoredSession(self, session_id, session, entries)

    @guarded
    def is_closed(self, session_id: str) -> bool:
        """Whether the session is marked finished (False for an unknown id)."""
        row = self._db.execute("SELECT closed FROM sessions WHERE id=?", (session_id,)).fetchone()
        return row is not None and row[0] is not None

    @guarded
    def latest(self, game: str | None = None, open_only: bool = True) -> str | None:
        """Id of the most recent session (of ``game``; not closed) or None."""
        for info in self.list():
            if (game is None or info.game == game) and (info.closed is None or not open_only):
                return info.id
        return None

    @guarded
    def list(self) -> list[SessionInfo]:
        """All sessions, newest first."""
        rows = self._db.execute(
            "SELECT s.id, s.game, s.setup, s.created, s.closed, COUNT(j.seq) FROM sessions s "
            "LEFT JOIN journal j ON j.session_id = s.id GROUP BY s.id ORDER BY s.created DESC, s.rowid DESC"
        ).fetchall()
        out = []
        for sid, game, setup, created, closed, count in rows:
            try:
                players = self._setup(sid, setup).get("players", [])
            except StoreError:
                players = ["(setup unreadable)"]
            out.append(SessionInfo(sid, game, tuple(str(p) for p in players) if isinstance(players, list) else (),
                                   created, closed, count))
        return out

    @guarded
    def header(self, session_id: str) -> dict[str, Any]:
        row = self._db.execute("SELECT game, setup FROM sessions WHERE id=?", (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"no session {session_id!r} in {self.path}")
        return {"game": row[0], "setup": self._setup(session_id, row[1])}

    @guarded
    def session_record(self, session_id: str) -> SessionRecord:
        """The session as the database holds it (header, closed, every entry)."""
        row = self._db.execute("SELECT game, setup, created, closed FROM sessions WHERE id=?",
                               (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"no session {session_id!r} in {self.path}")
        game, setup, created, closed = row
        return SessionRecord(session_id, game, self._setup(session_id, setup), created, closed,
                             tuple(self.entries(session_id)))

    @guarded
    def entries(self, session_id: str) -> list[Entry]:
        rows = self._db.execute("SELECT seq, kind, body, at FROM journal WHERE session_id=? ORDER BY seq",
                                (session_id,)).fetchall()
        return [Entry(seq, kind, self._body(session_id, seq, body), at) for seq, kind, body, at in rows]

    def _setup(self, session_id: str, text: Any) -> dict[str, Any]:
        """A session's stored setup, which must be a JSON object."""
        try:
            setup = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{self.path}: session {session_id!r}: its setup is not valid JSON ({exc})") from None
        if not isinstance(setup, dict):
            raise StoreError(f"{self.path}: session {session_id!r}: its setup is a JSON {type(setup).__name__}, "
                             "expected an object")
        return setup

    def _body(self, session_id: str, seq: int, text: Any) -> dict[str, Any]:
        """A journal row's body, which must be a JSON object (StoreError says which row is not)."""
        try:
            body = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{self.path}: session {session_id!r}, journal entry {seq}: not valid JSON ({exc}); "
                             "expected a JSON object") from None
        if not isinstance(body, dict):
            raise StoreError(f"{self.path}: session {session_id!r}, journal entry {seq}: a JSON "
                             f"{type(body).__name__}, expected a JSON object")
        return body

    # -- writing (each call is one durable transaction) -------------------------------------
    def append(self, session_id: str, seq: int, kind: str, body: Mapping[str, Any]) -> Entry:
        return self.append_all(session_id, seq, [(kind, body)])[0]

    @guarded
    def append_all(self, session_id: str, seq: int, steps: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Entry]:
        """Write journal entries ``seq``, ``seq + 1``, ... in one transaction: all of them reach
        the disk, or none (a power cut between a roll and what the box knows of it cannot
        keep one without the other). The log line goes first (see host/session_log.py)."""
        now = time.time()
        entries = [Entry(seq + i, kind, json.loads(json.dumps(body, sort_keys=True)), now)
                   for i, (kind, body) in enumerate(steps)]
        self._logged(session_id, entries_line(entries), lambda: self._db.executemany(
            "INSERT INTO journal (session_id, seq, kind, body, at) VALUES (?,?,?,?,?)",
            [(session_id, e.seq, e.kind, json.dumps(e.body, sort_keys=True), e.at) for e in entries]))
        return entries

    def _write_log(self, write: Callable[[], Any]) -> Any:
        try:
            return write()
        except OSError as exc:
            raise StoreError(f"{self.log.folder}: the sessions' log cannot be written ({exc.strerror or exc}); "
                             "nothing was stored") from None

    def _logged(self, session_id: str, line: dict[str, Any], change: Callable[[], Any]) -> None:
        """One change: its log line appended (fsync), then ``change`` in one database
        transaction; a refused transaction takes the line back out of the log."""
        self._log_in_step(session_id)
        size = self._write_log(lambda: self.log.append(session_id, line))
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                change()
        except BaseException:
            self._write_log(lambda: self.log.cut_back(session_id, size))
            raise

    def _log_in_step(self, session_id: str) -> None:
        """Before a session's first write here: its log must match the database (a log from
        before a kill may hold one batch more, a torn or missing one less; it is written
        again from the database). Records that disagree otherwise are left for a repair."""
        if session_id in self._logs_in_step:
            return
        record = self.session_record(session_id)
        reading = self.log.read(session_id) if self.log.path(session_id).exists() else None
        verdict = compare(record, reading)
        if verdict not in DATABASE_RIGHT:
            raise StoreError(f"{self.path}: session {session_id!r}: {verdict} ({self.log.path(session_id)}); the "
                             "database may be damaged: run dicewatch sessions check --repair")
        if verdict in (UNCONFIRMED, LOG_BEHIND):
            self._write_log(lambda: self.log.rewrite(record))
        self._logs_in_step.add(session_id)

    @guarded
    def discard(self, session_id: str) -> bool:
        """Delete a session that has nothing in its journal (a start-up that failed); True if deleted."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if self._db.execute("SELECT 1 FROM journal WHERE session_id=?", (session_id,)).fetchone():
                return False
            self._write_log(lambda: self.log.remove(session_id))
            self._logs_in_step.discard(session_id)
            return self._db.execute("DELETE FROM sessions WHERE id=?", (session_id,)).rowcount > 0

    @guarded
    def mark_closed(self, session_id: str, closed: bool = True) -> None:
        when = time.time() if closed else None
        upto = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM journal WHERE session_id=?", (session_id,)).fetchone()[0]
        self._logged(session_id, closed_line(when, upto),
                     lambda: self._db.execute("UPDATE sessions SET closed=? WHERE id=?", (when, session_id)))


class StoredSession:
    """A rules :class:`~rules.core.Session` whose every change is written first, then applied.

    ``play`` checks the event by the rules (nothing is written when they refuse it),
    writes it durably, and only then changes the in-memory state and returns.
    """

    def __init__(self, store: SessionStore, session_id: str, session: Session, entries: list[Entry]):
        self.store, self.id, self.session = store, session_id, session
        self.entries = list(entries)

    @property
    def state(self) -> Any:
        return self.session.state

    @property
    def game(self) -> Game:
        return self.session.game

    def _next_seq(self) -> int:
        return self.entries[-1].seq + 1 if self.entries else 1

    def play(self, event: Event) -> Any:
        """Check, store, then apply ``event``. RuleError leaves disk and state unchanged."""
        self.session.check(event)
        self.entries.append(self.store.append(self.id, self._next_seq(), EVENT, event))
        return self.session.play(event)

    def undo(self) -> Event:
        """Drop the last event (stored as an ``undo`` entry). RuleError if there is none."""
        if not self.session.events:
            raise RuleError("nothing to undo: no event has been recorded yet")
        self.entries.append(self.store.append(self.id, self._next_seq(), UNDO, {"undoes": self.session.events[-1]}))
        return self.session.undo()

    def note(self, body: Mapping[str, Any]) -> Entry:
        """Record a non-rules fact (a correction, a refused roll) in the journal."""
        entry = self.store.append(self.id, self._next_seq(), NOTE, body)
        self.entries.append(entry)
        return entry

    def record(self, steps: Iterable[tuple[str, Mapping[str, Any] | None]]) -> None:
        """Several changes as one: ``(EVENT, event)``, ``(UNDO, None)`` and ``(NOTE, body)`` in
        order, checked by the rules first (RuleError: nothing written, nothing changed), then
        written in one transaction, then applied. A die corrected (the roll undone and played
        again, with its note) or a roll with its dice places is never half stored."""
        steps = list(steps)
        done: list[tuple[str, Any]] = []
        written = []
        try:
            for kind, body in steps:
                if kind == EVENT:
                    self.session.play(body)
                    done.append((EVENT, None))
                    written.append((EVENT, self.session.events[-1]))
                elif kind == UNDO:
                    if not self.session.events:
                        raise RuleError("nothing to undo: no event has been recorded yet")
                    undone = self.session.undo()
                    done.append((UNDO, undone))
                    written.append((UNDO, {"undoes": undone}))
                else:
                    written.append((NOTE, body))
            self.entries.extend(self.store.append_all(self.id, self._next_seq(), written))
        except BaseException:
            for kind, undone in reversed(done):   # put the state back as it was
                if kind == EVENT:
                    self.session.undo()
                else:
                    self.session.replay(undone)
            raise

    def close(self) -> None:
        self.store.mark_closed(self.id)
