"""Jingle Bell Roll: 2-6 players, 7 Christmas dice, 5 rounds (or 6), first to the most points.

Read top to bottom: setup, events, end of turn / round / game, scoring. The facts come
from the rulebook (digest with section names in seeds/jingle-bell-roll.md); what the
rulebook leaves out is in ``DEFAULTS`` and can be overridden through the setup options
(the host reads them from the ``[jingle-bell-roll]`` table of the config file).

Setup options (a JSON object)::

    {"players": ["Ann", "Ben", "Cat"],          # seat order; the first one starts every round
     "characters": {"Ann": "Frosty"},           # optional; or choose_character events
     "rounds": 5,                               # 5, or 6 for the longer game
     ...any key of DEFAULTS...}

Events (JSON objects; ``"player"`` is optional everywhere and, when given, must be the
player whose turn it is, or the chooser for choose_character):

``{"type": "choose_character", "player": "Ann", "character": "Frosty"}``
    Before the first roll of the game. ``null`` = a character without a listed ability.
``{"type": "roll", "faces": [7 face names], "rerolled": [die indexes]}``
    What the camera sees after a roll: the faces of all seven dice. The first roll of a
    turn rolls all seven. For the 2nd and 3rd roll, ``rerolled`` (optional) names the dice
    that were picked up; without it the order of ``faces`` does not matter and the rules
    compare the dice as a multiset. Either way a BELL may not change (use a re-roll card),
    and a fourth roll is refused.
``{"type": "reroll", "with": "Frosty" | "Rockin' Around" | "Letter", "faces": [7 names]}``
    A one-die re-roll from the character ability, a gift card or a re-roll Letter to
    Santa. It does not use up one of the three rolls. At most one die may change, and it
    must show a face the ability may re-roll (only Rockin' Around and Letters touch BELLs).
``{"type": "score", "uses": [...], "gift_recipients": ["Ben"], "letter": {...}}``
    Ends the rolling. ``uses`` lists the character ability and the gift cards played, each
    a name or ``{"name": "Santa Claus (1)", "from": "GIFT", "to": "MILK"}`` when there is a
    choice; changes apply in the order given. ``gift_recipients`` names one other player
    per GIFT scored (the same player may be named again). ``letter`` (optional, only with
    exactly 2-5 stamps) is ``{"effect": "STOCKING", "cover": 0}``: the effect printed on
    the top letter of that stack (a face or ``"REROLL"``) and, when three letters are
    already visible, which one (0-2) it covers. The turn then passes on by itself: the
    zero-score draw, the ornament, the next player, the next round, the end and the
    tie-breaks all follow from this event.

Nothing is random here: the cards are tracked as counts (the device cannot see which
card a player holds), and the tie-break round is played with real dice.

What the device loop reads from a :class:`State` (all read-only): ``current_player``,
``round`` / ``day``, ``phase`` ("play", "tie-break", "over"), ``roll_number`` (0..3),
``faces``, ``kept_dice``, ``locked_dice`` (the BELLS), ``can_roll``, ``can_score``,
``expecting`` (the event types accepted now), ``rerolls_available()``, ``reroll_faces(source)``,
``card_fits(card, played)``, ``best_scoring(cards)`` ("what is this roll worth", with the best
ability/card use; its ``uses`` can go straight into a score event), ``is_over``, ``winners``, ``instant_win``,
``players`` (points, ornament, gift cards, letters) and ``history`` (one record per turn).
``GAME`` also offers the table loop its seam (rules/core.py): ``OPTIONS`` (the config keys),
``chance(state, chosen=None)`` (the roll due, or the one die of a chosen re-roll) and
``legal_events`` (characters, score, re-rolls: the last two still to be completed).
"""
from __future__ import annotations

import copy
import itertools
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from .core import Chance, Event, Game, Option, RuleError, check_setup_keys, event_keys
from .jingle_bell_roll_cards import (BELL, CHARACTERS, COOKIE, FACES, GIFT, GIFT_CARDS, LETTER_REROLL, LIST,
                                     MILK, STOCKING, Ability, change_options, check_change, lookup)

NAME = "jingle-bell-roll"
DICE = 7
MAX_ROLLS = 3
MAX_VISIBLE_LETTERS = 3
FLIP_AT = 50
FIRST_DAY = 20          # the calendar tokens: round 1 is December 20th
REROLL = "REROLL"

# ---------------------------------------------------------------------------------------
# Setup
# ---------------------------------------------------------------------------------------

# The rulebook's gaps, with our defaults (see rules/data/jingle-bell-roll.toml and seeds/).
DEFAULTS: dict[str, Any] = {
    # Score Chart: points for 1, 2, 3, ... STOCKINGS / GIFTS; past the end, the last step repeats.
    "stocking_points": [1, 3, 6, 10, 15, 21, 28],
    "gift_points": [2, 4, 6, 8, 10, 12, 14],
    # Letters to Santa: how many letters each stack (keyed by stamps) holds; 18 in all.
    "letter_stacks": {"2": 6, "3": 5, "4": 4, "5": 3},
    # What a letter may show: a permanent face, or a re-roll.
    "letter_effects": ["MILK", "COOKIE", "LIST", "STOCKING", "GIFT", REROLL],
    "gift_deck": 30,
    "starting_gift_cards": 1,
    # Lactose Intolerant ("3 points when no MILK is scored"): does a MILK with no COOKIE to pair
    # with (it scores nothing) rule it out? "any": yes, any MILK in the scored dice does;
    # "paired": only a MILK that scores, in a MILK & COOKIE pair.
    "lactose_intolerant_milk": "any",
}
LACTOSE_READINGS = ("any", "paired")


# Keys a config file's [jingle-bell-roll] table may set.
OPTION_KEYS = ("rounds", *DEFAULTS)


@dataclass(frozen=True)
class Rules:
    """The setup options after checking: the numbers this game is played with."""

    rounds: int = 5
    stocking_points: tuple[int, ...] = tuple(DEFAULTS["stocking_points"])
    gift_points: tuple[int, ...] = tuple(DEFAULTS["gift_points"])
    letter_stacks: tuple[tuple[int, int], ...] = tuple((int(k), v) for k, v in DEFAULTS["letter_stacks"].items())
    letter_effects: tuple[str, ...] = tuple(DEFAULTS["letter_effects"])
    gift_deck: int = DEFAULTS["gift_deck"]
    starting_gift_cards: int = DEFAULTS["starting_gift_cards"]
    lactose_intolerant_milk: str = DEFAULTS["lactose_intolerant_milk"]


