"""The second durable record of every game: one append-only log file per session.

The sessions database (host/session_store.py) is the record the box reads. Beside it, in a
folder named after it (``sessions.db.logs/``), each session has a JSON Lines file,
``<session id>.jsonl``, that holds everything needed to rebuild that session without the
database. Each line is one JSON object with a ``crc`` (the CRC-32 of the line's other keys,
written compactly with sorted keys), so that a damaged line is told from a good one:

``{"t": "session", "id": ..., "game": ..., "setup": {...}, "created": ..., "crc": ...}``
    the first line: which game, its setup, when it was made;
``{"t": "entries", "entries": [[seq, kind, body, at], ...], "crc": ...}``
    one stored batch (:meth:`StoredSession.record`: a roll with its notes, an undo...);
``{"t": "closed", "closed": time or null, "upto": seq, "crc": ...}``
    the game ended (or an ended game was taken back), after entry ``upto``.

The last line alone says how many entries the log holds (the last entry's ``seq``, or
``upto``), which is how ``run`` and ``export`` check every session cheaply at start
(:func:`log_tail`); ``dicewatch sessions check`` reads everything.

A batch is written (and fsync'ed) here *before* it is committed to the database, one line
per batch, so the log holds everything the database holds, plus at most one last batch
that the box never confirmed (killed between the two writes). A line cut short by a power
cut or a kill is the last one; it is dropped on reading, losing at most that batch.

Why a log and not SQLite's online backup after each batch: a backup copies the whole
database every time (its cost grows with every game ever played), while a log line costs
one small write and one fsync whatever the history, and a damaged database page cannot
take the log with it (another file, written only by appending).
"""
from __future__ import annotations

import json
import os
import re
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

HEADER, ENTRIES, CLOSED = "session", "entries", "closed"
LOG_SUFFIX = ".jsonl"
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,150}")


@dataclass(frozen=True)
class Entry:
    """One journal line: its number in the session, kind, body and wall-clock time."""

    seq: int
    kind: str
    body: dict[str, Any]
    at: float


@dataclass(frozen=True)
class SessionRecord:
    """Everything that makes a session: enough to rebuild it in an empty database."""

    id: str
    game: str
    setup: dict[str, Any]
    created: float
    closed: float | None = None
    entries: tuple[Entry, ...] = ()


@dataclass
class LogReading:
    """A log file as read: the session it holds (``None`` if not even its first line is good),
    the session as it stood before the last good line, and what was wrong with the file."""

    path: Path
    record: SessionRecord | None = None
    before_last: SessionRecord | None = None
    lines: int = 0                  # good lines
    torn: bool = False              # the last line was cut short (dropped)
    damaged_at: int | None = None   # a bad line before the end: its number (1-based); the rest is not read
    problems: list[str] = field(default_factory=list)


def log_folder(database: Path) -> Path:
    """Where the logs of ``database`` live: ``sessions.db`` -> ``sessions.db.logs/``."""
    return database.with_name(database.name + ".logs")


def file_name(session_id: str) -> str:
    """A session's log file name: its id when that is a plain name, else a hash of it."""
    if SAFE_ID.fullmatch(session_id) and ".." not in session_id:
        return session_id + LOG_SUFFIX
    return f"id-{zlib.crc32(session_id.encode()):08x}-{len(session_id)}{LOG_SUFFIX}"


def _canonical(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def encode(record: dict[str, Any]) -> bytes:
    """One log line (with its ``crc``), newline included."""
    text = _canonical(record)
    return (_canonical({**record, "crc": zlib.crc32(text.encode())}) + "\n").encode()


def decode(line: bytes) -> dict[str, Any] | None:
    """A log line's record, or None when the line is not whole and good."""
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("crc"), int):
        return None
    crc = record.pop("crc")
    return record if zlib.crc32(_canonical(record).encode()) == crc else None


def header_line(record: SessionRecord) -> dict[str, Any]:
    return {"t": HEADER, "id": record.id, "game": record.game, "setup": record.setup, "created": record.created}


def entries_line(entries: Iterable[Entry]) -> dict[str, Any]:
    return {"t": ENTRIES, "entries": [[e.seq, e.kind, e.body, e.at] for e in entries]}


