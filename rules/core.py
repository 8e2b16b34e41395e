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

A game also says what it offers the table (the seam the one table loop in ``host/`` is
built on, so that the loop never names a game):

* ``options``: its settings (:class:`Option`), with defaults and checks; ``read_options`` is
  the one reader of its ``[<game-name>]`` table in the config file;
* ``chance(state, chosen=None)``: what the table must throw next (:class:`Chance`,
  OpenSpiel's chance node), or ``None`` for a game with no dice or no throw due. With
  ``chosen``, a dice event the players picked from ``legal_events`` that still lacks its
  faces (Jingle Bell Roll's one-die re-roll), the throw that completes that event, or
  ``None`` when it cannot be thrown now;
* ``legal_events(state)``: the choices open now, as events (an event the players still
  have to complete, such as a score with its gift cards, is given as far as it is known);
* ``view(state, viewer)`` and ``event_view(event, viewer)``: what ``viewer`` may see
  (boardgame.io's player view). ``viewer=None`` is the public table: everything a player
  can see without their own key. Secrets exist only in their owner's view until the game
  is over.

Replay files are JSON Lines. Line 1 is the header
``{"schema": 1, "game": NAME, "setup": {...}}``; every further line is one event.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol

SCHEMA_VERSION = 1

State = Any
Event = Mapping[str, Any]


class RuleError(Exception):
    """An event the rules do not allow. The message is meant for the players."""


class OptionError(RuleError):
    """A game option that is wrong: ``key`` names it, the message says what was expected."""

    def __init__(self, key: str, message: str):
        self.key = key
        super().__init__(message)


PUBLIC = None  # the viewer of the public table: e-ink, LEDs, the public page, logs, exports


@dataclass(frozen=True)
class Option:
    """One setting of a game, as the config file's ``[<game-name>]`` table and ``dicewatch
    games`` show it. ``check(value)`` returns the value to use (normalised) or raises
    ``ValueError`` saying what was expected. ``setup``: the value is a setup option of the
    session (kept in its header); otherwise it only steers the box (e.g. the box rolls fate)."""

    name: str
    default: Any
    help: str
    check: Callable[[Any], Any] = lambda value: value
    choices: tuple[Any, ...] = ()
    setup: bool = True

    def describe(self) -> dict[str, Any]:
        about: dict[str, Any] = {"name": self.name, "default": self.default, "help": self.help}
        if self.choices:
            about["choices"] = list(self.choices)
        return about


@dataclass(frozen=True)
class Chance:
    """What the table must throw next: OpenSpiel's chance node, seen from the table.

    ``event`` is the event the throw becomes, without its ``"faces"`` (the camera, a person
    or the box's RNG fills those in); ``dice`` how many dice are thrown; ``face_set`` which
    dice (``rules.dice``); ``standing`` the faces of the dice that stay where they lie and
    are part of the event's faces all the same (Jingle Bell Roll's BELLS), in no order;
    ``thrower`` who throws, for the screens (a player's name, or "fate"); ``seeded``: the box
    may roll it itself, as the same event with ``"seed"`` instead of ``"faces"``.
    """

    event: Mapping[str, Any]
    dice: int
    face_set: str
    standing: tuple[str, ...] = ()
    thrower: str | None = None
    seeded: bool = False

    @property
    def total(self) -> int:
        """All the dice the event names: the ones thrown and the ones standing."""
        return self.dice + len(self.standing)

    def with_faces(self, faces: Iterable[str]) -> dict[str, Any]:
        """The event with ``faces``: all of its dice, the standing ones included."""
        return {**self.event, "faces": list(faces)}


class ChanceRule(Protocol):
    """A game's ``chance``: the throw due in ``state`` or, with ``chosen`` (a dice event picked
    from ``legal_events`` without its faces), the throw that completes ``chosen``; ``None``
    when nothing is to be thrown."""

    def __call__(self, state: State, chosen: Event | None = None) -> Chance | None: ...


def no_chance(state: State, chosen: Event | None = None) -> Chance | None:
    """The default ``chance``: a game without dice never asks for a throw."""
    return None


def no_choices(state: State) -> tuple[Event, ...]:
    """The default ``legal_events``: a game that offers no choices."""
    return ()


def public_event(event: Event, viewer: str | None) -> Event | None:
    """The default ``event_view``: a game without secrets shows every event to everyone."""
    return event


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
    one line for people: whose turn it is, or who won. ``event_keys``, when given, names
    for each event type the keys it may carry besides ``"type"``: a new event with any
    other key is refused (a typed ``"playr"`` is an error, not a key silently ignored).
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
    event_keys: Mapping[str, frozenset[str]] | None = None
    status: Callable[[State], str] | None = None
    options: tuple[Option, ...] = ()
    chance: ChanceRule = no_chance
    legal_events: Callable[[State], tuple[Event, ...]] = no_choices
    view: Callable[[State, str | None], Any] | None = None
    event_view: Callable[[Event, str | None], Event | None] = public_event

    def view_of(self, state: State, viewer: str | None = PUBLIC) -> Any:
        """What ``viewer`` may see of ``state`` (``None``: the public table)."""
        if self.view is None:
            return self.to_json(state)
        return self.view(state, viewer)

    def option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        raise LookupError(f"{self.name} has no option {name!r}; options: "
                          f"{', '.join(o.name for o in self.options) or 'none'}")

    def read_options(self, table: Mapping[str, Any] | None) -> dict[str, Any]:
        """The game's options from its config table (``[<game-name>]``), each checked, the
        defaults filled in (copies, so the caller may change them). OptionError names the key;
        its message is ``[<game-name>] `` and the check's message, which gets ``<key>: ``
        in front when it does not name the key itself."""
        table = {} if table is None else table
        if not isinstance(table, Mapping):
            raise OptionError(self.name, f"{self.name}: expected a table [{self.name}]")
        known = {option.name: option for option in self.options}
        for key in table:
            if key not in known:
                raise OptionError(key, f"[{self.name}] unknown key {key!r}; expected one of "
                                  f"{', '.join(known) or '(this game has no options)'}")
        values = {}
        for name, option in known.items():
            if name not in table:
                values[name] = copy.deepcopy(option.default)
                continue
            try:
                values[name] = option.check(table[name])
            except (ValueError, TypeError, RuleError) as exc:
                raise OptionError(name, f"[{self.name}] {_naming(name, str(exc))}") from None
            if option.choices and values[name] not in option.choices:
                raise OptionError(name, f"[{self.name}] {name}: expected one of "
                                  f"{', '.join(map(str, option.choices))}, got {table[name]!r}")
        return values

    def setup_options(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Of ``values`` (from :meth:`read_options`), those that are setup options of a session,
        defaults included: the header then says exactly how the game was set up, even where
        the box's default is not the one ``setup`` assumes for a missing key (Another Christmas
        Romance Movie: the box plays solo, a header without ``mode`` is multiplayer). An option
        whose value is None ("the rules' own default", e.g. the example deck) is left out."""
        return {o.name: copy.deepcopy(values[o.name]) for o in self.options
                if o.setup and values.get(o.name) is not None}


def _naming(key: str, message: str) -> str:
    """``message`` about option ``key``, with ``key: `` in front unless it names the key already."""
    return message if key in message else f"{key}: {message}"


def check_setup_keys(options: Mapping[str, Any], known: Iterable[str]) -> None:
    """RuleError naming any key of a setup that the game does not know, and the ones it does."""
    known = sorted(known)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise RuleError(f"unknown setup option(s) {', '.join(unknown)}; valid: {', '.join(known)}")


def check_event_shape(event: Any) -> Event:
    """Reject anything that is not a JSON object with a string ``type``."""
    if not isinstance(event, Mapping):
        raise RuleError(f"an event must be a JSON object, got {type(event).__name__}")
    kind = event.get("type")
    if not isinstance(kind, str) or not kind:
        raise RuleError('an event needs a "type" naming what happened')
    return event


def event_keys(**keys_by_type: Iterable[str]) -> dict[str, frozenset[str]]:
    """A game's ``event_keys``: ``event_keys(bid=("player", "amount"), pass_=("player",))``
    (a trailing ``_`` lets a Python keyword name an event type)."""
    return {kind.rstrip("_"): frozenset(keys) for kind, keys in keys_by_type.items()}


def check_event_keys(game: "Game", event: Event) -> None:
    """RuleError naming any key an event of its type does not take, and the keys it does.

    Types the game does not list are left to ``apply`` (which says the type is unknown)."""
    known = game.event_keys.get(event.get("type")) if game.event_keys else None
    if known is None:
        return
    unknown = sorted(set(event) - known - {"type"})
    if unknown:
        takes = f"it takes {', '.join(sorted(known))}" if known else "it takes nothing but its type"
        raise RuleError(f"a {event['type']!r} event has no {'key' if len(unknown) == 1 else 'keys'} "
                        f"{', '.join(repr(k) for k in unknown)}; {takes}")


def new_event(game: "Game", event: Any) -> Event:
    """``event`` checked as one played now (a JSON object with a ``type``, only keys its type
    takes) and frozen (a canonical copy): RuleError says what is wrong with it."""
    event = freeze_json(check_event_shape(event))
    check_event_keys(game, event)
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
        return self.game.apply(self.state, new_event(self.game, event))

    def play(self, event: Event) -> State:
        """Apply and record ``event``; on RuleError nothing changes."""
        return self._record(new_event(self.game, event))

    def replay(self, event: Event) -> State:
        """Apply and record an event a journal already holds: as :meth:`play`, but its keys
        are not checked again, so a journal written by an older dicewatch still opens."""
        return self._record(freeze_json(check_event_shape(event)))

    def _record(self, event: Event) -> State:
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
        state = game.apply(state, new_event(game, event))
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
        except RecursionError:
            raise ReplayError(source, number, "JSON nested too deeply; expected a header or an event object") from None
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