@dataclass(frozen=True)
class Letter:
    """A Letter to Santa on a mailbox: its stamps and its effect (a face or REROLL)."""

    stamps: int
    effect: str


@dataclass(frozen=True)
class Player:
    name: str
    character: str | None = None
    points: int = 0
    hand: int = 0                         # gift cards held
    letters: tuple[Letter, ...] = ()      # visible on the mailbox, at most three
    covered: int = 0                      # letters covered by newer ones
    tie_break_points: int = 0

    @property
    def letter_count(self) -> int:
        """All letters in the mailbox, covered ones too (the first tie-break)."""
        return len(self.letters) + self.covered

    @property
    def flipped(self) -> bool:
        """The ornament has passed the top of the tree and shows its "50" side."""
        return self.points >= FLIP_AT

    @property
    def ornament(self) -> int:
        """The space the ornament stands on."""
        return self.points - FLIP_AT if self.flipped else self.points

    @property
    def letter_faces(self) -> tuple[str, ...]:
        return tuple(letter.effect for letter in self.letters if letter.effect != REROLL)

    @property
    def letter_rerolls(self) -> int:
        return sum(letter.effect == REROLL for letter in self.letters)


@dataclass(frozen=True)
class Turn:
    player: int                           # index into State.players
    rolls: int = 0                        # rolls used, 0..3
    faces: tuple[str, ...] = ()           # the seven dice now
    kept: tuple[int, ...] = ()            # dice not picked up for the last roll
    ability_used: bool = False            # the character ability (once per turn)
    letter_rerolls_used: int = 0
    cards_played: tuple[str, ...] = ()    # gift cards played while rolling


@dataclass(frozen=True)
class TurnRecord:
    """What one turn scored, for the scoreboard and the history."""

    round: int
    player: str
    points: int
    breakdown: tuple[tuple[str, int], ...]
    uses: tuple[str, ...]
    letter: Letter | None = None


@dataclass(frozen=True)
class State:
    rules: Rules
    players: tuple[Player, ...]
    turn: Turn
    round: int = 1
    phase: str = "play"                   # play | tie-break | over
    deck: int = 0
    discard: int = 0
    letter_stacks: tuple[tuple[int, int], ...] = ()   # (stamps, letters left)
    contenders: tuple[int, ...] = ()      # who plays the current tie-break round
    winners: tuple[str, ...] = ()
    instant_win: bool = False
    history: tuple[TurnRecord, ...] = field(default=(), repr=False)

    # --- what the device loop reads -------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def player(self) -> Player:
        """The player whose turn it is."""
        return self.players[self.turn.player]

    @property
    def current_player(self) -> str:
        return self.player.name

    @property
    def roll_number(self) -> int:
        """Rolls used this turn: 0 before the first roll, then 1..3."""
        return self.turn.rolls

    @property
    def faces(self) -> tuple[str, ...]:
        return self.turn.faces

    @property
    def locked_dice(self) -> tuple[int, ...]:
        """Dice that may not be re-rolled in a normal roll: the BELLS."""
        return tuple(i for i, face in enumerate(self.turn.faces) if face == BELL)

    @property
    def kept_dice(self) -> tuple[int, ...]:
        """Dice left standing at the last roll (set aside, or BELLS)."""
        return self.turn.kept

    @property
    def can_roll(self) -> bool:
        return not self.is_over and self.turn.rolls < MAX_ROLLS

    @property
    def can_score(self) -> bool:
        return not self.is_over and self.turn.rolls >= 1

    @property
    def day(self) -> int:
        """The calendar: December 20th for round 1, ... 24th (Christmas Eve) for round 5."""
        return FIRST_DAY + self.round - 1

    @property
    def can_choose_characters(self) -> bool:
        return not self.history and self.round == 1 and self.turn.player == 0 and self.turn.rolls == 0

    @property
    def expecting(self) -> tuple[str, ...]:
        """The event types the rules accept now: what the device should prompt for."""
        if self.is_over:
            return ()
        if self.turn.rolls == 0:
            return ("choose_character", "roll") if self.can_choose_characters else ("roll",)
        found = ["roll"] if self.can_roll else []
        if self.rerolls_available():
            found.append("reroll")
        return tuple(found) + ("score",)

    def reroll_faces(self, source: str) -> tuple[str, ...]:
        """The faces a one-die re-roll with ``source`` (as in a ``reroll`` event's ``"with"``)
        may pick up now; RuleError when ``source`` cannot re-roll now."""
        ability, _ = _reroll_source(self, source)
        return ability.sources

    def rerolls_available(self) -> tuple[str, ...]:
        """Names usable in a ``reroll`` event now: gift cards only if the player holds some, and
        each only while a die shows a face it may re-roll (Frosty with no MILK is not offered)."""
        if not self.can_score:
            return ()
        found = []
        ability = CHARACTERS.get(self.player.character or "")
        if ability and ability.effect == "reroll" and not self.turn.ability_used:
            found.append(ability)
        if self.player.hand > 0:
            found.append(GIFT_CARDS["Rockin' Around"])
        if self.turn.letter_rerolls_used < self.player.letter_rerolls:
            found.append(LETTER_REROLL)
        return tuple("Letter" if ability is LETTER_REROLL else ability.name for ability in found
                     if any(face in ability.sources for face in self.turn.faces))

    def best_scoring(self, cards: Sequence[str] = ()) -> "Scoring":
        """What the current dice are worth with the best use of the ability and ``cards``
        (the gift cards the player says they hold)."""
        if not self.turn.faces:
            raise RuleError(f"{self.current_player} has not rolled yet")
        character = None if self.turn.ability_used else self.player.character
        return best_scoring(self.turn.faces, self.rules, character=character, cards=cards,
                            letter_faces=self.player.letter_faces,
                            letter_stamps=[s for s, left in self.letter_stacks if left > 0])

    def card_fits(self, card: str, played: Sequence[str] = ()) -> bool:
        """Whether the gift card ``card`` scores on the current dice, alone or after the
        ability (if unused this turn) and the cards ``played`` before it (``card_can_score``)."""
        character = None if self.turn.ability_used else self.player.character
        return card_can_score(self.turn.faces, card, self.rules, character=character, played=played,
                              letter_faces=self.player.letter_faces)

    def stack_left(self, stamps: int) -> int:
        return dict(self.letter_stacks).get(stamps, 0)


