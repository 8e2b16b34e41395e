"""Check the sessions database against its logs, and rebuild it from them when it is damaged.

Each session is kept twice (host/session_store.py: the SQLite database; host/session_log.py:
one log file per session, each line checksummed). :func:`check` reads both and says, per
session, how they stand. The database is damaged when SQLite cannot read it, when its
``PRAGMA quick_check`` fails, when a stored row is not what we wrote, or when it lacks or
contradicts what a log holds. A repair (:func:`repair`, or :func:`open_checked` at the start
of ``run`` and ``export``) then

* rebuilds the database from the logs (and from whatever still reads in the damaged one,
  for a session without a log) as a fresh file beside it, moves the damaged file aside as
  ``sessions.db.damaged-<time>`` (with its ``-wal`` and ``-shm``), never deleting it, and
  puts the fresh one in its place;
* writes a log again from the database when it is behind (a torn last line, a log that
  never existed: a database from before the logs) or holds one batch the database never
  confirmed (a kill between the two writes); a log that was damaged is kept as
  ``<id>.jsonl.damaged-<time>``.

A repair needs the log folder's exclusive lock: it never rewrites what a running box is
writing (:func:`host.session_store.lock_logs`).
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from host.session_log import (AGREE, DATABASE_RIGHT, LOG_BEHIND, LOG_SUFFIX, UNCONFIRMED, Entry, LogReading,
                              SessionLog, SessionRecord, compare, log_folder, log_tail, read_log)
from host.session_store import _SCHEMA, OUR_TABLES, SessionStore, StoreError, lock_logs

LOG_MISSING = "no log"


class StoreBusy(StoreError):
    """The store is open in another dicewatch (a running box): it is not repaired under it."""


@dataclass
class SessionState:
    """One session in a check: what the database and its log hold, and how they stand."""

    id: str
    verdict: str
    database: SessionRecord | None
    log: LogReading | None

    @property
    def best(self) -> SessionRecord | None:
        """The record to keep: the database's when it is right, else the log's (checksummed)."""
        if self.verdict in DATABASE_RIGHT or self.log is None or self.log.record is None:
            return self.database
        return self.log.record

    def line(self) -> str:
        best = self.best
        what = f"{best.game}, {len(best.entries)} entries{', closed' if best.closed else ''}" if best else "nothing"
        verdict = LOG_MISSING if self.log is None and self.verdict == LOG_BEHIND else self.verdict
        problems = "; ".join(self.log.problems) if self.log is not None and self.log.problems else ""
        return f"{self.id}: {verdict} ({what}){f'; log: {problems}' if problems else ''}"


@dataclass
class Check:
    """What :func:`check` found: the database's own problem (None: it reads and checks out),
    each session, log files that name no session, and what a repair did."""

    database: Path
    problem: str | None
    sessions: list[SessionState]
    stray_logs: list[LogReading] = field(default_factory=list)
    half_written: list[Path] = field(default_factory=list)   # a log rewrite killed before its rename
    done: list[str] = field(default_factory=list)

    @property
    def damaged(self) -> bool:
        """The database must be rebuilt from the logs."""
        return self.problem is not None or any(s.verdict not in DATABASE_RIGHT for s in self.sessions)

    @property
    def logs_to_write(self) -> list[SessionState]:
        """Logs to write again from the database, or to remove (begun for a session never stored)."""
        return [s for s in self.sessions if s.verdict != AGREE and (s.best is not None or s.verdict == UNCONFIRMED)]

    @property
    def clean(self) -> bool:
        return not self.damaged and not self.logs_to_write and not self.stray_logs and not self.half_written

    def lines(self) -> list[str]:
        head = f"{self.database}: " + (f"DAMAGED ({self.problem})" if self.problem else
                                       "damaged (it lacks or contradicts what the logs hold)" if self.damaged
                                       else "reads and checks out")
        lines = [head] + [f"  {s.line()}" for s in self.sessions]
        lines += [f"  {r.path.name}: a log of no session ({'; '.join(r.problems) or 'unreadable'})"
                  for r in self.stray_logs]
        lines += [f"  {p.name}: a log rewrite that was stopped before it was done (the log itself is whole)"
                  for p in self.half_written]
        return lines


# -- reading ---------------------------------------------------------------------------------
def _json_object(text, what: str) -> dict:
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} is not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what} is a JSON {type(value).__name__}, expected a JSON object")
    return value


def _read_session(db: sqlite3.Connection, row: tuple) -> SessionRecord:
    sid, game, setup, created, closed = row
    entries = tuple(Entry(seq, kind, _json_object(body, f"journal entry {seq}"), at) for seq, kind, body, at in
                    db.execute("SELECT seq, kind, body, at FROM journal WHERE session_id=? ORDER BY seq", (sid,)))
    if [e.seq for e in entries] != list(range(1, len(entries) + 1)):
        raise ValueError("its journal entries are not numbered 1, 2, 3...")
    return SessionRecord(sid, game, _json_object(setup, "its setup"), float(created),
                         None if closed is None else float(closed), entries)


# A session's size in the database: (id, created, closed, entries, last seq)
Summary = tuple


def read_database(path: Path, whole: Callable[[list[Summary]], set[str]] | None = None
                  ) -> tuple[dict[str, SessionRecord], set[str], str | None]:
    """The sessions read whole from the database (all, or those ``whole`` picks from every
    session's summary), the ids of every session in it, and what is wrong with it (None:
    nothing). StoreError for a file that is not ours (it is left untouched)."""
    if not path.exists():
        return {}, set(), "the file is missing"
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)   # read-only: never changes a damaged file
    except sqlite3.Error as exc:
        return {}, set(), str(exc)
    problems: list[str] = []
    records: dict[str, SessionRecord] = {}
    try:
        try:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            return {}, set(), str(exc)
        if tables and not OUR_TABLES <= tables:
            raise StoreError(f"{path}: an SQLite database of something else (tables: {', '.join(sorted(tables))}); "
                             "dicewatch keeps its sessions in a file of its own")
        if not tables:
            return {}, set(), None
        try:
            verdict = [row[0] for row in db.execute("PRAGMA quick_check")]
            if verdict != ["ok"]:
                problems.append("quick_check: " + "; ".join(verdict[:2]))
            rows = db.execute("SELECT id, game, setup, created, closed FROM sessions ORDER BY created").fetchall()
            picked = None
            if whole is not None and not problems:
                picked = whole(db.execute(
                    "SELECT s.id, s.created, s.closed, COUNT(j.seq), COALESCE(MAX(j.seq), 0) FROM sessions s "
                    "LEFT JOIN journal j ON j.session_id = s.id GROUP BY s.id").fetchall())
        except sqlite3.DatabaseError as exc:
            problems.append(str(exc))
            rows, picked = _salvage_sessions(db), None
        for row in rows:
            if picked is not None and row[0] not in picked:
                continue
            try:
                records[row[0]] = _read_session(db, row)
            except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
                problems.append(f"session {row[0]!r}: {exc}")
    finally:
        db.close()
    said = "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")
    return records, {row[0] for row in rows}, said or None


def _salvage_sessions(db: sqlite3.Connection) -> list[tuple]:
    """The session rows that still read, one at a time, from a database that fails a scan."""
    try:
        ids = [row[0] for row in db.execute("SELECT id FROM sessions")]
    except sqlite3.DatabaseError:
        return []
    rows = []
    for sid in ids:
        try:
            row = db.execute("SELECT id, game, setup, created, closed FROM sessions WHERE id=?", (sid,)).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None:
            rows.append(row)
    return rows


def tails_agree(logs: SessionLog, summary: Summary) -> bool:
    """The cheap check of one session: its log's last line is whole and good and says the log
    holds as many entries as the database (numbered 1, 2, 3...), closed alike."""
    sid, _, closed, count, last = summary
    tail = log_tail(logs.path(sid))
    return tail is not None and tail.upto == count == last and (not tail.closed_known or tail.closed == closed)


def check(database: Path, newest: int | None = None) -> Check:
    """Read the database and every log beside it, and say how each session stands. With
    ``newest``, only the ``newest`` latest sessions are read whole, the others when their
    log's last line (:func:`tails_agree`) or the database's ``quick_check`` says something
    is wrong: what ``run`` and ``export`` do at every start, in a time that grows with the
    number of games, not with their length."""
    database = Path(database)
    logs = SessionLog(log_folder(database))

    def pick(summaries: list[Summary]) -> set[str]:
        latest = {row[0] for row in sorted(summaries, key=lambda row: row[1])[-newest:]} if newest else set()
        return latest | {row[0] for row in summaries if not tails_agree(logs, row)}

    records, known, problem = read_database(database, pick if newest is not None else None)
    cheap = known - set(records) if problem is None else set()
    readings: dict[str, LogReading] = {}
    stray: list[LogReading] = []
    named = {logs.path(sid).name: sid for sid in known}
    for path in logs.files():
        if named.get(path.name) in cheap:
            continue
        reading = read_log(path)
        sid = reading.record.id if reading.record is not None else named.get(path.name)
        if sid is None or path.name != logs.path(sid).name:
            stray.append(reading)
        else:
            readings[sid] = reading
    sessions = [SessionState(sid, AGREE, None, None) for sid in sorted(cheap)]
    for sid in sorted(set(records) | set(readings), key=lambda s: (_created(records.get(s) or readings[s].record), s)):
        sessions.append(SessionState(sid, compare(records.get(sid), readings.get(sid)), records.get(sid),
                                     readings.get(sid)))
    half = sorted(logs.folder.glob(f"*{LOG_SUFFIX}.tmp")) if logs.folder.is_dir() else []
    return Check(database, problem, sessions, stray, half)


def _created(record: SessionRecord | None) -> float:
    return record.created if record is not None else 0.0


# -- repairing -------------------------------------------------------------------------------
def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _aside(path: Path, suffix: str) -> Path:
    """A free name beside ``path`` for keeping a damaged file."""
    target = path.with_name(f"{path.name}.{suffix}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.{suffix}-{n}")
    return target


def write_database(path: Path, records: list[SessionRecord]) -> None:
    """A new sessions database holding ``records`` (``path`` must not exist)."""
    db = sqlite3.connect(str(path), isolation_level=None)
    try:
        db.executescript(_SCHEMA)
        db.execute("BEGIN")
        for r in records:
            db.execute("INSERT INTO sessions (id, game, setup, created, closed) VALUES (?,?,?,?,?)",
                       (r.id, r.game, json.dumps(r.setup, sort_keys=True), r.created, r.closed))
            db.executemany("INSERT INTO journal (session_id, seq, kind, body, at) VALUES (?,?,?,?,?)",
                           [(r.id, e.seq, e.kind, json.dumps(e.body, sort_keys=True), e.at) for e in r.entries])
        db.execute("COMMIT")
        db.execute("PRAGMA journal_mode=WAL")
    finally:
        db.close()
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _rebuild(found: Check) -> str:
    """Replace a damaged database by one built from the best record of each session."""
    database = found.database
    keep = [s.best for s in found.sessions if s.best is not None and not (s.database is None and s.verdict == UNCONFIRMED)]
    fresh = database.with_name(database.name + ".rebuilding")
    for stale in (fresh, Path(f"{fresh}-wal"), Path(f"{fresh}-shm"), Path(f"{fresh}-journal")):
        stale.unlink(missing_ok=True)
    write_database(fresh, keep)
    kept = ""
    if database.exists():
        aside = _aside(database, f"damaged-{_stamp()}")
        for extra in ("-wal", "-shm"):
            if Path(f"{database}{extra}").exists():
                os.replace(f"{database}{extra}", f"{aside}{extra}")
        os.replace(database, aside)
        kept = f"; the damaged file is kept as {aside.name}"
    os.replace(fresh, database)
    entries = sum(len(r.entries) for r in keep)
    return f"rebuilt {database} from its logs: {len(keep)} games, {entries} journal entries{kept}"


def _needs_writing(state: SessionState) -> bool:
    log = state.log
    return log is None or log.record != state.best or log.torn or log.damaged_at is not None


def _write_logs(found: Check, states: list[SessionState]) -> list[str]:
    """Write these sessions' logs from their best record; the ids of those that were missing
    or damaged (a torn last line or an unconfirmed batch after a kill is routine, not said)."""
    logs = SessionLog(log_folder(found.database))
    said = []
    for state in states:
        if state.database is None and state.verdict == UNCONFIRMED:   # a session never stored: its log goes
            logs.remove(state.id)
            continue
        log = state.log
        damaged = log is not None and (log.damaged_at is not None or log.record is None)
        if damaged and log.path.exists():
            os.replace(log.path, _aside(log.path, f"damaged-{_stamp()}"))
        logs.rewrite(state.best)
        if log is None or damaged:
            said.append(state.id)
    return said


def repair(database: Path, newest: int | None = None) -> Check:
    """Check (``newest``: see :func:`check`), then make both records whole again; ``done``
    says what was changed. StoreError when the files are in use by a running box (nothing is
    changed then)."""
    database = Path(database)
    found = check(database, newest)   # (StoreError for a file that is not ours: nothing is written beside it)
    if found.clean:
        return found
    if found.damaged and not any(s.log is not None and s.log.record is not None for s in found.sessions):
        raise StoreError(f"{database}: not a usable dicewatch sessions database ({found.problem or 'damaged'}), "
                         f"and no session logs in {log_folder(database)} to rebuild it from")
    folder = log_folder(database)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = lock_logs(folder, exclusive=True)
    except OSError as exc:
        raise StoreError(f"{database}: needs repairing, and {folder} cannot be written ({exc.strerror})") from None
    if lock is None:
        raise StoreBusy(f"{database}: in use by a running dicewatch (run, demo or the service); "
                        "stop it, then repair with dicewatch sessions check --repair")
    try:
        return _repair_locked(database)
    except OSError as exc:
        raise StoreError(f"{database}: the repair stopped: {exc.filename or folder} cannot be written "
                         f"({exc.strerror}); nothing was deleted, the damaged files are where they were "
                         "or renamed *.damaged-<time>") from None
    finally:
        os.close(lock)


def _repair_locked(database: Path) -> Check:
    found = check(database)   # again, under the lock, every session whole
    if found.damaged:
        found.done.append(_rebuild(found))
        states = [s for s in found.sessions if _needs_writing(s)]
    else:
        states = found.logs_to_write
    rewritten = _write_logs(found, states)
    if rewritten:
        found.done.append(f"wrote {len(rewritten)} missing or damaged session log(s) from the "
                          f"{'logs and database' if found.damaged else 'database'}: "
                          f"{', '.join(rewritten[:3])}{' ...' if len(rewritten) > 3 else ''}")
    for leftover in found.half_written:   # a copy of a log that was never put in place
        leftover.unlink(missing_ok=True)
    if found.half_written:
        found.done.append(f"removed {len(found.half_written)} log rewrite(s) stopped before they were done")
    for stray in found.stray_logs:
        aside = _aside(stray.path, f"unused-{_stamp()}")
        os.replace(stray.path, aside)
        found.done.append(f"moved {stray.path.name}, a log of no session, aside as {aside.name}")
    return found


NEWEST_WHOLE = 3   # sessions read whole at every start (the ones --resume and export latest take)


def open_checked(database: Path, say: Callable[[str], None]) -> SessionStore:
    """The sessions store, after checking it against its logs (the newest sessions whole, the
    others by their size: see :func:`check`) and repairing what needs it (``say`` gets one
    line for each thing done). A busy store (a box running) is only checked: damage is then
    a StoreError."""
    database = Path(database)
    if database.exists() or SessionLog(log_folder(database)).files():
        try:
            found = repair(database, NEWEST_WHOLE)
        except StoreBusy:
            found = check(database, NEWEST_WHOLE)   # in use: look only
            if found.damaged:
                raise StoreError(f"{database}: damaged ({found.problem or 'it lacks what its logs hold'}) and in use "
                                 "by a running dicewatch; stop it, then run dicewatch sessions check --repair") from None
        for line in found.done:
            say(f"{database} was damaged ({found.problem or 'it lacked what its logs hold'}); {line}"
                if line.startswith("rebuilt") else line)
    return SessionStore(database)
