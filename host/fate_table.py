"""Another Christmas Romance Movie at the table: the box plays fate and tracks the movie.

:class:`FateLoop` is the table loop (host/loop.py's :class:`~host.loop.TableLoop`: camera,
settle gate, reader, durable session, presenters, camera retry) taught the solo and 2-player
co-op game of rules/christmas_romance.py. What it asks for follows the rules' state:

========== ==================================================================================
phase      what the box does
========== ==================================================================================
declare    "push the knob": a menu of the legal ways to start the turn (solo: which love
           interest; how many dice to defer; release the deferred dice)
roll       "Roll 3 dice": the camera reads them when they settle
play       the dice to place; the knob's menu lists the legal moves: place on the stage or
           Christmas romance card, trade on a movie element (when its layout gives the
           trade), add the copied dice, melt a snowflake (3 dice of one face), copy a die
           (co-op partner), end the turn (or press Score)
penalty    solo, after completing a Christmas romance card: "Roll N dice" for it
fate       "Fate rolls 7 dice": the camera counts the snowflakes; with ``virtual_fate`` the
           box rolls them itself from a fresh seed (the seed is the logged event, so a replay
           is exact) when the knob is pushed
fate_choice solo: fate's dice on screen; the menu copies one of them or takes a free
           deferred die (or passes; Next passes too)
over       the win or loss screen, then the movie told as a story, page by page
========== ==================================================================================

A read with a different number of dice than are due is never guessed at: the screen says
how many dice it sees and how many must be rolled, and the dice are read again when they
are put right (or, on a push of the knob, entered one by one with the camera's read filled
in). Dice read below ``confidence`` are confirmed with the knob first. The bar graph shows
fate's frozen snowflakes (0-10) all game long.
"""
from __future__ import annotations

import secrets
from collections import Counter
from typing import Any, Callable

from host.devices import ATTENTION, MOVING, READ_OK, WAITING
from host.loop import SETTLING, STILL, Pending, TableLoop, crowded_out, menu_screen
from host.menus import BACK, UNSEEN, Menu, MenuItem, face_menu
from host.presenters import DieView, Screen, how_many_dice
from rules.christmas_romance import snowflakes_gone
from rules.core import RuleError

GAME = "christmas-romance"
DICE_SET = "christmas-romance"
MODES = ("solo", "coop")
DICE_EVENTS = {"roll": "roll", "penalty": "penalty_roll", "fate": "fate_roll"}
STORY_LINES = 1          # sentences per story page (a story sentence fills the small panel)
REWARDS = range(0, 7)    # deferred dice a Christmas romance card may show (asked when unknown)
PASS = {"type": "fate_choice", "take": "none"}  # solo, fate's turn: take nothing (Next)
VIRTUAL_FATE = "virtual-fate"  # the journal note: from here on the box rolls fate's dice (kept on --resume)


# -- what the screen shows -------------------------------------------------------------------

def die_views(faces, snowflake: str = "SNOWFLAKE", confidences=None, flagged=()) -> tuple[DieView, ...]:
    """Dice for the screen; snowflakes are marked (drawn red, underlined)."""
    flagged = set(flagged)
    return tuple(DieView(face, confidence=confidences[i] if confidences else 1.0, locked=face == snowflake,
                         flagged=i in flagged) for i, face in enumerate(faces))


def card_progress(card) -> str:
    if card is None:
        return "none"
    return f"{len(card.placed)}/{card.needs}"


def progress_lines(state) -> tuple[str, ...]:
    """Where each side stands (its stage card, the romance card, the love interests' dice), then fate."""
    lines = []
    for side in state.sides:
        if side.stage_card is None:
            stage = "all 5 stages done"
        else:
            stage = f"stage {side.stage} {card_progress(side.stage_card)}"
        active = state.romances[0] if state.romances else None
        romance = "romance done" if side.romance else f"romance {card_progress(active)}"
        lines.append(f"{stage} · {romance}")
        lines.append(f"copied {' '.join(side.copied) or 'none'} · deferred {side.deferred}")
    if state.fate_dice_total:
        lines.append(f"fate: {state.snowflakes_frozen}/{state.fate_dice_total} snowflakes "
                     f"{snowflakes_gone(state)}")
    return tuple(lines)


def fate_title(count: int) -> str:
    return f"Fate rolls {how_many_dice(count)}"