def setup(options: Mapping[str, Any]) -> State:
    """The table before the first roll: each player holds the starting gift cards."""
    check_setup_keys(options, {"players", "characters", *OPTION_KEYS})
    names = options.get("players")
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise RuleError('"players" must be a list of 2 to 6 player names, in seat order')
    names = [n.strip() for n in names]
    if not 2 <= len(names) <= 6:
        raise RuleError(f"Jingle Bell Roll is for 2 to 6 players (six mailbox cards), got {len(names)}")
    if len(set(names)) != len(names):
        raise RuleError("two players have the same name; give each player a different name")
    rules = make_rules(options)
    if rules.gift_deck < rules.starting_gift_cards * len(names):
        raise RuleError(f"a gift deck of {rules.gift_deck} cards cannot deal {rules.starting_gift_cards} "
                        f"to each of {len(names)} players")
    players = tuple(Player(name, hand=rules.starting_gift_cards) for name in names)
    state = State(rules=rules, players=players, turn=Turn(player=0),
                  deck=rules.gift_deck - rules.starting_gift_cards * len(names),
                  letter_stacks=rules.letter_stacks)
    characters = options.get("characters", {})
    if not isinstance(characters, Mapping):
        raise RuleError('"characters" must map player names to character names')
    for name, character in characters.items():
        state = choose_character(state, {"type": "choose_character", "player": name, "character": character})
    return state


def make_rules(options: Mapping[str, Any]) -> Rules:
    """The Rules from setup options or a config table; RuleError names the bad key."""
    rounds = options.get("rounds", 5)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds not in (5, 6):
        raise RuleError(f'"rounds" must be 5, or 6 for the longer game; got {rounds!r}')
    merged = {**DEFAULTS, **{k: v for k, v in options.items() if k in DEFAULTS}}
    charts = {}
    for key in ("stocking_points", "gift_points"):
        chart = merged[key]
        if (not isinstance(chart, list) or not chart
                or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in chart)
                or any(b < a for a, b in zip(chart, chart[1:]))):
            raise RuleError(f'"{key}" must be a non-empty list of points for 1, 2, 3, ... dice, whole '
                            f"numbers >= 0 that never go down; got {chart!r}")
        charts[key] = tuple(chart)
    stacks = merged["letter_stacks"]
    if not isinstance(stacks, Mapping) or not stacks:
        raise RuleError('"letter_stacks" must map stamps ("2".."5") to the number of letters in that stack')
    parsed = []
    for key, size in stacks.items():
        if str(key) not in ("2", "3", "4", "5") or not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise RuleError(f'"letter_stacks": expected "2".."5" = a count >= 0, got {key!r} = {size!r}')
        parsed.append((int(key), size))
    effects = merged["letter_effects"]
    valid_effects = [f for f in FACES if f != BELL] + [REROLL]
    if (not isinstance(effects, list) or not effects or any(e not in valid_effects for e in effects)):
        raise RuleError(f'"letter_effects" must be a list drawn from {", ".join(valid_effects)}; got {effects!r}')
    counts = {}
    for key in ("gift_deck", "starting_gift_cards"):
        value = merged[key]
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RuleError(f'"{key}" must be a whole number >= 0, got {value!r}')
        counts[key] = value
    lactose = merged["lactose_intolerant_milk"]
    if lactose not in LACTOSE_READINGS:
        raise RuleError(f'"lactose_intolerant_milk" must be one of {", ".join(LACTOSE_READINGS)}; got {lactose!r}')
    return Rules(rounds=rounds, letter_stacks=tuple(sorted(parsed)), letter_effects=tuple(effects),
                 lactose_intolerant_milk=lactose, **charts, **counts)


# ---------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------