def closed_line(closed: float | None, upto: int) -> dict[str, Any]:
    return {"t": CLOSED, "closed": closed, "upto": upto}


def record_lines(record: SessionRecord) -> list[dict[str, Any]]:
    """The lines of a log that rebuilds ``record`` (a line per entry: the last line stays short)."""
    lines = [header_line(record)] + [entries_line([entry]) for entry in record.entries]
    if record.closed is not None:
        lines.append(closed_line(record.closed, len(record.entries)))
    return lines


def _apply(record: SessionRecord | None, line: dict[str, Any]) -> SessionRecord:
    """The session after one more log line (ValueError/KeyError/TypeError: not a line we wrote)."""
    kind = line["t"]
    if kind == HEADER:
        if record is not None:
            raise ValueError("a second first line")
        if not isinstance(line["setup"], dict):
            raise ValueError("its setup is not an object")
        return SessionRecord(str(line["id"]), str(line["game"]), line["setup"], float(line["created"]))
    if record is None:
        raise ValueError("no first line (session, game, setup)")
    if kind == CLOSED:
        closed = line["closed"]
        return replace(record, closed=None if closed is None else float(closed))
    if kind == ENTRIES:
        added = []
        following = record.entries[-1].seq + 1 if record.entries else 1
        for seq, entry_kind, body, at in line["entries"]:
            if seq != following + len(added) or not isinstance(body, dict) or entry_kind not in ("event", "undo", "note"):
                raise ValueError(f"entry {seq} out of order or not an entry")
            added.append(Entry(int(seq), str(entry_kind), body, float(at)))
        return replace(record, entries=record.entries + tuple(added))
    raise ValueError(f"unknown line kind {kind!r}")


