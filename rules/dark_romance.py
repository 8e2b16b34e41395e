"""Dark Romance: two players, two secret roles, five relationship coins, one referee.

No dice and no cards the box can see: the players tell it what they do, and it keeps the
board, the collected symbols, the courtier visits and both secret roles, and settles the
ending by the rulebook. The digest, with every assumption, is seeds/dark-romance.md; the
win-condition board is rules/dark_romance_board.py (data: rules/data/).

The game, top to bottom:

* setup: two players (the first listed starts), a scenario (1: the tutorial, 6 roles, four
  coins, no Manipulation, the 3x3 side of the win board; 2: 8 roles, all five coins, the 5x5
  side; 3 and up: all 10 roles), the courtiers in play, the coins on their starting spaces.
  Spaces are numbered so that a higher number is closer to the Center; a coin pushed from
  the last space (``spaces``) enters the Center, where coins stack in arrival order.
* roles: each player enters the role on the card they drew, or the box deals both.
* a turn: the active player may visit courtiers, plays one scene (the box is told only its
  category symbol: Feelings, Words or Deeds), the other player reacts by pushing the one or
  two coins the chosen reaction shows, in the order they choose; the scene's symbol is then
  collected; the active player may visit courtiers again and ends the turn.
* a visit pays uncovered collected symbols (they are covered for good) and resolves the
  courtier's effect: the Maidservant (3 Words) pushes one coin; the Monk draws two new
  scene cards (nothing on the board); a courtier whose cost or effect the rulebook does not
  give is entered by the players: what they paid, and the coins it moved (``push`` /
  ``pull``, then ``done``).
* the end: at the end of a turn with a coin in the Center. The verdict reads the Center from
  the top coin down (direct victory, 2 points; Romance shared, 2 each), then the closest
  coins (indirect victory, 1 point; equidistant: a draw; shared Romance: Romance closer than
  Rejection, 1 each, else 0 each), with the Tragic Poets' own-turn rule. A cell the win board
  lacks is never guessed: the players read it off their board (``win_condition``).
* a series: ``series_points`` and ``game_number`` in the setup carry the running totals into
  the next game (``next_game_setup``); each game is its own session, so its secrets and its
  undo stay its own.

Events (plain JSON; ``player`` is a name from ``players``):

* ``{"type": "role", "player": P, "role": R}``: P's secret role (an id such as
  ``"demon-huntress"`` or the printed name), entered from the card P drew; P may enter it
  again until both have. Public ``event_view``: ``{"type": "role", "player": P}``.
* ``{"type": "draw_roles", "seed": N}``: the box deals both roles; N (an int the host takes
  from ``secrets``) decides them, so it stays secret until the end. Public: ``{"type": "draw_roles"}``.
* ``{"type": "scene", "player": P, "category": "feelings" | "words" | "deeds"}``: the active
  player plays a scene of that category.
* ``{"type": "react", "player": P, "coins": [C] | [C1, C2]}``: the reacting player pushes the
  coins of their reaction one step toward the Center, in this order. Coins: romance,
  temptation, rejection, boldness, manipulation (not in scenario 1).
* ``{"type": "visit", "player": P, "courtier": NAME, "pay": [symbols]}``: the active player
  visits a courtier, covering the symbols paid (``pay`` may be left out when the courtier's
  cost is known).
* ``{"type": "push", "player": P, "coin": C}`` / ``{"type": "pull", ...}``: the courtier
  being visited moves a coin one step toward / away from the Center (``pull`` only for a
  courtier whose effect the box does not know).
* ``{"type": "done", "player": P}``: the end of such a courtier's effect.
* ``{"type": "end_turn", "player": P}``: the active player ends the turn.
* ``{"type": "win_condition", "role": R, "against": R2, "coin": C}``: after the end, the coin
  R needs against R2, read off the players' own win board where the box's board lacks it.

Secrets: the roles and the deal's seed are in a player's own ``view`` (their role, their row
of the win board) and in everyone's once the game has ended, never before in the public
view, status, scoreboard, ``legal_events`` or an error message.
"""
from __future__ import annotations

import copy
import itertools
import random
from dataclasses import dataclass, replace
from typing import Any, Mapping

from rules.core import Game, Option, PUBLIC, RuleError, check_setup_keys, event_keys
from rules.dark_romance_board import (COIN_NAMES, COINS, FAMILY_OF, POETS, ROLE_NAMES, ROLES, RULES_OF_THE_TEXT,
                                      SIDE_COINS, SIDES, STATED, BoardError, check_board, coin_id, family_words,
                                      merged, role_id)

NAME = "dark-romance"
CATEGORIES = ("feelings", "words", "deeds")
EFFECTS = ("push", "redraw", "unknown")
SCENARIOS = tuple(range(1, 12))          # 11 scenario cards; 3 and up are set up alike

# -- data the rulebook gives, and the gaps (rules/data/dark-romance.toml; seeds/) --------------
TUTORIAL_ROLES = ROLES[:6]
SCENARIO_COURTIERS = {1: ("Maidservant", "Healer", "Henchman"),
                      2: ("Healer", "Maidservant", "Innkeeper", "Chambermaid", "Barber")}