def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``; RuleError (and no change) when the rules forbid it."""
    kind = event.get("type")
    handler = EVENTS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise RuleError(f"unknown event type {kind!r}; Jingle Bell Roll events: {', '.join(EVENTS)}")
    if state.is_over:
        raise RuleError(f"the game is over ({status(state)})")
    return handler(state, event)


def choose_character(state: State, event: Mapping[str, Any]) -> State:
    if not state.can_choose_characters:
        raise RuleError("characters are chosen before the first roll of the game")
    index = _player_index(state, event.get("player"))
    character = event.get("character")
    if character is not None:
        if not isinstance(character, str):
            raise RuleError('"character" must be a character name, or null for one without an ability')
        try:
            character = lookup(character, CHARACTERS, "character").name
        except LookupError as exc:
            raise RuleError(str(exc)) from None
        taken = [p.name for i, p in enumerate(state.players) if p.character == character and i != index]
        if taken:
            raise RuleError(f"{taken[0]} already plays {character}; each character card is in the game once")
    players = _replace_player(state.players, index, character=character)
    return replace(state, players=players)


def roll(state: State, event: Mapping[str, Any]) -> State:
    _check_turn_player(state, event)
    turn = state.turn
    if turn.rolls >= MAX_ROLLS:
        raise RuleError(f"{state.current_player} has used all three rolls; score the dice now")
    faces = _faces(event.get("faces"))
    if turn.rolls == 0:
        if event.get("rerolled") not in (None, list(range(DICE))):
            raise RuleError("the first roll of a turn rolls all seven dice")
        kept: tuple[int, ...] = ()
    else:
        rerolled = event.get("rerolled")
        if rerolled is None:
            lost = Counter(turn.faces) - Counter(faces)
            if lost[BELL]:
                raise RuleError(_bell_message(lost[BELL]))
            kept = _unchanged(turn.faces, faces)
        else:
            picked = _indexes(rerolled)
            for i in range(DICE):
                if i not in picked and faces[i] != turn.faces[i]:
                    raise RuleError(f"die {i} changed from {turn.faces[i]} to {faces[i]} but was not re-rolled")
            bells = [i for i in picked if turn.faces[i] == BELL]
            if bells:
                raise RuleError(_bell_message(len(bells)))
            kept = tuple(i for i in range(DICE) if i not in picked)
    return _after_roll(state, replace(turn, rolls=turn.rolls + 1, faces=faces, kept=kept))


def reroll(state: State, event: Mapping[str, Any]) -> State:
    _check_turn_player(state, event)
    turn, player = state.turn, state.player
    if turn.rolls == 0:
        raise RuleError(f"{player.name} must roll all seven dice before re-rolling one")
    source = event.get("with")
    if not isinstance(source, str):
        raise RuleError('say what the re-roll uses: "with": the character, "Rockin\' Around" or "Letter"')
    ability, changes = _reroll_source(state, source)
    faces = _faces(event.get("faces"))
    lost = Counter(turn.faces) - Counter(faces)
    if sum(lost.values()) > 1:
        raise RuleError(f"{ability.name} re-rolls one die, but {sum(lost.values())} dice changed")
    old = next(iter(lost), None)
    if old is None and not any(face in ability.sources for face in turn.faces):
        raise RuleError(f"{ability.name} re-rolls a {' or '.join(ability.sources)}, and no die shows one")
    if old is not None and old not in ability.sources:
        raise RuleError(f"{ability.name} cannot re-roll a {old}; it re-rolls a {' or '.join(ability.sources)}")
    new_turn = replace(turn, faces=faces, kept=_unchanged(turn.faces, faces), **changes)
    new_state = state
    if ability.kind == "gift card":
        new_state = _replace_hand(state, turn.player, -1, discard=+1)
    return _after_roll(new_state, new_turn)


def score(state: State, event: Mapping[str, Any]) -> State:
    _check_turn_player(state, event)
    turn, player = state.turn, state.player
    if turn.rolls == 0:
        raise RuleError(f"{player.name} must roll the dice before scoring")
    uses = parse_uses(event.get("uses", []), player.character)
    cards = [u for u in uses if u.ability.kind == "gift card"]
    if any(u.ability.kind == "character" for u in uses) and turn.ability_used:
        raise RuleError(f"{player.name} already used {player.character}'s ability this turn (once per turn)")
    if len(cards) > player.hand:
        raise RuleError(f"{player.name} plays {len(cards)} gift card(s) but holds {player.hand}")
    result = score_roll(turn.faces, uses, state.rules, player.letter_faces)
    recipients = _recipients(state, event.get("gift_recipients"), result.gift_cards_to_deal)
    letter = _letter(state, event.get("letter"), result.stamps)

    index = turn.player
    state = _replace_hand(state, index, -len(cards), discard=len(cards))
    points = dict(points=player.points + result.points)
    if state.phase == "tie-break":
        points["tie_break_points"] = player.tie_break_points + result.points
    state = replace(state, players=_replace_player(state.players, index, **points))
    for name in recipients:
        state = _deal(state, _player_index(state, name), 1)
    state = _deal(state, index, result.draws)
    if result.points == 0:
        state = _draw_two_keep_one(state, index)
    if letter is not None:
        state = _take_letter(state, index, letter, (event.get("letter") or {}).get("cover"))
    record = TurnRecord(state.round, player.name, result.points, result.breakdown,
                        tuple(u.label for u in uses) + turn.cards_played, letter)
    return end_turn(replace(state, history=state.history + (record,)))


# the keys each event may carry besides "type"
EVENT_KEYS = event_keys(choose_character=("player", "character"), roll=("player", "faces", "rerolled"),
                        reroll=("player", "with", "faces"), score=("player", "uses", "gift_recipients", "letter"))
EVENTS = {"choose_character": choose_character, "roll": roll, "reroll": reroll, "score": score}


# --- event helpers ---------------------------------------------------------------------

def _bell_message(count: int) -> str:
    dice = "a BELL" if count == 1 else f"{count} BELLS"
    return (f"{dice} cannot be re-rolled without a re-roll card; keep the BELLS standing, or use "
            "Rockin' Around or a re-roll Letter (a 'reroll' event)")


def _faces(raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list) or len(raw) != DICE:
        raise RuleError(f'"faces" must list the faces of all {DICE} dice, e.g. '
                        '["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]')
    faces = []
    for face in raw:
        name = face.strip().upper() if isinstance(face, str) else face
        if name not in FACES:
            raise RuleError(f"{face!r} is not a Jingle Bell Roll face; faces: {', '.join(FACES)}")
        faces.append(name)
    return tuple(faces)


def _indexes(raw: Any) -> tuple[int, ...]:
    if (not isinstance(raw, list) or not raw
            or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < DICE for i in raw)
            or len(set(raw)) != len(raw)):
        raise RuleError(f'"rerolled" must list the re-rolled dice by index, 0 to {DICE - 1}, each once')
    return tuple(sorted(raw))


def _unchanged(before: Sequence[str], after: Sequence[str]) -> tuple[int, ...]:
    return tuple(i for i, (a, b) in enumerate(zip(before, after)) if a == b)


def _after_roll(state: State, turn: Turn) -> State:
    state = replace(state, turn=turn)
    if turn.faces.count(BELL) == DICE:
        return replace(state, phase="over", winners=(state.current_player,), instant_win=True)
    return state


def _check_turn_player(state: State, event: Mapping[str, Any]) -> None:
    named = event.get("player")
    if named is not None and named != state.current_player:
        raise RuleError(f"it is {state.current_player}'s turn, not {named!r}'s")


def _player_index(state: State, name: Any) -> int:
    for i, player in enumerate(state.players):
        if player.name == name:
            return i
    raise RuleError(f"no player called {name!r}; players: {', '.join(p.name for p in state.players)}")


def _replace_player(players: tuple[Player, ...], index: int, **changes: Any) -> tuple[Player, ...]:
    return players[:index] + (replace(players[index], **changes),) + players[index + 1:]


def _replace_hand(state: State, index: int, delta: int, discard: int = 0) -> State:
    players = _replace_player(state.players, index, hand=state.players[index].hand + delta)
    return replace(state, players=players, discard=state.discard + discard)


def _reroll_source(state: State, source: str) -> tuple[Ability, dict[str, Any]]:
    turn, player = state.turn, state.player
    if source.strip().lower() in ("letter", "letter to santa", "reroll letter"):
        if turn.letter_rerolls_used >= player.letter_rerolls:
            raise RuleError(f"{player.name} has no unused re-roll Letter to Santa this turn")
        return LETTER_REROLL, {"letter_rerolls_used": turn.letter_rerolls_used + 1}
    try:
        ability = lookup(source, {**CHARACTERS, **GIFT_CARDS}, "re-roll card")
    except LookupError:
        raise RuleError(f"{source!r} cannot re-roll; re-rolls come from Frosty, Holly Daze, Wreathmaster "
                        "Winston, Rockin' Around or a Letter") from None
    if ability.effect != "reroll":
        raise RuleError(f"{ability.name} is not a re-roll; play it when scoring")
    if ability.kind == "character":
        if ability.name != player.character:
            raise RuleError(f"{player.name} plays {player.character or 'no character'}, not {ability.name}")
        if turn.ability_used:
            raise RuleError(f"{player.name} already used {ability.name} this turn (once per turn)")
        return ability, {"ability_used": True}
    if player.hand < 1:
        raise RuleError(f"{player.name} holds no gift card to play as {ability.name}")
    return ability, {"cards_played": turn.cards_played + (ability.name,)}


def _recipients(state: State, raw: Any, count: int) -> tuple[str, ...]:
    raw = [] if raw is None and count == 0 else raw
    if not isinstance(raw, list) or len(raw) != count:
        given = len(raw) if isinstance(raw, list) else 0
        raise RuleError(f"this score has {count} GIFT(S), so name {count} other player(s) to receive a gift "
                        f'card ("gift_recipients"), got {given}')
    for name in raw:
        _player_index(state, name)
        if name == state.current_player:
            raise RuleError("gift cards for scored GIFTS go to other players, not to yourself")
    return tuple(raw)


def _letter(state: State, raw: Any, stamps: int) -> Letter | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise RuleError('"letter" must be {"effect": ..., "cover": ...} or null')
    stacks = dict(state.letter_stacks)
    if stamps not in stacks:
        raise RuleError(f"a Letter to Santa needs exactly {', '.join(map(str, stacks))} stamps; "
                        f"this score has {stamps}")
    stack = raw.get("stack", stamps)
    stack = int(stack) if isinstance(stack, str) and stack.strip().isdigit() else stack
    if stack != stamps:
        raise RuleError(f"with {stamps} stamps only the {stamps}-stamp stack can be taken, not {stack!r}")
    if stacks[stamps] <= 0:
        raise RuleError(f"the {stamps}-stamp stack of letters is empty")
    effect = raw.get("effect")
    effect = effect.strip().upper() if isinstance(effect, str) else effect
    if effect not in state.rules.letter_effects:
        raise RuleError(f"say what the letter shows: \"effect\" one of {', '.join(state.rules.letter_effects)}")
    player = state.player
    cover = raw.get("cover")
    if len(player.letters) >= MAX_VISIBLE_LETTERS:
        if not isinstance(cover, int) or isinstance(cover, bool) or not 0 <= cover < len(player.letters):
            raise RuleError(f"{player.name} already shows {len(player.letters)} letters: say which one the new "
                            f'letter covers ("cover": 0 to {len(player.letters) - 1})')
    elif cover is not None:
        raise RuleError(f"{player.name} has room for the letter; nothing is covered")
    return Letter(stamps, effect)


def _take_letter(state: State, index: int, letter: Letter, cover: int | None) -> State:
    player = state.players[index]
    if cover is None:
        players = _replace_player(state.players, index, letters=player.letters + (letter,))
    else:
        letters = player.letters[:cover] + (letter,) + player.letters[cover + 1:]
        players = _replace_player(state.players, index, letters=letters, covered=player.covered + 1)
    stacks = tuple((s, n - 1 if s == letter.stamps else n) for s, n in state.letter_stacks)
    return replace(state, players=players, letter_stacks=stacks)


def _deal(state: State, index: int, count: int) -> State:
    """``count`` cards from the deck to a player; an empty deck is rebuilt from the discards."""
    for _ in range(count):
        if state.deck == 0:
            state = replace(state, deck=state.discard, discard=0)
        if state.deck == 0:
            break   # every card is in someone's hand
        state = replace(_replace_hand(state, index, +1), deck=state.deck - 1)
    return state


def _draw_two_keep_one(state: State, index: int) -> State:
    """A turn worth 0 points: draw two, keep one, the other goes under the deck."""
    if state.deck < 2:
        state = replace(state, deck=state.deck + state.discard, discard=0)
    return _deal(state, index, 1)


# ---------------------------------------------------------------------------------------
# End of turn, round and game
# ---------------------------------------------------------------------------------------

def end_turn(state: State) -> State:
    """Pass the dice to the left; after the last seat, the next round or the end."""
    seats = state.contenders if state.phase == "tie-break" else tuple(range(len(state.players)))
    position = seats.index(state.turn.player)
    if position + 1 < len(seats):
        return replace(state, turn=Turn(player=seats[position + 1]))
    if state.phase == "play" and state.round < state.rules.rounds:
        return replace(state, round=state.round + 1, turn=Turn(player=0))
    return end_round(state)


def end_round(state: State) -> State:
    """After the last round (or a tie-break round): a winner, or another tie-break round."""
    if state.phase == "tie-break":
        best = max(state.players[i].tie_break_points for i in state.contenders)
        leaders = tuple(i for i in state.contenders if state.players[i].tie_break_points == best)
    else:
        leaders = standings(state)[0]
    if len(leaders) == 1:
        return replace(state, phase="over", winners=(state.players[leaders[0]].name,))
    players = tuple(replace(p, tie_break_points=0) for p in state.players)
    return replace(state, players=players, phase="tie-break", contenders=leaders,
                   round=state.round + 1, turn=Turn(player=leaders[0]))


def standings(state: State) -> list[tuple[int, ...]]:
    """Players from first to last place; tied players share a place. The order: most points,
    then most letters, then fewest gift cards (the tie-break round comes after)."""
    def key(i: int) -> tuple[int, int, int]:
        p = state.players[i]
        return (-p.points, -p.letter_count, p.hand)
    order = sorted(range(len(state.players)), key=key)
    return [tuple(group) for _, group in itertools.groupby(order, key=key)]


def is_over(state: State) -> bool:
    return state.is_over


# ---------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Use:
    """One ability or card used when scoring; ``source``/``target`` for a change."""

    ability: Ability
    source: str | None = None
    target: str | None = None

    @property
    def label(self) -> str:
        if self.ability.effect == "change":
            return f"{self.ability.name} ({self.source} -> {self.target})"
        return self.ability.name

    def to_json(self) -> dict[str, Any]:
        """As a score event's ``uses`` item: {"name", "kind"} and, for a change, "from"/"to"."""
        out = {"name": self.ability.name, "kind": self.ability.kind}
        if self.ability.effect == "change":
            out.update({"from": self.source, "to": self.target})
        return out


