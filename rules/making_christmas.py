"""The Nightmare Before Christmas: Making Christmas, kept by the box (seeds/making-christmas.md).

A card game with no dice: players swap toy parts on a shared workbench of nine spaces (a 3x3
grid) until two parts side by side, or one above the other, make a toy; a toy discarded from
the workbench completes a face-up goal. The most goals at the end wins.

The cards are real cards on the table and the box cannot see them: what is laid on the
workbench and which goal is flipped are told to the box by the players, as events. The box
keeps the count of every card (workbench, hands, deck, discards, goals) and checks a claimed
toy against the workbench when the players entered its parts; a part nobody entered ("?")
is taken on the players' word (option ``enter_workbench = false``).

Read top to bottom like a boardgame.io game: setup, the events of a turn (one swap, goals,
the end of the turn with its refill and the refresh), the end, then the seam for the table
(legal events, views) and the ``GAME`` definition.

A player's hand is their own: the box knows a hand card only when it was taken from the
workbench or its owner entered it on their own device (``hold``); hands are never in the
public view, and a ``hold`` event shows its part to its owner only.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any, Mapping

from rules.core import Game, Option, PUBLIC, RuleError, check_setup_keys, event_keys

NAME = "making-christmas"
UNKNOWN = "?"          # a card lies there, but nobody told the box which
SPACES = 9             # the workbench: a 3x3 grid, space 0 top left, read left to right, top to bottom
COLUMNS = 3
GOAL_SLOTS = 3
HAND_SIZE = 2
SHORT_GAME_REMOVES = 3
MIN_PLAYERS, MAX_PLAYERS = 2, 5

# The toys [Toys]: two cards each; "across" toys lie side by side (first part on the left),
# "down" toys one above the other (first part on top). Part names are ours.
TOYS = {
    "vampire-teddy": ("across", "teddy-left", "teddy-right"),
    "zombie-duck": ("across", "duck-left", "duck-right"),
    "jack-in-the-box": ("down", "jack-top", "jack-bottom"),
    "nesting-doll": ("down", "doll-top", "doll-bottom"),
}
ANY_GOALS = {"any-across": "across", "any-down": "down"}
ARROWS = "-arrows"     # a goal card with the circling arrows: an extra swap once completed

# The card mixes are pictorial in the rulebook: data with defaults (our assumption).
DEFAULT_PARTS = {part: 5 for _, first, second in TOYS.values() for part in (first, second)}   # 40 cards
DEFAULT_GOALS = {"vampire-teddy": 3, "vampire-teddy-arrows": 1, "zombie-duck": 3, "zombie-duck-arrows": 1,
                 "jack-in-the-box": 3, "jack-in-the-box-arrows": 1, "nesting-doll": 3, "nesting-doll-arrows": 1,
                 "any-across": 2, "any-down": 2}                                                # 20 cards

# the keys each event may carry besides "type"
EVENT_KEYS = event_keys(goal=("slot", "goal"), lay=("space", "part"), hold=("player", "card", "part"),
                        swap=("spaces",), swap_hand=("space", "card"), replace=("space",),
                        complete=("slot", "toy", "spaces"), end_turn=("exchange",))
EVENT_TYPES = ("goal", "lay", "hold", "swap", "swap_hand", "replace", "complete", "end_turn")


def space_name(space: int) -> str:
    """A workbench space as people say it: columns a-c left to right, rows 1-3 top to bottom."""
    return f"{'abc'[space % COLUMNS]}{space // COLUMNS + 1}"


def goal_toys(goal: str) -> tuple[str, ...]:
    """The toys that complete ``goal`` (a goal card's name, arrows or not)."""
    base = goal[:-len(ARROWS)] if goal.endswith(ARROWS) else goal
    if base in ANY_GOALS:
        return tuple(toy for toy, (way, _, _) in TOYS.items() if way == ANY_GOALS[base])
    return (base,) if base in TOYS else ()


def has_arrows(goal: str) -> bool:
    return goal.endswith(ARROWS)


def neighbour(space: int, way: str) -> int | None:
    """The space right of (``across``) or below (``down``) ``space``, or None at the edge."""
    if way == "across":
        return space + 1 if space % COLUMNS < COLUMNS - 1 else None
    return space + COLUMNS if space + COLUMNS < SPACES else None


# -- state ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    enter_workbench: bool
    parts: tuple[tuple[str, int], ...]        # the toy part mix (name, copies)
    goal_mix: tuple[tuple[str, int], ...]     # the goal card mix (name, copies)
    goals_in_game: int                        # 20, or 17 in the short game
    bench: tuple[str | None, ...]             # None: an empty space
    hands: tuple[tuple[str, ...], ...]        # the secret: UNKNOWN or a part, per player
    deck: int
    discard: int
    goal_slots: tuple[str | None, ...]
    goal_deck: int
    completed: tuple[tuple[str, ...], ...]    # the goals in front of each player
    player: int = 0
    step: str = "swap"                        # swap -> goals -> (end_turn) ... -> over
    scored_this_turn: int = 0
    bonus_swap: bool = False                  # a circling-arrows goal was just completed
    quiet_turns: int = 0                      # turns in a row without a goal (the refresh)
    refreshes: int = 0

    @property
    def current_player(self) -> str:
        return self.players[self.player]

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(len(goals) for goals in self.completed)

    @property
    def goals_left(self) -> int:
        return self.goals_in_game - sum(self.points)

    @property
    def leaders(self) -> tuple[str, ...]:
        best = max(self.points)
        return tuple(p for p, n in zip(self.players, self.points) if n == best)

    @property
    def winners(self) -> tuple[str, ...]:
        """The winner when the game is over; nobody on a tie (the rulebook: play again)."""
        return self.leaders if self.step == "over" and len(self.leaders) == 1 else ()

    @property
    def tied(self) -> tuple[str, ...]:
        return self.leaders if self.step == "over" and len(self.leaders) > 1 else ()


# -- setup -----------------------------------------------------------------------------------------

def _check_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _check_mix(known: Mapping[str, Any], what: str, least: int):
    def check(value: Any) -> dict[str, int]:
        if not isinstance(value, Mapping) or not value:
            raise ValueError(f"expected a table of {what} and how many copies of each")
        for name, count in value.items():
            if name not in known:
                raise ValueError(f"unknown {what[:-1]} {name!r}; expected some of {', '.join(known)}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ValueError(f"{name}: expected a whole number of copies, got {count!r}")
        if sum(value.values()) < least:
            raise ValueError(f"expected at least {least} {what} in all, got {sum(value.values())}")
        return dict(value)
    return check


ALL_GOAL_NAMES = {name: 0 for base in [*TOYS, *ANY_GOALS] for name in (base, base + ARROWS)}
check_parts = _check_mix(DEFAULT_PARTS, "parts", SPACES + HAND_SIZE * MAX_PLAYERS + 2)
check_goals = _check_mix(ALL_GOAL_NAMES, "goals", GOAL_SLOTS + SHORT_GAME_REMOVES + 1)

OPTIONS = (
    Option("short", False, "The shorter game: three goals go back into the box unseen (17 goals, not 20).",
           check=_check_bool),
    Option("enter_workbench", True, "The players enter every toy part laid on the workbench, so the box "
           "checks each toy claimed; false: the box takes the players' word and keeps the count.",
           check=_check_bool),
    Option("parts", DEFAULT_PARTS, "The toy part cards: copies of each part (our guess: 5 of each half of "
           "the four toys, 40 cards).", check=check_parts),
    Option("goals", DEFAULT_GOALS, "The goal cards: copies of each (\"-arrows\": with the circling arrows; "
           "our guess, 20 cards).", check=check_goals),
)
SETUP_KEYS = {"players", *(option.name for option in OPTIONS)}


def _check_players(players: Any) -> tuple[str, ...]:
    if (not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS
            or not all(isinstance(p, str) and p for p in players) or len(set(players)) != len(players)):
        raise RuleError(f'"players": expected {MIN_PLAYERS} to {MAX_PLAYERS} different names, in seat order')
    return tuple(players)


def setup(options: Mapping[str, Any]) -> State:
    """Nine parts face up on the workbench, three goals face up, two parts in each hand [Set Up]."""
    check_setup_keys(options, SETUP_KEYS)
    players = _check_players(options.get("players"))
    try:
        short = _check_bool(options.get("short", False))
        enter = _check_bool(options.get("enter_workbench", True))
        parts = check_parts(options.get("parts", DEFAULT_PARTS))
        goals = check_goals(options.get("goals", DEFAULT_GOALS))
    except ValueError as exc:
        raise RuleError(str(exc)) from None
    in_game = sum(goals.values()) - (SHORT_GAME_REMOVES if short else 0)
    dealt = SPACES + HAND_SIZE * len(players)
    if sum(parts.values()) < dealt + 2:
        raise RuleError(f"{sum(parts.values())} toy parts are too few for {len(players)} players")
    return State(players=players, enter_workbench=enter, parts=tuple(parts.items()), goal_mix=tuple(goals.items()),
                 goals_in_game=in_game, bench=(UNKNOWN,) * SPACES, hands=((UNKNOWN,) * HAND_SIZE,) * len(players),
                 deck=sum(parts.values()) - dealt, discard=0, goal_slots=(UNKNOWN,) * GOAL_SLOTS,
                 goal_deck=in_game - GOAL_SLOTS, completed=((),) * len(players))


# -- what the players tell the box: the cards that were flipped --------------------------------------

def waiting_goal(state: State) -> int | None:
    """The first goal slot whose card nobody entered yet (the box needs every goal)."""
    return next((i for i, g in enumerate(state.goal_slots) if g == UNKNOWN), None)


def waiting_space(state: State) -> int | None:
    """The first workbench space to enter, when the players enter the workbench."""
    if not state.enter_workbench:
        return None
    return next((i for i, part in enumerate(state.bench) if part == UNKNOWN), None)


def _goal(state: State, event: Mapping[str, Any]) -> State:
    slot, goal = event.get("slot"), event.get("goal")
    if slot not in range(GOAL_SLOTS) or state.goal_slots[slot] != UNKNOWN:
        raise RuleError("that goal slot has no new goal to enter")
    mix = dict(state.goal_mix)
    if goal not in mix:
        raise RuleError(f"there is no goal card {goal!r}; the goals are {', '.join(n for n, c in mix.items() if c)}")
    seen = sum(g == goal for g in state.goal_slots) + sum(goals.count(goal) for goals in state.completed)
    if seen >= mix[goal]:
        raise RuleError(f"all {mix[goal]} {goal} goal cards are out already")
    return replace(state, goal_slots=_put(state.goal_slots, slot, goal))


def _lay(state: State, event: Mapping[str, Any]) -> State:
    space, part = event.get("space"), event.get("part")
    if space not in range(SPACES) or state.bench[space] != UNKNOWN:
        raise RuleError("that workbench space has no new toy part to enter")
    if part not in dict(state.parts):
        raise RuleError(f"there is no toy part {part!r}")
    return replace(state, bench=_put(state.bench, space, part))


def _hold(state: State, event: Mapping[str, Any]) -> State:
    """A player enters one of their hand cards, on their own device."""
    player, card, part = event.get("player"), event.get("card"), event.get("part")
    if player not in state.players:
        raise RuleError(f"{player!r} is not playing")
    hand = state.hands[state.players.index(player)]
    if card not in range(len(hand)) or hand[card] != UNKNOWN:
        raise RuleError(f"{player} has no new hand card there to enter")
    if part not in dict(state.parts):
        raise RuleError(f"there is no toy part {part!r}")
    return _with_hand(state, state.players.index(player), _put(hand, card, part))


# -- a turn, step 1: one swap [On Your Turn 1] ----------------------------------------------------------

def _swap_allowed(state: State, bonus_ok: bool = True) -> None:
    if state.step == "swap":
        return
    if state.step == "goals" and state.bonus_swap and bonus_ok:
        return
    if state.step == "goals":
        raise RuleError(f"{state.current_player} has swapped already this turn: complete goals or end the turn")
    raise RuleError("the game is over")


def _occupied(state: State, space: Any) -> int:
    if space not in range(SPACES):
        raise RuleError("a workbench space is one of a1-c3 (0-8)")
    if state.bench[space] is None:
        raise RuleError(f"{space_name(space)} is empty: a swap never takes an empty space")
    return space


def _swap(state: State, event: Mapping[str, Any]) -> State:
    """Two workbench parts change places."""
    _swap_allowed(state)
    spaces = event.get("spaces")
    if not isinstance(spaces, list) or len(spaces) != 2:
        raise RuleError('a swap names two workbench spaces: "spaces": [a, b]')
    a, b = (_occupied(state, s) for s in spaces)
    if a == b:
        raise RuleError("a swap takes two different spaces")
    bench = list(state.bench)
    bench[a], bench[b] = bench[b], bench[a]
    return _swapped(replace(state, bench=tuple(bench)))


def _swap_hand(state: State, event: Mapping[str, Any]) -> State:
    """A part from the player's hand changes places with a workbench part."""
    _swap_allowed(state)
    space, card = _occupied(state, event.get("space")), event.get("card")
    hand = state.hands[state.player]
    if card not in range(len(hand)):
        raise RuleError(f"{state.current_player} has no hand card {card!r} (0-{len(hand) - 1})")
    taken, given = state.bench[space], hand[card]
    state = _with_hand(state, state.player, _put(hand, card, taken))
    return _swapped(replace(state, bench=_put(state.bench, space, given)))


def _replace(state: State, event: Mapping[str, Any]) -> State:
    """A workbench part is discarded and the deck's top part laid in its place."""
    if state.step == "goals" and state.bonus_swap:
        raise RuleError("the extra swap swaps two parts; it does not replace one from the deck")
    _swap_allowed(state, bonus_ok=False)
    space = _occupied(state, event.get("space"))
    deck, discard = _draw(state.deck, state.discard + 1, 1)
    return _swapped(replace(state, bench=_put(state.bench, space, UNKNOWN), deck=deck, discard=discard))


def _swapped(state: State) -> State:
    """The turn's swap is done (or the extra swap is used up)."""
    return replace(state, step="goals", bonus_swap=False)


# -- step 2: goals [On Your Turn 2] --------------------------------------------------------------------

def toy_at(state: State, first: int, second: int, toy: str) -> str | None:
    """Why ``toy`` does not lie on ``first`` and ``second``, or None when it may (a part
    nobody entered is taken on the players' word)."""
    way, part_one, part_two = TOYS[toy]
    if neighbour(first, way) != second:
        where = "left of" if way == "across" else "above"
        return f"a {toy} needs its first part directly {where} the second"
    for space, part in ((first, part_one), (second, part_two)):
        if state.bench[space] is None:
            return f"{space_name(space)} is empty"
        if state.bench[space] not in (UNKNOWN, part):
            return f"{space_name(space)} holds {state.bench[space]}, not {part}"
    return None


def _complete(state: State, event: Mapping[str, Any]) -> State:
    """An assembled toy is discarded from the workbench to complete a face-up goal."""
    if state.step == "swap":
        raise RuleError(f"{state.current_player} swaps two toy parts first")
    if state.step != "goals":
        raise RuleError("the game is over")
    slot, toy, spaces = event.get("slot"), event.get("toy"), event.get("spaces")
    if slot not in range(GOAL_SLOTS) or state.goal_slots[slot] in (None, UNKNOWN):
        raise RuleError("there is no face-up goal in that slot")
    goal = state.goal_slots[slot]
    if toy not in goal_toys(goal):
        raise RuleError(f"the goal {goal} takes {' or '.join(goal_toys(goal))}, not {toy!r}")
    if not isinstance(spaces, list) or len(spaces) != 2 or not all(s in range(SPACES) for s in spaces):
        raise RuleError('a toy is two workbench spaces: "spaces": [first, second]')
    why_not = toy_at(state, spaces[0], spaces[1], toy)
    if why_not:
        raise RuleError(f"no {toy} there: {why_not}")
    bench = _put(_put(state.bench, spaces[0], None), spaces[1], None)
    completed = _put(state.completed, state.player, state.completed[state.player] + (goal,))
    state = replace(state, bench=bench, discard=state.discard + 2, goal_slots=_put(state.goal_slots, slot, None),
                    completed=completed, scored_this_turn=state.scored_this_turn + 1, bonus_swap=has_arrows(goal))
    return replace(state, step="over", bonus_swap=False) if state.goals_left == 0 else state


# -- the end of a turn: the hand exchange, the refill [On Your Turn 3], the refresh [Note] ----------------

def _end_turn(state: State, event: Mapping[str, Any]) -> State:
    if state.step != "goals":
        raise RuleError(f"{state.current_player} swaps two toy parts first" if state.step == "swap"
                        else "the game is over")
    cards = event.get("exchange", [])
    hand = state.hands[state.player]
    if not isinstance(cards, list) or len(set(map(repr, cards))) != len(cards) or \
            not all(c in range(len(hand)) and not isinstance(c, bool) for c in cards):
        raise RuleError(f'"exchange": expected distinct hand cards (0-{len(hand) - 1})')
    if cards and state.scored_this_turn:
        raise RuleError("only a player who completed no goal this turn may exchange hand cards")
    state = _exchange(state, cards)
    state = _refill_goals(_refill_bench(state))
    quiet = 0 if state.scored_this_turn else state.quiet_turns + 1
    if quiet >= len(state.players):
        state, quiet = _refresh(state), 0
    return replace(state, player=(state.player + 1) % len(state.players), step="swap", scored_this_turn=0,
                   bonus_swap=False, quiet_turns=quiet)


def _exchange(state: State, cards: list[int]) -> State:
    """Hand cards discarded and as many drawn (drawn cards are new to the box: UNKNOWN)."""
    if not cards:
        return state
    deck, discard = _draw(state.deck, state.discard + len(cards), len(cards))
    hand = tuple(UNKNOWN if i in cards else part for i, part in enumerate(state.hands[state.player]))
    return _with_hand(replace(state, deck=deck, discard=discard), state.player, hand)


def _refill_bench(state: State) -> State:
    """Empty spaces refilled from the deck, left to right, top to bottom."""
    empty = [i for i, part in enumerate(state.bench) if part is None]
    deck, discard = _draw(state.deck, state.discard, len(empty))
    bench = tuple(UNKNOWN if part is None else part for part in state.bench)
    return replace(state, bench=bench, deck=deck, discard=discard)


def _refill_goals(state: State) -> State:
    slots, deck = list(state.goal_slots), state.goal_deck
    for i, goal in enumerate(slots):
        if goal is None and deck:
            slots[i], deck = UNKNOWN, deck - 1
    return replace(state, goal_slots=tuple(slots), goal_deck=deck)


def _refresh(state: State) -> State:
    """Every player took a turn without a goal: all nine parts discarded, nine new laid."""
    deck, discard = _draw(state.deck, state.discard + SPACES, SPACES)
    return replace(state, bench=(UNKNOWN,) * SPACES, deck=deck, discard=discard, refreshes=state.refreshes + 1)


def _draw(deck: int, discard: int, count: int) -> tuple[int, int]:
    """``count`` parts off the deck; an empty deck is the discard pile shuffled."""
    if deck < count:
        deck, discard = deck + discard, 0
    if deck < count:
        raise RuleError("the toy parts have run out")
    return deck - count, discard


# -- apply -----------------------------------------------------------------------------------------

ENTRIES = {"goal": _goal, "lay": _lay, "hold": _hold}
TURN = {"swap": _swap, "swap_hand": _swap_hand, "replace": _replace, "complete": _complete, "end_turn": _end_turn}


def apply(state: State, event: Mapping[str, Any]) -> State:
    kind = event.get("type")
    if state.step == "over":
        raise RuleError("the game is over")
    if kind in ENTRIES:
        return ENTRIES[kind](state, event)
    if kind not in TURN:
        raise RuleError(f"unknown event {kind!r}; expected one of {', '.join(EVENT_TYPES)}")
    slot, space = waiting_goal(state), waiting_space(state)
    if slot is not None:
        raise RuleError(f"first enter the new goal in slot {slot + 1}")
    if space is not None:
        raise RuleError(f"first enter the toy part laid on {space_name(space)}")
    return TURN[kind](state, event)


def is_over(state: State) -> bool:
    return state.step == "over"


def _put(items: tuple, index: int, value: Any) -> tuple:
    return items[:index] + (value,) + items[index + 1:]


def _with_hand(state: State, player: int, hand: tuple[str, ...]) -> State:
    return replace(state, hands=_put(state.hands, player, hand))


# -- the choices open now (the knob's menu and the players' devices) -------------------------------------

def legal_events(state: State) -> tuple[dict, ...]:
    if is_over(state):
        return ()
    return hold_events(state) + _table_events(state)


def hold_events(state: State) -> tuple[dict, ...]:
    """Each player may enter their hand cards on their own device (secret choices)."""
    parts = [p for p, n in state.parts if n]
    return tuple({"type": "hold", "player": player, "card": card, "part": part}
                 for player, hand in zip(state.players, state.hands)
                 for card, held in enumerate(hand) if held == UNKNOWN for part in parts)


def _table_events(state: State) -> tuple[dict, ...]:
    slot, space = waiting_goal(state), waiting_space(state)
    if slot is not None:
        return tuple(e for e in ({"type": "goal", "slot": slot, "goal": g} for g, n in state.goal_mix if n)
                     if _is_legal(state, e))
    if space is not None:
        return tuple({"type": "lay", "space": space, "part": p} for p, n in state.parts if n)
    if state.step == "swap":
        return swap_events(state) + tuple({"type": "replace", "space": s} for s in _filled(state))
    return complete_events(state) + (swap_events(state) if state.bonus_swap else ()) + end_turn_events(state)


def _filled(state: State) -> list[int]:
    return [i for i, part in enumerate(state.bench) if part is not None]


def swap_events(state: State) -> tuple[dict, ...]:
    filled = _filled(state)
    on_bench = tuple({"type": "swap", "spaces": [a, b]} for a, b in combinations(filled, 2))
    with_hand = tuple({"type": "swap_hand", "card": card, "space": space}
                      for card in range(len(state.hands[state.player])) for space in filled)
    return on_bench + with_hand


def complete_events(state: State) -> tuple[dict, ...]:
    events = []
    for slot, goal in enumerate(state.goal_slots):
        for toy in goal_toys(goal) if goal not in (None, UNKNOWN) else ():
            for first in range(SPACES):
                second = neighbour(first, TOYS[toy][0])
                if second is not None and toy_at(state, first, second, toy) is None:
                    events.append({"type": "complete", "slot": slot, "toy": toy, "spaces": [first, second]})
    return tuple(events)


def end_turn_events(state: State) -> tuple[dict, ...]:
    if state.scored_this_turn:
        return ({"type": "end_turn", "exchange": []},)
    cards = range(len(state.hands[state.player]))
    return tuple({"type": "end_turn", "exchange": list(chosen)}
                 for size in range(len(cards) + 1) for chosen in combinations(cards, size))


def _is_legal(state: State, event: Mapping[str, Any]) -> bool:
    try:
        apply(state, event)
    except RuleError:
        return False
    return True


# -- what each one may see ----------------------------------------------------------------------------

def view(state: State, viewer: str | None) -> dict[str, Any]:
    """Everything on the table; a hand only to its owner (as cards, UNKNOWN where not entered)."""
    players = []
    for name, goals, hand in zip(state.players, state.completed, state.hands):
        seat = {"name": name, "points": len(goals), "goals": list(goals), "hand_cards": len(hand)}
        if viewer == name:
            seat["hand"] = list(hand)
        players.append(seat)
    return {
        "game": NAME, "players": players, "turn": state.current_player, "step": state.step,
        "bench": list(state.bench), "goal_slots": list(state.goal_slots), "goal_deck": state.goal_deck,
        "goals_left": state.goals_left, "goals_in_game": state.goals_in_game, "deck": state.deck,
        "discard": state.discard, "bonus_swap": state.bonus_swap, "quiet_turns": state.quiet_turns,
        "refreshes": state.refreshes, "enter_workbench": state.enter_workbench,
        "winners": list(state.winners), "tied": list(state.tied), "rematch": bool(state.tied),
    }


def event_view(event: Mapping[str, Any], viewer: str | None) -> Mapping[str, Any]:
    """A ``hold`` event's part is its owner's alone."""
    if event.get("type") == "hold" and viewer != event.get("player"):
        return {k: v for k, v in event.items() if k != "part"}
    return event


def to_json(state: State) -> dict[str, Any]:
    return view(state, PUBLIC)


def status(state: State) -> str:
    if is_over(state):
        if state.tied:
            return f"{' and '.join(state.tied)} tie with {max(state.points)} goals: play again! (Next: a rematch)"
        return f"{state.winners[0]} wins with {max(state.points)} goals"
    slot, space = waiting_goal(state), waiting_space(state)
    if slot is not None:
        return f"enter the new goal in slot {slot + 1}"
    if space is not None:
        return f"enter the toy part on {space_name(space)}"
    who = state.current_player
    if state.step == "swap":
        return f"{who}: swap two toy parts"
    if state.bonus_swap:
        return f"{who}: an extra swap, a goal, or end the turn"
    return f"{who}: complete goals or end the turn"


def scoreboard(state: State) -> list[list[str]]:
    rows = [["Player", "Goals", "Hand"]]
    for i, (name, points, hand) in enumerate(zip(state.players, state.points, state.hands)):
        mark = "> " if i == state.player and not is_over(state) else ""
        rows.append([mark + name, str(points), f"{len(hand)} cards"])
    return rows


GAME = Game(name=NAME, title="Making Christmas", min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, dice=None,
            setup=setup, apply=apply, is_over=is_over, scoreboard=scoreboard, to_json=to_json,
            event_types=EVENT_TYPES, event_keys=EVENT_KEYS, status=status, options=OPTIONS, legal_events=legal_events, view=view,
            event_view=event_view)
