"""Jingle Bell Roll at the box: its screens, its menus' words, its questions before the first roll.

The rules (rules/jingle_bell_roll.py) say what is thrown (seven dice; the BELLS stay
standing; a re-roll with an ability throws one die) and which choices are open (score the
turn, re-roll with an ability, each player's character card). This module shows them:

* before the first roll, the knob asks each player for a character card (Next: play without);
* the roll screen (the dice, what they are worth now, what is left to do) and the
  scoreboard (round, points, letters, gift cards; the leader in red);
* the knob's menu during a turn (score, correct a die, re-roll one die with an ability,
  scoreboard, undo; between turns, teach the dice);
* Score asks the turn's questions one menu at a time (:class:`ScoreWizard`: the gift
  cards played, the best use of the character ability (worked out by the rules), who
  receives each gift card, the letter taken and its effect, the letter it covers) and
  shows "Ann scores 9";
* SEVEN BELLS ends the game at once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from host.dice_check import standing_proposed
from host.games import GameTable, turn_knob_to
from host.interactions import Answering, Awaiting
from host.menus import BACK, DONE, SKIP, Menu, MenuItem
from host.presenters import READ_OK, WAITING, DieView, Screen
from rules.core import Chance, RuleError
from rules.jingle_bell_roll import parse_uses, score_roll
from rules.jingle_bell_roll_cards import CHARACTERS, GIFT_CARDS

GAME = "jingle-bell-roll"
DICE = 7
BELL = "BELL"


# -- what the screen shows for a state ------------------------------------------------------

def dice_views(state, faces: Sequence[str] | None = None, confidences: Sequence[float] | None = None,
               flagged=()) -> tuple[DieView, ...]:
    faces = list(state.faces if faces is None else faces)
    flagged = set(flagged)
    kept = set(state.kept_dice) if faces == list(state.faces) else set()
    return tuple(DieView(face, confidence=(confidences[i] if confidences else 1.0), kept=i in kept,
                         flagged=i in flagged, locked=face == BELL) for i, face in enumerate(faces))


def roll_title(state) -> str:
    return f"{state.current_player} · Roll {state.roll_number} of 3"


def roll_screen(state) -> Screen:
    """The dice just rolled, what they are worth now, and what is left to do."""
    try:
        scoring = state.best_scoring()
        scoring_first = sorted(scoring.breakdown, key=lambda item: -item[1])  # what scores first, then the zeros
        lines = tuple(f"{what}: {points}" for what, points in scoring_first) or ("nothing scores yet",)
        total = f"{scoring.points} pts"
    except RuleError:
        lines, total = (), ""
    footer = (f"next: Roll {state.roll_number + 1} of 3, or press Score" if state.roll_number < 3
              else "that was the last roll: press Score")
    return Screen("roll", title=roll_title(state), dice=dice_views(state), lines=lines, total=total,
                  footer=footer)


def scoreboard_screen(state, game) -> Screen:
    """Round, points, letters and gift cards per player; the leader in red."""
    rows = [("Player", "Pts", "Letters", "Cards")]
    best = max(p.points for p in state.players)
    highlight = None
    for number, p in enumerate(state.players, start=1):
        rows.append((p.name, str(p.points), str(p.letter_count), str(p.hand)))
        if p.points == best and best > 0 and highlight is None:
            highlight = number
    if state.is_over:
        title = "Game over"
    elif state.phase == "tie-break":
        title = "Tie-break round"
    else:
        title = f"Round {state.round} of {state.rules.rounds} · Dec {state.day}"
    footer = game.status(state) if game.status else ""
    if state.is_over:
        winners = " and ".join(state.winners) or "nobody"
        seven = " with 7 BELLS" if state.instant_win else ""
        footer = f"{winners} win{'s' if ' and ' not in winners else ''}{seven} · Next: a new game"
    else:
        footer = f"{state.current_player}: Roll 1 of 3" if state.roll_number == 0 else footer
    return Screen("scoreboard", title=title, table=tuple(rows), highlight=highlight, footer=footer)


def character_menu(player: str, events: Sequence[Mapping[str, Any]]) -> Menu:
    """Choose ``player``'s character card, from the rules' legal ``choose_character`` events."""
    items = [MenuItem(f"{e['character']}: {CHARACTERS[e['character']].text}", e["character"]) for e in events]
    items.append(MenuItem("no character card", None))
    return Menu("character", f"{player}: choose a character", tuple(items), context=player)


def table_menu(state, events: Sequence[Mapping[str, Any]], *, can_teach: bool = False) -> Menu:
    """The knob's menu during a turn, from the rules' legal events (score, re-rolls);
    ``can_teach``: offer to teach the game's dice at the box."""
    items = []
    for event in events:
        if event["type"] == "score":
            items.append(MenuItem("Score now", dict(event)))
            items.append(MenuItem("Correct a die", "correct"))
    for event in events:
        if event["type"] == "reroll":
            items.append(MenuItem(f"Re-roll one die with {event['with']}", dict(event)))
    items.append(MenuItem("Scoreboard", "scoreboard"))
    items.append(MenuItem("Undo the last event", "undo"))
    if can_teach:
        items.append(MenuItem("Teach the dice", "teach"))
    items.append(MenuItem("Back", BACK))
    return Menu("table", f"{state.current_player}: menu", tuple(items))