@dataclass(frozen=True)
class Scoring:
    """What a final roll is worth."""

    points: int
    breakdown: tuple[tuple[str, int], ...]
    uses: tuple[Use, ...]
    gift_cards_to_deal: int
    stamps: int
    instant_win: bool
    draws: int = 0
    letter_stack: int | None = None     # the stack these stamps may take from, if any

    def to_json(self) -> dict[str, Any]:
        return {"points": self.points,
                "breakdown": [{"what": what, "points": points} for what, points in self.breakdown],
                "uses": [u.to_json() for u in self.uses],
                "gift_cards_to_deal": self.gift_cards_to_deal,
                "stamps": self.stamps,
                "letter_stack": self.letter_stack,
                "instant_win": self.instant_win,
                "cards_to_draw": self.draws}


def parse_uses(raw: Any, character: str | None) -> tuple[Use, ...]:
    """Read the ``uses`` of a score event: names, or {"name", "from", "to"} objects."""
    if not isinstance(raw, list):
        raise RuleError('"uses" must be a list of the character ability and gift cards used')
    uses = []
    for item in raw:
        name, source, target = (item, None, None) if isinstance(item, str) else (
            (item.get("name"), item.get("from"), item.get("to")) if isinstance(item, Mapping) else (None,) * 3)
        if not isinstance(name, str):
            raise RuleError(f'each use is a card name or {{"name": ..., "from": ..., "to": ...}}, got {item!r}')
        try:
            ability = lookup(name, {**CHARACTERS, **GIFT_CARDS}, "character or gift card")
        except LookupError as exc:
            raise RuleError(str(exc)) from None
        if ability.kind == "character" and ability.name != character:
            raise RuleError(f"{ability.name} is not this player's character ({character or 'none'})")
        if ability.effect == "reroll":
            raise RuleError(f"{ability.name} is a re-roll: use it while rolling (a 'reroll' event)")
        if ability.effect == "change":
            try:
                source, target = check_change(ability, _face_or_none(source), _face_or_none(target))
            except ValueError as exc:
                raise RuleError(str(exc)) from None
        uses.append(Use(ability, source, target))
    if sum(u.ability.kind == "character" for u in uses) > 1:
        raise RuleError("a character ability is used once per turn")
    return tuple(uses)


