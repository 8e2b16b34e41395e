"""The league's own durable store: every table's entries, each kept once, and their last states.

SQLite (``league.db`` in the data folder, WAL). An entry is keyed by its table and sequence
number: one that arrives again (the box sent it again after an outage, the broker delivered it
twice) is ignored, so nothing is counted twice. The last retained state of each table and
whether each box is online are kept too, so a restarted league knows what it had before it
hears from the broker again.
"""
from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    tbl TEXT NOT NULL, seq INTEGER NOT NULL, prev INTEGER NOT NULL, kind TEXT NOT NULL, game TEXT NOT NULL,
    body TEXT NOT NULL, at REAL NOT NULL, received REAL NOT NULL, PRIMARY KEY (tbl, seq));
CREATE TABLE IF NOT EXISTS states (tbl TEXT PRIMARY KEY, body TEXT NOT NULL, received REAL NOT NULL);
CREATE TABLE IF NOT EXISTS boxes (box TEXT PRIMARY KEY, online INTEGER NOT NULL, received REAL NOT NULL);
"""
OUR_TABLES = {"entries", "states", "boxes"}


class LeagueStoreError(Exception):
    """The league's store cannot be used; the message names the file and why."""


class LeagueStore:
    """One connection; the league uses it from one thread at a time (under its lock)."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10)
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and not OUR_TABLES <= tables:
                self._db.close()
                raise LeagueStoreError(f"{self.path}: an SQLite database of something else (tables: "
                                       f"{', '.join(sorted(tables))}); the league keeps its store in a file of its own")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")   # a lost tail is asked for again (resend)
            self._db.executescript(_SCHEMA)
        except (sqlite3.DatabaseError, OSError) as exc:
            raise LeagueStoreError(f"{self.path}: not a usable league store ({exc})") from None

    def close(self) -> None:
        self._db.close()

    def add_entry(self, message: dict, received: float | None = None) -> bool:
        """Keep an entry (checked by host.mqtt.messages.check_entry); False if it was kept already."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO entries (tbl, seq, prev, kind, game, body, at, received) VALUES (?,?,?,?,?,?,?,?)",
            (message["table"], message["seq"], message["prev"], message["kind"], message["game"],
             json.dumps(message, sort_keys=True), message["at"], received if received is not None else time.time()))
        return cursor.rowcount > 0

    def set_state(self, table: str, message: dict) -> None:
        self._db.execute("INSERT OR REPLACE INTO states (tbl, body, received) VALUES (?,?,?)",
                         (table, json.dumps(message, sort_keys=True), time.time()))

    def set_online(self, box: str, online: bool) -> None:
        self._db.execute("INSERT OR REPLACE INTO boxes (box, online, received) VALUES (?,?,?)",
                         (box, int(online), time.time()))

    def entries(self):
        """(table, seq, prev, body) of every entry, in order."""
        for table, seq, prev, body in self._db.execute("SELECT tbl, seq, prev, body FROM entries ORDER BY tbl, seq"):
            yield table, seq, prev, json.loads(body)

    def states(self) -> dict[str, dict]:
        return {table: json.loads(body) for table, body in self._db.execute("SELECT tbl, body FROM states")}

    def boxes(self) -> dict[str, bool]:
        return {box: bool(online) for box, online in self._db.execute("SELECT box, online FROM boxes")}

    def latencies(self) -> list[float]:
        """Seconds from each entry stored at its box to kept here (the benchmark)."""
        return [row[0] for row in self._db.execute("SELECT received - at FROM entries")]
