"""A stored game's history as files: JSON Lines (a replay file) and CSV (the whole journal).

``dicewatch export`` writes them, and the phone page offers them for download. What is
written is public unless asked otherwise: each event goes through its game's public view
(``event_view(event, None)``), so a secret (a hidden role, a lucky face, a hand) stays out.
"""
from __future__ import annotations

import csv
import io
import json
import time

from host.session_store import BOOKKEEPING, NOTE, UNDO, effective_events
from rules import get_game
from rules.core import SCHEMA_VERSION, Game


def known_game(name: str) -> Game | None:
    """The game called ``name``, or None when this box does not know it."""
    try:
        return get_game(name)
    except LookupError:
        return None


def seen_by(game: Game | None, viewer: str | None):
    """What ``viewer`` may see of an event (None: the public; a game not known here: all of it
    is withheld but its kind, as a secret might be anywhere in it)."""
    def view(event: dict) -> dict | None:
        if game is None:
            return {"type": event.get("type")}
        return game.event_view(event, viewer)
    return view


def whole(event: dict) -> dict:
    return event


def to_jsonl(header: dict, entries, show=whole) -> str:
    lines = [{"schema": SCHEMA_VERSION, "game": header["game"], "setup": header["setup"]}]
    lines += [seen for seen in map(show, effective_events(entries)) if seen is not None]
    return "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines)


def _player_of(body: dict) -> str:
    for key in ("player", "by", "to"):
        if isinstance(body.get(key), (str, int)):
            return str(body[key])
    return ""


def is_bookkeeping(entry) -> bool:
    return entry.kind == NOTE and entry.body.get("type") in BOOKKEEPING


def shown_body(entry, show) -> dict | None:
    """A journal entry's body as ``show`` lets it be seen (the events in it, and in a refused
    roll's or an undo's note, through the game's view)."""
    body = dict(entry.body)
    if entry.kind == "event":
        return show(body)
    for key in ("event", "undoes"):
        if isinstance(body.get(key), dict):
            body[key] = show(body[key])
    return body


def to_csv(entries, bookkeeping: bool = False, show=whole) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["seq", "time", "kind", "type", "player", "details"])
    for entry in entries:
        if is_bookkeeping(entry) and not bookkeeping:
            continue
        body = shown_body(entry, show)
        if body is None:
            continue
        if entry.kind == UNDO:
            kind_type = (body.get("undoes") or {}).get("type", "")
        else:
            kind_type = body.get("type", "")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(entry.at)) + f".{int(entry.at * 1000) % 1000:03d}"
        details = {k: v for k, v in body.items() if k != "type"}
        writer.writerow([entry.seq, stamp, entry.kind, kind_type,
                         _player_of(body if entry.kind != UNDO else body.get("undoes") or {}),
                         json.dumps(details, sort_keys=True)])
    return buffer.getvalue()
