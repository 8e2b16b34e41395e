"""Another Christmas Romance Movie at the box: fate rolled or read, the movie tracked, the story told.

The rules (rules/christmas_romance.py) say what is thrown (a player's dice, a Christmas
romance card's roll, fate's dice) and which choices are open; this module shows them.
What the box asks follows the rules' phase:

=========== ==================================================================================
phase       what the box does
=========== ==================================================================================
declare     "push the knob": a menu of the legal ways to start the turn (solo: which love
            interest; how many dice to defer; release the deferred dice). Co-op: the
            turn's dice may be rolled straight away (nothing deferred)
roll        "Roll 3 dice": the camera reads them when they settle
play        the dice to place; the knob's menu lists the legal moves: place on the stage or
            Christmas romance card, trade on a movie element (when its layout gives the
            trade), add the copied dice, melt a snowflake (3 dice of one face), copy a die
            (co-op partner), end the turn (or press Score)
penalty     solo, after completing a Christmas romance card: "Roll N dice" for it
fate        "Fate rolls 7 dice": the camera counts the snowflakes; with the ``virtual_fate``
            option the box rolls them itself from a fresh seed (the seed is the stored
            event, so a replay is exact) when the knob is pushed
fate_choice solo: fate's dice on screen; the menu copies one of them or takes a free
            deferred die (or passes; Next passes too)
over        the win or loss screen, then the movie told as a story, page by page
=========== ==================================================================================

Every mode of the rules plays here (solo, co-op, couples, multiplayer: ``--mode``). The
bar graph shows fate's frozen snowflakes (0-10) all game long.
"""
from __future__ import annotations

import secrets
from collections import Counter
from typing import Any, Mapping

from host.games import GameTable, turn_knob_to
from host.interactions import Choosing
from host.menus import BACK, Menu, MenuItem
from host.presenters import ATTENTION, READ_OK, WAITING, DieView, Screen, how_many_dice
from rules.christmas_romance import DICE_PER_TURN, MODES, THROWS, outcome, setup, snowflakes_gone, story
from rules.core import Chance

GAME = "christmas-romance"
DICE_SET = "christmas-romance"
STORY_LINES = 1          # sentences per story page (a story sentence fills the small panel)
REWARDS = range(0, 7)    # deferred dice a Christmas romance card may show (asked when unknown)
PASS = {"type": "fate_choice", "take": "none"}  # solo, fate's turn: take nothing (Next)
VIRTUAL_FATE = "virtual-fate"  # the journal note: from here on the box rolls fate's dice (kept on --resume)
PHASE_MENUS = ("declare", "turn", "fate-choice")


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


# -- the words for the rules' events -----------------------------------------------------------

def declare_label(event: Mapping[str, Any], side) -> str:
    use, defer, release = event.get("use", ""), event.get("defer", 0), event.get("release", False)
    dice = DICE_PER_TURN - defer + (side.deferred if release else 0)
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
    return label[:1].upper() + label[1:]


def side_of(state, player: str):
    return next(side for side in state.sides if player in side.players)


def play_items(state, events) -> list[MenuItem]:
    """The turn's legal moves as menu items. A romance placement the rules take only once its
    reward is known (the transcription lacks the cards' rewards) is one item, "(completes it)",
    that asks for the reward next."""
    side = side_of(state, state.turn.player)
    cards = {"stage": (side.stage_card, "Stage")}
    for slot, card in enumerate(state.romances):
        cards["romance" if slot == 0 else f"romance-{slot + 1}"] = (
            card, "Romance" if len(state.romances) == 1 else f"Romance {slot + 1}")
    items: list[MenuItem] = []
    for event in events:
        kind = event["type"]
        if kind == "place":
            card, label = cards[event["card"]]
            text = f"{label} {card_progress(card)}: place {' '.join(event['faces'])}"
            if "reward" not in event:
                items.append(MenuItem(text, dict(event)))
                continue
            plain = {k: v for k, v in event.items() if k != "reward"}
            if not any(isinstance(i.value, tuple) and i.value[1] == plain for i in items):
                items.append(MenuItem(text + " (completes it)", ("reward", plain)))
        elif kind == "element":
            card = state.elements[event["slot"] - 1]
            got = " ".join(event.get("get", []) + ["deferred"] * event.get("get_deferred", 0))
            paid = " ".join(event.get("give", []) + ["deferred"] * event.get("give_deferred", 0))
            items.append(MenuItem(f"{card.title}: {paid} -> {got}", dict(event)))
        elif kind == "add_copied":
            items.append(MenuItem(f"Add the copied dice ({' '.join(side.copied)})", dict(event)))
        elif kind == "melt":
            items.append(MenuItem(f"Melt a snowflake with 3 {event['faces'][0]}", dict(event)))
        elif kind == "copy":
            items.append(MenuItem(f"{event['player']} copies a {event['face']}", dict(event)))
        elif kind == "end_turn":
            items.append(MenuItem("End the turn", dict(event)))
    return items


