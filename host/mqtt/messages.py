"""The payloads on the wire (see host/mqtt/__init__.py): built by the box, checked by the league.

Every payload is public: built only from ``event_view(event, None)`` and ``view_of(state, None)``.
A *standing* is the part of a public view every game's league needs, whatever the game::

    {"players": ["Ann", "Ben"], "points": [12, 9], "winners": ["Ann"], "over": true}

read from the public view's ``players`` (names, or objects with ``name`` and ``points``),
``points`` (one number per player) and ``winners`` / ``winner``. A game whose public view
has no points per player (Another Christmas Romance Movie is played against fate) gives
``points: null``: its games are counted as played, with no points or wins.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

EVENT, UNDO = "event", "undo"
KINDS = (EVENT, UNDO)


class BadMessage(ValueError):
    """A message that is not what this version sends; the text says what is wrong."""


def topic_events(prefix: str, box: str, session: str) -> str:
    return f"{prefix}/tables/{box}/{session}/events"


def topic_state(prefix: str, box: str, session: str) -> str:
    return f"{prefix}/tables/{box}/{session}/state"


def topic_online(prefix: str, box: str) -> str:
    return f"{prefix}/tables/{box}/online"


def topic_resend(prefix: str, box: str) -> str:
    return f"{prefix}/resend/{box}"


def encode(payload: Mapping[str, Any]) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")


def standing_of(public_view: Any, over: bool) -> dict:
    """Players, points, winners of a game's public view (see the module docstring)."""
    view = public_view if isinstance(public_view, Mapping) else {}
    seats = view.get("players")
    names: list[str] = []
    points: list | None = None
    if isinstance(seats, list) and all(isinstance(s, Mapping) and "name" in s for s in seats):
        names = [str(s["name"]) for s in seats]
        points = [s.get("points") for s in seats]
    elif isinstance(seats, list) and all(isinstance(s, str) for s in seats):
        names = list(seats)
        points = view.get("points") if isinstance(view.get("points"), list) else None
    if points is not None and (len(points) != len(names) or not all(is_number(p) for p in points)):
        points = None
    winners = view.get("winners")
    if not isinstance(winners, list):
        winners = [view["winner"]] if isinstance(view.get("winner"), str) else []
    return {"players": names, "points": points, "winners": [w for w in winners if w in names],
            "over": bool(over)}


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def entry_message(*, box: str, session: str, game: str, entry, prev: int, public: dict | None,
                  standing: dict) -> dict:
    """One journal entry (an event or an undo) as published; ``public`` is the public view of
    the event (or of the event undone)."""
    message = {"table": f"{box}/{session}", "box": box, "session": session, "game": game, "seq": entry.seq,
               "prev": prev, "at": entry.at, "kind": entry.kind, "standing": standing}
    message["event" if entry.kind == EVENT else "undoes"] = public
    return message


# -- checking what arrives (the league) ---------------------------------------------------------
def decode(payload: bytes) -> dict:
    try:
        message = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadMessage(f"not JSON ({exc})") from None
    if not isinstance(message, dict):
        raise BadMessage(f"a JSON {type(message).__name__}, expected an object")
    return message


def check_standing(standing: Any) -> dict:
    if not isinstance(standing, dict):
        raise BadMessage("standing: expected an object")
    players, points, winners = standing.get("players"), standing.get("points"), standing.get("winners")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise BadMessage("standing.players: expected a list of names")
    if points is not None and (not isinstance(points, list) or len(points) != len(players)
                               or not all(is_number(p) for p in points)):
        raise BadMessage("standing.points: expected one number per player, or null")
    if not isinstance(winners, list) or not all(w in players for w in winners):
        raise BadMessage("standing.winners: expected a list of the players' names")
    if not isinstance(standing.get("over"), bool):
        raise BadMessage("standing.over: expected true or false")
    return standing


def check_entry(message: dict, box: str, session: str) -> dict:
    """An events message that arrived on ``.../tables/BOX/SESSION/events``: its fields checked,
    and its table the topic's (a message naming another table is forged)."""
    if message.get("table") != f"{box}/{session}" or message.get("box") != box or message.get("session") != session:
        raise BadMessage(f"names table {message.get('table')!r} but came on {box}/{session}'s topic")
    seq, prev = message.get("seq"), message.get("prev")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise BadMessage(f"seq: expected a whole number >= 1, got {seq!r}")
    if not isinstance(prev, int) or isinstance(prev, bool) or not 0 <= prev < seq:
        raise BadMessage(f"prev: expected a whole number from 0 to seq - 1, got {prev!r}")
    if message.get("kind") not in KINDS:
        raise BadMessage(f"kind: expected one of {', '.join(KINDS)}, got {message.get('kind')!r}")
    if not isinstance(message.get("game"), str) or not message["game"]:
        raise BadMessage("game: expected the game's name")
    if not is_number(message.get("at")):
        raise BadMessage("at: expected the time it was stored (seconds)")
    check_standing(message.get("standing"))
    return message


def check_state(message: dict, box: str, session: str) -> dict:
    """A retained state message on ``.../tables/BOX/SESSION/state``, checked like :func:`check_entry`."""
    if message.get("table") != f"{box}/{session}":
        raise BadMessage(f"names table {message.get('table')!r} but came on {box}/{session}'s topic")
    last = message.get("last")
    if not isinstance(last, int) or isinstance(last, bool) or last < 0:
        raise BadMessage(f"last: expected a whole number >= 0, got {last!r}")
    if not isinstance(message.get("game"), str):
        raise BadMessage("game: expected the game's name")
    check_standing(message.get("standing"))
    return message
