"""The one table loop: camera frames -> settle gate -> reader -> events -> state -> views -> screens.

One thread owns everything here, and no game's name is in it: the game's rules
(``rules.core.Game``) say what the table must throw next (``chance``) and which choices
are open (``legal_events``); the game's table (``host.games``: its screens, menu words and
setup questions) says how to show them. Each turn of :meth:`TableLoop.step`:

1. takes the commands people posted (buttons, knob, serial panel; :meth:`TableLoop.post`
   is thread-safe) and hands each to the interaction on top of the stack
   (host.interactions: a notice, a menu, a dice check, a choice in several steps);
2. reads one frame from the camera; the watcher (host.watcher: settle gate + dice reader)
   says whether the dice are moving and, once they have settled, hands over a ``Roll``;
3. when the game's ``chance`` wants dice, turns a settled read into that event (for a game
   with no dice, or no throw due, the camera is left alone and the knob offers the
   game's choices). Dice read below the confidence threshold are flagged: the screen says
   "Check die 3" and the knob confirms or corrects them first (a correction is a ``note``
   in the journal). A read the rules refuse is shown as an error and the state does not
   change; pushing the knob then enters the dice one by one (the camera's read filled in);
4. stores every accepted event durably (host.session_store), *then* shows it;
5. lets the presenters flush (the e-ink panel coalesces its updates).

Camera trouble never stops the loop: the status light and the screen say "Camera lost",
and the loop retries with a doubling back-off up to ``retry_max`` seconds.
"""
from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import Counter
from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from host.dice_check import DiceCheck, ReadDie, align_order, crowded_out, faces_of, known_where_they_lie, read_dice
from host.games import table_for
from host.interactions import (Answering, Awaiting, Checking, Choosing, Interactions, Notice,
                               UnusableRead)
from host.menus import BACK, UNSEEN, Menu, MenuItem, face_menu
from host.presenters import ATTENTION, FAULT, MOVING, OFF, WAITING, Screen, Status, how_many_dice, tell
from host.session_store import ANSWERS, EVENT, NOTE, PLACES, UNDO, StoredSession
from host.watcher import SETTLING, STILL
from rules import get_game
from rules.core import RuleError
from vision.roll import Die, Roll, Throw

log = logging.getLogger(__name__)


def json_object(text: str, expected: str) -> dict:
    """The JSON object a command carries (RuleError ``expected`` when it is not one)."""
    try:
        value = json.loads(text)
    except ValueError:
        raise RuleError(expected) from None
    if not isinstance(value, dict):
        raise RuleError(expected)
    return value


def menu_screen(menu: Menu) -> Screen:
    return Screen("menu", title=menu.title, lines=menu.labels(), highlight=menu.highlight, private=menu.private)