def fate_choice_items(events) -> list[MenuItem]:
    items = []
    for event in events:
        if event.get("take") == "copy":
            items.append(MenuItem(f"Copy fate's {event['face']} to the star love interest", dict(event)))
        elif event.get("take") == "defer":
            items.append(MenuItem("Take a free deferred die", dict(event)))
        elif event.get("take") == "none":
            items.append(MenuItem("Pass", dict(event)))
    return items


class Table(GameTable):
    """Another Christmas Romance Movie's screens and questions (see the module docstring).

    Box option ``virtual_fate``: the box rolls fate's dice itself (for players short of
    dice). Noted in the session's journal at the start, so a resumed session goes on with
    it unasked.
    """

    dice_set = DICE_SET
    red_faces = ("SNOWFLAKE",)
    warns_of_light = False
    throw_events = frozenset(THROWS.values())

    def __init__(self, loop, options, new_seed=None):
        super().__init__(loop, options, new_seed)
        self._fate_noted = box_rolls_fate(loop.table)
        self.virtual_fate = bool(self.options.get("virtual_fate")) or self._fate_noted
        self.new_seed = new_seed or (lambda: secrets.randbits(31))
        self.story_page: int | None = None

    def face_names(self) -> tuple[str, ...]:
        return tuple(self.state.faces)

    def bar(self) -> int:
        return self.state.snowflakes_frozen  # fate's frozen snowflakes, whatever else happens

    def dice_views(self, faces, confidences=None, flagged=()):
        return die_views(faces, self.state.snowflake, confidences, flagged)

    def last_event_type(self) -> str | None:
        events = self.loop.table.session.events
        return events[-1].get("type") if events else None

    def ended_on_read_dice(self) -> bool:
        return "faces" in (self.loop.last_dice_event() or {})

    # -- screens -----------------------------------------------------------------------------
    def start(self) -> None:
        if self.virtual_fate and not self._fate_noted:
            self._fate_noted = True
            self.loop.table.note({"type": VIRTUAL_FATE, "why": "the box rolls fate's dice (run --virtual-fate)"})
        self.loop.show_home()

    def home(self) -> None:
        state, loop = self.state, self.loop
        phase, player = state.phase, state.current_player
        if phase == "over":
            if self.story_page is not None:
                self.show_story()
            else:  # the loss screen is red, but not an error to put away
                loop.show(end_screen(state, correctable=self.ended_on_read_dice()), notice=False)
                loop.status(READ_OK)
            return
        if loop.same_read is not None:
            self.show_same_faces()
        elif phase == "declare":
            lines = (fate_result_lines(state) if self.last_event_type() == "fate_roll" else ()) + progress_lines(state)
            loop.show(Screen("prompt", title=f"{player}: round {state.round}", lines=lines, dice_set=DICE_SET,
                             footer="push the knob: how to roll this turn"))
            loop.status(WAITING)
        elif phase in ("roll", "penalty"):
            what = "for the Christmas romance card" if phase == "penalty" else "into the tray"
            loop.show(Screen("prompt", title=f"{player}: roll {how_many_dice(state.dice_due)}",
                             lines=(f"roll them {what}; the box reads them when they stop",), dice_set=DICE_SET))
            loop.status(WAITING)
        elif phase == "play":
            lines = progress_lines(state)[:-1] if state.fate_dice_total else progress_lines(state)
            if state.penalty_roll and self.last_event_type() == "penalty_roll":
                lines = (f"romance card's roll: {' '.join(state.penalty_roll)} (one of each taken off the stage card)",) \
                    + lines
            card = side_of(state, state.turn.player).stage_card
            loop.show(Screen("roll", title=f"{player} · {card.title if card else 'stage 5 done'}",
                             dice=die_views(state.turn.pool, state.snowflake), lines=lines, dice_set=DICE_SET,
                             total=f"{state.snowflakes_frozen}/{state.fate_dice_total}"))
            loop.status(READ_OK)
        elif phase == "fate":
            if self.virtual_fate:
                hint = ("push the knob: the box rolls them",)
            else:
                hint = ("roll them into the tray (and nothing else); the box counts the snowflakes",)
            loop.show(Screen("prompt", title=fate_title(state.fate_dice), lines=hint + progress_lines(state)[-1:],
                             dice_set=DICE_SET))
            loop.status(ATTENTION, sound="attention")
        elif phase == "fate_choice":
            loop.show(Screen("prompt", title="Fate rolled", dice=die_views(state.fate_roll, state.snowflake),
                             lines=fate_result_lines(state) + ("push the knob: copy one of fate's dice, "
                                                               "or take a free deferred die",),
                             dice_set=DICE_SET, footer="Next: pass (take nothing)"))
            loop.status(ATTENTION)

    def show_same_faces(self) -> None:
        """The dice read show the last roll's faces: a hand passed over them, or they came up the same."""
        phase = self.state.phase
        if phase == "penalty":
            whose = "the Christmas romance card's"
        elif phase == "fate":
            whose = "fate's"
        else:
            whose = f"{self.state.current_player}'s"
        self.loop.show(Screen("prompt", title="Same faces as the last roll",
                              dice=die_views(self.loop.same_read, self.state.snowflake), dice_set=DICE_SET,
                              lines=("if these dice were rolled, press Next; else roll them",),
                              footer=f"Next: take them as {whose} roll"))
        self.loop.status(ATTENTION)

    def show_story(self) -> None:
        pages = story_pages(story(self.state))
        page = min(self.story_page, len(pages) - 1)
        more = "Next: the next page" if page + 1 < len(pages) else "The End"
        self.loop.show(Screen("prompt", title=f"Our movie ({page + 1}/{len(pages)})", lines=pages[page],
                              dice_set=DICE_SET, footer=more))

    def turn_page(self, step: int) -> None:
        pages = len(story_pages(story(self.state)))
        self.story_page = max(0, min(pages - 1, (self.story_page or 0) + step))
        self.show_story()

    def turn(self, step: int) -> None:
        if self.story_page is not None:
            self.turn_page(step)

    # -- menus, from the rules' legal events ----------------------------------------------------------
    def declare_menu(self) -> Menu:
        """The legal ways to start this turn (the rules' ``legal_events``, so only those are offered)."""
        state = self.state
        side = side_of(state, state.current_player)
        items = [MenuItem(declare_label(event, side), dict(event)) for event in self.game.legal_events(state)]
        if self.loop.teach_dice is not None:  # between turns: the dice may be taught again
            items.append(MenuItem("Teach the dice", "teach"))
        return Menu("declare", f"{state.current_player}: before rolling", tuple(items))

    def turn_menu(self) -> Menu:
        """The legal moves with the dice in hand, and ending the turn."""
        state = self.state
        items = play_items(state, self.game.legal_events(state))
        if self.ended_on_read_dice():
            items.append(MenuItem("Correct a die", "correct"))
        items.append(MenuItem("Undo the last event", "undo"))
        items.append(MenuItem("Back", BACK))
        return Menu("turn", f"{state.turn.player}: {how_many_dice(len(state.turn.pool))} to use", tuple(items))

    def fate_choice_menu(self) -> Menu:
        items = fate_choice_items(self.game.legal_events(self.state))
        if self.ended_on_read_dice():
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

    def on_push(self) -> None:
        phase, loop = self.state.phase, self.loop
        if phase == "declare":
            loop.open_menu(self.declare_menu())
        elif phase == "play":
            loop.open_menu(self.turn_menu())
        elif phase == "fate_choice":
            loop.open_menu(self.fate_choice_menu())
        elif phase == "fate" and self.virtual_fate:
            self.roll_fate()
        elif phase == "over" and self.story_page is None and self.ended_on_read_dice():
            loop.open_menu(self.end_menu())
        elif phase == "over":
            self.turn_page(0 if self.story_page is None else 1)
        elif phase in THROWS:
            loop.show_home()  # the dice are read by the camera (or typed: roll:F1,F2,..)

    def on_score(self) -> None:
        if self.state.phase == "play":
            self.play_chosen({"type": "end_turn"})
        else:
            self.on_push()

    def on_next(self) -> None:
        if self.state.phase == "over":
            self.turn_page(0 if self.story_page is None else 1)  # Next: the story, page by page
        elif self.state.phase == "fate_choice" and self.loop.legal(PASS):
            self.play_chosen(dict(PASS))  # Next: the usual answer, take nothing from fate's dice
        else:
            self.loop.show_home()

    def notice_takes(self, command: str, below) -> bool:
        return not isinstance(below, Choosing)  # any button puts a notice away, when no menu is open

    def choose(self, menu: Menu, value: Any) -> None:
        if value == "story":
            self.turn_page(0)
        elif menu.kind == "reward":
            self.play_chosen({**menu.context, "reward": value})
        elif isinstance(value, tuple) and value[0] == "reward":
            self.loop.open_menu(Menu("reward", "Reward on this romance card?",
                                     tuple(MenuItem(f"{n} deferred {'die' if n == 1 else 'dice'}", n) for n in REWARDS),
                                     highlight=2, context=value[1]))
        elif isinstance(value, Mapping):
            self.play_chosen(dict(value))
        else:
            self.loop.show_home()

    def play_chosen(self, event: dict) -> None:
        loop = self.loop
        loop.play(event)
        state = self.state
        if event["type"] == "melt":
            loop.status(READ_OK, sound="scored")
        if state.phase == "over":
            loop.table.close()
            won = (dict(state.outcome).get("result") == "won")
            loop.show_home()
            loop.status(READ_OK, sound="game-over" if won else "error")
            return
        loop.show_home()

    # -- throws --------------------------------------------------------------------------------
    def roll_fate(self) -> None:
        """The box rolls fate's dice itself: a fresh seed, stored as the event (replay is exact)."""
        seed = int(self.new_seed())
        self.loop.play({"type": "fate_roll", "seed": seed})
        self.after_fate(f"rolled by the box (seed {seed})")

    def after_fate(self, how: str) -> None:
        state, loop = self.state, self.loop
        if state.phase == "over":
            loop.table.close()
            loop.show(Screen("error", title="The romance froze over", dice=die_views(state.fate_roll, state.snowflake),
                             lines=fate_result_lines(state) + (how,), dice_set=DICE_SET))
            loop.status(ATTENTION, sound="game-over")
            return
        loop.status(READ_OK, sound="scored")
        if state.phase == "fate_choice":
            loop.show_home()
        else:  # co-op: the next round starts; the fate result stays on screen until a button is pressed
            loop.show(Screen("prompt", title="Fate rolled", dice=die_views(state.fate_roll, state.snowflake),
                             lines=fate_result_lines(state) + (how, f"next: {state.current_player}"),
                             dice_set=DICE_SET, footer="push the knob: how to roll this turn"))

    def may_roll_straight_away(self) -> bool:
        """Co-op, before a turn: its dice may be rolled without the choice (nothing deferred)."""
        state = self.state
        return state.phase == "declare" and state.mode != "solo" and self.loop.legal({"type": "declare"})

    def wanted_chance(self, awaited):
        state = self.state
        if state.phase == "fate" and self.virtual_fate:
            return None
        chance = self.game.chance(state)
        if chance is not None:
            return chance
        if self.may_roll_straight_away():
            return Chance({"type": "roll"}, dice=DICE_PER_TURN, face_set=DICE_SET, thrower=state.current_player)
        return None

    def throw_not_read(self) -> str | None:
        if self.state.phase == "fate" and self.virtual_fate:
            return "the box rolls fate itself; dice in the tray are somebody else's"
        return None

    def close_menu_for_read(self) -> None:
        pass  # only the phase's own menus close, once dice are due (close_menu_for_dice)

    def close_menu_for_dice(self) -> None:
        top = self.loop.stack.top()
        if isinstance(top, Choosing) and top.menu.kind in PHASE_MENUS and self.game.chance(self.state) is not None:
            self.loop.close_menu()

    def unasked_read(self, faces):
        """Dice read with none due. Co-op: a turn's dice rolled with the choice's menu closed
        start the turn (nothing deferred); otherwise "Choose first"."""
        loop, state = self.loop, self.state
        last = Counter(loop.last_read) if loop.last_read is not None else None
        if (len(faces) == DICE_PER_TURN and loop.stack.find(Choosing) is None and self.may_roll_straight_away()):
            if Counter(faces) == last:
                loop.same_read = faces  # the last roll's faces: taken only when Next says they were rolled
                loop.show_home()
                return None
            return self.straight_away(len(faces))
        if Counter(faces) != last and state.phase == "declare" and loop.stack.find(Choosing) is None:
            # not an error to put away: the next push opens the choice at once
            loop.show(Screen("prompt", title="Choose first", dice_set=DICE_SET,
                             lines=(f"{state.current_player}: push the knob to choose how to roll this turn, "
                                    "then roll the dice",)))
            loop.status(ATTENTION, sound="attention")
        return None

    def straight_away(self, count: int):
        if self.state.phase == "declare":
            self.loop.play({"type": "declare"})  # co-op: rolled without deferring or releasing
        return self.game.chance(self.state)

    def note_context(self) -> dict:
        return {"phase": self.state.phase}

    def thrown(self, event) -> None:
        if event["type"] == "fate_roll":
            self.after_fate("read by the camera")
        else:
            self.loop.status(READ_OK)
            self.loop.show_home()

    def faces_rolled_by_the_box(self) -> list[str]:
        return list(self.state.fate_roll)

    # -- corrections -----------------------------------------------------------------------------
    def why_not_correctable(self, last, index: int) -> str | None:
        if last is None:
            return "there is no roll to correct now"
        if "faces" not in last:
            return "only the dice just read by the camera can be corrected (fate rolled by the box is not read)"
        return super().why_not_correctable(last, index)

    def closing_words(self) -> str:
        return f"The movie:\n{story(self.state)}"

    def before_undo(self) -> None:
        self.loop.same_read = None  # Undo never says "it was a roll": the same faces waiting for Next are forgotten

    def after_undo(self, undone) -> bool:
        self.story_page = None
        return False