# -- scoring a turn ------------------------------------------------------------------------------

@dataclass
class ScoreWizard:
    """Collects a Jingle Bell Roll ``score`` event one knob menu at a time.

    >>> wizard = ScoreWizard(state)                           # doctest: +SKIP
    >>> menu = wizard.menu()       # show it; on push:       # doctest: +SKIP
    >>> wizard.choose(menu.chosen.value); wizard.menu()      # doctest: +SKIP
    >>> wizard.event()             # when wizard.menu() is None   # doctest: +SKIP
    """

    state: Any
    cards: list[str] = field(default_factory=list)
    cards_done: bool = False
    recipients: list[str] = field(default_factory=list)
    letter: dict | None = None
    letter_done: bool = False
    cover_needed: bool = False
    confirmed: bool = False

    def __post_init__(self) -> None:
        self.cards_done = self.cards_done or self.state.player.hand == 0  # no gift card in hand: nothing to ask

    def answers(self) -> dict:
        """What was answered so far, as JSON (``ScoreWizard(state, **answers)`` asks on from there)."""
        return {"cards": list(self.cards), "cards_done": self.cards_done, "recipients": list(self.recipients),
                "letter": dict(self.letter) if self.letter is not None else None, "letter_done": self.letter_done,
                "cover_needed": self.cover_needed, "confirmed": self.confirmed}

    # the rules' scoring helpers
    def scoring(self):
        return self.state.best_scoring(self.cards)

    def uses(self) -> list:
        return [use.to_json() for use in self.scoring().uses]

    def menu(self) -> Menu | None:
        """The next question, or None when the event is complete."""
        player = self.state.player
        if not self.cards_done:
            held = player.hand - len(self.cards)
            items = [MenuItem("No more gift cards" if self.cards else "No gift card played", DONE)]
            if held > 0:
                items += [MenuItem(f"{name}: {card.text}", name) for name, card in GIFT_CARDS.items()
                          if card.effect != "reroll"]
            played = f" ({', '.join(self.cards)})" if self.cards else ""
            return Menu("gift-card", f"Gift cards played{played}", tuple(items),
                        context=held)
        scoring = self.scoring()
        if len(self.recipients) < scoring.gift_cards_to_deal:
            n = len(self.recipients) + 1
            others = [p.name for p in self.state.players if p.name != player.name]
            return Menu("recipient", f"GIFT {n} of {scoring.gift_cards_to_deal}: gift card to",
                        tuple(MenuItem(name, name) for name in others), context=n)
        stamps = scoring.stamps
        if not self.letter_done and self.state.stack_left(stamps) > 0:
            effects = self.state.rules.letter_effects
            items = [MenuItem("No letter", SKIP)] + [MenuItem(f"Letter showing {e}", e) for e in effects]
            return Menu("letter", f"{stamps} stamps: take a letter?", tuple(items), context=stamps)
        if self.cover_needed and self.letter is not None and "cover" not in self.letter:
            items = tuple(MenuItem(f"cover {letter.effect} ({letter.stamps} stamps)", number)
                          for number, letter in enumerate(player.letters))
            return Menu("cover", "Three letters showing: cover which?", items)
        if not self.confirmed:
            lines = [f"{what}: {points}" for what, points in scoring.breakdown]
            used = {use.ability.name for use in scoring.uses}
            lines += [f"{card}: no help here, keep it" for card in self.cards if card not in used]
            return Menu("confirm", f"Score {scoring.points} points?",
                        (MenuItem(f"Yes, score {scoring.points}", DONE),) +
                        tuple(MenuItem(line, DONE) for line in lines), context=scoring)
        return None

    def choose(self, value: Any) -> None:
        """Record the answer to the current menu. RuleError when the cards do not fit the dice."""
        menu = self.menu()
        if menu is None:
            return
        if menu.kind == "gift-card":
            if value == DONE:
                self.cards_done = True
            else:
                if _is_plain(value):
                    _check_card_fits(self.state, self.cards, value)
                self.cards.append(value)
        elif menu.kind == "recipient":
            self.recipients.append(value)
        elif menu.kind == "letter":
            self.letter_done = True
            if value != SKIP:
                self.letter = {"effect": value}
                self.cover_needed = len(self.state.player.letters) >= 3
        elif menu.kind == "cover":
            assert self.letter is not None
            self.letter["cover"] = value
        elif menu.kind == "confirm":
            self.confirmed = True

    def back(self) -> bool:
        """Undo the last answer; False when there is nothing left to go back to."""
        if self.confirmed:
            self.confirmed = False
        elif self.letter is not None and "cover" in self.letter:
            del self.letter["cover"]
        elif self.letter_done:
            self.letter_done, self.letter, self.cover_needed = False, None, False
        elif self.recipients:
            self.recipients.pop()
        elif self.cards_done and self.state.player.hand > 0:
            self.cards_done = False
        elif self.cards:
            self.cards.pop()
        else:
            return False
        return True

    def event(self) -> dict:
        """The ``score`` event (call when :meth:`menu` returns None)."""
        event: dict[str, Any] = {"type": "score", "player": self.state.current_player, "uses": self.uses(),
                                 "gift_recipients": list(self.recipients)}
        if self.letter is not None:
            event["letter"] = dict(self.letter)
        return event


