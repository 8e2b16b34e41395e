"""The table loop: camera frames -> settle gate -> reader -> session events -> presenters.

One thread owns everything here. Each turn of :meth:`TableLoop.step`:

1. takes the commands people posted (buttons, knob, serial panel; :meth:`TableLoop.post`
   is thread-safe) and acts on them;
2. reads one frame from the camera; the *watcher* (settle gate + dice reader) says
   whether the dice are moving and, once they have settled, hands over a ``Roll``;
3. turns a settled read into a ``roll`` (or ``reroll``) event for the player whose turn
   it is. Dice read below the confidence threshold are flagged: the screen says "Check
   die 3" and the knob confirms or corrects them first (a correction is a ``note`` in
   the journal). A read the rules refuse (a BELL changed, a fourth roll, six dice in
   view) is shown as an error and the state does not change; pushing the knob then
   enters the dice one by one (the camera's read filled in);
4. stores every accepted event durably (host.session_store), *then* shows it;
5. lets the presenters flush (the e-ink panel coalesces its updates).

Camera trouble never stops the loop: the status light and the screen say "Camera lost",
and the loop retries with a doubling back-off up to ``retry_max`` seconds.
"""
from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

from host.devices import ATTENTION, FAULT, MOVING, OFF, READ_OK, WAITING
from host.menus import BACK, UNSEEN, Menu, ScoreWizard, character_menu, die_menu, face_menu, table_menu
from host.presenters import DieView, Screen, Status, how_many_dice, tell
from host.session_store import ANSWERS, EVENT, NOTE, PLACES, UNDO, StoredSession
from rules.core import RuleError
from vision.roll import Throw

log = logging.getLogger(__name__)

DICE = 7
STILL, SETTLING, SETTLED = "still", "moving", "settled"


@dataclass
class Pending:
    """A settled read waiting for its flagged dice to be confirmed."""

    faces: list[str]
    confidences: list[float]
    flagged: list[int]          # die indexes still to confirm, in order
    reroll_with: str | None = None
    corrections: list[dict] = field(default_factory=list)
    by_hand: bool = False       # the read could not be used: every die is entered with the knob
    spots: list | None = None   # (x, y, size) of each die in the frame, in die order
    read: list[str] | None = None  # the camera's faces, where ``faces`` proposes others (standing_proposed)


# -- views: what the screen shows for a state ------------------------------------------------

def dice_views(state, faces: Sequence[str] | None = None, confidences: Sequence[float] | None = None,
               flagged: Iterable[int] = ()) -> tuple[DieView, ...]:
    faces = list(state.faces if faces is None else faces)
    flagged = set(flagged)
    kept = set(state.kept_dice) if faces == list(state.faces) else set()
    return tuple(DieView(face, confidence=(confidences[i] if confidences else 1.0), kept=i in kept,
                         flagged=i in flagged, locked=face == "BELL") for i, face in enumerate(faces))


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
        winners = " and ".join(getattr(state, "winners", ())) or "nobody"
        seven = " with 7 BELLS" if getattr(state, "instant_win", False) else ""
        footer = f"{winners} win{'s' if ' and ' not in winners else ''}{seven} · Next: a new game"
    else:
        footer = f"{state.current_player}: Roll 1 of 3" if state.roll_number == 0 else footer
    return Screen("scoreboard", title=title, table=tuple(rows), highlight=highlight, footer=footer)


def menu_screen(menu: Menu) -> Screen:
    return Screen("menu", title=menu.title, lines=menu.labels(), highlight=menu.highlight)


def align_faces(before: Sequence[str], after: Sequence[str], confidences: Sequence[float]) -> tuple[list[str], list[float]]:
    """Order a new read so that dice showing what they showed before keep their numbers.

    The camera reads dice in screen order; the rules number them. A die that still shows
    its old face keeps its number, the re-rolled ones fill the gaps in reading order.
    """
    order = align_order(before, after)
    return [after[j] for j in order], [confidences[j] for j in order]


def align_order(before: Sequence[str], after: Sequence[str]) -> list[int]:
    """The order ``align_faces`` puts a new read in: for each die number, its index in ``after``."""
    if not before or len(before) != len(after):
        return list(range(len(after)))
    pool = list(range(len(after)))
    slots: list[int | None] = [None] * len(before)
    for i, face in enumerate(before):
        for j in pool:
            if after[j] == face:
                slots[i] = j
                pool.remove(j)
                break
    for i in range(len(slots)):
        if slots[i] is None:
            slots[i] = pool.pop(0)
    return slots


STILL_NEAR = 1.0    # a die within this share of its size of where a BELL lay may be that BELL, nudged
STILL_THERE = 0.08  # a die whose centre is within this share of its size of where a die lay has not moved
#                     (still dice read within 0.03 of their size frame to frame, 0.07 at most, in whole
#                     games at the synthetic table; a die thrown again lands that near its old place rarely)


def dice_apart(one: tuple[float, float, float], other: tuple[float, float, float]) -> float:
    """How far apart two dice lie, (x, y, size) each: centre to centre, in sizes of the
    smaller one (infinite when either has no size: a die typed in, not seen)."""
    (x, y, size), (ox, oy, osize) = one, other
    if size <= 0 or osize <= 0:
        return math.inf
    return math.hypot(x - ox, y - oy) / min(size, osize)


def known_where_they_lie(spots: Sequence[tuple[float, float, float]], faces: Sequence[str],
                         confidences: Sequence[float], known: Sequence[tuple[float, float, float, str]],
                         threshold: float) -> tuple[list[str], list[float]]:
    """An unsure die lying exactly where a die of the last stored roll lay (a BELL left
    standing, the six dice a re-roll did not touch) has not moved, so it shows the face that
    roll stored (read sure, or checked by the player): it is taken as that, not asked again.
    ``spots``: (x, y, size) of each die read; ``known``: (x, y, size, face) of the last roll's."""
    faces, confidences = list(faces), list(confidences)
    for i, spot in enumerate(spots):
        if confidences[i] >= threshold:
            continue
        for kx, ky, ksize, face in known:
            if dice_apart(spot, (kx, ky, ksize)) <= STILL_THERE:
                faces[i], confidences[i] = face, 1.0
                break
    return faces, confidences


