"""The games' host side: one module per game, found by itself as host/commands/ are.

A game is one rules module (``rules/``: the pure ``Game`` with its ``chance``,
``legal_events`` and views) plus one module here that says how the box shows it. Each
module here defines:

* ``GAME``: the rules game's name (``rules.get_game(GAME)``);
* ``Table``: a :class:`GameTable` subclass: its screens (home screen, what the LED bar
  shows, how a die is drawn), the words for its events in menus, and what it asks before
  the first throw. Everything it does not say, :class:`GameTable` does from the rules'
  seam alone, so a game with no screens of its own still plays at the box;
* ``add_setup_arguments(parser, command)``, ``SETUP_FLAGS`` and ``setup_options(args,
  players)`` (optional): its setup arguments for ``run`` and ``demo`` (``--mode`` ...; a flag
  given for another game is refused); ``loop_arguments(args, options)`` (optional): what
  they change in the TableLoop;
* ``DEMO`` (optional): the module path of its scripted demo (``run(args, size, out)``);
  without one, host/generic_demo.py plays it; ``BENCH`` and ``bench_player`` (optional): its
  setups and its player at the buttons for ``python -m host.bench_games``.

The loop (host.loop.TableLoop) has no game's name in it: it asks the rules what the table
must throw and which choices are open, and this module's ``Table`` how to show them.
Extra game modules (a game of your own, the tests' example game) are named in
``$DICEWATCH_GAMES`` (module paths, separated by commas) and load like the built-in ones.
"""
from __future__ import annotations

import importlib
import os
import pkgutil
from types import ModuleType
from typing import Any, Callable, Mapping, Sequence

from host.interactions import Choosing
from host.menus import BACK, Menu, MenuItem
from host.presenters import ATTENTION, READ_OK, WAITING, DieView, Screen, how_many_dice
from rules import game_names, register_game
from rules.core import PUBLIC, Chance, Game, RuleError
from rules.dice import faces_of

EXTRA_GAMES = "DICEWATCH_GAMES"


class GameModuleError(Exception):
    """A game module that cannot be loaded (one named in $DICEWATCH_GAMES, most likely)."""
_loaded: dict[str, ModuleType] | None = None


def _modules() -> dict[str, ModuleType]:
    """Every game module: the built-in ones here, then those named in $DICEWATCH_GAMES."""
    global _loaded
    if _loaded is None:
        found: dict[str, ModuleType] = {}
        names = [f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)]
        names += [name.strip() for name in os.environ.get(EXTRA_GAMES, "").split(",") if name.strip()]
        for name in names:
            try:
                module = importlib.import_module(name)
            except ImportError as exc:
                raise GameModuleError(f"${EXTRA_GAMES} names the game module {name!r}, which cannot be imported "
                                      f"({type(exc).__name__}: {exc}); expected a module path such as "
                                      "mygames.pig_table, on the Python path") from None
            add_module(module, found)
        order = game_names()   # the rules' own order (Jingle Bell Roll first), then the extra games
        _loaded = dict(sorted(found.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order)))
    return _loaded


def add_module(module: ModuleType, into: dict[str, ModuleType] | None = None) -> None:
    """Make ``module`` (a game's host module) known; its rules game is registered too when
    the module names it as ``RULES`` (a rules.core.Game) rather than a built-in name."""
    into = _modules() if into is None else into
    if not hasattr(module, "GAME") or not hasattr(module, "Table"):
        raise GameModuleError(f"{module.__name__} is not a game module: it needs GAME (the rules game's name) "
                              "and Table (a host.games.GameTable)")
    rules_game = getattr(module, "RULES", None)
    if rules_game is not None:
        register_game(rules_game)
    into[module.GAME] = module


def module_for(name: str) -> ModuleType:
    """The host module of the game called ``name``; LookupError lists the games."""
    modules = _modules()
    if name not in modules:
        raise LookupError(f"unknown game {name!r}; the box knows: {', '.join(sorted(modules))}")
    return modules[name]


def names() -> list[str]:
    return list(_modules())


def table_for(game: Game) -> type["GameTable"]:
    """The ``Table`` class that shows ``game`` (the plain :class:`GameTable` for a game with
    no host module: it plays from the rules' seam alone)."""
    module = _modules().get(game.name)
    return module.Table if module is not None else GameTable