def _check_card_fits(state, played: Sequence[str], card: str) -> None:
    """RuleError (with the reason on the dice as read) unless ``card`` scores on the dice as
    they are, or after the character's ability and the cards ``played`` before it change or
    double some of them (the rules' ``card_fits``)."""
    if state.card_fits(card, played):
        return
    reason = _why_card_misses(state, card)
    more = state.player.hand - len(played) - 1   # cards still in hand besides this one
    hint = ("; if another gift card changes the dice so that it fits, choose that card first"
            if more > 0 else "")
    raise RuleError(f"{card} does not fit these dice: {reason}{hint}")


def _why_card_misses(state, card: str) -> str:
    """The rules' reason ``card`` does not score on the dice as read (no ability, no other card)."""
    try:
        score_roll(state.faces, parse_uses([card], None), state.rules, state.player.letter_faces)
    except RuleError as exc:
        return str(exc)
    return "it scores only with other changes to the dice"


def _is_plain(card: str) -> bool:
    """A card that scores on its own without a choice of faces (checked early for a clear message)."""
    ability = GIFT_CARDS.get(card)
    return ability is not None and ability.effect in ("bonus", "set", "draw")


class Table(GameTable):
    """Jingle Bell Roll's screens and questions (see the module docstring)."""

    dice_set = "jingle-bell-roll"
    red_faces = (BELL,)
    dice_stay = True
    correct_menu_light = None
    refused_hint = "Put the dice back as they were, or push the knob to enter the dice if the camera got one wrong."
    throw_events = frozenset({"roll", "reroll"})

    def __init__(self, loop, options, new_seed=None):
        super().__init__(loop, options, new_seed)
        self.skipped: set[str] = set()   # players who chose no character card
        self.setup_done = not loop.ask_setup or not self.state.can_choose_characters

    def bar(self) -> int:
        return 0 if self.state.is_over else int(self.state.roll_number)

    def still_light(self) -> str:
        return READ_OK if self.state.roll_number else WAITING

    def dice_views(self, faces, confidences=None, flagged=()):
        return dice_views(self.state, faces, confidences, flagged)

    # -- screens -----------------------------------------------------------------------------
    def start(self) -> None:
        if not self.setup_done:
            self.open_character_menu()
        else:
            self.loop.show_home()

    def home(self) -> None:
        state, loop = self.state, self.loop
        if state.is_over or state.roll_number == 0:
            loop.show(scoreboard_screen(state, self.game))
            if not state.is_over:
                loop.status(WAITING)
        else:
            loop.show(roll_screen(state))
            loop.status(READ_OK)

    def show_awaited(self, event) -> None:
        if self.loop.same_read is not None:
            lines = ("the same dice again: if the die came up the same, press Next", "Undo: no re-roll")
        else:
            lines = (f"with {event['with']}: pick up one die, roll it, and let it settle", "Next or Undo: no re-roll")
        self.loop.show(Screen("prompt", title="Re-roll one die", lines=lines))
        self.loop.status(WAITING)

    def show_turn_scored(self) -> None:
        """"Ann scores 9" and how, until Next or Undo puts it away (or the next roll is read)."""
        record = self.state.history[-1]
        over = self.state.is_over
        self.loop.show(Screen("prompt", title=f"{record.player} scores {record.points}",
                              lines=tuple(f"{w}: {p}" for w, p in record.breakdown),
                              footer="Next: the scoreboard"), notice=True)  # the first Next or Undo: scoreboard
        self.loop.status(READ_OK, sound="game-over" if over else "scored", bar=0)
        if over:
            self.loop.table.close()

    # -- setup: characters ------------------------------------------------------------------
    def characters_asked(self) -> set[str]:
        asked = {e.get("player") for e in self.loop.table.session.events if e.get("type") == "choose_character"}
        return asked | self.skipped

    def open_character_menu(self) -> None:
        asked = self.characters_asked()
        events = [e for e in self.game.legal_events(self.state) if e["type"] == "choose_character"]
        for player in self.state.players:
            if player.character is None and player.name not in asked:
                self.loop.open_menu(character_menu(player.name, [e for e in events if e["player"] == player.name]))
                return
        self.setup_done = True
        self.loop.close_menu()
        self.loop.show_home()

    def undo_character(self, asking: str) -> None:
        """Undo on a character menu: take back the answer of the player asked before (their
        card, or their "no character card"), and ask them again; nothing before the first."""
        names = [p.name for p in self.state.players]
        answered = [n for n in names[:names.index(asking)] if n in self.characters_asked()]
        if answered:
            if answered[-1] in self.skipped:
                self.skipped.discard(answered[-1])
            else:
                self.loop.table.undo()  # the last event is that player's choose_character
        self.open_character_menu()

    def not_reading(self) -> str | None:
        return None if self.setup_done else "the characters are being chosen"

    # -- the knob ------------------------------------------------------------------------------
    def on_push(self) -> None:
        state = self.state
        if state.is_over:
            self.loop.show_home()
            return
        can_teach = self.loop.teach_dice is not None and state.roll_number == 0
        self.loop.open_menu(table_menu(state, self.game.legal_events(state), can_teach=can_teach))

    def on_score(self) -> None:
        self.start_scoring()

    def choose(self, menu: Menu, value: Any) -> None:
        if menu.kind == "character":
            if value is None:
                self.skipped.add(menu.context)
            else:
                self.loop.play({"type": "choose_character", "player": menu.context, "character": value})
            self.open_character_menu()
        elif isinstance(value, Mapping) and value.get("type") == "score":
            self.start_scoring()
        elif isinstance(value, Mapping) and value.get("type") == "reroll":
            self.loop.stack.remove(Awaiting)
            self.loop.stack.push(Awaiting(dict(value)))
            self.loop.same_read = None  # dice read before it are no re-roll
            self.show_awaited(value)
        elif value == "scoreboard":
            self.loop.show(scoreboard_screen(self.state, self.game))
        else:
            self.loop.show_home()

    def next_on_menu(self, menu: Menu) -> bool:
        if menu.kind == "character":  # Next: play on without (more) character cards
            self.setup_done = True
            self.loop.show_home()
            return True
        return False

    def undo_on_menu(self, menu: Menu) -> bool:
        if menu.kind == "character":
            self.undo_character(menu.context)
            return True
        return False

    # -- scoring -------------------------------------------------------------------------------
    def start_scoring(self) -> None:
        if not self.state.can_score:
            raise RuleError(f"{self.state.current_player} must roll the dice before scoring")
        self.loop.stack.remove(Awaiting)  # scoring instead of the re-roll that was announced
        self.loop.start_answering(ScoreWizard(self.state), busy="the turn is being scored (Undo goes back to the dice)")

    def answer_refused(self, exc: RuleError) -> None:
        self.loop.error("Card does not fit", str(exc))

    def answered(self, event: dict) -> None:
        self.loop.play(event)
        self.show_turn_scored()

    def restart_steps(self, steps):
        return ScoreWizard(self.state)

    # -- answers kept for --resume -----------------------------------------------------------------
    def answers(self) -> dict:
        awaited, wizard = self.loop.awaited, self.loop.wizard
        return {"no_character": sorted(self.skipped), "characters_done": self.setup_done,
                "reroll_with": awaited["with"] if awaited else None,
                "wizard": wizard.answers() if wizard else None}

    def take_up(self, answers: Mapping[str, Any], still_current: bool) -> None:
        names = {p.name for p in self.state.players}
        self.skipped = {name for name in answers.get("no_character", ()) if name in names}
        self.setup_done = self.setup_done or bool(answers.get("characters_done"))
        if not still_current or not self.state.can_score:
            return
        reroll_with = answers.get("reroll_with")
        if reroll_with is not None and not isinstance(reroll_with, str):
            raise TypeError(f"reroll_with is {reroll_with!r}, expected a name")
        if reroll_with is not None:
            self.loop.stack.push(Awaiting({"type": "reroll", "player": self.state.current_player,
                                           "with": reroll_with}))
        if answers.get("wizard") is not None:
            self.loop.stack.push(Answering(ScoreWizard(self.state, **answers["wizard"]),
                                           busy="the turn is being scored (Undo goes back to the dice)"))

    def forget_answers(self) -> None:
        self.skipped = set()
        self.setup_done = not self.loop.ask_setup or not self.state.can_choose_characters

    # -- throws --------------------------------------------------------------------------------
    def read_chance(self, awaited) -> Chance:
        """Every read is the current player's roll (or the re-roll announced), all seven dice:
        one the rules refuse (a fourth roll) is shown with the reason."""
        state = self.state
        player = state.current_player
        if awaited is not None:
            event = {"type": "reroll", "player": player, "with": awaited["with"]}
        else:
            event = {"type": "roll", "player": player}
        return Chance(event, dice=DICE, face_set=self.dice_set, thrower=player)

    def wanted_chance(self, awaited):
        if not self.setup_done:
            return None
        return self.game.chance(self.state, awaited) if awaited is not None else self.game.chance(self.state)

    def faces_on_table(self):
        return list(self.state.faces) if self.state.roll_number >= 1 else None

    def wrong_count(self, chance: Chance, seen: int) -> tuple[str, str]:
        return (f"{self.game.title} needs all {chance.total} dice in view of the camera.",
                "Move them into the tray and they are read again, or push the knob to enter the dice.")

    def proposed(self, faces, confidences, spots, chance):
        """A roll leaves the BELLS standing: a BELL missing from the read is most likely an unsure die."""
        if self.state.roll_number >= 1 and chance.event["type"] == "roll":
            return standing_proposed(faces, confidences, spots, self.loop.known_spots, BELL,
                                     len(self.state.locked_dice), self.loop.confidence)
        return faces

    def note_context(self) -> dict:
        return {"player": self.state.current_player}

    def thrown(self, event) -> None:
        state = self.state
        if state.is_over and state.instant_win:
            self.loop.show(Screen("prompt", title="SEVEN BELLS!", lines=(f"{event['player']} wins the game at once",),
                                  dice=dice_views(state)))
            self.loop.status(READ_OK, sound="seven-bells", bar=10)
            self.loop.table.close()
            return
        self.loop.show_home()

    # -- corrections -----------------------------------------------------------------------------
    def why_not_correctable(self, last, index: int) -> str | None:
        state = self.state
        if last is None or state.roll_number < 1 or not 0 <= index < len(state.faces):
            return f"there is no die {index + 1} to correct now"
        return None

    def correction_context(self, last) -> dict:
        return {"player": self.state.current_player}

    def corrected(self, last, faces: list[str]) -> dict:
        corrected = {**last, "faces": faces}
        corrected.pop("rerolled", None)
        return corrected

    def after_undo(self, undone) -> bool:
        if undone.get("type") == "choose_character" and self.loop.ask_setup:
            self.setup_done = False  # that player is asked again
            self.open_character_menu()
            return True
        return False