def standing_proposed(faces: Sequence[str], confidences: Sequence[float], spots: Sequence[tuple[float, float, float]],
                      known: Sequence[tuple[float, float, float, str]], face: str, need: int,
                      threshold: float) -> list[str]:
    """A face the rules keep standing between rolls (Jingle Bell Roll's BELLS: ``need`` of
    them stand) that a read shows fewer of: an unsure die lying within ``STILL_NEAR`` of its
    size of where such a die lay (``known``: the last stored roll's dice; a BELL nudged by a
    throw) is proposed as that face, so "Check die N" asks "is it BELL?" instead of offering
    a read the rules would refuse. It is still asked. A die further away is not: a BELL
    thrown again by mistake lands elsewhere, and proposing BELL there would invite the
    player to confirm a BELL that is not on the table."""
    faces = list(faces)
    missing = need - faces.count(face)
    places = [(x, y, size) for x, y, size, f in known if f == face]
    near = []
    for i, c in enumerate(confidences):
        if c < threshold and faces[i] != face and i < len(spots):
            gap = min((dice_apart(spots[i], place) for place in places), default=math.inf)
            if gap <= STILL_NEAR:
                near.append((gap, c, i))
    for _, _, i in sorted(near)[:max(missing, 0)]:
        faces[i] = face
    return faces


CROWDED = 0.5  # of a die: seen straight down, two dice's centres lie at least about a die apart


def crowded_out(roll, count: int):
    """A read of more dice than the game has (``count``): when the extra finds each lie on a
    surer find's place (closer than ``CROWDED`` of a die: the tray finder cutting a clump of
    three touching dice into four) and leaving them out gives exactly ``count`` dice, they are
    left out; otherwise the read is returned unchanged and the player is asked. Only then:
    the count the game needs tells a find on another die's place from two dice lying close
    (rendered dice touching were found that close too, both real)."""
    dice = list(roll.dice)
    if len(dice) <= count:
        return roll
    def spot(die) -> tuple[float, float, float]:
        return float(die.x), float(die.y), float(max(die.w, die.h))

    kept = []
    for die in sorted(dice, key=lambda d: -d.confidence):
        if all(dice_apart(spot(die), spot(k)) >= CROWDED for k in kept):
            kept.append(die)
    if len(kept) != count:
        return roll
    chosen = {id(d) for d in kept}
    return replace(roll, dice=tuple(d for d in dice if id(d) in chosen),
                   notes=tuple(roll.notes) + (f"{len(dice) - count} find(s) on another die's place left out",))


# -- frames to reads ----------------------------------------------------------------------------

def dice_reader(dice_set: str, data, calibration=None):
    """The reader for ``dice_set``; with a calibrated tray (and its empty-tray picture) its dice
    are found by comparing with the empty mat (vision.tray_finder), which finds any die on the
    mat, touching ones too, where the learned pip-dice finder misses custom dice."""
    from vision.dicesets import load_reader
    from vision.tray_finder import on_tray
    return on_tray(load_reader(dice_set, data), calibration)