def _face_or_none(face: Any) -> str | None:
    return face.strip().upper() if isinstance(face, str) else None


def chart_points(chart: Sequence[int], count: int) -> int:
    """Score Chart lookup for ``count`` dice; beyond the chart the last step repeats."""
    if count <= 0:
        return 0
    if count <= len(chart):
        return chart[count - 1]
    step = chart[-1] - chart[-2] if len(chart) > 1 else chart[-1]
    return chart[-1] + (count - len(chart)) * step


def _plural(count: int, face: str) -> str:
    return f"{count} {face}" + ("S" if count != 1 else "")


def score_roll(faces: Sequence[str], uses: Sequence[Use], rules: Rules = Rules(),
               letter_faces: Sequence[str] = ()) -> Scoring:
    """Score the final dice with ``uses`` applied; RuleError when a use does not fit the dice.

    Order: changes (in the order given), stamps, the letters' permanent faces, doubles,
    three-of-a-kind cards, the base score, bonus cards.
    """
    dice = Counter(faces)
    instant_win = len(faces) == DICE and dice[BELL] == DICE
    extra_stamps = 0
    for use in uses:
        if use.ability.effect == "change":
            if dice[use.source] < 1:
                raise RuleError(f"{use.ability.name}: there is no {use.source} die to change")
            dice[use.source] -= 1
            dice[use.target] += 1
    ring = [u for u in uses if u.ability.effect == "stamp" and u.ability.face == BELL]
    if len(ring) > dice[BELL]:
        raise RuleError(f"Ring My Bell needs a BELL for each copy played; there are {dice[BELL]} BELLS")
    extra_stamps += sum(u.ability.stamps - 1 for u in ring)
    for use in uses:
        if use.ability.effect == "stamp" and use.ability.face == LIST:
            if dice[LIST] < 1:
                raise RuleError(f"{use.ability.name}: there is no LIST to count as a stamp")
            dice[LIST] -= 1
            extra_stamps += use.ability.stamps
    stamps = dice[BELL] + extra_stamps
    counts = dice + Counter(letter_faces)
    for use in uses:
        if use.ability.effect == "double":
            if counts[use.ability.face] < 1:
                raise RuleError(f"{use.ability.name}: there is no {use.ability.face} to count twice")
            counts[use.ability.face] += 1
    breakdown: list[tuple[str, int]] = []
    for use in uses:
        if use.ability.effect == "set":
            face = use.ability.face
            if counts[face] < 3:
                raise RuleError(f"{use.ability.name} needs three {face}S; there are {counts[face]}")
            counts[face] -= 3
            breakdown.append((f"{use.ability.name}: 3 {face}S", use.ability.points))
    pairs = min(counts[MILK], counts[COOKIE])
    if pairs:
        breakdown.append((f"{pairs} MILK & COOKIE pair" + ("s" if pairs > 1 else ""), 4 * pairs))
    if counts[LIST] == 2:
        breakdown.append(("2 LISTS", 7))
    elif counts[LIST]:
        breakdown.append((f"{_plural(counts[LIST], LIST)} (only exactly two score)", 0))
    if counts[STOCKING]:
        breakdown.append((_plural(counts[STOCKING], STOCKING), chart_points(rules.stocking_points, counts[STOCKING])))
    if counts[GIFT]:
        breakdown.append((_plural(counts[GIFT], GIFT), chart_points(rules.gift_points, counts[GIFT])))
    draws = 0
    for use in uses:
        ability = use.ability
        if ability.effect == "bonus":
            times = {"pairs": pairs, "bell_stocking_pairs": min(counts[BELL], counts[STOCKING]),
                     "no_milk": int((pairs if rules.lactose_intolerant_milk == "paired" else counts[MILK]) == 0),
                     "bells": counts[BELL], "gifts": counts[GIFT]}[ability.bonus]
            if times == 0:
                raise RuleError(f"{ability.name} would score nothing here ({ability.text})")
            breakdown.append((f"{ability.name}", ability.points * times))
        elif ability.effect == "draw":
            if counts[GIFT] < 3:
                raise RuleError(f"{ability.name} needs three GIFTS; there are {counts[GIFT]}")
            draws += 1
    return Scoring(points=sum(p for _, p in breakdown), breakdown=tuple(breakdown), uses=tuple(uses),
                   gift_cards_to_deal=counts[GIFT], stamps=stamps, instant_win=instant_win, draws=draws,
                   letter_stack=stamps if stamps in dict(rules.letter_stacks) else None)


def _variants(ability: Ability) -> list[Use]:
    if ability.effect == "reroll":
        return []
    if ability.effect == "change":
        return [Use(ability, s, t) for s, t in change_options(ability)]
    return [Use(ability)]