SCENE_CARDS = {1: 24, 2: 42}             # the purple deck; the tutorial leaves out Manipulation's
DEFAULTS = {
    "spaces": 5,                          # ASSUMPTION: the board is a picture
    "start": {coin: 1 for coin in COINS},  # ASSUMPTION: every coin on the edge, space 1
    "courtier_cards": {                   # cost "unknown": the players enter what they paid
        "Maidservant": {"cost": ["words", "words", "words"], "effect": "push"},
        "Monk": {"cost": "unknown", "effect": "redraw"},
        "Healer": {"cost": "unknown", "effect": "unknown"},
        "Henchman": {"cost": "unknown", "effect": "unknown"},
        "Innkeeper": {"cost": "unknown", "effect": "unknown"},
        "Chambermaid": {"cost": "unknown", "effect": "unknown"},
        "Barber": {"cost": "unknown", "effect": "unknown"},
    },
}


def scenario_roles(scenario: int) -> tuple[str, ...]:
    return TUTORIAL_ROLES if scenario == 1 else ROLES[:8] if scenario == 2 else ROLES


def scenario_side(scenario: int) -> str:
    return "tutorial" if scenario == 1 else "advanced"


def scene_cards(scenario: int) -> int:
    """The purple deck's size: the tutorial's leaves out the cards with Manipulation symbols."""
    return SCENE_CARDS[min(scenario, 2)]


# -- state -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Courtier:
    name: str
    cost: tuple[str, ...] | None      # None: not in the rulebook, the players enter what they paid
    effect: str                       # push (one coin), redraw (Monk), unknown (players enter moves)


@dataclass(frozen=True)
class Rules:
    scenario: int
    spaces: int
    courtiers: tuple[Courtier, ...]
    board: tuple[tuple[tuple[str, str], str], ...]    # ((row, column), coin) of this game's side
    series_points: tuple[int, int]
    game_number: int

    @property
    def side(self) -> str:
        return scenario_side(self.scenario)

    @property
    def roles(self) -> tuple[str, ...]:
        return scenario_roles(self.scenario)

    @property
    def coins(self) -> tuple[str, ...]:
        return SIDE_COINS[self.side]

    def courtier(self, name: Any) -> Courtier:
        for courtier in self.courtiers:
            if courtier.name == name:
                return courtier
        raise RuleError(f"{name!r} is not a courtier in play; in play: {', '.join(c.name for c in self.courtiers)}")


@dataclass(frozen=True)
class Visit:
    courtier: Courtier
    back_to: str                      # the step the turn returns to: scene or after
    moved: int = 0


@dataclass(frozen=True)
class Verdict:
    outcome: str                      # direct, shared-direct, indirect, shared-indirect, shared-loss, draw, unsettled
    points: tuple[int, int]
    reason: str
    missing: tuple[tuple[str, str], ...] = ()   # (role, against): the cells the box lacks


@dataclass(frozen=True)
class State:
    players: tuple[str, str]
    rules: Rules
    positions: tuple[tuple[str, int], ...]      # the coins off the Center -> their space
    roles: tuple[str | None, str | None] = (None, None)   # SECRET until the end
    seed: int | None = None                     # SECRET until the end: the deal's randomness
    phase: str = "roles"     # roles, scene, reaction, visit, after, settle, over
    turn: int = 1
    active: int = 0
    center: tuple[str, ...] = ()                # bottom first
    collected: tuple[tuple[int, ...], ...] = ((0, 0, 0), (0, 0, 0))   # per player, by CATEGORIES
    covered: tuple[tuple[int, ...], ...] = ((0, 0, 0), (0, 0, 0))
    scene: str | None = None                    # the category of the scene awaiting its reaction
    visit: Visit | None = None
    settled: tuple[tuple[tuple[str, str], str], ...] = ()   # cells the players read off their board
    verdict: Verdict | None = None
    last: str = ""

    @property
    def reacting(self) -> int:
        return 1 - self.active

    @property
    def ended(self) -> bool:
        """Play is over: the roles are shown to everyone (the verdict may still wait for a cell)."""
        return self.phase in ("settle", "over")

    def space(self, coin: str) -> int | None:
        """The space ``coin`` is on; None in the Center."""
        return dict(self.positions).get(coin)

    def uncovered(self, player: int) -> tuple[int, ...]:
        return tuple(a - b for a, b in zip(self.collected[player], self.covered[player]))


# -- options and setup ---------------------------------------------------------------------------
def _check_scenario(value: Any) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or value not in SCENARIOS:
        raise ValueError(f"expected a whole number from 1 to {SCENARIOS[-1]}, got {value!r}")
    return value