class FrameWatcher:
    """The settle gate and the dice reader together: ``watch(frame) -> (motion, roll)``.

    With a tray ``calibration`` (vision.calibrate) the gate compares with the empty tray's
    picture, every die gets its area (rolling / keep), and anything found outside the mat's
    two areas (its corner markers, a cup) is left out of the roll.

    ``frame`` is a ``vision.sources.Frame`` (image, timestamp) or a bare image (then
    ``fps`` apart). ``motion`` is ``"moving"`` while dice tumble or a hand is in the tray,
    ``"still"`` otherwise; ``roll`` is the reader's ``Roll`` once a new scene has settled.
    """

    def __init__(self, reader: Callable[[Any], Any], gate=None, *, fps: float = 10.0, calibration=None,
                 overlay_dir=None):
        from vision.settle import SettleGate
        self.reader, self.fps, self.calibration = reader, fps, calibration
        self.overlay_dir = overlay_dir  # when set: each read's overlay (what was found, how sure) as a PNG
        self.overlays: list = []
        if gate is None:
            gate = SettleGate(background=calibration.background if calibration is not None else None)
        self.gate = gate
        # With a calibrated tray: the room's light is watched against the empty tray's picture
        # (vision.exposure) and the camera's exposure changed to make up for it, through
        # ``adjust_exposure`` (the loop sets it to the open camera's; None: cannot).
        self.exposure = None
        if calibration is not None and getattr(calibration, "background", None) is not None:
            from vision.exposure import ExposureKeeper
            self.exposure = ExposureKeeper(calibration)
        self.adjust_exposure: Callable[[float], bool] | None = None
        self.light_warning: str | None = None   # the light is off and the camera cannot follow
        self._exposed_in_a_row = 0   # settled scenes not read, waiting for a new exposure
        self.outside = 0        # things found off the mat (its markers, a cup) and left out
        self.frames = 0
        self.reads = 0          # settled scenes read
        self.dice_reads = 0     # ... that showed at least one die
        self.last_settle = None
        self.last_roll = None

    def __call__(self, frame) -> tuple[str, Any]:
        from vision.settle import HAND, MOVING
        if isinstance(frame, tuple):
            image, timestamp = frame[0], float(frame[1])
        else:
            image, timestamp = frame, self.frames / self.fps
        self.frames += 1
        settle = self.gate.update(image, timestamp)
        motion = SETTLING if self.gate.state in (MOVING, HAND) else STILL
        if self.exposure is not None and settle is None:
            factor = self.exposure.update(image, timestamp, still=motion == STILL)
            if factor is not None:
                self._expose(factor, timestamp)
            elif self.exposure.last is not None and not self.exposure.last.off_by(self.exposure.tolerance):
                self.light_warning = None
        if settle is None:
            return motion, None
        if self._expose_first(settle.image, timestamp):
            return SETTLING, None
        self.last_settle = settle
        self.reads += 1
        roll = self.reader(settle.image)
        if self.calibration is not None:
            roll = self.on_the_mat(roll, settle.image)
        self.last_roll = roll
        self.dice_reads += bool(roll.dice)
        if self.overlay_dir is not None and roll.dice:
            self._save_overlay(settle.image, roll)
        return SETTLED, roll

    def _expose_first(self, image, timestamp: float) -> bool:
        """Before reading a settled scene: if the light is off and the camera can make up for
        it, change the exposure and read the scene once it has (the gate reports it again).
        At most ``EXPOSE_TRIES`` times in a row; then the scene is read as it is."""
        if self.exposure is None:
            return False
        light = self.exposure.check(image)
        if (self._exposed_in_a_row >= EXPOSE_TRIES or not light.off_by(self.exposure.tolerance)
                or not self._expose(light.correction, timestamp)):
            self._exposed_in_a_row = 0
            return False
        self.gate.reset()
        self._exposed_in_a_row += 1
        return True

    def _expose(self, factor: float, timestamp: float) -> bool:
        """Ask the camera for ``factor`` times the exposure; False (and a warning) if it cannot."""
        light = self.exposure.last
        if self.adjust_exposure is not None and self.adjust_exposure(factor):
            self.exposure.adjusted(timestamp)
            log.info("%s: exposure x %.2f", light.describe(), factor)
            return True
        if self.light_warning is None:
            self.light_warning = (f"{light.describe()}; this camera's exposure cannot follow, "
                                  "so pale dice may be missed.")
            log.warning("%s Calibrate again in this light (dicewatch calibrate).", self.light_warning)
        return False

    def _save_overlay(self, image, roll) -> None:
        import cv2
        from pathlib import Path
        from vision.overlay import draw
        folder = Path(self.overlay_dir)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"read-{self.reads:04d}.png"
        try:
            if cv2.imwrite(str(path), draw(image, roll, title=f"read {self.reads}")):
                self.overlays.append(path)
        except cv2.error as exc:
            log.warning("could not write the overlay %s: %s", path, exc)


    def on_the_mat(self, roll, image):
        """With a calibrated tray: each die's area, and only the dice in the rolling or keep area."""
        from vision.calibrate import annotate_roll
        if not roll.frame_size[0]:
            roll = replace(roll, frame_size=(image.shape[1], image.shape[0]))
        roll = annotate_roll(roll, self.calibration)
        kept = tuple(d for d in roll.dice if d.area != "outside")
        self.outside += len(roll.dice) - len(kept)
        return replace(roll, dice=kept)


EXPOSE_TRIES = 3   # settled scenes in a row left unread while the camera's exposure is changed