def best_scoring(faces: Sequence[str], rules: Rules = Rules(), *, character: str | None = None,
                 cards: Sequence[str] = (), letter_faces: Sequence[str] = (),
                 letter_stamps: Sequence[int] | None = None) -> Scoring:
    """The best legal use of the character ability and any of ``cards`` for these dice.

    Best means: most points; then a stamp count that can take a letter (``letter_stamps``,
    by default every stack of the rules); then the higher of such stamp counts (a stamp card
    the player names, Ring My Bell, is spent to reach the next stack: the player says which
    letter to take, or none); then the fewest cards spent, less any drawn
    (Merry Mack is free, Treat Yo'Self only swaps a card); then the fewest uses.
    Cards that only add points (Cheat Day, Lady Luck, ...) are added whenever they score,
    so only the cards that change the dice are searched. LookupError for an unknown name.
    """
    stamps_ok = set(s for s, _ in rules.letter_stacks) if letter_stamps is None else set(letter_stamps)
    options: list[list[tuple[Use, ...]]] = []
    if character:
        ability = lookup(character, CHARACTERS, "character")
        options.append([()] + [(u,) for u in _variants(ability)])
    by_name = Counter(lookup(card, GIFT_CARDS, "gift card").name for card in cards)
    bonus_cards = [Use(GIFT_CARDS[name]) for name, copies in sorted(by_name.items())
                   for _ in range(copies) if GIFT_CARDS[name].effect == "bonus"]
    for name, copies in sorted(by_name.items()):
        if GIFT_CARDS[name].effect == "bonus":
            continue
        variants = _variants(GIFT_CARDS[name])
        choices = []
        for k in range(0, copies + 1):
            choices.extend(itertools.combinations_with_replacement(variants, k))
        # dict.fromkeys, not set: the order of equally good uses must not follow string hashing
        options.append(sorted(dict.fromkeys(choices), key=len))
    best: tuple[tuple[int, int, int, int], Scoring] | None = None
    for combo in itertools.product(*options):
        chosen = [u for group in combo for u in group]
        for order in _orders(chosen):
            try:
                score_roll(faces, order, rules, letter_faces)
            except RuleError:
                continue
            bonuses = [b for b in bonus_cards if _scores(faces, order + [b], rules, letter_faces)]
            result = score_roll(faces, order + bonuses, rules, letter_faces)
            cards_used = sum(u.ability.kind == "gift card" for u in result.uses)
            takes_letter = result.stamps in stamps_ok
            key = (result.points, int(takes_letter), result.stamps if takes_letter else 0,
                   result.draws - cards_used, -len(result.uses))
            if best is None or key > best[0]:
                best = (key, result)
    assert best is not None  # using nothing always scores
    return best[1]


def card_can_score(faces: Sequence[str], card: str, rules: Rules = Rules(), *, character: str | None = None,
                   played: Sequence[str] = (), letter_faces: Sequence[str] = ()) -> bool:
    """Whether the gift card ``card`` scores on ``faces``: on its own, or after the character's
    ability (``character``, if it may still be used) and any of the cards ``played`` before it
    change or double some dice; a change of the character's is tried before and after the
    cards' (changes chain). What the score wizard checks a card against, before it is taken."""
    ability = CHARACTERS.get(character or "")
    own = [()] + [(use,) for use in (_variants(ability) if ability else [])]
    theirs = [[None] + _variants(GIFT_CARDS[name]) for name in played]
    last = Use(GIFT_CARDS[card])
    for mine in own:
        for cards in itertools.product(*theirs):
            others = [use for use in cards if use is not None]
            orders = ([*mine, *others], [*others, *mine]) if mine and others else ([*mine, *others],)
            if any(_scores(faces, order + [last], rules, letter_faces) for order in orders):
                return True
    return False


def _scores(faces: Sequence[str], uses: Sequence[Use], rules: Rules, letter_faces: Sequence[str]) -> bool:
    try:
        score_roll(faces, uses, rules, letter_faces)
    except RuleError:
        return False
    return True


def _orders(uses: list[Use]) -> list[list[Use]]:
    """The orders worth trying: changes chain (LIST -> GIFT -> COOKIE), so try the character's
    change both before and after the cards' changes."""
    changes = [u for u in uses if u.ability.effect == "change"]
    if len(changes) < 2 or not any(u.ability.kind == "character" for u in changes):
        return [uses]
    character = [u for u in uses if u.ability.kind == "character"]
    others = [u for u in uses if u.ability.kind != "character"]
    return [character + others, others + character]


# ---------------------------------------------------------------------------------------
# Views: status line, scoreboard, JSON
# ---------------------------------------------------------------------------------------

def status(state: State) -> str:
    if state.is_over:
        winner = " and ".join(state.winners)
        if state.instant_win:
            return f"Game over: {winner} rolled 7 BELLS and wins at once"
        top = max(p.points for p in state.players)
        rounds = f"{state.round} round" + ("" if state.round == 1 else "s")
        return f"Game over after {rounds}: {winner} wins with {top} points"
    when = (f"Tie-break round between {', '.join(state.players[i].name for i in state.contenders)}"
            if state.phase == "tie-break" else
            f"Round {state.round} of {state.rules.rounds} (December {state.day})")
    if state.turn.rolls == 0:
        return f"{when}: {state.current_player} to roll"
    return (f"{when}: {state.current_player}, roll {state.turn.rolls} of {MAX_ROLLS}: "
            f"{' '.join(state.turn.faces)}")


def scoreboard(state: State) -> list[list[str]]:
    rows = [["Player", "Character", "Points", "Tree", "Rounds", "Letters", "Gift cards", ""]]
    for i, p in enumerate(state.players):
        rounds = " ".join(str(r.points) for r in state.history if r.player == p.name)
        letters = ", ".join(f"{l.effect}({l.stamps})" for l in p.letters) or "-"
        if p.covered:
            letters += f" +{p.covered} covered"
        tree = f"50+{p.ornament}" if p.flipped else str(p.ornament)
        mark = ""
        if p.name in state.winners:
            mark = "winner (7 BELLS)" if state.instant_win else "winner"
        elif not state.is_over and i == state.turn.player:
            mark = "to play"
        rows.append([p.name, p.character or "-", str(p.points), tree, rounds or "-", letters, str(p.hand), mark])
    return rows