# -- setup arguments for run and demo, and its scripted demo ------------------------------------

BENCH = {"jingle-bell-roll": {"players": ["Ann", "Ben"], "characters": {"Ann": "Frosty", "Ben": "Holly Daze"}}}
BENCH_LOOP = {"ask_setup": False}


def bench_player(loop, table, waited: int, rng) -> None:
    """host.bench_games' player at the buttons: score after the third roll; announce a re-roll
    after the first when the menu has one."""
    state = table.state
    if loop.wizard is not None:
        loop.handle("push")
    elif state.roll_number == 3 and loop.awaited is None and loop.menu is None:
        loop.handle("score")
    elif (waited == 1 and state.roll_number == 1 and loop.awaited is None and loop.menu is None
          and table.session.events[-1]["type"] == "roll" and state.rerolls_available()):
        loop.handle("push")
        values = [item.value for item in loop.menu.items]
        turn_knob_to(loop, next(i for i, v in enumerate(values) if isinstance(v, dict) and v["type"] == "reroll"))


#: ``dicewatch demo``: three scripted players on the synthetic camera (its ``run(args, size,
#: out)``; named, not imported: the demo's players load only for the demo)
DEMO = "host.demo_table"


SETUP_FLAGS = {"--no-characters": "no_characters"}


def add_setup_arguments(parser, command: str) -> None:
    if command == "run":   # the demo's players always choose theirs
        parser.add_argument("--no-characters", action="store_true",
                            help="jingle-bell-roll: do not ask for character cards at the start")


def setup_options(args, players: list[str]) -> dict:
    """The setup options of a new session from the command line (the players)."""
    if not players:
        raise ValueError('give the players in seat order, e.g. --players "Ann,Ben,Cy" (or --resume)')
    return {"players": list(players)}


def loop_arguments(args, options: dict) -> dict:
    return {"ask_setup": not getattr(args, "no_characters", False), "options": options}