def read_log(path: Path) -> LogReading:
    """Read one log file, dropping a torn last line and stopping at a damaged one."""
    reading = LogReading(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        reading.problems.append(f"cannot be read ({exc.strerror})")
        return reading
    lines = data.split(b"\n")
    last = len(lines) - 1 if lines[-1] == b"" else len(lines)   # a file ends with a newline
    for number, line in enumerate(lines[:last], start=1):
        decoded = decode(line)
        try:
            if decoded is None:
                raise ValueError("not a whole, good line")
            updated = _apply(reading.record, decoded)
        except (KeyError, TypeError, ValueError) as exc:
            if number == last:
                reading.torn = True
                reading.problems.append(f"its last line (line {number}) is cut short or damaged; dropped")
            else:
                reading.damaged_at = number
                reading.problems.append(f"line {number} is damaged ({exc}); the lines after it are not read")
            break
        reading.before_last, reading.record = reading.record, updated
        reading.lines = number
    return reading


@dataclass(frozen=True)
class Tail:
    """What a log's last line says: how many entries the log holds, and (a ``closed`` line) the
    closed time; ``closed_known`` is False after an ``entries`` line."""

    upto: int
    closed: float | None
    closed_known: bool


def _last_line(path: Path, reach: int) -> bytes | None:
    """The file's last whole line (newline included) if it ends within ``reach`` bytes of the end."""
    with open(path, "rb") as log:
        size = log.seek(0, os.SEEK_END)
        log.seek(max(0, size - reach))
        end = log.read()
    if not end.endswith(b"\n"):
        return b""
    start = end.rfind(b"\n", 0, len(end) - 1)
    return end[start + 1:] if start >= 0 or size <= reach else None


def log_tail(path: Path) -> Tail | None:
    """The last line of a log, read without the rest of the file; None when the file cannot be
    read, does not end with a whole, good line, or that line is over 64 KiB."""
    try:
        last = _last_line(path, 4096)
        if last is None:
            last = _last_line(path, 1 << 16)
    except OSError:
        return None
    line = decode(last) if last else None
    try:
        if line is None:
            return None
        if line["t"] == ENTRIES:
            return Tail(int(line["entries"][-1][0]), None, False) if line["entries"] else None
        if line["t"] == CLOSED:
            return Tail(int(line["upto"]), line["closed"], True)
        return Tail(0, None, True) if line["t"] == HEADER else None
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class SessionLog:
    """The log folder of one sessions database. Every write is on disk (fsync) when it returns.

    >>> logs = SessionLog(log_folder(Path("sessions.db")))                          # doctest: +SKIP
    >>> logs.start(SessionRecord("20261207-ann-ben", "jingle-bell-roll", {...}, now))  # doctest: +SKIP
    >>> size = logs.append("20261207-ann-ben", entries_line(entries))                  # doctest: +SKIP
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def path(self, session_id: str) -> Path:
        return self.folder / file_name(session_id)

    def files(self) -> list[Path]:
        """Every session log in the folder (none when the folder does not exist)."""
        if not self.folder.is_dir():
            return []
        return sorted(p for p in self.folder.iterdir() if p.name.endswith(LOG_SUFFIX) and p.is_file())

    def start(self, record: SessionRecord) -> None:
        """A new session's log (any old file of that name is replaced)."""
        self.write_whole(record.id, [header_line(record)])

    def append(self, session_id: str, line: dict[str, Any]) -> int:
        """Append one line and fsync; returns the file's size before, for :meth:`cut_back`."""
        fd = os.open(self.path(session_id), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            try:
                data = encode(line)
                if os.write(fd, data) != len(data):
                    raise OSError(28, "No space left on device (a short write)")
                os.fsync(fd)
            except OSError:
                os.ftruncate(fd, size)   # no half line for the next one to follow
                raise
        finally:
            os.close(fd)
        return size

    def cut_back(self, session_id: str, size: int) -> None:
        """Drop what was appended after ``size`` (the database refused that batch)."""
        fd = os.open(self.path(session_id), os.O_WRONLY)
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        finally:
            os.close(fd)

    def write_whole(self, session_id: str, lines: list[dict[str, Any]]) -> None:
        """Replace a session's log at once: a new file written, fsync'ed, then renamed over."""
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.path(session_id)
        temporary = target.with_name(target.name + ".tmp")
        with open(temporary, "wb") as out:
            out.write(b"".join(encode(line) for line in lines))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
        _fsync_folder(self.folder)

    def rewrite(self, record: SessionRecord) -> None:
        self.write_whole(record.id, record_lines(record))

    def remove(self, session_id: str) -> None:
        self.path(session_id).unlink(missing_ok=True)
        if self.folder.is_dir():
            _fsync_folder(self.folder)

    def read(self, session_id: str) -> LogReading:
        return read_log(self.path(session_id))


# -- how a session's two records stand --------------------------------------------------------
AGREE = "agree"
UNCONFIRMED = "log ahead by one unconfirmed batch"   # killed between the log and the database
LOG_BEHIND = "log behind the database"               # a torn or missing log (or one from before logs)
DB_BEHIND = "database lost entries the log holds"    # the database is damaged
DISAGREE = "the records disagree"                    # the database is damaged (the log's lines are checked)
# What each means for the repair: the database is right (the log is written again from it),
# or the log is (the database is rebuilt from the logs).
DATABASE_RIGHT = (AGREE, UNCONFIRMED, LOG_BEHIND)


def same_header(a: SessionRecord, b: SessionRecord) -> bool:
    return (a.id, a.game, a.setup, a.created) == (b.id, b.game, b.setup, b.created)


def compare(database: SessionRecord | None, log: LogReading | None) -> str:
    """How a session stands between the database (None: not in it) and its log (None: no file)."""
    logged = log.record if log is not None else None
    if database is None:
        if logged is None or (not logged.entries and log.before_last is None):
            return UNCONFIRMED  # a log begun for a session the database never stored
        return DB_BEHIND
    if log is None:
        return LOG_BEHIND
    whole = not log.torn and log.damaged_at is None   # else written again before anything is appended
    if logged == database:
        return AGREE if whole else LOG_BEHIND
    if whole and log.before_last == database:
        return UNCONFIRMED
    if logged is None:
        return LOG_BEHIND
    if not same_header(logged, database):
        return DISAGREE
    shorter = min(len(logged.entries), len(database.entries))
    if logged.entries[:shorter] != database.entries[:shorter]:
        return DISAGREE
    return LOG_BEHIND if len(logged.entries) <= len(database.entries) else DB_BEHIND