# -- the loop -----------------------------------------------------------------------------------

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
    :param choose_characters: ask each player for a character card before the first roll.
    :param clock: seconds, for the back-off and the e-ink coalescing (the demo's is simulated).

    ``teach_dice``, when set (``dicewatch run`` sets it), is offered between turns as the knob
    menu's "Teach the dice": called with the loop, it teaches the game's dice at the camera
    (the camera is closed first and reopened after), asking on this loop's presenters and
    answered through this loop's commands, and returns the watcher that reads the new set.
    """

    def __init__(self, table: StoredSession, *, presenters: Sequence = (), watcher=None,
                 open_camera: Callable[[], Any] | None = None, confidence: float = 0.9,
                 choose_characters: bool = True, clock: Callable[[], float] = time.monotonic,
                 retry_first: float = 1.0, retry_max: float = 30.0):
        self.table, self.presenters, self.watcher = table, list(presenters), watcher
        self.open_camera, self.confidence, self.clock = open_camera, confidence, clock
        self.retry_first, self.retry_max = retry_first, retry_max
        self.commands: "queue.Queue[str]" = queue.Queue()
        self.stop_requested = threading.Event()
        self.camera = None
        self.camera_fault: str | None = None
        self.source_ended = False
        self.retry_delay = retry_first
        self.next_retry = -1.0
        self.menu: Menu | None = None
        self.wizard: ScoreWizard | None = None
        self.wizard_menu: Menu | None = None   # the wizard's question with the knob's highlight
        self._skipped: set[str] = set()         # players who chose no character card
        self.pending: Pending | None = None
        self.reroll_with: str | None = None
        self.same_read: list[str] | None = None
        self.known_spots: list[tuple[float, float, float, str]] = []  # the last stored roll's dice: x, y, size, face
        # a read that could not be used (wrong number of dice, refused by the rules): push to enter it by hand
        self.unusable_read: tuple[list[str], list[float], bool] | None = None
        self.last_confidences: list[float] = []  # of the last roll submitted, die by die (1.0 = confirmed)
        self.motion = STILL
        self.light = WAITING
        self.closed = False
        self.refused = 0
        self.choose_characters = choose_characters
        self.setup_done = not choose_characters or not self._can_choose()
        self._last_status: Status | None = None
        self.showing_notice = False  # an error or notice is up: the first Next or Undo puts it away
        self.light_warned: str | None = None  # the watcher's light warning last shown
        self.teach_dice: Callable[["TableLoop"], Any] | None = None
        self._restore_answers()
        self._answers_kept = self._answers()
        self._restore_places()

    # -- shortcuts ---------------------------------------------------------------------------
    @property
    def state(self):
        return self.table.state

    @property
    def game(self):
        return self.table.game

    def _can_choose(self) -> bool:
        return bool(getattr(self.state, "can_choose_characters", False))

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

    def _show(self, screen: Screen) -> None:
        self.showing_notice = screen.kind == "error"
        self._tell("show", screen)

    def _status(self, light: str | None = None, sound: str | None = None, bar: int | None = None) -> None:
        if light is not None:
            self.light = light
        state = self.state
        if bar is None:
            bar = 0 if getattr(state, "is_over", False) else int(getattr(state, "roll_number", 0))
        status = Status(light=self.light, bar=bar, sound=sound)
        if status == self._last_status and sound is None:
            return
        self._last_status = status
        self._tell("status", status)

    def _error(self, title: str, reason: str, hint: str = "") -> None:
        lines = (reason,) + ((hint,) if hint else ())
        self._show(Screen("error", title=title, lines=lines, footer="Next or Undo: back to the game"))
        self._status(ATTENTION, sound="error")

    def show_home(self) -> None:
        """The screen for the current state when nothing else is asked."""
        state = self.state
        if self.menu is not None:
            self._show(menu_screen(self.menu))
            self._status(ATTENTION)
            return
        if self.wizard is not None:
            menu = self.wizard.menu()
            if menu is not None:
                self._show(menu_screen(menu))
                self._status(ATTENTION)
                return
        if self.reroll_with is not None and not state.is_over and self.pending is None:
            self._show_reroll()  # the announced re-roll is still awaited
            return
        if state.is_over or state.roll_number == 0:
            self._show(scoreboard_screen(state, self.game))
            if not state.is_over:
                self._status(WAITING)
        else:
            self._show(roll_screen(state))
            self._status(READ_OK)

    def start(self) -> None:
        """First screen: character choice, or the table as it stands (after --resume)."""
        if not self.setup_done:
            self._open_character_menu()
        else:
            self.show_home()

    # -- setup: characters ------------------------------------------------------------------
    def _open_character_menu(self) -> None:
        from rules.jingle_bell_roll_cards import CHARACTERS
        state = self.state
        for player in state.players:
            if player.character is None and player.name not in self._characters_asked():
                taken = [p.character for p in state.players if p.character]
                self.menu = character_menu(player.name, CHARACTERS, taken)
                self._show(menu_screen(self.menu))
                self._status(ATTENTION)
                return
        self.setup_done, self.menu = True, None
        self.show_home()

    def _undo_character(self, asking: str) -> None:
        """Undo on a character menu: take back the answer of the player asked before (their
        card, or their "no character card"), and ask them again; nothing before the first."""
        names = [p.name for p in self.state.players]
        answered = [n for n in names[:names.index(asking)] if n in self._characters_asked()]
        if answered:
            if answered[-1] in self._skipped:
                self._skipped.discard(answered[-1])
            else:
                self.table.undo()  # the last event is that player's choose_character
        self.menu = None
        self._open_character_menu()

    def _characters_asked(self) -> set[str]:
        asked = {e.get("player") for e in self.table.session.events if e.get("type") == "choose_character"}
        return asked | self._skipped

    # -- answers not yet events, journalled so that --resume continues exactly there ------------
    def _answers(self) -> dict:
        return {"type": ANSWERS, "no_character": sorted(self._skipped), "characters_done": self.setup_done,
                "reroll_with": self.reroll_with, "wizard": self.wizard.answers() if self.wizard else None}

    def _keep_answers(self) -> None:
        """Journal the open answers (characters declined, a re-roll announced, the score wizard's)
        when a command changed them."""
        answers = self._answers()
        if answers != self._answers_kept:
            self.table.note(answers)
            self._answers_kept = answers

    def _restore_answers(self) -> None:
        """Take up the answers journalled last; a re-roll announced and the score wizard's
        answers only if no event was stored or undone since (they were about that state)."""
        after = []
        for entry in reversed(self.table.entries):
            if entry.kind == NOTE and entry.body.get("type") == ANSWERS:
                break
            after.append(entry.kind)
        else:
            return
        try:
            self._take_up(entry.body, still_current=not (EVENT in after or UNDO in after))
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            # Convenience only (the events are the game): a note this version cannot read is
            # skipped with a warning, and the questions are asked again.
            log.warning("session %s: the open answers noted in its journal (entry %s) cannot be taken up "
                        "(%s: %s); expected the 'answers' note this version writes; asking again",
                        self.table.id, entry.seq, type(exc).__name__, exc)
            self._skipped, self.reroll_with, self.wizard = set(), None, None

    def _take_up(self, answers: dict, still_current: bool) -> None:
        names = {p.name for p in self.state.players}
        self._skipped = {name for name in answers.get("no_character", ()) if name in names}
        self.setup_done = self.setup_done or bool(answers.get("characters_done"))
        if not still_current or not getattr(self.state, "can_score", False):
            return
        reroll_with = answers.get("reroll_with")
        if reroll_with is not None and not isinstance(reroll_with, str):
            raise TypeError(f"reroll_with is {reroll_with!r}, expected a name")
        self.reroll_with = reroll_with
        if answers.get("wizard") is not None:
            self.wizard = ScoreWizard(self.state, **answers["wizard"])

    def _keep_places(self) -> None:
        """Journal where the dice of the roll just stored lie, with their faces, so that after
        --resume a die still lying there is not asked about again (see known_where_they_lie)."""
        if any(size > 0 for _, _, size, _ in self.known_spots):
            self.table.note({"type": PLACES, "dice": [[round(x, 1), round(y, 1), round(size, 1), face]
                                                      for x, y, size, face in self.known_spots]})

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
        try:
            self._handle(command)
        except RuleError as exc:
            self._error("Not allowed", str(exc))

    def _dice_named(self, command: str) -> bool:
        """Commands that name dice outright (a panel's ``face:N:FACE``, ``roll:F1,F2,..``); True if handled."""
        if command.startswith("face:"):
            self._direct_face(command)
            return True
        if command.startswith("roll:"):
            self._typed_roll(command)
            return True
        return False

    def _handle(self, command: str) -> None:
        try:
            self._act(command)
        finally:
            self._keep_answers()

    def _act(self, command: str) -> None:
        if self._dice_named(command):
            return
        if command in ("left", "right"):
            step = 1 if command == "right" else -1
            if self.pending is not None and self.menu is not None:
                self.menu = self.menu.turn(step)
                self._show_pending()
            elif self.menu is not None:
                self.menu = self.menu.turn(step)
                self._show(menu_screen(self.menu))
            elif self.wizard is not None and self.wizard.menu() is not None:
                self.wizard_menu = (self.wizard_menu or self.wizard.menu()).turn(step)
                self._show(menu_screen(self.wizard_menu))
            return
        if command == "push" and self.showing_notice and self.unusable_read is not None and self.pending is None:
            self._enter_by_hand()
            return
        if command == "score" and self._checking_several():
            self._confirm_rest_as_read()
            return
        if command in ("push", "score"):
            if self.menu is not None:
                self._choose(self.menu)
            elif self.wizard is not None:
                self._wizard_choose()
            elif command == "score":
                self._start_scoring()
            else:
                if self.state.is_over:
                    self.show_home()
                    return
                self.menu = table_menu(self.state, can_teach=self.teach_dice is not None and self.state.roll_number == 0)
                self._show(menu_screen(self.menu))
                self._status(ATTENTION)
            return
        if command in ("undo", "next") and self.showing_notice and self.pending is None:
            self.show_home()  # the first press after an error only puts it away; it never undoes a roll
            return
        self._undo_next_or_refuse(command)

    def _undo_next_or_refuse(self, command: str) -> None:
        """What every table does with a command its own handling left: Undo takes back, Next
        skips a question or counts a roll that came out the same, anything else is refused."""
        if command == "undo":
            self._undo()
        elif command == "next":
            self._next()
        else:
            raise RuleError(f"unknown command {command!r}")

    def _choose(self, menu: Menu) -> None:
        value = menu.chosen.value
        if menu.kind == "character":
            self.menu = None
            if value is None:
                self._skipped.add(menu.context)
            else:
                self._play({"type": "choose_character", "player": menu.context, "character": value})
            self._open_character_menu()
        elif menu.kind == "face":
            self._confirm_face(value)
        elif menu.kind == "table":
            self.menu = None
            if value == "score":
                self._start_scoring()
            elif value == "correct":
                self.menu = die_menu(self.state.faces)
                self._show(menu_screen(self.menu))
            elif isinstance(value, tuple) and value[0] == "reroll":
                self.reroll_with, self.same_read = value[1], None  # dice read before it are no re-roll
                self._show_reroll()
            elif value == "scoreboard":
                self._show(scoreboard_screen(self.state, self.game))
            elif value == "undo":
                self._undo()
            elif value == "teach":
                self._teach()
            else:
                self.show_home()
        elif menu.kind == "which-die":
            if value == BACK:
                self.menu = None
                self.show_home()
                return
            faces = list(self.state.faces)
            self.menu = face_menu(value + 1, faces[value], 1.0, self._face_names())
            self.menu = Menu("fix", self.menu.title.replace("Check", "Correct"), self.menu.items, context=value)
            self._show(menu_screen(self.menu))
        elif menu.kind == "fix":
            self.menu = None
            self._fix_accepted_die(menu.context, value)

    def _show_reroll(self) -> None:
        if self.same_read is not None:
            lines = ("the same dice again: if the die came up the same, press Next", "Undo: no re-roll")
        else:
            lines = (f"with {self.reroll_with}: pick up one die, roll it, and let it settle", "Next or Undo: no re-roll")
        self._show(Screen("prompt", title="Re-roll one die", lines=lines))
        self._status(WAITING)

    def _teach(self) -> None:
        """Teach the game's dice at the box ("Teach the dice" in the knob menu): the loop
        stands still while ``teach_dice`` has the camera, the screen and the buttons. Its last
        screen (taught, or stopped) stays up until Next or Undo puts it away, or a roll."""
        self._close_camera()
        self.unusable_read = None  # the dice will be rolled afresh
        try:
            watcher = self.teach_dice(self)
        except Exception as exc:  # noqa: BLE001 - the game goes on with the dice it had
            log.exception("teaching the dice failed")
            self._last_status = None
            self._error("Teaching failed", f"{type(exc).__name__}: {exc}", "the game goes on with the old dice")
            return
        if watcher is not None:
            self.watcher = watcher
        self._last_status = None  # teaching drove the lights itself
        self.showing_notice = True  # the first Next or Undo puts the "Taught" screen away
        self._status(WAITING)

    def dice_wanted(self) -> Throw:
        """What the players should throw next (what ``run``'s synthetic camera throws), as
        the rules allow: all seven dice for a turn's first roll; for the second and third the
        dice but the BELLS, which stay standing; for an announced re-roll one die of a face it
        may re-roll, the other six standing. Nothing (a count of 0) while the game waits for a
        button instead: a character to choose, a die to check, a menu open, scoring, or the
        turn's three rolls used (press Score)."""
        state = self.state
        if (state.is_over or not self.setup_done or self.wizard is not None or self.pending is not None
                or self.menu is not None):
            return Throw(0)
        if self.reroll_with is not None:
            return self._reroll_throw()
        if not state.can_roll:
            return Throw(0)
        standing = tuple(state.faces[i] for i in state.locked_dice) if state.roll_number else ()
        return Throw(DICE - len(standing), keep=standing)

    def _reroll_throw(self) -> Throw:
        """One die of a face the announced re-roll may pick up (a BELL only if nothing else
        will do: the players keep their BELLS); the others stay standing."""
        state = self.state
        faces = list(state.faces)
        try:
            allowed = state.reroll_faces(self.reroll_with)
        except RuleError:
            return Throw(0)  # it cannot be played (the game says why when it is tried)
        bells = {faces[i] for i in state.locked_dice}
        candidates = [face for face in faces if face in allowed]
        picked = next((face for face in candidates if face not in bells), candidates[0] if candidates else None)
        if picked is None:
            return Throw(0)
        faces.remove(picked)
        return Throw(1, keep=tuple(faces))

    def _face_names(self) -> tuple[str, ...]:
        from rules.dice import faces_of
        return faces_of(self.game.dice or "d6-pips")

    def _next(self) -> None:
        if self.pending is not None:
            # Next on "Check die N": the die is what the camera read (or, unseen, the highlighted face)
            face = self.pending.faces[self.pending.flagged[0]]
            self._confirm_face(self.menu.chosen.value if face == UNSEEN else face)
        elif self.menu is not None and self.menu.kind == "character":
            # Next: play on without (more) character cards.
            self.menu, self.setup_done = None, True
            self.show_home()
        elif self.menu is not None:
            self.menu = None
            self.show_home()
        elif self.wizard is not None:
            menu = self.wizard_menu or self.wizard.menu()
            if menu is not None:
                self.wizard_menu = menu.turn(-menu.highlight)  # the first item: the usual answer
                self._wizard_choose()
        elif self.same_read is not None:
            faces, self.same_read = self.same_read, None
            self._submit_roll(faces, self.reroll_with)  # it was a roll (or the re-roll) that came out the same
        elif self.reroll_with is not None:
            self.reroll_with = None  # no re-roll after all
            self.show_home()
        elif self.state.is_over:
            self._new_game()
        else:
            self.show_home()

    def _new_game(self) -> None:
        """Next after the end: a new session with the same players and options."""
        setup = self.table.session.setup_options
        self.table = self.table.store.create(self.game, setup)
        self.menu = self.wizard = self.wizard_menu = self.pending = None
        self.reroll_with = self.same_read = self.unusable_read = None
        self._skipped = set()
        self.setup_done = not self.choose_characters or not self._can_choose()
        self._answers_kept = self._answers()
        self._status(WAITING, bar=0)
        self.start()

    def _drop_pending_read(self) -> bool:
        """Undo while a read waits for its check: forget that read (nothing was stored yet)."""
        if self.pending is None:
            return False
        self.pending, self.menu = None, None
        self._show(Screen("prompt", title="Read dropped", lines=("roll again or put the dice back",)))
        self._status(WAITING)
        return True

    def _undo(self) -> None:
        if self._drop_pending_read():
            return
        if self.wizard is not None:
            if not self.wizard.back():
                self.wizard = None
                self.wizard_menu = None
                self.show_home()
            else:
                self.wizard_menu = None
                self._show(menu_screen(self.wizard.menu()))
            return
        if self.menu is not None and self.menu.kind == "character":
            self._undo_character(self.menu.context)
            return
        if self.menu is not None:
            self.menu = None
            self.show_home()
            return
        if self.reroll_with is not None:
            self.reroll_with = self.same_read = None  # the announced re-roll is called off; the roll stands
            self.show_home()
            return
        undone = self.table.undo()
        if undone.get("type") == "choose_character" and self.choose_characters:
            self.setup_done = False  # that player is asked again
            self._open_character_menu()
            return
        if not getattr(self.state, "is_over", False):
            self.table.store.mark_closed(self.table.id, closed=False)  # an ended game taken back is open again
        self.reroll_with = self.same_read = None  # both were about the event taken back
        self.known_spots = []
        self._show(Screen("prompt", title=f"Undone: {undone.get('type')}",
                          lines=(f"{self.game.status(self.state) if self.game.status else ''}",)))
        self._status(WAITING)
        self.show_home()

    # -- scoring ----------------------------------------------------------------------------
    def _start_scoring(self) -> None:
        if not self.state.can_score:
            raise RuleError(f"{self.state.current_player} must roll the dice before scoring")
        self.wizard = ScoreWizard(self.state)
        self.wizard_menu = None
        self.reroll_with = None  # scoring instead of the re-roll that was announced
        self._show(menu_screen(self.wizard.menu()))
        self._status(ATTENTION)

    def _wizard_choose(self) -> None:
        assert self.wizard is not None
        menu = self.wizard_menu or self.wizard.menu()
        self.wizard_menu = None
        try:
            self.wizard.choose(menu.chosen.value)
        except RuleError as exc:
            self._error("Card does not fit", str(exc))
            return
        nxt = self.wizard.menu()
        if nxt is not None:
            self._show(menu_screen(nxt))
            return
        event = self.wizard.event()
        self.wizard = None
        self._play(event)
        self._show_turn_scored()

    def _show_turn_scored(self) -> None:
        """"Ann scores 9" and how, until Next or Undo puts it away (or the next roll is read)."""
        record = self.state.history[-1]
        over = self.state.is_over
        self._show(Screen("prompt", title=f"{record.player} scores {record.points}",
                          lines=tuple(f"{w}: {p}" for w, p in record.breakdown),
                          footer="Next: the scoreboard"))
        self.showing_notice = True  # the first Next or Undo shows the scoreboard
        self._status(READ_OK, sound="game-over" if over else "scored", bar=0)
        if over:
            self.table.close()

    # -- reads from the camera -----------------------------------------------------------------
    def not_reading(self) -> str | None:
        """Why dice are not read now (a settled read is let go, a typed roll refused), or None."""
        if self.state.is_over:
            return "the game is over"
        if not self.setup_done:
            return "the characters are being chosen"
        if self.wizard is not None:
            return "the turn is being scored (Undo goes back to the dice)"
        return self._check_waiting()

    def _check_waiting(self) -> str | None:
        """"Die N waits for its check" while a read waits for its checks (both loops)."""
        if self.pending is not None:
            return f"die {self.pending.flagged[0] + 1} waits for its check (Undo lets that read go)"
        return None

    def on_read(self, roll) -> None:
        """A settled read from the camera (a ``vision.roll.Roll``)."""
        state = self.state
        if self.not_reading() is not None:
            return  # dice moved while scoring, choosing or checking a die: the screen says what to do
        if self.menu is not None and self.pending is None:
            self.menu = None  # the knob's menu was open, but the dice were rolled: read them
        roll = crowded_out(roll, DICE)
        faces = [d.face for d in roll.dice]
        confidences = [float(d.confidence) for d in roll.dice]
        if not faces:
            return  # an empty tray: the dice were picked up or passed on
        if len(faces) != DICE:
            # too many: which are not dice is anybody's guess, ask about all; too few: the unseen and the unsure
            self.unusable_read = (faces[:DICE], confidences[:DICE], len(faces) > DICE)
            self._error(f"I see {how_many_dice(len(faces))}", f"Jingle Bell Roll needs all {DICE} dice in view of the camera.",
                        "Move them into the tray and they are read again, or push the knob to enter the dice.")
            return
        self.unusable_read = None
        spots = [(float(d.x), float(d.y), float(max(d.w, d.h))) for d in roll.dice]
        if state.roll_number >= 1:
            faces, confidences = known_where_they_lie(spots, faces, confidences, self.known_spots, self.confidence)
        if state.roll_number >= 1 and Counter(faces) == Counter(state.faces):
            # Nothing changed: a hand passed, the table was bumped. Not a roll (nor the re-roll awaited).
            self.same_read = faces
            self.show_home()
            return
        self.same_read = None
        order = align_order(state.faces, faces)
        faces, confidences, spots = ([seq[j] for j in order] for seq in (faces, confidences, spots))
        read = faces
        if state.roll_number >= 1 and self.reroll_with is None:
            # a roll leaves the BELLS standing: a BELL missing from the read is most likely an unsure die
            faces = standing_proposed(faces, confidences, spots, self.known_spots, "BELL",
                                      len(state.locked_dice), self.confidence)
        flagged = [i for i, c in enumerate(confidences) if c < self.confidence]
        if flagged:
            self.pending = Pending(faces, confidences, flagged, reroll_with=self.reroll_with, spots=spots,
                                   read=read if read != faces else None)
            self._ask_next_flag(sound="attention")
            return
        self._submit_roll(faces, self.reroll_with, confidences, spots)

    def _enter_by_hand(self) -> None:
        """A read that could not be used (too few or too many dice, or refused): ask for each
        die with the knob, what the camera saw filled in (the journal notes the roll as entered by hand)."""
        faces, confidences, ask_all = self.unusable_read
        self.unusable_read = None
        faces = list(faces) + [UNSEEN] * (DICE - len(faces))
        confidences = list(confidences) + [0.0] * (DICE - len(confidences))
        ask = [i for i in range(DICE) if ask_all or faces[i] == UNSEEN or confidences[i] < self.confidence]
        self.pending = Pending(faces, confidences, ask, reroll_with=self.reroll_with, by_hand=True)
        self._ask_next_flag()

    def _ask_next_flag(self, sound: str | None = None) -> None:
        pending = self.pending
        assert pending is not None
        die = pending.flagged[0]
        self.menu = face_menu(die + 1, pending.faces[die], pending.confidences[die], self._face_names())
        self._show_pending()
        self._status(ATTENTION, sound=sound)

    def _show_pending(self) -> None:
        pending, menu = self.pending, self.menu
        views = dice_views(self.state, pending.faces, pending.confidences, pending.flagged)  # all still to check
        self._show(Screen("prompt", title=menu.title, dice=views, lines=self._check_lines()))

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
        pending = self.pending
        return (pending is not None and self.menu is not None and self.menu.kind == "face"
                and not pending.by_hand and len(pending.flagged) > 1)

    def _confirm_rest_as_read(self) -> None:
        """Score on "Check die N": this die as the knob shows it, then every other die still
        to check as the camera read it (a player who has looked at them all confirms them with
        one press instead of one each). Only for a camera's read (``_checking_several``): dice
        entered by hand, some unseen, are each asked."""
        pending = self.pending
        self._choose(self.menu)
        while self.pending is pending and pending.flagged:
            self._confirm_face(pending.faces[pending.flagged[0]])

    def _confirm_face(self, face: str) -> None:
        pending = self.pending
        assert pending is not None
        die = pending.flagged.pop(0)
        camera = (pending.read or pending.faces)[die]
        if face != camera:
            pending.corrections.append({"type": "correction", "die": die + 1, "read": camera,
                                        "confidence": round(pending.confidences[die], 3), "face": face,
                                        "player": self.state.current_player})
        pending.faces[die] = face
        pending.confidences[die] = 1.0
        if pending.flagged:
            self._ask_next_flag()
            return
        self.pending, self.menu = None, None
        if pending.by_hand:
            self.table.note({"type": "typed-roll", "faces": pending.faces, "player": self.state.current_player,
                             "why": "entered with the knob: the camera's read could not be used"})
        else:
            for correction in pending.corrections:
                self.table.note(correction)
        self._submit_roll(pending.faces, pending.reroll_with, pending.confidences, pending.spots)

    def _direct_face(self, command: str) -> None:
        """``face:N:NAME`` from a panel: die N is NAME (confirms a flagged die or corrects one)."""
        try:
            _, number, face = command.split(":", 2)
            index = int(number) - 1
        except ValueError:
            raise RuleError(f"expected face:N:FACE, got {command!r}") from None
        if face not in self._face_names():
            raise RuleError(f"{face!r} is not a face of these dice; faces: {', '.join(self._face_names())}")
        if self.pending is not None and self.pending.flagged and self.pending.flagged[0] == index:
            self._confirm_face(face)
        else:
            self._correct_die(index, face)

    def _correct_die(self, index: int, face: str) -> None:
        """Die ``index`` of the roll already accepted is really ``face`` (games override this)."""
        if self.state.roll_number >= 1 and 0 <= index < len(self.state.faces):
            self._fix_accepted_die(index, face)
        else:
            raise RuleError(f"there is no die {index + 1} to correct now")

    def _typed_roll(self, command: str) -> None:
        """``roll:F1,F2,...`` from a panel or keyboard: the whole roll typed in, read with full confidence."""
        from vision.roll import Die, Roll
        faces = [f.strip().upper() for f in command[len("roll:"):].split(",") if f.strip()]
        unknown = [f for f in faces if f not in self._face_names()]
        if unknown:
            raise RuleError(f"{unknown[0]!r} is not a face of these dice; faces: {', '.join(self._face_names())}")
        why_not = self.not_reading()
        if why_not is not None:
            raise RuleError(f"a typed roll is not taken now: {why_not}")
        self.table.note({"type": "typed-roll", "faces": faces, "player": self.state.current_player})
        self.on_read(Roll(dice=tuple(Die(f, 1.0, 0.0, 0.0, 0.0, 0.0) for f in faces), dice_set=self.game.dice or "",
                          notes=("typed",)))

    def _fix_accepted_die(self, index: int, face: str) -> None:
        """Correct a die after the roll was accepted: undo the roll, note it, play it corrected."""
        state = self.state
        last = self.table.session.events[-1] if self.table.session.events else None
        if last is None or last.get("type") not in ("roll", "reroll") or face == state.faces[index]:
            self.show_home()
            return
        corrected = dict(last)
        faces = list(state.faces)
        read = faces[index]
        faces[index] = face
        corrected["faces"] = faces
        corrected.pop("rerolled", None)
        self.table.undo()
        try:
            self.table.play(corrected)
        except RuleError as exc:
            self.table.play(last)
            raise RuleError(f"die {index + 1} cannot be {face}: {exc}") from None
        self.table.note({"type": "correction", "die": index + 1, "read": read, "face": face, "confidence": None,
                         "player": state.current_player})
        self.same_read = None  # it was a read of the uncorrected dice
        self.known_spots = [(x, y, size, face if i == index else known)
                            for i, (x, y, size, known) in enumerate(self.known_spots)]
        self._keep_places()
        self._restart_scoring()
        self.show_home()

    def _restart_scoring(self) -> None:
        """The dice changed while the score wizard was open: its answers were for the old dice,
        so it asks again from the first question, on the dice as they are now."""
        if self.wizard is not None:
            self.wizard, self.wizard_menu = ScoreWizard(self.state), None

    def _submit_roll(self, faces: list[str], reroll_with: str | None,
                     confidences: Sequence[float] | None = None, spots: Sequence | None = None) -> None:
        player = self.state.current_player
        self.last_confidences = list(confidences) if confidences is not None else [1.0] * len(faces)
        if reroll_with is not None:
            event = {"type": "reroll", "player": player, "with": reroll_with, "faces": faces}
        else:
            event = {"type": "roll", "player": player, "faces": faces}
        try:
            self.table.session.check(event)
        except RuleError as exc:
            self.refused += 1
            self.table.note({"type": "refused", "event": event, "reason": str(exc)})
            self._error("Roll refused", str(exc), "Put the dice back as they were, or push the knob to enter "
                        "the dice if the camera got one wrong.")
            self.unusable_read = (list(faces), list(self.last_confidences), True)
            return
        self.reroll_with = None
        self.unusable_read = None
        self._play(event)
        self.known_spots = [(x, y, size, face) for (x, y, size), face in zip(spots or (), faces)]
        self._keep_places()
        state = self.state
        if state.is_over and getattr(state, "instant_win", False):
            self._show(Screen("prompt", title="SEVEN BELLS!", lines=(f"{player} wins the game at once",),
                              dice=dice_views(state)))
            self._status(READ_OK, sound="seven-bells", bar=10)
            self.table.close()
            return
        self.show_home()

    def _play(self, event: dict) -> None:
        self.table.play(event)  # durable first; RuleError leaves everything unchanged
        self.same_read = None   # a read kept for Next was of the dice before this event
        self.known_spots = []   # where the dice of the last stored roll lay (set again by _submit_roll)

    # -- frames and the camera ------------------------------------------------------------------
    def on_frame(self, frame) -> None:
        motion, roll = self.watcher(frame)
        if motion != self.motion:
            self.motion = motion
            if motion == SETTLING and self.menu is None and self.wizard is None:
                self._status(MOVING)
            elif motion == STILL and self.light == MOVING:
                self._status(READ_OK if self.state.roll_number else WAITING)
        if roll is not None:
            self.on_read(roll)
        warning = getattr(self.watcher, "light_warning", None)
        if warning != self.light_warned:
            self.light_warned = warning
            if warning is not None and self.menu is None and self.wizard is None and self.pending is None:
                self._error("Light changed", warning, "Calibrate again in this light for the surest reads.")

    def _camera_lost(self, why: str) -> None:
        now = self.clock()
        self._close_camera()
        first = self.camera_fault is None
        self.camera_fault = why
        self.next_retry = now + self.retry_delay
        self._show(Screen("fault", title="Camera lost" if not first or "lost" in why else "No camera",
                          lines=(why, f"retrying in {self.retry_delay:.0f} s"),
                          footer="the game is saved; buttons still work"))
        self._status(FAULT)
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
        frame = self._next_frame() if look else None
        if frame is not None and self.watcher is not None:
            try:
                self.on_frame(frame)
            except Exception as exc:  # noqa: BLE001 - one unreadable picture must not end the game
                log.exception("reading a frame failed")
                self._error("Could not read the dice", f"{type(exc).__name__}: {exc}",
                            "Roll again; if it keeps happening, check the camera and the light.")
        self._tell("tick", self.clock())

    def run(self, *, frame_interval: float = 0.1, sleep: Callable[[float], None] = time.sleep,
            until: Callable[[], bool] | None = None) -> None:
        """Loop until stopped (SIGTERM), the frame source ends (a file), or ``until()`` is true."""
        self.start()
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
        state = self.state
        line = self.game.status(state) if self.game.status else ""
        self._show(Screen("sleep", title="dicewatch is asleep", lines=(line, "the game is saved"),
                          footer=f"session {self.table.id}"))
        self._status(OFF, bar=0)
        self._tell("close")
        self._close_camera()

    def _close_camera(self) -> None:
        if self.camera is not None:
            try:
                self.camera.close()
            except Exception as exc:  # noqa: BLE001 - it is being let go anyway
                log.warning("closing the camera failed: %s", exc)
            self.camera = None