def red_faces_of(dice_set: str) -> frozenset[str]:
    """The faces a game draws red (its BELL, its SNOWFLAKE), by the dice set it uses."""
    for module in _modules().values():
        if module.Table.dice_set == dice_set:
            return frozenset(module.Table.red_faces)
    return frozenset()


def add_setup_arguments(parser, command: str) -> None:
    """Every game module's own setup arguments for ``command`` (``run`` or ``demo``: ``--mode`` ...)."""
    for module in _modules().values():
        add = getattr(module, "add_setup_arguments", None)
        if add is not None:
            add(parser, command)


def check_setup_flags(args, name: str) -> None:
    """ValueError when ``args`` give a setup flag of another game than ``name`` (``--mode``
    without ``--game christmas-romance``): it would be silently ignored."""
    module = _modules().get(name)
    own = set(getattr(module, "SETUP_FLAGS", {}).values())
    for other, other_module in _modules().items():
        for flag, dest in getattr(other_module, "SETUP_FLAGS", {}).items():
            if dest not in own and getattr(args, dest, None):
                raise ValueError(f"{flag}: only for --game {other}, not {name}")


def loop_arguments(name: str, args, box_options: Mapping[str, Any]) -> dict:
    """The TableLoop keyword arguments for game ``name`` from ``run``'s arguments and its box
    options (the config's non-setup options, e.g. ``virtual_fate``); the game's module may
    add its own (``loop_arguments(args, options)``: Jingle Bell Roll's --no-characters)."""
    module = _modules().get(name)
    adapt = getattr(module, "loop_arguments", None)
    if adapt is not None:
        return adapt(args, dict(box_options))
    return {"options": dict(box_options)}


def demo_for(name: str) -> Callable:
    """The scripted demo of game ``name`` (its module's ``DEMO``: a module with ``run(args,
    size, out)``), else host.generic_demo's players, who choose among the legal events."""
    demo = getattr(module_for(name), "DEMO", None) or "host.generic_demo"
    return importlib.import_module(demo).run


def turn_knob_to(loop, index: int) -> None:
    """A scripted player turns the knob to item ``index`` of the open menu and pushes."""
    while loop.menu is not None and loop.menu.highlight != index:
        loop.handle("right" if index > loop.menu.highlight else "left")
    loop.handle("push")


def describe_event(event: Mapping[str, Any]) -> str:
    """Words for an event in a menu, for a game that gives none: its kind and its fields."""
    kind = str(event.get("type", "?")).replace("_", " ")
    fields = [f"{key} {value}" for key, value in event.items() if key != "type"]
    text = f"{kind}: {', '.join(fields)}" if fields else kind
    return text[:1].upper() + text[1:]