def to_json(state: State) -> dict[str, Any]:
    return {
        "game": NAME,
        "round": state.round,
        "rounds": state.rules.rounds,
        "phase": state.phase,
        "over": state.is_over,
        "winners": list(state.winners),
        "instant_win": state.instant_win,
        "turn": None if state.is_over else {
            "player": state.current_player, "roll": state.turn.rolls, "faces": list(state.turn.faces),
            "kept": list(state.turn.kept), "locked": list(state.locked_dice),
            "ability_used": state.turn.ability_used, "expecting": list(state.expecting),
            "rerolls_available": list(state.rerolls_available())},
        "players": [{"name": p.name, "character": p.character, "points": p.points, "ornament": p.ornament,
                     "flipped": p.flipped, "gift_cards": p.hand,
                     "letters": [{"stamps": l.stamps, "effect": l.effect} for l in p.letters],
                     "covered_letters": p.covered, "tie_break_points": p.tie_break_points}
                    for p in state.players],
        "gift_deck": state.deck,
        "gift_discard": state.discard,
        "letter_stacks": {str(s): n for s, n in state.letter_stacks},
        "history": [{"round": r.round, "player": r.player, "points": r.points,
                     "breakdown": [list(b) for b in r.breakdown], "uses": list(r.uses),
                     "letter": None if r.letter is None else {"stamps": r.letter.stamps, "effect": r.letter.effect}}
                    for r in state.history],
    }


# ---------------------------------------------------------------------------------------
# What the game offers the table: options, throws, choices, views
# ---------------------------------------------------------------------------------------

def _option_check(key: str):
    """A check for config key ``key``: ``make_rules`` on that key alone (as ``dicewatch score``
    reads the ``[jingle-bell-roll]`` table); the value is kept as given."""
    def check(value: Any) -> Any:
        make_rules({key: value})
        return value
    return check


OPTION_HELP = {
    "rounds": "Rounds to play: 5 (December 20th to 24th), or 6 for the rulebook's longer game.",
    "stocking_points": "ASSUMPTION (the Score Chart is a picture we lack): points for 1, 2, 3, ... "
                       "STOCKINGS; past the end the last step repeats.",
    "gift_points": "ASSUMPTION past one GIFT (the rulebook only shows one GIFT = 2): points for "
                   "1, 2, 3, ... GIFTS.",
    "letter_stacks": "ASSUMPTION (the split of the 18 letters is not given): letters in the 2-, 3-, "
                     "4- and 5-stamp stacks.",
    "letter_effects": "ASSUMPTION (the letters are not listed): what a Letter to Santa may show, a "
                      "face other than BELL, or REROLL.",
    "gift_deck": "Gift cards in the deck (the rulebook's 30).",
    "starting_gift_cards": "Gift cards each player starts with (the rulebook's 1).",
    "lactose_intolerant_milk": "ASSUMPTION (the rulebook says 'no MILK scored'): whether any MILK in the "
                               "scored dice rules out Lactose Intolerant (any), or only a MILK that scores, "
                               "in a MILK & COOKIE pair (paired).",
}

OPTIONS = tuple(Option(key, 5 if key == "rounds" else copy.deepcopy(DEFAULTS[key]), OPTION_HELP[key],
                       check=_option_check(key), choices={"rounds": (5, 6), "lactose_intolerant_milk":
                                                          LACTOSE_READINGS}.get(key, ()))
                for key in OPTION_KEYS)


def chance(state: State, chosen: Event | None = None) -> Chance | None:
    """The dice to throw now: a turn's roll (all seven at first, then all but the BELLS,
    which stand), or with ``chosen``, a ``reroll`` event without faces, its one die. ``None``
    when the game is over, no roll is left, or ``chosen`` cannot be played now."""
    if state.is_over:
        return None
    if chosen is None:
        return _roll_chance(state)
    if chosen.get("type") == "reroll":
        return _reroll_chance(state, chosen)
    return None


def _roll_chance(state: State) -> Chance | None:
    if not state.can_roll:
        return None
    standing = tuple(state.faces[i] for i in state.locked_dice) if state.roll_number else ()
    player = state.current_player
    return Chance(event={"type": "roll", "player": player}, dice=DICE - len(standing), face_set=NAME,
                  standing=standing, thrower=player)


def _reroll_chance(state: State, chosen: Event) -> Chance | None:
    """One die of a face the re-roll may pick up (a BELL only when no other face will do: the
    players keep their BELLS); the other six stand."""
    source, player = chosen.get("with"), chosen.get("player")
    if not isinstance(source, str) or player not in (None, state.current_player):
        return None
    try:
        allowed = state.reroll_faces(source)
    except RuleError:
        return None
    faces = list(state.faces)
    candidates = [face for face in faces if face in allowed]
    if not candidates:
        return None
    faces.remove(next((face for face in candidates if face != BELL), candidates[0]))
    event = {key: value for key, value in chosen.items() if key != "faces"}
    return Chance(event=event, dice=1, face_set=NAME, standing=tuple(faces), thrower=state.current_player)


def legal_events(state: State) -> tuple[dict[str, Any], ...]:
    """The choices open now, in this order: characters, the score, the re-rolls.

    ``choose_character`` events are complete. Two kinds are not: ``score`` (the box's score
    wizard adds ``uses``, ``gift_recipients`` and ``letter``; a roll with a GIFT cannot be
    scored without recipients) and ``reroll`` (a throw: :func:`chance` with the event says
    which die, the faces come from the dice). Rolling is not a choice but a chance."""
    if state.is_over:
        return ()
    return character_choices(state) + turn_choices(state)


def character_choices(state: State) -> tuple[dict[str, Any], ...]:
    """Before the first roll: each character not yet taken, for each player without one, in
    seat order (a player may decline, so the table asks the next one)."""
    if not state.can_choose_characters:
        return ()
    taken = {p.character for p in state.players}
    return tuple({"type": "choose_character", "player": p.name, "character": name}
                 for p in state.players if p.character is None
                 for name in CHARACTERS if name not in taken)


def turn_choices(state: State) -> tuple[dict[str, Any], ...]:
    """Once the current player has rolled: score, and each re-roll they may use now."""
    if not state.can_score:
        return ()
    player = state.current_player
    rerolls = tuple({"type": "reroll", "player": player, "with": source} for source in state.rerolls_available())
    return ({"type": "score", "player": player},) + rerolls


def view(state: State, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` sees: everything. Jingle Bell Roll has no secrets here, since the box
    tracks gift cards as counts, never which card a player holds."""
    return to_json(state)


GAME = Game(
    name=NAME,
    title="Jingle Bell Roll",
    min_players=2,
    max_players=6,
    dice="jingle-bell-roll",
    setup=setup,
    apply=apply,
    is_over=is_over,
    scoreboard=scoreboard,
    to_json=to_json,
    event_types=tuple(EVENTS),
    event_keys=EVENT_KEYS,
    status=status,
    options=OPTIONS,
    chance=chance,
    legal_events=legal_events,
    view=view,
)