def _check_spaces(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= 20:
        raise ValueError(f"expected the number of spaces from the edge to the Center, 2 to 20, got {value!r}")
    return value


def _check_start(value: Any) -> dict[str, int]:
    if not isinstance(value, Mapping) or {coin_id(k) for k in value} != set(COINS):
        raise ValueError(f"expected a starting space for each coin: {', '.join(COINS)}")
    start = {}
    for coin, space in value.items():
        if isinstance(space, bool) or not isinstance(space, int) or space < 1:
            raise ValueError(f"{coin}: expected a space number of 1 or more, got {space!r}")
        start[coin_id(coin)] = space
    return start


def _check_courtier_cards(value: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(value, Mapping) or not value:
        raise ValueError('expected a table of courtiers: NAME = {cost = ["words", ...] or "unknown", '
                         'effect = "push" | "redraw" | "unknown"}')
    cards = {}
    for name, card in value.items():
        if not isinstance(card, Mapping) or set(card) != {"cost", "effect"}:
            raise ValueError(f"courtier {name!r}: expected exactly cost and effect")
        cost, effect = card["cost"], card["effect"]
        if cost != "unknown" and (not isinstance(cost, list) or not cost or any(c not in CATEGORIES for c in cost)):
            raise ValueError(f"courtier {name!r}: cost is \"unknown\" or a list of symbols ({', '.join(CATEGORIES)}), "
                             f"got {cost!r}")
        if effect not in EFFECTS:
            raise ValueError(f"courtier {name!r}: effect is one of {', '.join(EFFECTS)}, got {effect!r}")
        cards[str(name)] = {"cost": cost if cost == "unknown" else list(cost), "effect": effect}
    return cards


def _check_courtiers(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(n, str) and n for n in value):
        raise ValueError('expected the names of the courtiers on your scenario card, e.g. ["Healer", "Monk"]')
    return list(value)


def _check_win_board(value: Any) -> dict:
    try:
        return check_board(value)
    except BoardError as exc:
        raise ValueError(f"win_board.{exc}") from None


OPTIONS = (
    Option("scenario", 1, "The scenario card: 1 the tutorial (6 roles, no Manipulation), 2 (8 roles, all five "
           "coins), 3 and up (all 10 roles).", check=_check_scenario, choices=SCENARIOS),
    Option("spaces", DEFAULTS["spaces"], "ASSUMPTION (the board is a picture): spaces from a coin's edge to the "
           "Center; a coin pushed from this space enters the Center.", check=_check_spaces),
    Option("start", dict(DEFAULTS["start"]), "ASSUMPTION (shown only in the pictures): each coin's starting "
           "space (1 = the edge).", check=_check_start),
    Option("courtiers", None, "The courtiers in play (null: scenario 1 Maidservant, Healer, Henchman; 2 Healer, "
           "Maidservant, Innkeeper, Chambermaid, Barber; 3 and up every courtier the box knows).",
           check=_check_courtiers),
    Option("courtier_cards", {k: dict(v) for k, v in DEFAULTS["courtier_cards"].items()},
           "What each courtier costs and does; \"unknown\" (not in the transcription): the players enter what "
           "they paid and the coins it moved.", check=_check_courtier_cards),
    Option("win_board", STATED, "The win-condition board {tutorial|advanced: {row: {opponents: coin}}}; ships "
           "with only the cells the rulebook states (dicewatch win-board lists the rest).", check=_check_win_board),
)
SETUP_KEYS = {"players", "series_points", "game_number"} | {o.name for o in OPTIONS}


def setup(options: Mapping[str, Any]) -> State:
    check_setup_keys(options, SETUP_KEYS)
    players = _check_players(options.get("players"))
    values = {o.name: _checked(o, options) for o in OPTIONS}
    scenario, spaces = values["scenario"], values["spaces"]
    start = values["start"]
    too_far = [coin for coin, space in start.items() if space > spaces]
    if too_far:
        raise RuleError(f"start: {', '.join(too_far)} would start beyond space {spaces}, the last before the Center")
    side = scenario_side(scenario)
    board = tuple(((row, column), coin) for row, cells in values["win_board"].get(side, {}).items()
                  for column, coin in cells.items())
    rules = Rules(scenario=scenario, spaces=spaces, courtiers=_courtiers_in_play(values), board=board,
                  series_points=_check_series(options.get("series_points", {}), players),
                  game_number=_check_game_number(options.get("game_number", 1)))
    positions = tuple((coin, start[coin]) for coin in rules.coins)
    return State(players=players, rules=rules, positions=positions,
                 last=f"game {rules.game_number}, scenario {scenario}: enter your roles")


def _check_players(players: Any) -> tuple[str, str]:
    if (not isinstance(players, list) or len(players) != 2 or len(set(players)) != 2
            or not all(isinstance(p, str) and p.strip() for p in players)):
        raise RuleError('"players": expected two different names, the one who starts first')
    return tuple(players)


def _checked(option: Option, options: Mapping[str, Any]) -> Any:
    if options.get(option.name) is None:
        return copy.deepcopy(option.default)
    try:
        return option.check(options[option.name])
    except ValueError as exc:
        raise RuleError(f"{option.name}: {exc}") from None


def _courtiers_in_play(values: Mapping[str, Any]) -> tuple[Courtier, ...]:
    cards = values["courtier_cards"]
    names = values["courtiers"] or SCENARIO_COURTIERS.get(values["scenario"]) or \
        tuple(name for name in cards if name != "Henchman")   # the Henchman is printed on scenario 1's card
    lacking = [name for name in names if name not in cards]
    if lacking:
        raise RuleError(f"courtiers: {', '.join(lacking)} not in courtier_cards; describe "
                        f"{'it' if len(lacking) == 1 else 'them'} there (cost, effect) or choose from "
                        f"{', '.join(cards)}")
    return tuple(Courtier(name, None if cards[name]["cost"] == "unknown" else tuple(cards[name]["cost"]),
                          cards[name]["effect"]) for name in names)


def _check_series(value: Any, players: tuple[str, str]) -> tuple[int, int]:
    if not isinstance(value, Mapping) or not set(value) <= set(players) or any(
            isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in value.values()):
        raise RuleError(f"series_points: expected the points so far in the series by player ({', '.join(players)}), "
                        f"whole numbers of 0 or more, got {value!r}")
    return tuple(value.get(name, 0) for name in players)


def _check_game_number(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RuleError(f"game_number: expected 1 or more (the game's number in the series), got {value!r}")
    return value


def next_game_setup(setup_options: Mapping[str, Any], state: State) -> dict[str, Any]:
    """The setup of the series' next game after ``state`` (over): the same table, the running
    totals carried, and the board cells the players settled kept for good."""
    if state.phase != "over":
        raise RuleError("the next game of the series starts once this one is over")
    board = dict(setup_options.get("win_board") or STATED)
    learned = {state.rules.side: {}}
    for (row, column), coin in state.settled:
        learned[state.rules.side].setdefault(row, {})[column] = coin
    return {**setup_options, "players": list(state.players), "win_board": merged(check_board(board), learned),
            "series_points": {name: total for name, total in zip(state.players, series_totals(state))},
            "game_number": state.rules.game_number + 1}


# -- events ----------------------------------------------------------------------------------------
# the keys each event may carry besides "type"
EVENT_KEYS = event_keys(role=("player", "role"), draw_roles=("seed",), scene=("player", "category"),
                        react=("player", "coins"), visit=("player", "courtier", "pay"), push=("player", "coin"),
                        pull=("player", "coin"), done=("player",), end_turn=("player",),
                        win_condition=("role", "against", "coin"))
EVENT_TYPES = ("role", "draw_roles", "scene", "react", "visit", "push", "pull", "done", "end_turn", "win_condition")


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The one way the state changes: a new state, or RuleError and nothing changed. No
    message names a role before the end: errors are public."""
    if state.phase == "over":
        raise RuleError("the game is over")
    handlers = {"role": _role, "draw_roles": _draw_roles, "scene": _scene, "react": _react, "visit": _visit,
                "push": _push, "pull": _pull, "done": _done, "end_turn": _end_turn, "win_condition": _win_condition}
    kind = event.get("type")
    if kind not in handlers:
        raise RuleError(f"unknown event {kind!r}; expected one of {', '.join(EVENT_TYPES)}")
    return handlers[kind](state, event)


def _expect_phase(state: State, phases: tuple[str, ...], doing: str) -> None:
    if state.phase not in phases:
        raise RuleError(f"not now: {doing} is not what the table does now ({status(state)})")


def _player(state: State, event: Mapping[str, Any], whose: int | None = None) -> int:
    name = event.get("player")
    if name is None:
        raise RuleError(f'this event needs "player": {" or ".join(state.players)}')
    if name not in state.players:
        raise RuleError(f"{name!r} is not playing; the players are {' and '.join(state.players)}")
    index = state.players.index(name)
    if whose is not None and index != whose:
        raise RuleError(f"this is for {state.players[whose]}, not {name}")
    return index


# roles ----------------------------------------------------------------------------------------------
def _role(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, ("roles",), "entering a role")
    player = _player(state, event)
    role = role_id(event.get("role"))
    if role not in state.rules.roles:   # the message must not repeat what was entered
        raise RuleError(f"that is not a role of scenario {state.rules.scenario}; its roles: "
                        f"{', '.join(ROLE_NAMES[r] for r in state.rules.roles)}")
    other = state.roles[1 - player]
    if role == other:
        raise RuleError(f"{state.players[player]}'s role cannot be the card {state.players[1 - player]} entered: "
                        f"one of you entered the wrong card; check your cards (a role can be entered again "
                        f"until both are in)")
    roles = tuple(role if i == player else r for i, r in enumerate(state.roles))
    state = replace(state, roles=roles, last=f"{state.players[player]} has chosen a role")
    return _start_if_ready(state)


def _draw_roles(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, ("roles",), "dealing the roles")
    if any(state.roles):
        raise RuleError("a player has entered a role already: enter the other one too, or undo it first")
    seed = event.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise RuleError("the box deals with a secret seed: a whole number of 0 or more (from secrets)")
    state = replace(state, roles=deal_roles(state.rules.roles, seed), seed=seed,
                    last="the box has dealt the roles: each player looks at their own")
    return _start_if_ready(state)


def deal_roles(roles: tuple[str, ...], seed: int) -> tuple[str, str]:
    """Two different role cards out of ``roles``, shuffled by ``seed``."""
    first, second = random.Random(seed).sample(roles, 2)
    return first, second


def _start_if_ready(state: State) -> State:
    if all(state.roles):
        return replace(state, phase="scene", last=state.last + f"; {state.players[state.active]} starts")
    return state


# a turn ------------------------------------------------------------------------------------------------
def _scene(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, ("scene",), "playing a scene")
    player = _player(state, event, state.active)
    category = event.get("category")
    if category not in CATEGORIES:
        raise RuleError(f"a scene's category is one of {', '.join(CATEGORIES)}, got {category!r}")
    return replace(state, phase="reaction", scene=category,
                   last=f"{state.players[player]} plays a {category.capitalize()} scene")


def _react(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, ("reaction",), "a reaction")
    player = _player(state, event, state.reacting)
    coins = event.get("coins")
    if (not isinstance(coins, list) or not 1 <= len(coins) <= 2 or len(set(map(str, coins))) != len(coins)
            or any(coin not in state.rules.coins for coin in coins)):
        raise RuleError(f"a reaction pushes one or two different coins, in order, of {', '.join(state.rules.coins)}; "
                        f"got {coins!r}")
    for coin in coins:
        state = push_coin(state, coin)
    collected = _add(state.collected, state.active, CATEGORIES.index(state.scene))
    words = " then ".join(COIN_NAMES[c] for c in coins)
    return replace(state, phase="after", scene=None, collected=collected,
                   last=f"{state.players[player]} reacts: {words}")


def push_coin(state: State, coin: str) -> State:
    """``coin`` one step toward the Center; from the last space onto the top of the Center.
    A coin already in the Center stays where it is in the stack (an assumption)."""
    space = state.space(coin)
    if space is None:
        return state
    if space < state.rules.spaces:
        return replace(state, positions=_moved(state.positions, coin, space + 1))
    return replace(state, positions=tuple(p for p in state.positions if p[0] != coin), center=state.center + (coin,))


def _moved(positions: tuple[tuple[str, int], ...], coin: str, space: int) -> tuple[tuple[str, int], ...]:
    return tuple((c, space if c == coin else s) for c, s in positions)


def _add(counts: tuple[tuple[int, ...], ...], player: int, index: int, amount: int = 1) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(n + amount if (p, i) == (player, index) else n for i, n in enumerate(row))
                 for p, row in enumerate(counts))


# courtiers -------------------------------------------------------------------------------------------
def _visit(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, ("scene", "after"), "visiting a courtier")
    player = _player(state, event, state.active)
    courtier = state.rules.courtier(event.get("courtier"))
    if courtier.effect == "push" and not state.positions:
        raise RuleError(f"the {courtier.name} pushes a coin, and every coin is in the Center")
    pay = event.get("pay", list(courtier.cost) if courtier.cost else None)
    if not isinstance(pay, list) or not pay or any(symbol not in CATEGORIES for symbol in pay):
        raise RuleError(f"the {courtier.name}'s cost is not in the rulebook: say what you paid, a list of symbols "
                        f"({', '.join(CATEGORIES)})")
    if courtier.cost is not None and sorted(pay) != sorted(courtier.cost):
        raise RuleError(f"the {courtier.name} costs {symbols_words(courtier.cost)}, not {symbols_words(pay)}")
    covered = state.covered
    for index, category in enumerate(CATEGORIES):
        if pay.count(category) > state.uncovered(player)[index]:
            raise RuleError(f"{state.players[player]} has {state.uncovered(player)[index]} uncovered "
                            f"{category.capitalize()} symbol(s), not {pay.count(category)}")
        covered = _add(covered, player, index, pay.count(category))
    note = f"{state.players[player]} visits the {courtier.name} ({symbols_words(pay)})"
    state = replace(state, covered=covered, last=note)
    if courtier.effect == "redraw":
        return replace(state, last=note + ": draw two new scene cards")
    return replace(state, phase="visit", visit=Visit(courtier, back_to=state.phase))


def symbols_words(symbols: Any) -> str:
    """["words", "words", "deeds"] -> "2 Words, 1 Deeds"."""
    return ", ".join(f"{list(symbols).count(c)} {c.capitalize()}" for c in CATEGORIES if c in symbols)


def _push(state: State, event: Mapping[str, Any]) -> State:
    visit = _visiting(state, event)
    coin = _coin(state, event)
    if state.space(coin) is None:
        raise RuleError(f"{COIN_NAMES[coin]} is in the Center already")
    state = replace(push_coin(state, coin), visit=replace(visit, moved=visit.moved + 1),
                    last=f"the {visit.courtier.name} pushes {COIN_NAMES[coin]}")
    return _visit_over(state) if visit.courtier.effect == "push" else state


def _pull(state: State, event: Mapping[str, Any]) -> State:
    visit = _visiting(state, event)
    coin = _coin(state, event)
    if visit.courtier.effect != "unknown":
        raise RuleError(f"the {visit.courtier.name} pushes a coin toward the Center; it does not pull one")
    space = state.space(coin)
    if space is None or space <= 1:
        raise RuleError(f"{COIN_NAMES[coin]} cannot move away from the Center: it is "
                        f"{'in the Center' if space is None else 'on the edge'}")
    return replace(state, positions=_moved(state.positions, coin, space - 1),
                   visit=replace(visit, moved=visit.moved + 1),
                   last=f"the {visit.courtier.name} pulls {COIN_NAMES[coin]} back")


def _done(state: State, event: Mapping[str, Any]) -> State:
    visit = _visiting(state, event)
    if visit.courtier.effect == "push":
        raise RuleError(f"the {visit.courtier.name} pushes one coin: say which")
    return _visit_over(replace(state, last=f"{state.players[state.active]} leaves the {visit.courtier.name}"))


def _visiting(state: State, event: Mapping[str, Any]) -> Visit:
    _expect_phase(state, ("visit",), "a courtier's effect")
    _player(state, event, state.active)
    return state.visit


def _coin(state: State, event: Mapping[str, Any]) -> str:
    coin = event.get("coin")
    if coin not in state.rules.coins:
        raise RuleError(f"a coin is one of {', '.join(state.rules.coins)}, got {coin!r}")
    return coin


def _visit_over(state: State) -> State:
    return replace(state, phase=state.visit.back_to, visit=None)


# the end of a turn, and of the game -----------------------------------------------------------------
def _end_turn(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, ("after",), "ending the turn")
    player = _player(state, event, state.active)
    if state.center:
        ended = replace(state, phase="settle", last=f"{state.players[player]} ends the turn: the game is over")
        return _judged(ended)
    return replace(state, phase="scene", active=1 - player, turn=state.turn + 1,
                   last=f"{state.players[player]} ends the turn; {state.players[1 - player]}'s turn")


def _judged(state: State) -> State:
    verdict = judge(state)
    return replace(state, verdict=verdict, phase="settle" if verdict.outcome == "unsettled" else "over")


def _win_condition(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, ("settle",), "entering a win condition")
    role, against, coin = role_id(event.get("role")), role_id(event.get("against")), coin_id(event.get("coin"))
    if (role, against) not in state.verdict.missing:
        wanted = "; ".join(f"what the {ROLE_NAMES[r]} needs against the {ROLE_NAMES[a]}"
                           for r, a in state.verdict.missing)
        raise RuleError(f"the box asks only for {wanted}")
    side = state.rules.side
    if coin not in SIDE_COINS[side]:
        raise RuleError(f"a coin is one of {', '.join(SIDE_COINS[side])}, got {event.get('coin')!r}")
    key = (FAMILY_OF[role], FAMILY_OF[against])
    for row, column, never, why in RULES_OF_THE_TEXT:
        if (row, column) == key and coin in never:
            raise RuleError(f"it cannot be {coin}: {why}; check the board again")
    return _judged(replace(state, settled=state.settled + ((key, coin),),
                           last=f"the players read the board: the {ROLE_NAMES[role]} needs {COIN_NAMES[coin]} "
                                f"against the {ROLE_NAMES[against]}"))


# -- the verdict ---------------------------------------------------------------------------------------
def needs(state: State, player: int) -> str | None:
    """The coin ``player``'s role needs against the other's, or None when the board lacks it."""
    return known_cells(state).get((FAMILY_OF[state.roles[player]], FAMILY_OF[state.roles[1 - player]]))


def known_cells(state: State) -> dict[tuple[str, str], str]:
    """This game's side of the win board, with the cells the players have read off theirs."""
    return {**dict(state.rules.board), **dict(state.settled)}


def distance(state: State, coin: str) -> int:
    """Steps from the Center (0 in it)."""
    space = state.space(coin)
    return 0 if space is None else state.rules.spaces + 1 - space


def where(state: State, coin: str) -> str:
    space = state.space(coin)
    return "in the Center" if space is None else f"on space {space}"


def is_poet(role: str) -> bool:
    return FAMILY_OF[role] == POETS


def judge(state: State) -> Verdict:
    """The rulebook's ending, from the Center's top coin down, then the closest coins."""
    wanted = tuple(needs(state, p) for p in (0, 1))
    if None in wanted:
        return _unsettled(state, wanted)
    the = tuple(f"the {ROLE_NAMES[r]}" for r in state.roles)
    turn = f"on {the[state.active]}'s turn"
    poet_turn = is_poet(state.roles[state.active]) and not is_poet(state.roles[1 - state.active])
    said = []
    for coin in reversed(state.center):
        winners = [p for p in (0, 1) if wanted[p] == coin and not (poet_turn and p == state.active)]
        if len(winners) == 2:
            return Verdict("shared-direct", (2, 2), _joined(said, f"{COIN_NAMES[coin]} reached the Center {turn}; "
                           f"{the[0]} and {the[1]} share a {COIN_NAMES[coin]} victory: 2 points each"))
        if winners:
            won = winners[0]
            return Verdict("direct", _one(won, 2), _joined(said, f"{COIN_NAMES[coin]} reached the Center {turn}; "
                           f"{the[won]} beats {the[1 - won]} with {COIN_NAMES[coin]}: 2 points"))
        if poet_turn and wanted[state.active] == coin:
            said.append(f"{COIN_NAMES[coin]} reached the Center on {the[state.active]}'s own turn, which gives "
                        f"{the[state.active]} no direct victory")
        else:
            said.append(f"{COIN_NAMES[coin]} in the Center wins for neither")
    if poet_turn and wanted[state.active] in state.center:
        other = 1 - state.active
        return Verdict("indirect", _one(other, 1), _joined(said, f"so {the[other]} scores an indirect victory: "
                                                                  "1 point"))
    if wanted == ("romance", "romance"):
        return _shared_romance(state, said, the)
    return _indirect(state, said, the, wanted)


def _shared_romance(state: State, said: list[str], the: tuple[str, str]) -> Verdict:
    romance, rejection = distance(state, "romance"), distance(state, "rejection")
    both = f"{the[0]} and {the[1]}"
    places = (f"Romance ({where(state, 'romance')}) is {'' if romance < rejection else 'not '}closer to the Center "
              f"than Rejection ({where(state, 'rejection')})")
    if romance < rejection:
        return Verdict("shared-indirect", (1, 1), _joined(said, f"{places}: {both} share an indirect victory: "
                                                                "1 point each"))
    return Verdict("shared-loss", (0, 0), _joined(said, f"{places}: {both} failed to recognize their soul mate: "
                                                        "0 points each"))


def _indirect(state: State, said: list[str], the: tuple[str, str], wanted: tuple[str, str]) -> Verdict:
    far = tuple(distance(state, coin) for coin in wanted)
    if far[0] == far[1]:
        coins = (f"{COIN_NAMES[wanted[0]]} is {where(state, wanted[0])}" if wanted[0] == wanted[1] else
                 f"{COIN_NAMES[wanted[0]]} and {COIN_NAMES[wanted[1]]} are both {where(state, wanted[0])}")
        return Verdict("draw", (0, 0), _joined(said, f"{coins}, as close for {the[0]} as for {the[1]}: a draw, "
                                                     "0 points"))
    won = 0 if far[0] < far[1] else 1
    lost = 1 - won
    return Verdict("indirect", _one(won, 1), _joined(said, (
        f"{COIN_NAMES[wanted[won]]} ({where(state, wanted[won])}) is closer to the Center than "
        f"{COIN_NAMES[wanted[lost]]} ({where(state, wanted[lost])}): {the[won]} beats {the[lost]} indirectly "
        f"with {COIN_NAMES[wanted[won]]}: 1 point")))


def _unsettled(state: State, wanted: tuple[str | None, str | None]) -> Verdict:
    cells = {}
    for player in (0, 1):
        role, against = state.roles[player], state.roles[1 - player]
        if wanted[player] is None:
            cells.setdefault((FAMILY_OF[role], FAMILY_OF[against]), (role, against))
    missing = tuple(cells.values())
    lacks = "; and ".join(f"what the {ROLE_NAMES[r]} needs against the {ROLE_NAMES[a]} ({state.rules.side} side, "
                          f"row {family_words(FAMILY_OF[r])}, column {family_words(FAMILY_OF[a])})" for r, a in missing)
    return Verdict("unsettled", (0, 0), f"The box's win board lacks {lacks}: read it off your board and enter it",
                   missing)


def _one(player: int, points: int) -> tuple[int, int]:
    return (points, 0) if player == 0 else (0, points)


def _joined(said: list[str], last: str) -> str:
    return "; ".join(said + [last])


def game_points(state: State) -> tuple[int, int]:
    return state.verdict.points if state.verdict is not None and state.phase == "over" else (0, 0)


def series_totals(state: State) -> tuple[int, int]:
    return tuple(a + b for a, b in zip(state.rules.series_points, game_points(state)))


def is_over(state: State) -> bool:
    return state.phase == "over"


# -- the seam: choices and views -------------------------------------------------------------------------
def legal_events(state: State) -> tuple[dict, ...]:
    """Every choice open now, as complete events but the box's deal (the host adds its secret
    ``seed``). Nothing here depends on a role: the same choices whatever the roles are. So each
    player is offered every role of the scenario, the one the other player entered too, and
    that one is refused when entered (two players cannot hold the same card)."""
    active = state.players[state.active]
    if state.phase == "roles":
        choices = [{"type": "role", "player": name, "role": role}
                   for name, held in zip(state.players, state.roles) if held is None for role in state.rules.roles]
        return tuple(choices + ([{"type": "draw_roles"}] if not any(state.roles) else []))
    if state.phase == "scene":
        return tuple({"type": "scene", "player": active, "category": c} for c in CATEGORIES) + _visits(state)
    if state.phase == "reaction":
        name = state.players[state.reacting]
        orders = [[c] for c in state.rules.coins] + [list(p) for p in itertools.permutations(state.rules.coins, 2)]
        return tuple({"type": "react", "player": name, "coins": coins} for coins in orders)
    if state.phase == "visit":
        return _effects(state)
    if state.phase == "after":
        return _visits(state) + ({"type": "end_turn", "player": active},)
    if state.phase == "settle":
        return tuple({"type": "win_condition", "role": role, "against": against, "coin": coin}
                     for role, against in state.verdict.missing for coin in SIDE_COINS[state.rules.side]
                     if not _ruled_out(role, against, coin))
    return ()


def _ruled_out(role: str, against: str, coin: str) -> bool:
    key = (FAMILY_OF[role], FAMILY_OF[against])
    return any((row, column) == key and coin in never for row, column, never, _ in RULES_OF_THE_TEXT)


def _visits(state: State) -> tuple[dict, ...]:
    name, have = state.players[state.active], state.uncovered(state.active)
    choices = []
    for courtier in state.rules.courtiers:
        if courtier.effect == "push" and not state.positions:
            continue
        for pay in ([list(courtier.cost)] if courtier.cost else payments(have)):
            if all(pay.count(c) <= have[i] for i, c in enumerate(CATEGORIES)):
                choices.append({"type": "visit", "player": name, "courtier": courtier.name, "pay": pay})
    return tuple(choices)


def payments(have: tuple[int, ...]) -> list[list[str]]:
    """Every non-empty handful of the uncovered symbols ``have`` (counts by CATEGORIES)."""
    return [[c for c, n in zip(CATEGORIES, counts) for _ in range(n)]
            for counts in itertools.product(*(range(n + 1) for n in have)) if any(counts)]


def _effects(state: State) -> tuple[dict, ...]:
    name, visit = state.players[state.active], state.visit
    pushes = [{"type": "push", "player": name, "coin": c} for c in state.rules.coins if state.space(c) is not None]
    if visit.courtier.effect == "push":
        return tuple(pushes)
    pulls = [{"type": "pull", "player": name, "coin": c} for c in state.rules.coins if (state.space(c) or 0) > 1]
    return tuple(pushes + pulls + [{"type": "done", "player": name}])


def view(state: State, viewer: str | None = PUBLIC) -> dict:
    """What ``viewer`` sees: the board, the symbols, the turn for everyone; a role and its row
    of the win board only to its owner, and both roles, the seed and the verdict to everyone
    once play is over."""
    players = []
    totals, points = series_totals(state), game_points(state)
    for i, name in enumerate(state.players):
        entry = {"name": name, "points": points[i], "total": totals[i], "has_role": state.roles[i] is not None,
                 "symbols": dict(zip(CATEGORIES, state.uncovered(i))), "covered": dict(zip(CATEGORIES, state.covered[i]))}
        if state.roles[i] is not None and (state.ended or viewer == name):
            entry["role"] = ROLE_NAMES[state.roles[i]]
        if viewer == name and state.roles[i] is not None:
            entry["needs"] = my_row(state, state.roles[i])
        players.append(entry)
    shown = {
        "players": players, "scenario": state.rules.scenario, "side": state.rules.side, "phase": state.phase,
        "game_number": state.rules.game_number, "turn": state.turn, "active": state.players[state.active],
        "reacting": state.players[state.reacting], "spaces": state.rules.spaces,
        "scene_cards": scene_cards(state.rules.scenario),
        "coins": [{"coin": c, "name": COIN_NAMES[c], "space": state.space(c), "distance": distance(state, c)}
                  for c in state.rules.coins],
        "center": list(state.center), "scene": state.scene,
        "visit": None if state.visit is None else {"courtier": state.visit.courtier.name, "moved": state.visit.moved},
        "courtiers": [{"name": c.name, "cost": list(c.cost) if c.cost else None, "effect": c.effect}
                      for c in state.rules.courtiers],
        "dealt_by_box": state.seed is not None, "last": state.last, "status": status(state)}
    if state.ended:
        shown["verdict"] = {"outcome": state.verdict.outcome, "reason": state.verdict.reason,
                            "points": dict(zip(state.players, state.verdict.points)),
                            "missing": [{"role": r, "against": a} for r, a in state.verdict.missing]}
        shown["seed"] = state.seed
    return shown


def my_row(state: State, role: str) -> dict[str, str | None]:
    """The coin ``role`` needs against each pair of roles of this game's side (None: not on the box's board)."""
    board = known_cells(state)
    return {family_words(column): board.get((FAMILY_OF[role], column)) for column in SIDES[state.rules.side]}


def event_view(event: Mapping[str, Any], viewer: str | None) -> Mapping[str, Any]:
    """A ``role`` event without its role but for its player; a deal without its seed for everyone
    (the seed would give away both roles)."""
    if event.get("type") == "role" and viewer != event.get("player"):
        return {k: v for k, v in event.items() if k != "role"}
    if event.get("type") == "draw_roles":
        return {k: v for k, v in event.items() if k != "seed"}
    return event


def to_json(state: State) -> dict:
    return view(state, PUBLIC)


# -- for people ---------------------------------------------------------------------------------------------
def status(state: State) -> str:
    """One public line: whose move it is, or the verdict once it is known."""
    active, reacting = state.players[state.active], state.players[state.reacting]
    where_now = f"Turn {state.turn}"
    if state.phase == "roles":
        waiting = [name for name, role in zip(state.players, state.roles) if role is None]
        chosen = [name for name, role in zip(state.players, state.roles) if role is not None]
        said = "".join(f"{name} has chosen a role; " for name in chosen)
        return f"{said}{' and '.join(waiting)}: enter your role{'s' if len(waiting) > 1 else ''} in private"
    if state.phase == "scene":
        return f"{where_now}: {active} plays a scene (or visits a courtier)"
    if state.phase == "reaction":
        return f"{where_now}: {reacting} reacts to {active}'s {state.scene.capitalize()} scene"
    if state.phase == "visit":
        what = "push a coin" if state.visit.courtier.effect == "push" else "move the coins it moves, then done"
        return f"{where_now}: {active} at the {state.visit.courtier.name}: {what}"
    if state.phase == "after":
        return f"{where_now}: {active} may visit courtiers, then ends the turn"
    return state.verdict.reason


def scoreboard(state: State) -> list[list[str]]:
    """Public: points of this game and of the series; the roles once play is over."""
    rows = [["Player", "Points", "Series"] + (["Role"] if state.ended else [])]
    points, totals = game_points(state), series_totals(state)
    for i, name in enumerate(state.players):
        rows.append([name, str(points[i]), str(totals[i])] + ([ROLE_NAMES[state.roles[i]]] if state.ended else []))
    return rows


GAME = Game(name=NAME, title="Dark Romance", min_players=2, max_players=2, dice=None, setup=setup, apply=apply,
            is_over=is_over, scoreboard=scoreboard, to_json=to_json, event_types=EVENT_TYPES, event_keys=EVENT_KEYS,
            status=status, options=OPTIONS, legal_events=legal_events, view=view, event_view=event_view)