def fate_result_lines(state) -> tuple[str, ...]:
    new = state.fate_roll.count(state.snowflake)
    return (f"{new} new {'snowflake' if new == 1 else 'snowflakes'}: "
            f"{state.snowflakes_frozen} of {state.fate_dice_total} {snowflakes_gone(state)}",)


def story_pages(text: str, per_page: int = STORY_LINES) -> list[tuple[str, ...]]:
    """The story split into pages of a few sentences (an e-ink panel holds only a few lines)."""
    sentences, current = [], ""
    for word in text.split(" "):
        current = f"{current} {word}".strip()
        if current.endswith((".", "!", "?")):
            sentences.append(current)
            current = ""
    if current:
        sentences.append(current)
    return [tuple(sentences[i:i + per_page]) for i in range(0, len(sentences), per_page)] or [("",)]


def end_screen(state, correctable: bool = False) -> Screen:
    """The win or loss screen; ``correctable``: the game ended on dice that were read (or typed),
    and the knob offers to correct one of them."""
    from rules.christmas_romance import outcome
    result = outcome(state) or {}
    won = result.get("result") == "won"
    title = "Merrily Ever After!" if won else "Christmas is ruined"
    lines = (result.get("reason", ""),) + progress_lines(state)[-1:]
    footer = ("Next: the movie, told as a story; push: correct a die" if correctable
              else "push the knob: the movie, told as a story")
    return Screen("prompt" if won else "error", title=title, lines=lines, dice_set=DICE_SET, footer=footer)


def box_rolls_fate(table) -> bool:
    """Whether the session's journal says the box rolls fate's dice (``run --virtual-fate``)."""
    return any(entry.kind == "note" and entry.body.get("type") == VIRTUAL_FATE for entry in table.entries)


# -- the loop --------------------------------------------------------------------------------

