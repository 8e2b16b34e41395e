"""Who holds which seat on the phone page, kept on disk so that a box that restarts keeps them.

A seat is held by the one phone that took it on the Join page, through the token of its
private link (``/me/TOKEN``). Only a hash of each token is kept, in memory and on disk, so
the file opens no seat. The file (the sessions database's name and ``.seats.json``, beside
it, readable by the box's user alone) is replaced whole at each change: written beside,
flushed to the disk, renamed into place. When the box comes back on the same game (a power
cut, ``run --resume``), the seats come back with it: the phones' links work again, and no
other phone can quietly take a seat whose player's phone has not come back yet (taking a
held seat over is always told to the whole table, see host/web/table.py).

A file that cannot be read or written costs only this: the seats start free, or live in
memory until the box stops; the log says so once, and never names a token or a hash.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from pathlib import Path

from vision.durable import flush_to_disk, write_whole

log = logging.getLogger(__name__)

VERSION = 1


def seats_file(sessions_path: Path | str) -> Path:
    """Where the seats of the tables kept in ``sessions_path`` are kept."""
    return Path(f"{sessions_path}.seats.json")


class Refused(Exception):
    """An action from the page that was not taken; the message says why (for the person)."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def is_hash(value) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


class SeatBook:
    """The seats of the table the box plays now: each player's, held (by a token's hash) or free.

    :param path: the file to keep them in (None: in memory only, as for a table without a
        sessions database). Not thread-safe: host.web.table.WebTable calls it under its lock.
    """

    def __init__(self, path: Path | None):
        self.path = path
        self.session: str | None = None
        self.held: dict[str, str | None] = {}   # player -> the hash of the token of the phone holding the seat
        self._write_said = False

    # -- which table ---------------------------------------------------------------------------
    def sit(self, session_id: str, players: list[str], *, keep: bool = False) -> None:
        """The seats of ``session_id``: the ones the file kept for it (the box came back on the
        game it played), else the ones held now when ``keep`` (a new game, the same players),
        else every seat free."""
        if keep and sorted(players) == sorted(self.held):
            held = dict(self.held)
        else:
            held = self._kept(session_id, players) or dict.fromkeys(players)
        self.session, self.held = session_id, {player: held.get(player) for player in players}
        self._save()

    def _kept(self, session_id: str, players: list[str]) -> dict[str, str | None] | None:
        if self.path is None or not self.path.exists():
            return None
        try:
            record = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(record, dict) or record.get("version") != VERSION:
                raise ValueError(f'expected {{"version": {VERSION}, "session": ..., "seats": {{...}}}}')
            seats = record.get("seats")
            if not isinstance(seats, dict) or not all(isinstance(k, str) and (v is None or is_hash(v))
                                                      for k, v in seats.items()):
                raise ValueError('"seats": expected each player\'s token hash, or null for a free seat')
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            log.warning("%s cannot be read (%s); the seats start free", self.path, exc)
            return None
        if record.get("session") != session_id or sorted(seats) != sorted(players):
            return None
        return seats

    def _save(self) -> None:
        if self.path is None:
            return
        record = {"version": VERSION, "session": self.session, "seats": self.held}
        try:
            write_whole(self.path, json.dumps(record, sort_keys=True).encode(), mode=0o600)
            flush_to_disk(self.path.parent)
        except OSError as exc:
            if not self._write_said:
                log.warning("the seats cannot be kept in %s (%s); a restart frees them", self.path,
                            exc.strerror or exc)
                self._write_said = True

    # -- the seats -----------------------------------------------------------------------------
    def seats(self) -> list[tuple[str, bool]]:
        """Each player, and whether a phone holds their seat (public: says no secret)."""
        return [(player, held is not None) for player, held in self.held.items()]

    def holder(self, token: str) -> str | None:
        """The player whose seat the phone with ``token`` holds (compared in constant time), or None."""
        given = token_hash(token)
        found = None
        for player, held in self.held.items():
            if held is not None and hmac.compare_digest(held, given):
                found = player
        return found

    def claim(self, player: str) -> str:
        """Give a free seat to the phone asking: the token of its new private link."""
        self._known(player)
        if self.held[player] is not None:
            raise Refused(f"{player}'s seat is already taken by a phone; if that phone is lost, "
                          "take the seat over below (the box tells the whole table)")
        return self._give(player)

    def take_over(self, player: str) -> str:
        """Move a held seat to the phone asking (a lost or dead phone): a new token, the old dead."""
        self._known(player)
        if self.held[player] is None:
            raise Refused(f"{player}'s seat is free: take it with the button above")
        return self._give(player)

    def leave(self, token: str) -> str:
        """The phone with ``token`` gives its seat up: its link stops working. Returns the player."""
        player = self.holder(token)
        if player is None:
            raise Refused("that link is not a seat at this table")
        self.held[player] = None
        self._save()
        return player

    def _known(self, player: str) -> None:
        if player not in self.held:
            raise Refused(f"there is no player {player!r} at this table")

    def _give(self, player: str) -> str:
        token = secrets.token_urlsafe(18)
        self.held[player] = token_hash(token)
        self._save()
        return token