class GameTable:
    """How the box shows one game, bound to the loop that plays it (``loop``).

    The loop calls these methods; a game's module overrides what it shows differently.
    Everything here uses only the rules' seam (``chance``, ``legal_events``, ``view``,
    ``status``, ``scoreboard``, ``is_over``), so a new game with no screens of its own
    plays at the box as it is: the throw its ``chance`` asks for is read, and its choices
    are a knob menu of its ``legal_events``.

    :param loop: the host.loop.TableLoop playing the game.
    :param options: the game's box options (``[<game-name>]`` in the config; the loop's
        ``options``), e.g. ``virtual_fate``.
    :param new_seed: where the seeds of throws the box makes itself come from.
    """

    dice_set: str | None = None      # the dice drawn on the screens (rules.dice face set)
    red_faces: tuple[str, ...] = ()  # faces drawn red (a game's special face)
    dice_stay = False                # dice lie where they were between the throws of a turn
    warns_of_light = True            # a light warning from the camera is shown
    correct_menu_light: str | None = ATTENTION
    refused_hint = "push the knob to enter the dice one by one"

    def __init__(self, loop, options: Mapping[str, Any], new_seed: Callable[[], int] | None = None):
        self.loop = loop
        self.options = dict(options)
        self.new_seed = new_seed
        if self.dice_set is None and loop.game.dice:
            self.dice_set = loop.game.dice

    # -- shortcuts ---------------------------------------------------------------------------
    @property
    def state(self):
        return self.loop.state

    @property
    def game(self) -> Game:
        return self.loop.game

    @property
    def throw_events(self) -> frozenset[str]:
        """The kinds of event a throw becomes (the corrections apply to these)."""
        chance = self.game.chance(self.state)
        return frozenset({chance.event["type"]}) if chance is not None else frozenset()

    def public_status(self) -> str:
        return self.game.status(self.state) if self.game.status else ""

    def face_names(self) -> tuple[str, ...]:
        return faces_of(self.dice_set or "d6-pips")

    def bar(self) -> int:
        """What the LED bar shows (0-10)."""
        return 0

    def dice_views(self, faces: Sequence[str], confidences: Sequence[float] | None = None,
                   flagged: Sequence[int] = ()) -> tuple[DieView, ...]:
        flagged = set(flagged)
        return tuple(DieView(face, confidence=confidences[i] if confidences else 1.0, flagged=i in flagged,
                             locked=face in self.red_faces) for i, face in enumerate(faces))

    # -- screens -----------------------------------------------------------------------------
    def start(self) -> None:
        self.loop.show_home()

    def home(self) -> None:
        """The screen when nothing is asked: the throw due, or the public scoreboard."""
        state, loop = self.state, self.loop
        chance = self.game.chance(state)
        if chance is not None and not self.game.is_over(state):
            who = chance.thrower or "the table"
            loop.show(Screen("prompt", title=f"{who}: roll {how_many_dice(chance.dice)}",
                             lines=("roll them into the tray; the box reads them when they stop",),
                             footer=self.public_status()))
            loop.status(WAITING)
            return
        rows = self.game.scoreboard(state)
        loop.show(Screen("scoreboard", title=self.game.title, table=tuple(tuple(map(str, r)) for r in rows),
                         footer=self.public_status()))
        loop.status(READ_OK if self.game.is_over(state) else WAITING)

    def show_awaited(self, event: Mapping[str, Any]) -> None:
        self.loop.show(Screen("prompt", title=describe_event(event), lines=("roll the dice into the tray",)))
        self.loop.status(WAITING)

    def still_light(self) -> str:
        return WAITING

    # -- the knob ------------------------------------------------------------------------------
    def label(self, event: Mapping[str, Any]) -> str:
        """Words for one of the game's events in a menu."""
        return describe_event(event)

    def public_choices(self) -> list[dict]:
        """The choices offered where everyone sees them (the knob's menu, the phone page's
        Controls): the game's legal events whose public view is the whole event. A secret
        choice (an event whose public view hides part of it) is made by its owner on their own
        device (TableLoop.choose_privately). A game whose legal events themselves tell a
        secret (how many tokens a bidder holds) offers something wider here."""
        return [dict(event) for event in self.game.legal_events(self.state)
                if self.game.event_view(event, PUBLIC) == event]

    def choices_menu(self) -> Menu:
        """The knob's menu: :meth:`public_choices`, then correct a die, undo, back."""
        items = [MenuItem(self.label(event), event) for event in self.public_choices()]
        if "faces" in (self.loop.last_dice_event() or {}):
            items.append(MenuItem("Correct a die", "correct"))
        items += [MenuItem("Undo the last event", "undo"), MenuItem("Back", BACK)]
        return Menu("choices", self.public_status() or self.game.title, tuple(items))

    def on_push(self) -> None:
        if self.game.is_over(self.state):
            self.loop.show_home()
            return
        self.loop.open_menu(self.choices_menu())

    def on_score(self) -> None:
        self.on_push()

    def on_next(self) -> None:
        if self.game.is_over(self.state):
            self.loop.new_game()
        else:
            self.loop.show_home()

    def turn(self, step: int) -> None:
        """The knob turned with nothing asked."""

    def choose(self, menu: Menu, value: Any) -> None:
        """A menu item the loop does not handle itself: an event is played."""
        if isinstance(value, Mapping):
            self.play_chosen(dict(value))
        else:
            self.loop.show_home()

    def play_chosen(self, event: dict) -> None:
        self.loop.play(event)
        if self.game.is_over(self.state):
            self.loop.table.close()
        self.loop.show_home()

    def private_label(self, event: Mapping[str, Any]) -> str:
        """Words for a secret choice on its owner's own page: the public part, then what the
        public does not see ("Lucky: player Ann: face 4")."""
        public = self.game.event_view(event, PUBLIC) or {}
        hidden = {k: v for k, v in event.items() if public.get(k) != v}
        words = self.label(public or event)
        return words + (": " + ", ".join(f"{k} {v}" for k, v in hidden.items()) if hidden else "")

    def private_lines(self, view: Any, player: str) -> list[str] | None:
        """``player``'s own view (``view(state, player)``) in words for their own page, or None
        to show it as it is (JSON)."""
        return None

    def tick(self, now: float) -> None:
        """Called once per turn of the loop with its clock (a screen that clears itself)."""

    def next_on_menu(self, menu: Menu) -> bool:
        """Next on a menu (closed already); True when the game handled it."""
        return False

    def undo_on_menu(self, menu: Menu) -> bool:
        """Undo on a menu (closed already); True when the game handled it."""
        return False

    def notice_takes(self, command: str, below) -> bool:
        """Whether ``command`` only puts away the notice on the screen (``below``: what it lies over)."""
        return command in ("undo", "next")

    # -- choices in several steps ----------------------------------------------------------------
    def answer_refused(self, exc: RuleError) -> None:
        self.loop.error("Not allowed", str(exc))

    def answered(self, event: dict) -> None:
        self.play_chosen(event)

    def restart_steps(self, steps):
        return steps

    def answers(self) -> dict:
        """Answers given but not yet events, journalled for --resume (none by default)."""
        return {}

    def take_up(self, answers: Mapping[str, Any], still_current: bool) -> None:
        """Take up the answers journalled last (``still_current``: no event since)."""

    def forget_answers(self) -> None:
        """A new game, or answers that could not be taken up."""

    # -- throws --------------------------------------------------------------------------------
    def read_chance(self, awaited: Mapping[str, Any] | None) -> Chance | None:
        """The throw a settled read answers (``awaited``: one the players announced)."""
        return self.game.chance(self.state, awaited) if awaited is not None else self.game.chance(self.state)

    def wanted_chance(self, awaited: Mapping[str, Any] | None) -> Chance | None:
        """The throw the players should make now (the synthetic camera's players follow it)."""
        return self.read_chance(awaited)

    def not_reading(self) -> str | None:
        return None

    def throw_not_read(self) -> str | None:
        return None

    def unasked_read(self, faces: Sequence[str]) -> Chance | None:
        """Dice settled while no throw is due: None lets them lie."""
        return None

    def straight_away(self, count: int) -> Chance | None:
        return None

    def close_menu_for_read(self) -> None:
        """A throw due was read: a menu left open is closed (the dice were rolled)."""
        top = self.loop.stack.top()
        if isinstance(top, Choosing):
            self.loop.close_menu()

    def close_menu_for_dice(self) -> None:
        pass

    def faces_on_table(self) -> list[str] | None:
        """The faces of the dice lying on the table from the last throw (a read showing the
        same is no new throw), or None."""
        return self.loop.last_read

    def wrong_count(self, chance: Chance, seen: int) -> tuple[str, str]:
        who = chance.thrower or "the table"
        return (f"{who} rolls {chance.total}: put exactly {how_many_dice(chance.total)} in the tray and "
                "they are read again", "or push the knob to enter the dice one by one")

    def proposed(self, faces: list[str], confidences: Sequence[float], spots: Sequence, chance: Chance) -> list[str]:
        return faces

    def note_context(self) -> dict:
        """What a journal note about a read says of where the game stood."""
        return {}

    def thrown(self, event: Mapping[str, Any]) -> None:
        """A throw was stored."""
        if self.game.is_over(self.state):
            self.loop.table.close()
        self.loop.status(READ_OK)
        self.loop.show_home()

    def faces_rolled_by_the_box(self) -> list[str]:
        return []

    # -- corrections -----------------------------------------------------------------------------
    def why_not_correctable(self, last: Mapping[str, Any] | None, index: int) -> str | None:
        if last is None:
            return "there is no roll to correct now"
        if "faces" not in last:
            return "only the dice read by the camera can be corrected (the box rolled these)"
        if not 0 <= index < len(last["faces"]):
            return f"there is no die {index + 1} in the last roll ({how_many_dice(len(last['faces']))})"
        return None

    def correction_context(self, last: Mapping[str, Any]) -> dict:
        return {"event": last["type"]}

    def corrected(self, last: Mapping[str, Any], faces: list[str]) -> dict:
        return {**last, "faces": faces}

    def before_undo(self) -> None:
        pass

    def after_undo(self, undone: Mapping[str, Any]) -> bool:
        """An event was taken back; True when the game showed what comes next itself."""
        return False

    def closing_words(self) -> str:
        """What the terminal says at the end of a game, after the box stops (nothing by default)."""
        return ""

    # -- public views ------------------------------------------------------------------------------
    def public_view(self) -> Any:
        return self.game.view_of(self.state, PUBLIC)