# -- setup arguments for run and demo, and its scripted demo ------------------------------------

SETUP_FLAGS = {"--mode": "mode", "--virtual-fate": "virtual_fate"}


def loop_arguments(args, options: dict) -> dict:
    """--virtual-fate, or ``virtual_fate = true`` in the config's [christmas-romance] table."""
    return {"options": {**options, "virtual_fate": bool(getattr(args, "virtual_fate", False)
                                                        or options.get("virtual_fate"))}}


def add_setup_arguments(parser, command: str) -> None:
    parser.add_argument("--mode", choices=MODES,
                        help="christmas-romance: solo or 2-player co-op against fate, couples or multiplayer "
                             "(default solo)")
    parser.add_argument("--virtual-fate", action="store_true",
                        help="christmas-romance: the box rolls fate's dice itself (seeded; the seed is logged)")


BENCH = {"fate-solo": {"mode": "solo"}, "fate-coop": {"mode": "coop", "players": ["Ann", "Ben"]}}
BENCH_WAIT_FRAMES = 20   # the game waits for a button this long (2 s) before the player pushes


def bench_player(loop, table, waited: int, rng) -> None:
    """host.bench_games' player at the buttons: take one of the open menu's events (drawn with
    the seed); push the knob when the game has waited for a button."""
    if loop.menu is not None:
        events = [i for i, item in enumerate(loop.menu.items) if isinstance(item.value, dict)]
        turn_knob_to(loop, rng.choice(events) if events else 0)
    elif loop.dice_wanted().count == 0 and waited > BENCH_WAIT_FRAMES:
        loop.handle("push")


#: ``dicewatch demo --game christmas-romance``: a movie against fate, solo or co-op (its
#: ``run(args, size, out)``; named, not imported: the demo's players load only for the demo)
DEMO = "host.fate_demo"


def setup_options(args, players: list[str]) -> dict:
    """The setup options of a new session from the command line (``--mode``, the players)."""
    mode = getattr(args, "mode", None) or "solo"
    if mode not in MODES:
        raise ValueError(f"--mode: expected one of {', '.join(MODES)}, got {mode!r}")
    if not players:   # the rules' default names ("Player"; "Star" and "Headliner"), kept in the session
        players = list(setup({"mode": mode}).players)
    return {"mode": mode, "players": list(players)}


def story_text(state) -> str:
    """The movie deck told as a story (for the terminal at the end of a game)."""
    return story(state)