class TableLoop:
    """Plays one stored game at the table. See the module docstring for the flow.

    :param table: the durable session (host.session_store.StoredSession).
    :param presenters: objects with ``show``, ``status``, ``tick``, ``close``
        (host.presenters documents the interface).
    :param watcher: ``watch(frame) -> (motion, roll)`` with motion one of ``"still"``,
        ``"moving"``, ``"settled"`` and a ``vision.roll.Roll`` when settled.
    :param open_camera: makes a frame source (``read() -> frame or None``, ``close()``);
        called again, with back-off, when the camera is missing or lost.
    :param confidence: dice read below this are flagged for a person to confirm.
    :param ask_setup: ask the game's setup questions before the first throw (Jingle Bell
        Roll: each player's character card).
    :param options: the game's options that steer the box rather than the rules (the
        ``[<game-name>]`` config table; e.g. ``virtual_fate``); see ``dicewatch games``.
    :param new_seed: where the seeds of the throws the box makes itself come from (default:
        the OS's randomness; the demo and tests pass a seeded one). The seed is stored as
        the event, so a replay is exact.
    :param clock: seconds, for the back-off and the e-ink coalescing (the demo's is simulated).

    ``teach_dice``, when set (``dicewatch run`` sets it), is offered between turns as the knob
    menu's "Teach the dice": called with the loop, it teaches the game's dice at the camera
    (the camera is closed first and reopened after), asking on this loop's presenters and
    answered through this loop's commands, and returns the watcher that reads the new set.
    """

    def __init__(self, table: StoredSession, *, presenters: Sequence = (), watcher=None,
                 open_camera: Callable[[], Any] | None = None, confidence: float = 0.9,
                 ask_setup: bool = True, options: Mapping[str, Any] | None = None,
                 new_seed: Callable[[], int] | None = None, clock: Callable[[], float] = time.monotonic,
                 retry_first: float = 1.0, retry_max: float = 30.0, learner=None):
        self.table, self.presenters, self.watcher = table, list(presenters), watcher
        self._learner = learner
        self.open_camera, self.confidence, self.clock = open_camera, confidence, clock
        self.retry_first, self.retry_max = retry_first, retry_max
        self.commands: "queue.Queue[str]" = queue.Queue()
        self.stop_requested = threading.Event()
        self.camera = None
        self.camera_fault: str | None = None
        self.source_ended = False
        self.retry_delay = retry_first
        self.next_retry = -1.0
        self.stack = Interactions()
        self.same_read: list[str] | None = None   # a read showing the dice already on the table
        self.last_read: list[str] | None = None   # the faces of the last dice stored from a read
        self.known_spots: list[tuple[float, float, float, str]] = []  # the last stored roll's dice: x, y, size, face
        self.last_confidences: list[float] = []  # of the last roll submitted, die by die (1.0 = confirmed)
        self.motion = STILL
        self.light = WAITING
        self.closed = False
        self.refused = 0
        self.ask_setup = ask_setup
        self._last_status: Status | None = None
        self.light_warned: str | None = None  # the watcher's light warning last shown
        self.view_warned: str | None = None   # the watcher's camera-view warning last shown
        self.teach_dice: Callable[["TableLoop"], Any] | None = None
        self.reads = None        # host.watcher.ReadWorker once reads run in the background (``run``)
        self._hand_moves = 0     # commands that changed the journal: a read from before is stale
        # the die sets this table may read with (set by `dicewatch run`): names, and a watcher for one
        self.dice_sets: Callable[[], list[str]] | None = None
        self.use_dice: Callable[[str], Any] | None = None
        self.dice_in_use: str | None = None
        self.plays = table_for(table.game)(self, dict(options or {}), new_seed)
        self._restore_answers()
        self._answers_kept = self._answers()
        self._restore_places()
        for presenter in self.presenters:  # a presenter that reads the game itself (the phone page)
            if hasattr(presenter, "attach"):
                presenter.attach(self)

    # -- shortcuts ---------------------------------------------------------------------------
    @property
    def state(self):
        return self.table.state

    @property
    def game(self):
        return self.table.game

    @property
    def menu(self) -> Menu | None:
        """The knob menu on top (a menu, or the face menu of a die being checked), if any."""
        top = self.stack.top()
        return top.menu if isinstance(top, (Choosing, Checking)) else None

    @menu.setter
    def menu(self, menu: Menu) -> None:
        """Set the open menu's highlight (a script turning the knob at once)."""
        top = self.stack.top()
        if not isinstance(top, (Choosing, Checking)) or top.menu.kind != menu.kind:
            raise ValueError("no such menu is open")
        top.menu = menu

    @property
    def pending(self) -> DiceCheck | None:
        """The read waiting for its dice to be checked, if any."""
        checking = self.stack.find(Checking)
        return checking.check if checking is not None else None

    @property
    def wizard(self):
        """The steps of a choice being answered (Jingle Bell Roll's score), if any."""
        answering = self.stack.find(Answering)
        return answering.steps if answering is not None else None

    @property
    def answering_menu(self) -> Menu | None:
        """The question of a choice being answered, as the knob shows it now."""
        answering = self.stack.find(Answering)
        if answering is None:
            return None
        return answering.menu or answering.steps.menu()

    @property
    def unusable(self) -> UnusableRead | None:
        """The read a notice is about that could not be used (push enters it by hand), if any."""
        notice = self.stack.notice()
        return notice.unusable if notice is not None else None

    @property
    def awaited(self) -> dict | None:
        """The throw the players announced and the loop waits for (a re-roll), if any."""
        awaiting = self.stack.find(Awaiting)
        return awaiting.event if awaiting is not None else None

    @property
    def showing_notice(self) -> bool:
        return self.stack.notice() is not None

    def legal(self, event: Mapping[str, Any]) -> bool:
        try:
            self.table.session.check(event)
        except RuleError:
            return False
        return True

    # -- input -------------------------------------------------------------------------------
    def post(self, command: str) -> None:
        """Queue a command from a button, the knob or a panel (any thread)."""
        self.commands.put(command)

    def request_stop(self, *_signal: Any) -> None:
        """Ask the loop to finish its turn and shut down (the SIGTERM handler)."""
        self.stop_requested.set()

    # -- output ------------------------------------------------------------------------------
    def _tell(self, method: str, *args: Any) -> None:
        """Call ``method`` on every presenter; a failing output is logged, the game goes on."""
        tell(self.presenters, method, *args)

    def show(self, screen: Screen, *, notice: bool | None = None, unusable: UnusableRead | None = None) -> None:
        """Show ``screen`` on every presenter, drawn with the game's dice. An error screen is a
        notice (the first Next or Undo puts it away); ``notice=True`` makes another screen
        one too (a score announced), ``unusable`` the read a push then enters by hand."""
        self.stack.remove(Notice)
        if notice if notice is not None else screen.kind == "error":
            self.stack.push(Notice(unusable))
        if not screen.dice_set and self.plays.dice_set:
            screen = replace(screen, dice_set=self.plays.dice_set)
        self._tell("show", screen)

    def status(self, light: str | None = None, sound: str | None = None, bar: int | None = None) -> None:
        if light is not None:
            self.light = light
        if bar is None:
            bar = self.plays.bar()
        status = Status(light=self.light, bar=bar, sound=sound)
        if status == self._last_status and sound is None:
            return
        self._last_status = status
        self._tell("status", status)

    def error(self, title: str, reason: str, hint: str = "", unusable: UnusableRead | None = None) -> None:
        lines = (reason,) + ((hint,) if hint else ())
        self.show(Screen("error", title=title, lines=lines, footer="Next or Undo: back to the game"),
                  unusable=unusable)
        self.status(ATTENTION, sound="error")

    def open_menu(self, menu: Menu, light: str | None = ATTENTION) -> None:
        """Put ``menu`` on top of the stack and show it."""
        self.stack.remove(Choosing)
        self.stack.push(Choosing(menu))
        self.show(menu_screen(menu))
        if light is not None:
            self.status(light)

    def close_menu(self) -> None:
        self.stack.remove(Choosing)

    def show_home(self) -> None:
        """The screen for what is asked now, or the game's own when nothing is."""
        top = self.stack.top()
        if isinstance(top, Checking):
            self._show_check()
            self.status(ATTENTION)
            return
        if isinstance(top, Choosing):
            self.show(menu_screen(top.menu))
            self.status(ATTENTION)
            return
        if isinstance(top, Answering):
            menu = top.steps.menu()
            if menu is not None:
                self.show(menu_screen(menu))
                self.status(ATTENTION)
                return
        if isinstance(top, Awaiting) and not self.game.is_over(self.state):
            self.plays.show_awaited(top.event)
            return
        self.plays.home()

    def start(self) -> None:
        """First screen: the setup questions, or the table as it stands (after --resume).

        A game that ended but is not marked finished (the power went between its last event
        and that mark) is marked now, so that it leaves Resume and ``--resume latest``."""
        if self.game.is_over(self.state) and not self.table.store.is_closed(self.table.id):
            self.table.close()
        self.plays.start()

    # -- answers not yet events, journalled so that --resume continues exactly there ------------
    def _answers(self) -> dict:
        return {"type": ANSWERS, **self.plays.answers()}

    def _keep_answers(self) -> None:
        """Journal the open answers (the game's table says which: a re-roll announced, a score
        half answered) when a command changed them."""
        answers = self._answers()
        if answers != self._answers_kept:
            self.table.note(answers)
            self._answers_kept = answers

    def _restore_answers(self) -> None:
        """Take up the answers journalled last; those about the state (a re-roll announced, a
        score half answered) only if no event was stored or undone since."""
        after = []
        for entry in reversed(self.table.entries):
            if entry.kind == NOTE and entry.body.get("type") == ANSWERS:
                break
            after.append(entry.kind)
        else:
            return
        try:
            self.plays.take_up(entry.body, still_current=not (EVENT in after or UNDO in after))
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            # Convenience only (the events are the game): a note this version cannot read is
            # skipped with a warning, and the questions are asked again.
            log.warning("session %s: the open answers noted in its journal (entry %s) cannot be taken up "
                        "(%s: %s); expected the 'answers' note this version writes; asking again",
                        self.table.id, entry.seq, type(exc).__name__, exc)
            self.stack.clear()
            self.plays.forget_answers()

    def _places_note(self, known: Sequence[tuple[float, float, float, str]]) -> dict | None:
        """Where the dice of the roll just stored lie, with their faces, so that after --resume
        a die still lying there is not asked about again (see known_where_they_lie). Stored
        with the roll, in the same transaction: a resumed box knows where they lie, or knows
        nothing and asks."""
        if not any(size > 0 for _, _, size, _ in known):
            return None
        return {"type": PLACES, "dice": [[round(x, 1), round(y, 1), round(size, 1), face]
                                         for x, y, size, face in known]}

    def _restore_places(self) -> None:
        """Take up the dice places journalled last, if no event was stored or undone since."""
        for entry in reversed(self.table.entries):
            if entry.kind in (EVENT, UNDO):
                return
            if entry.kind == NOTE and entry.body.get("type") == PLACES:
                break
        else:
            return
        try:
            self.known_spots = [(float(x), float(y), float(size), str(face))
                                for x, y, size, face in entry.body["dice"]]
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("session %s: the dice places noted in its journal (entry %s) cannot be taken up "
                        "(%s: %s); expected [[x, y, size, face], ...]; unsure dice are asked about again",
                        self.table.id, entry.seq, type(exc).__name__, exc)
            self.known_spots = []

    # -- commands ----------------------------------------------------------------------------
    def handle(self, command: str) -> None:
        """Act on one command (see host.presenters for the vocabulary)."""
        journal = (self.table, len(self.table.entries))
        try:
            try:
                self._act(command)
            finally:
                self._keep_answers()
        except RuleError as exc:
            self.error("Not allowed", str(exc))
        if (self.table, len(self.table.entries)) != journal:
            self._hand_moves += 1

    def _act(self, command: str) -> None:
        if command.startswith("choose:"):
            self._choose_event(command[len("choose:"):])
            return
        if command.startswith("face:"):
            self._direct_face(command)
            return
        if command.startswith("roll:"):
            self._typed_roll(command)
            return
        if command.startswith("new-game:"):
            self._new_game_from(command[len("new-game:"):])
            return
        if command.startswith("resume:"):
            self.resume(command[len("resume:"):])
            return
        if command.startswith("dice:"):
            self._use_dice(command[len("dice:"):])
            return
        if command in ("left", "right"):
            self._turn(1 if command == "right" else -1)
            return
        notice, top = self.stack.notice(), self.stack.top()
        if notice is not None and not isinstance(top, Checking):
            if command == "push" and notice.unusable is not None:
                self._enter_by_hand(notice.unusable)
                return
            if self.plays.notice_takes(command, top):
                self.show_home()  # the first press after an error only puts it away
                return
        if command == "score" and self._checking_several():
            self._confirm_rest_as_read()
            return
        if command in ("push", "score"):
            if isinstance(top, (Choosing, Checking)):
                self._choose(top.menu)
            elif isinstance(top, Answering):
                self._answer()
            elif command == "score":
                self.plays.on_score()
            else:
                self.plays.on_push()
            return
        if command == "undo":
            self._undo()
        elif command == "next":
            self._next()
        else:
            raise RuleError(f"unknown command {command!r}")

    def _turn(self, step: int) -> None:
        top = self.stack.top()
        if isinstance(top, Checking):
            top.menu = top.menu.turn(step)
            self._show_check()
        elif isinstance(top, Choosing):
            top.menu = top.menu.turn(step)
            self.show(menu_screen(top.menu))
        elif isinstance(top, Answering):
            if top.steps.menu() is not None:
                top.menu = (top.menu or top.steps.menu()).turn(step)
                self.show(menu_screen(top.menu))
        else:
            self.plays.turn(step)

    def _choose(self, menu: Menu) -> None:
        """A push on a menu: what the loop itself asks (a die's face, which die to correct),
        else the game's table decides (an event from legal_events is played)."""
        value = menu.chosen.value
        if menu.kind == "face":
            self._confirm_face(value)
            return
        self.close_menu()
        if menu.kind == "which-die":
            if value == BACK:
                self.show_home()
                return
            faces = self.dice_of_last()
            fix = face_menu(value + 1, faces[value], 1.0, self.plays.face_names())
            self.open_menu(Menu("fix", fix.title.replace("Check", "Correct"), fix.items, context=value), light=None)
        elif menu.kind == "fix":
            self.correct_die(menu.context, value)
        elif value == BACK:
            self.show_home()
        elif value == "undo":
            self._undo()
        elif value == "teach":
            self._teach()
        elif value == "correct":
            self.open_menu(self.which_die_menu(), light=self.plays.correct_menu_light)
        else:
            self.plays.choose(menu, value)

    def which_die_menu(self) -> Menu:
        items = tuple(MenuItem(f"die {n}: {face}", n - 1) for n, face in enumerate(self.dice_of_last(), start=1))
        return Menu("which-die", "Correct which die?", items + (MenuItem("Back", BACK),))

    def start_answering(self, steps, busy: str) -> None:
        """Open a choice made in several steps (``steps``: see host.interactions.Answering)."""
        self.stack.remove(Answering)
        self.stack.push(Answering(steps, busy=busy))
        self.show(menu_screen(steps.menu()))
        self.status(ATTENTION)

    def _answer(self) -> None:
        answering = self.stack.find(Answering)
        menu = answering.menu or answering.steps.menu()
        answering.menu = None
        try:
            answering.steps.choose(menu.chosen.value)
        except RuleError as exc:
            self.plays.answer_refused(exc)
            return
        following = answering.steps.menu()
        if following is not None:
            self.show(menu_screen(following))
            return
        self.stack.drop(answering)
        self.plays.answered(answering.steps.event())

    def restart_answers(self) -> None:
        """The dice changed while a choice was being answered: its answers were for the old
        dice, so it asks again from the first question, on the dice as they are now."""
        answering = self.stack.find(Answering)
        if answering is not None:
            answering.steps, answering.menu = self.plays.restart_steps(answering.steps), None

    def _next(self) -> None:
        top = self.stack.top()
        if isinstance(top, Checking):
            # Next on "Check die N": the die is what the camera read (or, unseen, the highlighted face)
            face = top.check.faces[top.check.flagged[0]]
            self._confirm_face(top.menu.chosen.value if face == UNSEEN else face)
        elif isinstance(top, Choosing):
            self.close_menu()
            if not self.plays.next_on_menu(top.menu):
                self.show_home()
        elif isinstance(top, Answering):
            menu = top.menu or top.steps.menu()
            if menu is not None:
                top.menu = menu.turn(-menu.highlight)  # the first item: the usual answer
                self._answer()
        elif self.same_read is not None:
            faces, self.same_read = self.same_read, None
            chance = self.read_chance() or self.plays.straight_away(len(faces))
            if chance is not None:
                self.submit(chance, faces)  # it was a roll (or the re-roll) that came out the same
        elif isinstance(top, Awaiting):
            self.stack.drop(top)  # no re-roll after all
            self.show_home()
        else:
            self.plays.on_next()

    def new_game(self, setup: Mapping[str, Any] | None = None) -> None:
        """A new session of the same game: with the same players and options (Next after the
        end), or with ``setup``. RuleError (nothing changed) when the rules refuse the setup."""
        setup = self.table.session.setup_options if setup is None else setup
        try:
            table = self.table.store.create(self.game, setup)
        except (TypeError, ValueError) as exc:   # a setup check that does not raise RuleError
            raise RuleError(f"that setup is refused: {exc}") from None
        self._sit_at(table)

    def _sit_at(self, table: StoredSession) -> None:
        """Play ``table`` from now on (a new game, or one resumed): nothing asked or read about
        the game left carries over; the answers and dice places ``table`` journalled (none in a
        new one) are taken up, as at start."""
        self.table = table
        self.stack.clear()
        self.same_read = self.last_read = None
        self.known_spots = []
        self.plays.forget_answers()
        self._restore_answers()
        self._answers_kept = self._answers()
        self._restore_places()
        self.status(WAITING, bar=0)
        self.start()

    def resumable(self) -> list:
        """The other unfinished stored games of this game, newest first (SessionInfo)."""
        store = self.table.store
        return [info for info in store.list()
                if info.game == self.game.name and info.closed is None and info.id != self.table.id]

    def resume(self, session_id: str) -> None:
        """``resume:SESSION``: go on with another unfinished stored game of this game (the phone
        page's Resume) exactly where it stopped, as ``dicewatch run --resume`` would. The game
        left is kept as it is (resumable in turn), or dropped if nothing was stored in it yet.
        RuleError (nothing changed) when there is no such game to resume."""
        if session_id not in {info.id for info in self.resumable()}:
            raise RuleError(f"there is no unfinished {self.game.title} game {session_id!r} to resume")
        store, left = self.table.store, self.table
        table = store.open(session_id, get_game)
        if not left.entries:
            store.discard(left.id)
        self._sit_at(table)

    def _use_dice(self, name: str) -> None:
        """``dice:NAME``: read the throws from now on with the taught die set NAME (the phone
        page's "Dice to use"); only between throws, and only a set that fits this game."""
        if self.use_dice is None:
            raise RuleError("this box cannot change its dice while it plays")
        if self.stack.find(Checking) is not None:
            raise RuleError("a roll is being checked: finish it first, then change the dice")
        watcher = self.use_dice(name)   # RuleError: no such set, or not this game's faces
        self.watcher = watcher
        self.dice_in_use = name
        self.same_read = None
        self.show_home()

    def _new_game_from(self, text: str) -> None:
        """``new-game:{JSON}`` (any thread may post it, e.g. the phone page): a new session of
        this game, its setup the current one with the JSON's keys (``{"players": [...]}``)
        in place; checked by the rules first (RuleError: the game goes on unchanged)."""
        changes = json_object(text, "expected new-game:{a JSON setup}")
        self.new_game({**self.table.session.setup_options, **changes})

    def _drop_pending_read(self) -> bool:
        """Undo while a read waits for its check: forget that read (nothing was stored yet)."""
        if self.stack.find(Checking) is None:
            return False
        self.stack.remove(Checking)
        self.show(Screen("prompt", title="Read dropped", lines=("roll again or put the dice back",)))
        self.status(WAITING)
        return True

    def _undo(self) -> None:
        self.plays.before_undo()
        if self._drop_pending_read():
            return
        top = self.stack.top()
        if isinstance(top, Answering):
            top.menu = None
            if not top.steps.back():
                self.stack.drop(top)
                self.show_home()
            else:
                self.show(menu_screen(top.steps.menu()))
            return
        if isinstance(top, Choosing):
            self.close_menu()
            if not self.plays.undo_on_menu(top.menu):
                self.show_home()
            return
        if isinstance(top, Awaiting):
            self.stack.drop(top)  # the announced throw is called off; the roll stands
            self.same_read = None
            self.show_home()
            return
        undone = self.table.undo()
        if self.learner is not None:   # what that roll taught unchallenged is withdrawn
            self.learner.undone(self.table.id, len(self.table.session.events))
        self.stack.clear()
        self.same_read = self.last_read = None  # both were about the event taken back
        self.known_spots = []
        if self.plays.after_undo(undone):
            return
        if not self.game.is_over(self.state):
            self.table.store.mark_closed(self.table.id, closed=False)  # an ended game taken back is open again
        status = self.game.status(self.state) if self.game.status else ""
        self.show(Screen("prompt", title=f"Undone: {undone.get('type')}", lines=(status,)))
        self.status(WAITING)
        self.show_home()

    def choose_privately(self, event: Mapping[str, Any]) -> None:
        """A choice made by one player on their own device (a secret: a role, a lucky face):
        played if it is one of the game's legal events now. Nothing of it is shown but what
        the game's public view of the new state says."""
        if dict(event) not in [dict(e) for e in self.game.legal_events(self.state)]:
            public = self.game.event_view(event, None) or {}
            raise RuleError(f"that {public.get('type', 'choice')} is not open now")
        self.play(event)
        if self.game.is_over(self.state):
            self.table.close()
        self.show_home()

    def _choose_event(self, text: str) -> None:
        """``choose:{JSON event}`` (any thread may post it, e.g. from a phone): one of the game's
        legal events now, played in the loop's thread; a secret one as :meth:`choose_privately`,
        a public one as the knob's menu plays it. RuleError when it is not open now."""
        event = json_object(text, "expected choose:{a JSON event}")
        if self.game.event_view(event, None) != event:
            self.choose_privately(event)
            return
        if event not in [dict(e) for e in self.game.legal_events(self.state)]:
            raise RuleError(f"that {event.get('type', 'choice')} is not open now")
        self.close_menu()
        self.plays.play_chosen(event)

    def play(self, event: Mapping[str, Any]) -> None:
        """Store ``event`` durably (RuleError leaves everything unchanged)."""
        self.table.play(event)
        self.same_read = None   # a read kept for Next was of the dice before this event
        self.known_spots = []   # where the dice of the last stored roll lay (set again by submit)

    def _teach(self) -> None:
        """Teach the game's dice at the box ("Teach the dice" in the knob menu): the loop
        stands still while ``teach_dice`` has the camera, the screen and the buttons. Its last
        screen (taught, or stopped) stays up until Next or Undo puts it away, or a roll."""
        self._close_camera()
        self.stack.remove(Notice)  # the dice will be rolled afresh
        if self.reads is not None:
            self.reads.wait_idle()   # teaching uses the dice models too: not while a read runs
        try:
            watcher = self.teach_dice(self)
        except Exception as exc:  # noqa: BLE001 - the game goes on with the dice it had
            log.exception("teaching the dice failed")
            self._last_status = None
            self.error("Teaching failed", f"{type(exc).__name__}: {exc}", "the game goes on with the old dice")
            return
        if watcher is not None:
            self.watcher = watcher
        self._last_status = None  # teaching drove the lights itself
        self.stack.push(Notice())  # the first Next or Undo puts the "Taught" screen away
        self.status(WAITING)

    # -- what the table must throw ------------------------------------------------------------
    def read_chance(self):
        """The throw a settled read answers now (rules.core.Chance), or None."""
        return self.plays.read_chance(self.awaited)

    def dice_wanted(self) -> Throw:
        """What the players should throw next (what ``run``'s synthetic camera throws): the
        game's ``chance``, with the dice it leaves standing; nothing (a count of 0) while the
        table waits for a button instead (a menu, a die to check, a choice being answered,
        the game's own questions, the end)."""
        if self.game.is_over(self.state):
            return Throw(0)
        if any(isinstance(item, (Choosing, Checking, Answering)) for item in self.stack):
            return Throw(0)
        chance = self.plays.wanted_chance(self.awaited)
        return Throw(chance.dice, keep=tuple(chance.standing)) if chance is not None else Throw(0)

    @property
    def learner(self):
        """What learns the dice from each stored roll (vision.learning.TableLearner): the one
        given (``learner=``, the demos' synthetic tables), else the one the watcher carries
        (host.table_setup.learning_watcher); None for games without dice, pip dice, or a
        watcher that does not learn."""
        return self._learner if self._learner is not None else getattr(self.watcher, "learner", None)

    def _learning_notice(self) -> None:
        """Said once, between checks and menus: the learner kept new examples aside."""
        if self.learner is None or any(isinstance(item, (Choosing, Checking, Answering)) for item in self.stack):
            return
        text = self.learner.take_notice()
        if text:
            self.show(Screen("prompt", title="Dice not learned", lines=(text,)), notice=True)

    # -- reads from the camera -----------------------------------------------------------------
    def not_reading(self) -> str | None:
        """Why dice are not read now (a settled read is let go, a typed roll refused), or None."""
        if self.game.is_over(self.state):
            return "the game is over"
        why = self.plays.not_reading()
        if why is not None:
            return why
        answering = self.stack.find(Answering)
        if answering is not None:
            return answering.busy
        checking = self.stack.find(Checking)
        if checking is not None:
            return f"die {checking.check.flagged[0] + 1} waits for its check (Undo lets that read go)"
        return self.plays.throw_not_read()

    def on_read(self, roll) -> None:
        """A settled read from the camera (a ``vision.roll.Roll``)."""
        if self.not_reading() is not None:
            return  # dice moved while scoring, choosing or checking a die: the screen says what to do
        chance = self.read_chance()
        if chance is None:
            if not roll.dice:
                return
            chance = self.plays.unasked_read(faces_of(read_dice(roll)))
            if chance is None:
                return
        else:
            self.plays.close_menu_for_read()
            roll = crowded_out(roll, chance.total)
        dice = read_dice(roll)
        if not dice:
            return  # an empty tray: the dice were picked up or passed on
        self.plays.close_menu_for_dice()
        on_table = self.plays.faces_on_table()
        if on_table is not None and len(dice) == chance.total:
            dice = self._lying_still(dice)
        if on_table is not None and Counter(faces_of(dice)) == Counter(on_table):
            # Nothing changed: a hand passed, the table was bumped. Not a roll (nor the throw awaited).
            self.same_read = faces_of(dice) if len(dice) == chance.total else None
            self.show_home()
            return
        self.same_read = None
        if len(dice) != chance.total:
            # too many: which are not dice is anybody's guess, ask about all; too few: the unseen and the unsure
            reason, hint = self.plays.wrong_count(chance, len(dice))
            kept = dice[:chance.total]
            self.error(f"I see {how_many_dice(len(dice))}", reason, hint,
                       unusable=UnusableRead(faces_of(kept), [d.confidence for d in kept],
                                             len(dice) > chance.total))
            return
        if self.plays.dice_stay and on_table:
            dice = [dice[j] for j in align_order(on_table, faces_of(dice))]
        check = DiceCheck(dice, [i for i, d in enumerate(dice) if d.confidence < self.confidence], chance=chance)
        proposed = self.plays.proposed(check.faces, check.confidences, check.spots, chance)
        if proposed != check.faces:
            check.read = check.faces
            check.dice = [ReadDie(face, d.confidence, d.spot) for face, d in zip(proposed, dice)]
        if check.flagged:
            self._check(check, sound="attention")
            return
        self.submit(chance, check.faces, check.confidences, check.spots)

    def _lying_still(self, dice: list[ReadDie]) -> list[ReadDie]:
        """Unsure dice lying where a die of the last stored roll lay take its face (see
        host.dice_check.known_where_they_lie)."""
        spots = [d.spot for d in dice]
        faces, confidences = known_where_they_lie(spots, faces_of(dice), [d.confidence for d in dice],
                                                  self.known_spots, self.confidence)
        return [ReadDie(face, confidence, spot) for face, confidence, spot in zip(faces, confidences, spots)]

    def _check(self, check: DiceCheck, sound: str | None = None) -> None:
        self.stack.remove(Checking, Choosing)
        self.stack.push(Checking(check, self._face_menu(check)))
        self._show_check()
        self.status(ATTENTION, sound=sound)

    def _face_menu(self, check: DiceCheck) -> Menu:
        die = check.flagged[0]
        return face_menu(die + 1, check.faces[die], check.confidences[die], self.plays.face_names())

    def _enter_by_hand(self, unusable: UnusableRead) -> None:
        """A read that could not be used (too few or too many dice, or refused): ask for each
        die with the knob, what the camera saw filled in (the journal notes the roll as entered by hand)."""
        self.stack.remove(Notice)
        chance = self.read_chance()
        if chance is None:
            return
        count = chance.total
        faces = list(unusable.faces[:count]) + [UNSEEN] * (count - len(unusable.faces[:count]))
        confidences = list(unusable.confidences[:count]) + [0.0] * (count - len(unusable.confidences[:count]))
        ask = [i for i in range(count)
               if unusable.ask_all or faces[i] == UNSEEN or confidences[i] < self.confidence]
        self._check(DiceCheck.of(faces, confidences, ask, chance=chance, by_hand=True))

    def _show_check(self) -> None:
        checking = self.stack.find(Checking)
        check, menu = checking.check, checking.menu
        views = self.plays.dice_views(check.faces, check.confidences, check.flagged)  # all still to check
        self.show(Screen("prompt", title=menu.title, dice=views, lines=self._check_lines()))

    def _check_lines(self) -> tuple[str, ...]:
        """What "Check die N" says: the face asked about, and with more dice to check after
        it, that Score takes this one as the knob shows it and also the others as read (short:
        it must fit the 2.13" panel under the dice)."""
        lines = (f"is it {self.menu.chosen.value}? turn the knob to change, push to confirm",)
        if self._checking_several():
            rest = [str(i + 1) for i in self.pending.flagged[1:]]
            lines += (f"Score: also {'dice' if len(rest) > 1 else 'die'} {', '.join(rest)} as read",)
        return lines

    def _checking_several(self) -> bool:
        """A camera read waits with more than one die to check (not dice entered by hand)."""
        top = self.stack.top()
        return (isinstance(top, Checking) and top.menu.kind == "face" and not top.check.by_hand
                and len(top.check.flagged) > 1)

    def _confirm_rest_as_read(self) -> None:
        """Score on "Check die N": this die as the knob shows it, then every other die still
        to check as the camera read it (a player who has looked at them all confirms them with
        one press instead of one each). Only for a camera's read (``_checking_several``): dice
        entered by hand, some unseen, are each asked."""
        checking = self.stack.top()
        check = checking.check
        self._choose(checking.menu)
        while self.pending is check and check.flagged:
            self._confirm_face(check.faces[check.flagged[0]])

    def _confirm_face(self, face: str) -> None:
        checking = self.stack.find(Checking)
        check = checking.check
        die = check.flagged.pop(0)
        camera = (check.read or check.faces)[die]
        if face != camera and not check.by_hand:
            check.corrections.append({"type": "correction", "die": die + 1, "read": camera,
                                      "confidence": round(check.confidences[die], 3), "face": face,
                                      **self.plays.note_context()})
        check.answer(die, face)
        if check.flagged:
            checking.menu = self._face_menu(check)
            self._show_check()
            self.status(ATTENTION)
            return
        self.stack.drop(checking)
        if check.by_hand:
            notes = [{"type": "typed-roll", "faces": check.faces, **self.plays.note_context(),
                      "why": "entered with the knob: the camera's read could not be used"}]
        else:
            notes = list(check.corrections)
        self.submit(check.chance, check.faces, check.confidences, check.spots, notes=notes)

    def _direct_face(self, command: str) -> None:
        """``face:N:NAME`` from a panel: die N is NAME (confirms a flagged die or corrects one)."""
        try:
            _, number, face = command.split(":", 2)
            index = int(number) - 1
        except ValueError:
            raise RuleError(f"expected face:N:FACE, got {command!r}") from None
        names = self.plays.face_names()
        if face not in names:
            raise RuleError(f"{face!r} is not a face of these dice; faces: {', '.join(names)}")
        pending = self.pending
        if pending is not None and pending.flagged and pending.flagged[0] == index:
            self._confirm_face(face)
        else:
            self.correct_die(index, face)

    def _typed_roll(self, command: str) -> None:
        """``roll:F1,F2,...`` from a panel or keyboard: the whole roll typed in, read with full confidence."""
        names = self.plays.face_names()
        faces = [f.strip().upper() for f in command[len("roll:"):].split(",") if f.strip()]
        unknown = [f for f in faces if f not in names]
        if unknown:
            raise RuleError(f"{unknown[0]!r} is not a face of these dice; faces: {', '.join(names)}")
        why_not = self.not_reading()
        if why_not is not None:
            raise RuleError(f"a typed roll is not taken now: {why_not}")
        self.table.note({"type": "typed-roll", "faces": faces, **self.plays.note_context()})
        self.on_read(Roll(dice=tuple(Die(f, 1.0, 0.0, 0.0, 0.0, 0.0) for f in faces),
                          dice_set=self.plays.dice_set or "", notes=("typed",)))

    def submit(self, chance, faces: list[str], confidences: Sequence[float] | None = None,
               spots: Sequence | None = None, notes: Sequence[dict] = ()) -> None:
        """The dice of ``chance``, read and checked: store the event, or show why the rules refuse
        it. ``notes`` (the dice corrected, or entered by hand) are stored with it, and where its
        dice lie after it: all in one transaction."""
        self.last_confidences = list(confidences) if confidences is not None else [1.0] * len(faces)
        event = chance.with_faces(faces)
        try:
            self.table.session.check(event)
        except RuleError as exc:
            self.refused += 1
            self.table.record([(NOTE, note) for note in notes]
                              + [(NOTE, {"type": "refused", "event": event, "reason": str(exc)})])
            self.error("Roll refused", str(exc), self.plays.refused_hint,
                       unusable=UnusableRead(list(faces), list(self.last_confidences), True))
            return
        self.stack.remove(Awaiting)
        known = [(x, y, size, face) for (x, y, size), face in zip(spots or (), faces)] if self.plays.dice_stay else []
        places = self._places_note(known)
        self.table.record([(NOTE, note) for note in notes] + [(EVENT, event)] + ([(NOTE, places)] if places else []))
        self.same_read = None   # a read kept for Next was of the dice before this event
        self.known_spots = known
        self.last_read = list(faces)
        if self.learner is not None:   # its dice become examples of their faces, off this thread
            corrected = [note["die"] - 1 for note in notes if note.get("type") == "correction"]
            self.learner.stored(self.table.id, len(self.table.session.events) - 1, faces, spots, corrected)
        self.plays.thrown(event)

    # -- corrections ---------------------------------------------------------------------------
    def last_dice_event(self) -> dict | None:
        """The last event, if it is a throw (the kinds of event the game's ``chance`` asks for)."""
        events = self.table.session.events
        if events and events[-1].get("type") in self.plays.throw_events:
            return dict(events[-1])
        return None

    def dice_of_last(self) -> list[str]:
        """The faces of the last throw stored (a throw the box rolled has them in its state)."""
        last = self.last_dice_event()
        if last is None:
            return []
        if "faces" in last:
            return list(last["faces"])
        return self.plays.faces_rolled_by_the_box()

    def correct_die(self, index: int, face: str) -> None:
        """Die ``index`` of the last throw stored is really ``face``: undo the throw, play it
        corrected, note the correction. RuleError (and nothing changed) when the rules refuse it."""
        last = self.last_dice_event()
        why = self.plays.why_not_correctable(last, index)
        if why is not None:
            raise RuleError(why)
        faces = list(last["faces"])
        if faces[index] == face:
            self.show_home()
            return
        read, faces[index] = faces[index], face
        note = {"type": "correction", "die": index + 1, "read": read, "face": face, "confidence": None,
                **self.plays.correction_context(last)}
        known = [(x, y, size, face if i == index else lying) for i, (x, y, size, lying) in enumerate(self.known_spots)]
        places = self._places_note(known)
        try:   # the roll taken back and played corrected, its note and its places: all or nothing
            self.table.record([(UNDO, None), (EVENT, self.plays.corrected(last, faces)), (NOTE, note)]
                              + ([(NOTE, places)] if places else []))
        except RuleError as exc:
            raise RuleError(f"die {index + 1} cannot be {face}: {exc}") from None
        self.known_spots = known
        if self.learner is not None:   # the die's example was wrong: withdrawn, learned as corrected
            self.learner.corrected(self.table.id, len(self.table.session.events) - 1, index, face)
        self.same_read = None  # it was a read of the uncorrected dice
        self.last_read = faces
        self.restart_answers()
        if self.game.is_over(self.state):
            self.table.close()
        else:
            self.table.store.mark_closed(self.table.id, closed=False)  # a loss taken back is open again
        self.show_home()

    # -- frames and the camera ------------------------------------------------------------------
    def on_frame(self, frame) -> None:
        motion, roll = self._watch(frame)
        asking = any(isinstance(item, (Choosing, Checking, Answering)) for item in self.stack)
        if motion != self.motion:
            self.motion = motion
            if motion == SETTLING and not asking:
                self.status(MOVING)
            elif motion == STILL and self.light == MOVING:
                self.status(self.plays.still_light())
        if roll is not None:
            self.on_read(roll)
        view = getattr(self.watcher, "view_warning", None)   # the camera moved, or is another one
        if view != self.view_warned and not any(isinstance(item, (Choosing, Checking, Answering))
                                                for item in self.stack):   # (said once the question is answered)
            self.view_warned = view
            if view is not None:
                self.error("Camera moved?", view)
        if not self.plays.warns_of_light:
            return
        warning = getattr(self.watcher, "light_warning", None)
        if warning != self.light_warned:
            self.light_warned = warning
            asking = any(isinstance(item, (Choosing, Checking, Answering)) for item in self.stack)
            if warning is not None and not asking:
                self.error("Light changed", warning, "Calibrate again in this light for the surest reads.")

    # -- reads in a thread of their own ---------------------------------------------------------
    def read_in_background(self) -> None:
        """From now on a settled scene is read in a thread of its own (host.watcher.ReadWorker)
        while this loop goes on with the buttons, the knob and the phone page; each read is
        applied here, in this thread, in order, at the next turn (``step``). ``run`` does this;
        a loop stepped by hand (the demos, most tests) reads in its own thread, at once.
        Only for a watcher that splits its work (``look`` and ``read_settled``: FrameWatcher)."""
        if self.reads is None and hasattr(self.watcher, "look"):
            from host.watcher import ReadWorker
            self.reads = ReadWorker()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait for the reads in the background to finish and apply them (tests; False if
        ``timeout`` ran out first)."""
        if self.reads is None:
            return True
        idle = self.reads.wait_idle(timeout)
        self._apply_reads()
        return idle

    def _watch(self, frame):
        """The watcher's ``(motion, roll)``; with reads in the background the roll comes later
        (``_apply_reads``) and a settled scene is handed to the read worker."""
        if self.reads is None or not hasattr(self.watcher, "look"):
            return self.watcher(frame)
        motion, image = self.watcher.look(frame)
        if image is not None:
            self.reads.submit(self.watcher.read_settled, image, self._read_ticket())
        return motion, None

    def _read_ticket(self) -> tuple:
        """What a read handed over now is about: this table, the commands that changed its
        journal so far, this watcher (its dice)."""
        return self.table, self._hand_moves, self.watcher

    def _apply_reads(self) -> None:
        """The reads finished in the background, in the order their scenes settled. A read
        about another state is dropped: a command changed the journal since its scene settled
        (the player typed that roll, took something back), a new or resumed game, other dice."""
        if self.reads is None:
            return
        for (table, moves, watcher), roll, error in self.reads.finished():
            if table is not self.table or moves != self._hand_moves or watcher is not self.watcher:
                log.info("a read of a scene that settled before the table changed was dropped")
                continue
            try:
                if error is not None:
                    raise error
                self.on_read(roll)
            except Exception as exc:  # noqa: BLE001 - one unreadable picture must not end the game
                self._could_not_read(exc)

    def _could_not_read(self, exc: Exception) -> None:
        log.error("reading a frame failed", exc_info=exc)
        self.error("Could not read the dice", f"{type(exc).__name__}: {exc}",
                   "Roll again; if it keeps happening, check the camera and the light.")

    def _camera_lost(self, why: str) -> None:
        now = self.clock()
        self._close_camera()
        first = self.camera_fault is None
        self.camera_fault = why
        self.next_retry = now + self.retry_delay
        self.show(Screen("fault", title="Camera lost" if not first or "lost" in why else "No camera",
                          lines=(why, f"retrying in {self.retry_delay:.0f} s"),
                          footer="the game is saved; buttons still work"))
        self.status(FAULT)
        self.retry_delay = min(self.retry_delay * 2, self.retry_max)

    def _next_frame(self):
        if self.open_camera is None or self.source_ended:
            return None
        if self.camera is None:
            if self.clock() < self.next_retry:
                return None
            try:
                self.camera = self.open_camera()
                if hasattr(self.watcher, "adjust_exposure"):
                    self.watcher.adjust_exposure = getattr(self.camera, "adjust_exposure", None)
            except Exception as exc:  # noqa: BLE001 - any camera error is a fault to retry
                self._camera_lost(f"camera not found: {exc}")
                return None
        try:
            frame = self.camera.read()
        except StopIteration:
            # a video file or a folder of frames has no more pictures
            self.source_ended = True
            return None
        except Exception as exc:  # noqa: BLE001
            self._camera_lost(f"camera lost: {exc}")
            return None
        if frame is None:
            self._camera_lost("camera lost: no picture")
            return None
        if self.camera_fault is not None:
            self.camera_fault, self.retry_delay = None, self.retry_first
            self.show_home()
        return frame

    # -- running --------------------------------------------------------------------------------
    def step(self, *, look: bool = True) -> None:
        """One turn of the loop: commands, one frame (unless ``look`` is False), presenters' tick."""
        while True:
            try:
                command = self.commands.get_nowait()
            except queue.Empty:
                break
            self.handle(command)
        self._apply_reads()
        frame = self._next_frame() if look else None
        if frame is not None and self.watcher is not None:
            try:
                self.on_frame(frame)
            except Exception as exc:  # noqa: BLE001 - one unreadable picture must not end the game
                self._could_not_read(exc)
        self._learning_notice()
        self.plays.tick(self.clock())
        self._tell("tick", self.clock())

    def run(self, *, frame_interval: float = 0.1, sleep: Callable[[float], None] = time.sleep,
            until: Callable[[], bool] | None = None) -> None:
        """Loop until stopped (SIGTERM), the frame source ends (a file), or ``until()`` is true."""
        self.start()
        self.read_in_background()
        while not self.stop_requested.is_set() and not self.source_ended and not (until and until()):
            self.step()
            if frame_interval:
                sleep(frame_interval)
        self.shutdown()

    def shutdown(self) -> None:
        """Display to sleep, lights off, camera and session closed. Safe to call twice."""
        if self.closed:
            return
        self.closed = True
        if self.reads is not None:
            self.reads.close()   # the read in progress finishes; its result is let go
        state = self.state
        line = self.game.status(state) if self.game.status else ""
        self.show(Screen("sleep", title="dicewatch is asleep", lines=(line, "the game is saved"),
                          footer=f"session {self.table.id}"))
        self.status(OFF, bar=0)
        self._tell("close")
        self._close_camera()

    def _close_camera(self) -> None:
        if self.camera is not None:
            try:
                self.camera.close()
            except Exception as exc:  # noqa: BLE001 - it is being let go anyway
                log.warning("closing the camera failed: %s", exc)
            self.camera = None
