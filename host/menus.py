"""The knob menus: what the camera cannot see, asked with a rotary encoder and its push.

A :class:`Menu` is a title and a list of items; turning the knob moves the highlight
(``left``/``right``), pushing it (or Score) chooses, Undo leaves. The builders below make
the Jingle Bell Roll menus from the rules' state:

* :func:`character_menu`: each player's character card, at setup;
* :func:`face_menu`: confirm or correct a die the camera was unsure of;
* :class:`ScoreWizard`: the steps of scoring a turn: the gift cards played, the best use
  of the character ability (worked out by the rules), the player receiving each gift
  card, the letter taken and its effect, the letter it covers; it ends with the
  ``score`` event;
* :func:`table_menu`: the knob's menu during a turn (score, correct a die, re-roll one die
  with an ability, undo; between turns, teach the dice).

Everything here is pure: menus are data, and choosing returns the next menu or a result.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from rules.core import RuleError

DONE, SKIP, BACK = "__done__", "__skip__", "__back__"


@dataclass(frozen=True)
class MenuItem:
    label: str
    value: Any


@dataclass(frozen=True)
class Menu:
    """A list to pick from with the knob. ``kind`` tells the loop what a choice means."""

    kind: str
    title: str
    items: tuple[MenuItem, ...]
    highlight: int = 0
    context: Any = None

    def turn(self, steps: int) -> "Menu":
        """The menu after ``steps`` knob detents (wraps around)."""
        if not self.items:
            return self
        return replace(self, highlight=(self.highlight + steps) % len(self.items))

    @property
    def chosen(self) -> MenuItem:
        return self.items[self.highlight]

    def pick(self, value: Any) -> "Menu":
        """Highlight the item whose value is ``value`` (for scripted use and defaults)."""
        for number, item in enumerate(self.items):
            if item.value == value:
                return replace(self, highlight=number)
        raise LookupError(f"{value!r} is not in the menu {self.title!r}")

    def labels(self) -> tuple[str, ...]:
        return tuple(item.label for item in self.items)


# -- setup ---------------------------------------------------------------------------------------

def character_menu(player: str, characters: dict, taken: Sequence[str]) -> Menu:
    """Choose ``player``'s character card; characters others took are left out."""
    items = [MenuItem(f"{name}: {ability.text}", name) for name, ability in characters.items() if name not in taken]
    items.append(MenuItem("no character card", None))
    return Menu("character", f"{player}: choose a character", tuple(items), context=player)


# -- a die the camera was unsure of ----------------------------------------------------------------

UNSEEN = "?"  # a die the camera did not see: its face is asked for


def face_menu(die_number: int, read_face: str, confidence: float, faces: Sequence[str]) -> Menu:
    """"Check die N": the read face first (push to confirm it), then the other faces.
    For a die the camera did not see (``read_face`` is UNSEEN): "Die N: which face?"."""
    if read_face == UNSEEN:
        return Menu("face", f"Die {die_number}: which face?", tuple(MenuItem(face, face) for face in faces),
                    context=die_number)
    items = [MenuItem(f"{read_face} (as read, {confidence:.0%} sure)", read_face)]
    items += [MenuItem(face, face) for face in faces if face != read_face]
    return Menu("face", f"Check die {die_number}", tuple(items), context=die_number)


# -- during a turn -------------------------------------------------------------------------------

def table_menu(state, *, can_teach: bool = False) -> Menu:
    """The knob's menu during a turn; ``can_teach``: offer to teach the game's dice at the
    box (the loop offers it between turns, when the box knows how)."""
    items = []
    if state.can_score:
        items.append(MenuItem("Score now", "score"))
        items.append(MenuItem("Correct a die", "correct"))
        for source in state.rerolls_available():
            items.append(MenuItem(f"Re-roll one die with {source}", ("reroll", source)))
    items.append(MenuItem("Scoreboard", "scoreboard"))
    items.append(MenuItem("Undo the last event", "undo"))
    if can_teach:
        items.append(MenuItem("Teach the dice", "teach"))
    items.append(MenuItem("Back", BACK))
    return Menu("table", f"{state.current_player}: menu", tuple(items))


def die_menu(faces: Sequence[str]) -> Menu:
    """Which die to correct (by its number on the screen)."""
    items = tuple(MenuItem(f"die {n}: {face}", n - 1) for n, face in enumerate(faces, start=1))
    return Menu("which-die", "Correct which die?", items + (MenuItem("Back", BACK),))


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
        from rules.jingle_bell_roll_cards import GIFT_CARDS

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
    hint = (f"; if another gift card changes the dice so that it fits, choose that card first"
            if more > 0 else "")
    raise RuleError(f"{card} does not fit these dice: {reason}{hint}")


def _why_card_misses(state, card: str) -> str:
    """The rules' reason ``card`` does not score on the dice as read (no ability, no other card)."""
    from rules.jingle_bell_roll import parse_uses, score_roll
    try:
        score_roll(state.faces, parse_uses([card], None), state.rules, state.player.letter_faces)
    except RuleError as exc:
        return str(exc)
    return "it scores only with other changes to the dice"


def _is_plain(card: str) -> bool:
    """A card that scores on its own without a choice of faces (checked early for a clear message)."""
    from rules.jingle_bell_roll_cards import GIFT_CARDS
    ability = GIFT_CARDS.get(card)
    return ability is not None and ability.effect in ("bonus", "set", "draw")