class FateLoop(TableLoop):
    """The table loop for Another Christmas Romance Movie (solo and co-op); see the module docstring.

    Takes every argument of :class:`host.loop.TableLoop`, plus:

    :param virtual_fate: the box rolls fate's dice itself (for players short of dice). Noted in
        the session's journal at the start, so a resumed session goes on with it unasked.
    :param new_seed: where virtual fate's seeds come from (default: the OS's randomness; the
        demo and tests pass a seeded one). The seed is stored as the event, so a replay is exact.
    """

    def __init__(self, table, *, virtual_fate: bool = False, new_seed: Callable[[], int] | None = None, **options):
        options.setdefault("choose_characters", False)
        super().__init__(table, **options)
        if self.state.mode not in MODES:
            raise RuleError(f"the box plays fate in the {' and '.join(MODES)} games, not {self.state.mode}")
        self._fate_noted = box_rolls_fate(table)
        self.virtual_fate = virtual_fate or self._fate_noted
        self.new_seed = new_seed or (lambda: secrets.randbits(31))
        self.last_read: Counter | None = None      # the faces of the last dice read (a hand passing is no roll)
        self.same_read: list | None = None
        self.story_page: int | None = None
        self.pending: Pending | None = None

    # -- shortcuts ---------------------------------------------------------------------------
    @property
    def due(self) -> int:
        return self.state.dice_due if self.state.phase in DICE_EVENTS else 0

    def dice_wanted(self) -> int:
        """How many dice the players should throw next (what ``run``'s synthetic camera
        throws): the dice due now (a player's roll, a reroll, fate's dice unless the box rolls
        them), a co-op player's three before the turn (rolled straight away, they defer
        nothing), and 0 while the game waits for a button instead (a choice, a menu, a die
        to check, the placing of the dice read, the end of the game)."""
        from rules.christmas_romance import DICE_PER_TURN
        state = self.state
        if self.pending is not None or self.menu is not None or state.phase == "over":
            return 0
        if state.phase == "fate" and self.virtual_fate:
            return 0
        if self.due:
            return self.due
        if self._may_roll_straight_away():
            return DICE_PER_TURN
        return 0

    def _face_names(self) -> tuple[str, ...]:
        return tuple(self.state.faces)

    def _legal(self, event: dict) -> bool:
        try:
            self.table.session.check(event)
        except RuleError:
            return False
        return True

    def _status(self, light: str | None = None, sound: str | None = None, bar: int | None = None) -> None:
        # The bar graph counts fate's frozen snowflakes, whatever else happens.
        super()._status(light, sound, self.state.snowflakes_frozen if bar is None else bar)

    # -- screens -----------------------------------------------------------------------------
    def show_home(self) -> None:
        state = self.state
        if self.menu is not None:
            if self.pending is not None:
                self._show_pending()
            else:
                self._show(menu_screen(self.menu))
            self._status(ATTENTION)
            return
        phase, player = state.phase, state.current_player
        if phase == "over":
            if self.story_page is not None:
                self._show_story()
            else:
                self._show(end_screen(state, correctable=self._ended_on_read_dice()))
                self.showing_notice = False  # the loss screen is red, but not an error to put away
                self._status(READ_OK)
            return
        if self.same_read is not None:
            self._show_same_faces()
        elif phase == "declare":
            lines = (fate_result_lines(state) if self._last_event_type() == "fate_roll" else ()) + progress_lines(state)
            self._show(Screen("prompt", title=f"{player}: round {state.round}", lines=lines, dice_set=DICE_SET,
                              footer="push the knob: how to roll this turn"))
            self._status(WAITING)
        elif phase in ("roll", "penalty"):
            what = "for the Christmas romance card" if phase == "penalty" else "into the tray"
            self._show(Screen("prompt", title=f"{player}: roll {how_many_dice(state.dice_due)}",
                              lines=(f"roll them {what}; the box reads them when they stop",), dice_set=DICE_SET))
            self._status(WAITING)
        elif phase == "play":
            lines = progress_lines(state)[:-1] if state.fate_dice_total else progress_lines(state)
            if state.penalty_roll and self._last_event_type() == "penalty_roll":
                lines = (f"romance card's roll: {' '.join(state.penalty_roll)} (one of each taken off the stage card)",) \
                    + lines
            card = state.sides[0].stage_card
            self._show(Screen("roll", title=f"{player} · {card.title if card else 'stage 5 done'}",
                              dice=die_views(state.turn.pool, state.snowflake), lines=lines, dice_set=DICE_SET,
                              total=f"{state.snowflakes_frozen}/{state.fate_dice_total}"))
            self._status(READ_OK)
        elif phase == "fate":
            if self.virtual_fate:
                hint = ("push the knob: the box rolls them",)
            else:
                hint = ("roll them into the tray (and nothing else); the box counts the snowflakes",)
            self._show(Screen("prompt", title=fate_title(state.fate_dice), lines=hint + progress_lines(state)[-1:],
                              dice_set=DICE_SET))
            self._status(ATTENTION, sound="attention")
        elif phase == "fate_choice":
            self._show(Screen("prompt", title="Fate rolled", dice=die_views(state.fate_roll, state.snowflake),
                              lines=fate_result_lines(state) + ("push the knob: copy one of fate's dice, "
                                                                "or take a free deferred die",),
                              dice_set=DICE_SET, footer="Next: pass (take nothing)"))
            self._status(ATTENTION)

    def _show_same_faces(self) -> None:
        """The dice read show the last roll's faces: a hand passed over them, or they came up the same."""
        phase = self.state.phase
        if phase == "penalty":
            whose = "the Christmas romance card's"
        elif phase == "fate":
            whose = "fate's"
        else:
            whose = f"{self.state.current_player}'s"
        self._show(Screen("prompt", title="Same faces as the last roll",
                          dice=die_views(self.same_read, self.state.snowflake), dice_set=DICE_SET,
                          lines=("if these dice were rolled, press Next; else roll them",),
                          footer=f"Next: take them as {whose} roll"))
        self._status(ATTENTION)

    def _last_event_type(self) -> str | None:
        events = self.table.session.events
        return events[-1].get("type") if events else None

    def _show_story(self) -> None:
        from rules.christmas_romance import story
        pages = story_pages(story(self.state))
        page = min(self.story_page, len(pages) - 1)
        more = "Next: the next page" if page + 1 < len(pages) else "The End"
        self._show(Screen("prompt", title=f"Our movie ({page + 1}/{len(pages)})", lines=pages[page],
                          dice_set=DICE_SET, footer=more))

    def start(self) -> None:
        if self.virtual_fate and not self._fate_noted:
            self._fate_noted = True
            self.table.note({"type": VIRTUAL_FATE, "why": "the box rolls fate's dice (run --virtual-fate)"})
        self.show_home()

    # -- menus -------------------------------------------------------------------------------
    def declare_menu(self) -> Menu:
        """The legal ways to start this turn (checked by the rules, so only those are offered)."""
        state = self.state
        side = state.sides[0]   # solo and co-op: one side (a player, or the couple)
        items: list[MenuItem] = []
        uses = ("star", "headliner", "none") if state.mode == "solo" else ("",)
        for use in uses:
            for release in (False, True):
                for defer in range(0, 3):
                    event: dict[str, Any] = {"type": "declare"}
                    if use:
                        event["use"] = use
                    if defer:
                        event["defer"] = defer
                    if release:
                        event["release"] = True
                    if not self._legal(event):
                        continue
                    dice = 3 - defer + (side.deferred if release else 0)
                    parts = []
                    if use == "star":
                        parts.append(f"star love interest (copied: {' '.join(side.copied) or 'none'})")
                    elif use == "headliner":
                        parts.append("headliner love interest")
                    elif use == "none":
                        parts.append("no love interest")
                    if release:
                        parts.append(f"release {side.deferred} deferred")
                    if defer:
                        parts.append(f"defer {defer}")
                    parts.append(f"roll {dice}")
                    label = ", ".join(parts)
                    items.append(MenuItem(label[:1].upper() + label[1:], event))
        if self.teach_dice is not None:  # between turns: the dice may be taught again
            items.append(MenuItem("Teach the dice", "teach"))
        return Menu("declare", f"{state.current_player}: before rolling", tuple(items))

    def turn_menu(self) -> Menu:
        """The legal moves with the dice in hand, and ending the turn."""
        state = self.state
        turn = state.turn
        index = next(i for i, s in enumerate(state.sides) if turn.player in s.players)
        side = state.sides[index]
        pool = list(turn.pool)
        items: list[MenuItem] = []
        cards = [("stage", side.stage_card, "Stage")]
        for slot, card in enumerate(state.romances):
            cards.append(("romance" if slot == 0 else f"romance-{slot + 1}", card,
                          "Romance" if len(state.romances) == 1 else f"Romance {slot + 1}"))
        for target, card, label in cards:
            if card is None or card.complete or not pool:
                continue
            for event in self._placements(target, card, pool):
                text = f"{label} {card_progress(card)}: place {' '.join(event['faces'])}"
                if self._legal(event):
                    items.append(MenuItem(text, event))
                elif target.startswith("romance") and card.reward is None and self._legal({**event, "reward": 0}):
                    items.append(MenuItem(text + " (completes it)", ("reward", event)))
        for slot, card in enumerate(state.elements, start=1):
            for event in self._trades(slot, card, pool):
                if self._legal(event):
                    got = " ".join(event.get("get", []) + ["deferred"] * event.get("get_deferred", 0))
                    paid = " ".join(event.get("give", []) + ["deferred"] * event.get("give_deferred", 0))
                    items.append(MenuItem(f"{card.title}: {paid} -> {got}", event))
        add = {"type": "add_copied"}
        if self._legal(add):
            items.append(MenuItem(f"Add the copied dice ({' '.join(side.copied)})", add))
        for face, count in sorted(Counter(pool).items(), key=lambda fc: state.faces.index(fc[0])):
            melt = {"type": "melt", "faces": [face] * 3}
            if count >= 3 and self._legal(melt):
                items.append(MenuItem(f"Melt a snowflake with 3 {face}", melt))
        for other in state.players:
            for face in sorted(set(turn.rolled), key=state.faces.index):
                copy = {"type": "copy", "player": other, "face": face}
                if other != turn.player and self._legal(copy):
                    items.append(MenuItem(f"{other} copies a {face}", copy))
        items.append(MenuItem("End the turn", {"type": "end_turn"}))
        if "faces" in (self._last_dice_event() or {}):
            items.append(MenuItem("Correct a die", "correct"))
        items.append(MenuItem("Undo the last event", "undo"))
        items.append(MenuItem("Back", BACK))
        return Menu("turn", f"{turn.player}: {how_many_dice(len(pool))} to use", tuple(items))

    def _placements(self, target: str, card, pool: list[str]) -> list[dict]:
        """Place events to offer: with a layout, the rules' best placement; without, each face
        on its own and all the dice that fit."""
        from rules.placement import suggest
        if card.layout is not None:
            placed = {cell: face for face, cell in card.placed}
            best = suggest(card.layout, placed, pool)
            if not best:
                return []
            cells = sorted(best)
            return [{"type": "place", "card": target, "faces": [best[c] for c in cells],
                     "cells": [[r + 1, c + 1] for r, c in cells]}]
        events = [{"type": "place", "card": target, "faces": [face]}
                  for face in sorted(set(pool), key=self.state.faces.index)]
        room = card.needs - len(card.placed)
        if min(room, len(pool)) > 1:
            events.append({"type": "place", "card": target, "faces": pool[:room]})
        return events

    def _trades(self, slot: int, card, pool: list[str]) -> list[dict]:
        """Element events for a face-up movie element whose layout gives its trade (``exchange:``):
        each way the dice in hand can pay, and for each ``?`` received one face of the player's choice.
        Without a layout the trade is not known, so it is not offered."""
        from rules.placement import UNMARKED, ways_to_pay
        exchange = card.exchange if card is not None and not card.complete else None
        if exchange is None:
            return []
        pays = ways_to_pay(exchange, pool) if exchange.give else [()]
        named = [face for face in exchange.get if face != UNMARKED]
        unmarked = len(exchange.get) - len(named)
        gets = [named + [face] * unmarked for face in self.state.faces] if unmarked else [named]
        events = []
        for pay in pays:
            for get in gets:
                event: dict[str, Any] = {"type": "element", "slot": slot}
                if pay:
                    event["give"] = list(pay)
                if exchange.give_deferred:
                    event["give_deferred"] = exchange.give_deferred
                if get:
                    event["get"] = list(get)
                if exchange.get_deferred:
                    event["get_deferred"] = exchange.get_deferred
                events.append(event)
        return events

    def fate_choice_menu(self) -> Menu:
        state = self.state
        items = []
        for face in sorted(set(state.fate_roll), key=state.faces.index):
            event = {"type": "fate_choice", "take": "copy", "face": face}
            if self._legal(event):
                items.append(MenuItem(f"Copy fate's {face} to the star love interest", event))
        defer = {"type": "fate_choice", "take": "defer"}
        if self._legal(defer):
            items.append(MenuItem("Take a free deferred die", defer))
        items.append(MenuItem("Pass", dict(PASS)))
        if "faces" in (self._last_dice_event() or {}):
            items.append(MenuItem("Correct a die of fate's roll", "correct"))
        items.append(MenuItem("Undo the fate roll", "undo"))
        return Menu("fate-choice", "Fate's turn: take?", tuple(items))

    def end_menu(self) -> Menu:
        """The knob on the win or loss screen when read dice ended the game: a misread die
        that decided it can be corrected there (the game goes on if it no longer ends)."""
        return Menu("end", "The end", (MenuItem("The movie, told as a story", "story"),
                                      MenuItem("Correct a die", "correct"),
                                      MenuItem("Undo the last event", "undo"),
                                      MenuItem("Back", BACK)))

    def _ended_on_read_dice(self) -> bool:
        return "faces" in (self._last_dice_event() or {})

    def _open(self, menu: Menu) -> None:
        self.menu = menu
        self._show(menu_screen(menu))
        self._status(ATTENTION)

    # -- commands ----------------------------------------------------------------------------
    def _handle(self, command: str) -> None:
        if self._dice_named(command):
            return
        if command in ("left", "right"):
            if self.menu is not None:
                self.menu = self.menu.turn(1 if command == "right" else -1)
                if self.pending is not None:
                    self._show_pending()
                else:
                    self._show(menu_screen(self.menu))
            elif self.story_page is not None:
                self._turn_page(1 if command == "right" else -1)
            return
        if self.showing_notice and self.pending is None and self.menu is None:
            if command == "push" and self.unusable_read is not None:
                self._enter_by_hand()
            else:
                self.show_home()  # the first press after an error only puts it away
            return
        if command == "score" and self._checking_several():
            self._confirm_rest_as_read()
            return
        if command in ("push", "score"):
            if self.menu is not None:
                self._choose(self.menu)
            elif command == "score" and self.state.phase == "play":
                self._play_and_show({"type": "end_turn"})
            else:
                self._open_phase_menu()
            return
        self._undo_next_or_refuse(command)

    def _open_phase_menu(self) -> None:
        phase = self.state.phase
        if phase == "declare":
            self._open(self.declare_menu())
        elif phase == "play":
            self._open(self.turn_menu())
        elif phase == "fate_choice":
            self._open(self.fate_choice_menu())
        elif phase == "fate" and self.virtual_fate:
            self._roll_fate()
        elif phase == "over" and self.story_page is None and self._ended_on_read_dice():
            self._open(self.end_menu())
        elif phase == "over":
            self._turn_page(0 if self.story_page is None else 1)
        elif phase in DICE_EVENTS:
            self.show_home()  # the dice are read by the camera (or typed: roll:F1,F2,..)

    def _turn_page(self, step: int) -> None:
        from rules.christmas_romance import story
        pages = len(story_pages(story(self.state)))
        self.story_page = max(0, min(pages - 1, (self.story_page or 0) + step))
        self._show_story()

    def _next(self) -> None:
        if self.pending is not None:
            face = self.pending.faces[self.pending.flagged[0]]
            self._confirm_face(self.menu.chosen.value if face == UNSEEN else face)
        elif self.menu is not None:
            self.menu = None
            self.show_home()
        elif self.same_read is not None:
            faces, self.same_read = self.same_read, None
            if self.state.phase == "declare":
                self._play({"type": "declare"})  # co-op: the same faces, rolled straight away
            self._submit(faces)
        elif self.state.phase == "over":
            self._turn_page(0 if self.story_page is None else 1)  # Next: the story, page by page
        elif self.state.phase == "fate_choice" and self._legal(PASS):
            self._play_and_show(dict(PASS))  # Next: the usual answer, take nothing from fate's dice
        else:
            self.show_home()

    def _undo(self) -> None:
        self.same_read = None  # Undo never says "it was a roll": the same faces waiting for Next are forgotten
        if self._drop_pending_read():
            return
        if self.menu is not None:
            self.menu = None
            self.show_home()
            return
        undone = self.table.undo()
        if self.state.phase != "over":
            self.table.store.mark_closed(self.table.id, closed=False)
        self.story_page, self.last_read = None, None
        self._show(Screen("prompt", title=f"Undone: {undone.get('type')}", lines=(self.game.status(self.state),)))
        self._status(WAITING)
        self.show_home()

    def _choose(self, menu: Menu) -> None:
        value = menu.chosen.value
        if menu.kind == "face":
            self._confirm_face(value)
            return
        self.menu = None
        if value == BACK:
            self.show_home()
        elif value == "undo":
            self._undo()
        elif value == "teach":
            self._teach()
        elif value == "story":
            self._turn_page(0)
        elif value == "correct":
            faces = self._dice_of_last()
            self._open(Menu("which-die", "Correct which die?",
                            tuple(MenuItem(f"die {n}: {face}", n - 1) for n, face in enumerate(faces, start=1))
                            + (MenuItem("Back", BACK),)))
        elif menu.kind == "which-die":
            faces = self._dice_of_last()
            fix = face_menu(value + 1, faces[value], 1.0, self._face_names())
            self._open(Menu("fix", fix.title.replace("Check", "Correct"), fix.items, context=value))
        elif menu.kind == "fix":
            self._correct_die(menu.context, value)
        elif menu.kind == "reward":
            self._play_and_show({**menu.context, "reward": value})
        elif isinstance(value, tuple) and value[0] == "reward":
            self._open(Menu("reward", "Reward on this romance card?",
                            tuple(MenuItem(f"{n} deferred {'die' if n == 1 else 'dice'}", n) for n in REWARDS),
                            highlight=2, context=value[1]))
        elif isinstance(value, dict):
            self._play_and_show(value)
        else:
            self.show_home()

    def _play_and_show(self, event: dict) -> None:
        self._play(event)
        state = self.state
        if event["type"] == "melt":
            self._status(READ_OK, sound="scored")
        if state.phase == "over":
            self.table.close()
            won = (dict(state.outcome).get("result") == "won")
            self.show_home()
            self._status(READ_OK, sound="game-over" if won else "error")
            return
        self.show_home()

    # -- virtual fate ------------------------------------------------------------------------
    def _roll_fate(self) -> None:
        """The box rolls fate's dice itself: a fresh seed, stored as the event (replay is exact)."""
        seed = int(self.new_seed())
        self._play({"type": "fate_roll", "seed": seed})
        self._after_fate(f"rolled by the box (seed {seed})")

    def _after_fate(self, how: str) -> None:
        state = self.state
        if state.phase == "over":
            self.table.close()
            self._show(Screen("error", title="The romance froze over", dice=die_views(state.fate_roll, state.snowflake),
                              lines=fate_result_lines(state) + (how,), dice_set=DICE_SET))
            self._status(ATTENTION, sound="game-over")
            return
        self._status(READ_OK, sound="scored")
        if state.phase == "fate_choice":
            self.show_home()
        else:  # co-op: the next round starts; the fate result stays on screen until a button is pressed
            self._show(Screen("prompt", title="Fate rolled", dice=die_views(state.fate_roll, state.snowflake),
                              lines=fate_result_lines(state) + (how, f"next: {state.current_player}"),
                              dice_set=DICE_SET, footer="push the knob: how to roll this turn"))

    # -- reads from the camera ---------------------------------------------------------------
    def on_frame(self, frame) -> None:
        motion, roll = self.watcher(frame)
        if motion != self.motion:
            self.motion = motion
            if motion == SETTLING and self.menu is None:
                self._status(MOVING)
            elif motion == STILL and self.light == MOVING:
                self._status(WAITING)
        if roll is not None:
            self.on_read(roll)

    def not_reading(self) -> str | None:
        """Why dice are not read now (a settled read is let go, a typed roll refused), or None."""
        if self.state.phase == "over":
            return "the game is over"
        waiting = self._check_waiting()
        if waiting is None and self.state.phase == "fate" and self.virtual_fate:
            return "the box rolls fate itself; dice in the tray are somebody else's"
        return waiting

    def on_read(self, roll) -> None:
        """A settled read: the dice due now (the player's, the romance card's or fate's)."""
        if self.not_reading() is not None:
            return
        state = self.state
        if self.due:
            roll = crowded_out(roll, self.due)
        faces = [d.face for d in roll.dice]
        confidences = [float(d.confidence) for d in roll.dice]
        if not faces:
            return
        if self._rolled_straight_away(faces):
            if Counter(faces) == self.last_read:
                self.same_read = faces  # the last roll's faces: taken only when Next says they were rolled
                self.show_home()
                return
            self._play({"type": "declare"})  # co-op: rolled without deferring or releasing
            state = self.state
        due = self.due
        if not due:
            if Counter(faces) != self.last_read and state.phase == "declare" and self.menu is None:
                # not an error to put away: the next push opens the choice at once
                self._show(Screen("prompt", title="Choose first", dice_set=DICE_SET,
                                  lines=(f"{state.current_player}: push the knob to choose how to roll this turn, "
                                         "then roll the dice",)))
                self._status(ATTENTION, sound="attention")
            return
        if self.menu is not None and self.menu.kind in ("declare", "turn", "fate-choice"):
            self.menu = None
        if Counter(faces) == self.last_read:
            # a hand passed, or the same faces came up: Next says it was a roll (when it can be one)
            self.same_read = faces if len(faces) == due else None
            self.show_home()
            return
        self.same_read = None
        if len(faces) != due:
            who = "fate" if state.phase == "fate" else state.current_player
            self.unusable_read = (faces, confidences)
            self._error(f"I see {how_many_dice(len(faces))}",
                        f"{who} rolls {due}: put exactly {how_many_dice(due)} in the tray and they are read again",
                        "or push the knob to enter the dice one by one")
            return
        self.unusable_read = None
        flagged = [i for i, c in enumerate(confidences) if c < self.confidence]
        if flagged:
            self.pending = Pending(faces, confidences, flagged)
            self._ask_next_flag(sound="attention")
            return
        self._submit(faces)

    def _may_roll_straight_away(self) -> bool:
        """Co-op, before a turn: its dice may be rolled without the choice (nothing deferred)."""
        state = self.state
        return state.phase == "declare" and state.mode != "solo" and self._legal({"type": "declare"})

    def _rolled_straight_away(self, faces) -> bool:
        """Co-op: a turn's dice rolled with the choice's menu closed start the turn (nothing deferred)."""
        from rules.christmas_romance import DICE_PER_TURN
        return len(faces) == DICE_PER_TURN and self.menu is None and self._may_roll_straight_away()

    def _enter_by_hand(self) -> None:
        """A read with the wrong number of dice, entered with the knob: too few, and only the
        unseen and unsure dice are asked (the rest as read); too many, and every die is asked."""
        faces, confidences = self.unusable_read
        self.unusable_read = None
        due = self.due
        if len(faces) > due:
            faces, confidences, asked = list(faces[:due]), list(confidences[:due]), list(range(due))
        else:
            faces = list(faces) + [UNSEEN] * (due - len(faces))
            confidences = list(confidences) + [0.0] * (due - len(confidences))
            asked = [i for i in range(due) if faces[i] == UNSEEN or confidences[i] < self.confidence]
        self.pending = Pending(faces, confidences, asked, by_hand=True)
        self._ask_next_flag()

    def _show_pending(self) -> None:
        pending, menu = self.pending, self.menu
        self._show(Screen("prompt", title=menu.title, dice_set=DICE_SET,   # every die still to check marked
                          dice=die_views(pending.faces, self.state.snowflake, pending.confidences, pending.flagged),
                          lines=self._check_lines()))

    def _confirm_face(self, face: str) -> None:
        pending = self.pending
        die = pending.flagged.pop(0)
        if face != pending.faces[die] and not pending.by_hand:
            pending.corrections.append({"type": "correction", "die": die + 1, "read": pending.faces[die],
                                        "confidence": round(pending.confidences[die], 3), "face": face,
                                        "phase": self.state.phase})
        pending.faces[die], pending.confidences[die] = face, 1.0
        if pending.flagged:
            self._ask_next_flag()
            return
        self.pending, self.menu = None, None
        if pending.by_hand:
            self.table.note({"type": "typed-roll", "faces": pending.faces, "phase": self.state.phase,
                             "why": "entered with the knob: the camera's read could not be used"})
        for correction in pending.corrections:
            self.table.note(correction)
        self._submit(pending.faces)

    def _submit(self, faces: list[str]) -> None:
        state = self.state
        event = {"type": DICE_EVENTS[state.phase], "faces": list(faces)}
        try:
            self.table.session.check(event)
        except RuleError as exc:
            self.refused += 1
            self.table.note({"type": "refused", "event": event, "reason": str(exc)})
            self.unusable_read = (list(faces), [0.5] * len(faces))
            self._error("Roll refused", str(exc), "push the knob to enter the dice one by one")
            return
        self._play(event)
        self.last_read = Counter(faces)
        self.unusable_read = None
        if event["type"] == "fate_roll":
            self._after_fate("read by the camera")
        else:
            self._status(READ_OK)
            self.show_home()

    # -- corrections -------------------------------------------------------------------------
    def _last_dice_event(self) -> dict | None:
        events = self.table.session.events
        if events and events[-1].get("type") in DICE_EVENTS.values():
            return events[-1]
        return None

    def _dice_of_last(self) -> list[str]:
        """The faces of the last dice event (a virtual fate roll's faces come from its seed)."""
        last = self._last_dice_event()
        if last is None:
            return []
        if "faces" in last:
            return list(last["faces"])
        return list(self.state.fate_roll)

    def _correct_die(self, index: int, face: str) -> None:
        """Correct die ``index`` of the last dice event: undo it, note it, play it corrected."""
        last = self._last_dice_event()
        if last is None or "faces" not in last:
            raise RuleError("only the dice just read by the camera can be corrected (fate rolled by the box "
                            "is not read)" if last is not None else "there is no roll to correct now")
        faces = list(last["faces"])
        if not 0 <= index < len(faces):
            raise RuleError(f"there is no die {index + 1} in the last roll ({how_many_dice(len(faces))})")
        if faces[index] == face:
            self.show_home()
            return
        read, faces[index] = faces[index], face
        self.table.undo()
        try:
            self.table.play({**last, "faces": faces})
        except RuleError as exc:
            self.table.play(last)
            raise RuleError(f"die {index + 1} cannot be {face}: {exc}") from None
        self.table.note({"type": "correction", "die": index + 1, "read": read, "face": face, "confidence": None,
                         "event": last["type"]})
        self.last_read = Counter(faces)
        if self.state.phase == "over":
            self.table.close()
        else:
            self.table.store.mark_closed(self.table.id, closed=False)  # a loss taken back is open again
        self.show_home()


# -- wiring for dicewatch run ----------------------------------------------------------------

def table_options(args, options: dict, players: list[str]) -> dict:
    """The setup options of a new christmas-romance session from the command line."""
    mode = getattr(args, "mode", None) or "solo"
    options = dict(options)
    options["mode"] = mode
    if not players:   # the rules' default names ("Player"; "Star" and "Headliner"), kept in the session
        from rules.christmas_romance import setup
        players = list(setup({"mode": mode}).players)
    options["players"] = list(players)
    return options


def story_text(state) -> str:
    """The movie deck told as a story (for the terminal at the end of a game)."""
    from rules.christmas_romance import story
    return story(state)
