"""The rules machinery every game shares: a game definition, events, sessions, replay files.

Modelled on boardgame.io and OpenSpiel:

* A game is a plain :class:`Game` definition: ``setup(options) -> State`` and
  ``apply(state, event) -> State``. Both are pure: no I/O, no clock, no randomness
  except an RNG seeded from data in the state or the event.
* State is immutable (frozen dataclasses and tuples). ``apply`` returns a new state or
  raises :class:`RuleError` with a message a player understands, and never half-applies.
* An event is a plain JSON object (a ``dict`` with a ``"type"`` key). A die result is an
  event like any other: the camera, a person or the device's own RNG reported it.
* A :class:`Session` is the setup plus an append-only list of events. Current state is the
  fold of ``apply`` over the events; undo drops the last event; saving writes the events;
  crash recovery replays them.

Replay files are JSON Lines. Line 1 is the header
``{"schema": 1, "game": NAME, "setup": {...}}``; every further line is one event.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

SCHEMA_VERSION = 1

State = Any
Event = Mapping[str, Any]


class RuleError(Exception):
    """An event the rules do not allow. The message is meant for the players."""


class ReplayError(Exception):
    """A replay file that cannot be read. Says which line and why."""

    def __init__(self, source: str, line: int, reason: str):
        self.source, self.line, self.reason = source, line, reason
        super().__init__(f"{source}:{line}: {reason}")


@dataclass(frozen=True)
class Game:
    """A game definition, read top to bottom like boardgame.io's ``Game`` object.

    ``setup(options)`` builds the initial state from a JSON-able options mapping
    (players, variants, overrides of rulebook gaps). ``apply(state, event)`` is the only
    way the state changes. ``is_over(state)`` says whether the game has ended.
    ``scoreboard(state)`` gives rows for a readable table (first row = headers) and
    ``to_json(state)`` a JSON-able view for machines. ``status(state)``, when given, is
    one line for people: whose turn it is, or who won.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    dice: str | None
    setup: Callable[[Mapping[str, Any]], State]
    apply: Callable[[State, Event], State]
    is_over: Callable[[State], bool]
    scoreboard: Callable[[State], list[list[str]]]
    to_json: Callable[[State], Any]
    event_types: tuple[str, ...] = ()
    status: Callable[[State], str] | None = None


def check_event_shape(event: Any) -> Event:
    """Reject anything that is not a JSON object with a string ``type``."""
    if not isinstance(event, Mapping):
        raise RuleError(f"an event must be a JSON object, got {type(event).__name__}")
    kind = event.get("type")
    if not isinstance(kind, str) or not kind:
        raise RuleError('an event needs a "type" naming what happened')
    return event


def freeze_json(value: Any) -> Any:
    """A deep, canonical copy of a JSON value, so the log cannot be changed from outside."""
    return json.loads(json.dumps(value, sort_keys=True))


@dataclass
class Session:
    """One game: the setup and the events so far. The events are the truth.

    >>> s = Session(game, {"players": ["Ann", "Ben"]})   # doctest: +SKIP
    >>> s.play({"type": "roll", "faces": [...]})          # doctest: +SKIP
    >>> s.undo()                                          # doctest: +SKIP
    """

    game: Game
    setup_options: Mapping[str, Any]
    events: list[Event] = field(default_factory=list)
    _states: list[State] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.setup_options = freeze_json(dict(self.setup_options))
        given, self.events = list(self.events), []
        self._states = [self.game.setup(self.setup_options)]
        for event in given:
            self.play(event)

    @property
    def state(self) -> State:
        return self._states[-1]

    def check(self, event: Event) -> State:
        """The state ``event`` would lead to, without recording it (raises RuleError)."""
        event = freeze_json(check_event_shape(event))
        return self.game.apply(self.state, event)

    def play(self, event: Event) -> State:
        """Apply and record ``event``; on RuleError nothing changes."""
        event = freeze_json(check_event_shape(event))
        new_state = self.game.apply(self.state, event)
        self.events.append(event)
        self._states.append(new_state)
        return new_state

    def undo(self) -> Event:
        """Drop the last event and return it. Raises RuleError when there is nothing to undo."""
        if not self.events:
            raise RuleError("nothing to undo: no event has been recorded yet")
        self._states.pop()
        return self.events.pop()

    def header(self) -> dict[str, Any]:
        return {"schema": SCHEMA_VERSION, "game": self.game.name, "setup": self.setup_options}

    def to_jsonl(self) -> str:
        lines = [self.header()] + list(self.events)
        return "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines)


def fold(game: Game, setup_options: Mapping[str, Any], events: Iterable[Event]) -> State:
    """The state after ``events``, without keeping the intermediate states."""
    state = game.setup(freeze_json(dict(setup_options)))
    for event in events:
        state = game.apply(state, freeze_json(check_event_shape(event)))
    return state


def parse_header(obj: Any, source: str = "<replay>", line: int = 1) -> tuple[str, dict[str, Any]]:
    """Validate a replay header line; return (game name, setup options)."""
    if not isinstance(obj, dict):
        raise ReplayError(source, line, "the first line must be a JSON object header "
                          '{"schema": 1, "game": NAME, "setup": {...}}')
    schema = obj.get("schema")
    if schema != SCHEMA_VERSION:
        raise ReplayError(source, line, f"unsupported schema version {schema!r}; this dicewatch reads "
                          f"schema {SCHEMA_VERSION}")
    name = obj.get("game")
    if not isinstance(name, str):
        raise ReplayError(source, line, 'the header needs "game": the name of the game')
    setup = obj.get("setup", {})
    if not isinstance(setup, dict):
        raise ReplayError(source, line, '"setup" must be a JSON object')
    return name, setup


def load_replay(text: str, games: Mapping[str, Game] | Callable[[str], Game],
                source: str = "<replay>") -> Session:
    """Read a replay file's text into a Session, checking every event by the rules.

    Raises ReplayError naming the line (1-based) and the reason for a malformed line,
    an unknown game, bad setup options or an illegal event. Blank lines are skipped.
    """
    lookup = games if callable(games) else games.__getitem__
    session: Session | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ReplayError(source, number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        if session is None:
            name, setup = parse_header(obj, source, number)
            try:
                game = lookup(name)
            except (KeyError, LookupError) as exc:
                raise ReplayError(source, number, f"unknown game {name!r} ({exc})") from None
            try:
                session = Session(game, setup)
            except RuleError as exc:
                raise ReplayError(source, number, f"bad setup: {exc}") from None
            continue
        try:
            session.play(obj)
        except RuleError as exc:
            raise ReplayError(source, number, f"illegal event: {exc}") from None
    if session is None:
        raise ReplayError(source, 1, "the file is empty; expected a header line")
    return session


def format_table(rows: list[list[str]]) -> str:
    """A plain-text table with aligned columns; the first row is the header."""
    if not rows:
        return ""
    widths = [max(len(str(row[i])) if i < len(row) else 0 for row in rows) for i in range(len(rows[0]))]
    def line(row: list[str]) -> str:
        return "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip()
    out = [line(rows[0]), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in rows[1:]]
    return "\n".join(out)
