"""The demo's table: scripted players, a synthetic camera, and the real loop in between.

:class:`DemoTable` plays a whole game the way people would at a real box: it picks up and
throws dice (the synthetic camera renders them), waits for the device to read the roll,
answers the device's questions with the knob and buttons (``TableLoop.post``), and
checks what the device read against what was really thrown. Nothing in the loop knows
it is a demo.
"""
from __future__ import annotations

import random
import shutil
import tempfile
import time
import weakref
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from host.eink import EinkScreen, PngPanel
from host.loop import TableLoop
from host.watcher import SETTLED, SETTLING, STILL
from rules import get_game
from host.session_store import SessionStore
from host.presenters import RecordingPresenter, TerminalPresenter, counted, how_many_dice

FACES = ("MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL")
CHARACTER_PICKS = {"Ann": "Milkman Dan", "Ben": "Chris Cringle", "Cy": "Tree Larson"}


class SimClock:
    """Simulated seconds: the demo runs as fast as the CPU allows, the e-ink sees table time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Misread:
    turn: str
    roll: int
    die: int
    truth: str
    read: str
    confidence: float
    how: str   # "flagged and corrected", "confident misread, corrected from the menu", ...


@dataclass
class ReadStats:
    """What the camera and the reader did during a demo (both games count these)."""
    dice_read: int = 0
    flagged: int = 0
    misreads: list[Misread] = field(default_factory=list)
    frames: int = 0
    hands: int = 0


@dataclass
class DemoStats(ReadStats):
    rolls: int = 0
    refused: int = 0
    thrown: list[list[str]] = field(default_factory=list)   # the true faces of each accepted roll
    slips: int = 0          # BELLS thrown again by mistake (the box must refuse those rolls)


def misread_corrections(faces: list[str], truth: list[str]) -> list[tuple[int, str, str]]:
    """(die index, face read, true face) for each die accepted with a wrong face: each face
    read too often is matched, in order, with a face the truth has more of."""
    faces = list(faces)
    wrong = Counter(faces) - Counter(truth)
    missing = Counter(truth) - Counter(faces)
    out = []
    for bad in list(wrong.elements()):
        good = next(iter(missing.elements()), None)
        if good is None:
            break
        index = faces.index(bad)
        out.append((index, bad, good))
        missing[good] -= 1
        faces[index] = good
    return out


#: Presenters every demo's loop also gets (``dicewatch demo --web``: the phone page); empty otherwise.
EXTRA_PRESENTERS: list = []


def demo_presenters(out: Path, size: tuple[int, int], clock, quiet: bool):
    """The demo's outputs: e-ink screens as PNGs, a recorder of what was shown, the terminal
    (and :data:`EXTRA_PRESENTERS`).

    Returns ``(panel, eink, recorder, presenters)``.
    """
    panel = PngPanel(out, size)
    eink = EinkScreen(panel, min_interval=3.0, clock=clock)
    recorder = RecordingPresenter()
    presenters = [eink, recorder]
    if not quiet:
        presenters.append(TerminalPresenter(screens=False, prefix="    "))
    presenters += EXTRA_PRESENTERS
    return panel, eink, recorder, presenters


class ScriptedPlayers:
    """What both demos' scripted players share: one simulated clock for the camera, the loop
    and the e-ink; the demo's outputs (``demo_presenters``); the camera (``default_camera(clock)``
    -> (camera, note) unless one is given); pressing buttons and turning the knob. A subclass
    sets ``self.loop``."""

    def __init__(self, *, out: Path, size: tuple[int, int], quiet: bool, camera, default_camera):
        self.quiet = quiet
        self.clock = SimClock()
        self.panel, self.eink, self.recorder, self.presenters = demo_presenters(out, size, self.clock, quiet)
        self.vision_note = ""
        if camera is None:
            camera, self.vision_note = default_camera(self.clock)
        camera.clock = self.clock  # one table clock for the camera, the loop and the e-ink
        self.camera = camera

    @property
    def state(self):
        return self.loop.state

    def press(self, *commands: str) -> None:
        for command in commands:
            self.loop.post(command)
        # Nothing moves in the tray while people press buttons, so the camera's frames in the
        # meantime (still dice, already read) are skipped to keep the demo quick.
        self.loop.step(look=False)
        self.clock.advance(1.5)  # a person takes a moment per click

    def film_throw(self, thrown: list[str], keep_after: list[int], hover: bool) -> None:
        """Throw ``thrown`` in front of the camera (``keep_after``: the dice set aside after
        it; ``hover``: a hand passes first) and step the loop until it has read the settled
        dice; then the players look at the roll for a moment."""
        self.stats.hands += hover
        reads_before = self.camera.reads()
        self.camera.show_throw(thrown, keep_after, hover=hover)
        for _ in range(2000):  # a throw is ~3 s of frames; the cap only guards against a stuck reader
            if self.camera.reads() > reads_before or self.camera.exhausted():
                break
            self.loop.step()
            self.stats.frames += 1
        else:
            raise RuntimeError("the synthetic camera never settled")
        self.camera.freeze()
        self.clock.advance(2.0)  # the players look at the roll
        self.loop.step()

    def turn_knob_to(self, menu, target: int) -> None:
        """Turn the knob from the menu's highlighted item to item ``target`` and push."""
        steps = target - menu.highlight
        self.press(*(["right"] * steps if steps > 0 else ["left"] * -steps), "push")


class DemoTable(ScriptedPlayers):
    """Scripted players at a table with a synthetic camera; see the module docstring."""

    def __init__(self, table, *, out: Path, size: tuple[int, int], rng: random.Random, quiet: bool = False,
                 camera=None):
        super().__init__(out=out, size=size, quiet=quiet, camera=camera,
                         default_camera=lambda clock: make_camera(clock, rng, overlay_dir=Path(out) / "reads",
                                                                  data=Path(out) / "data"))
        self.table, self.rng = table, rng
        self.loop = TableLoop(table, presenters=self.presenters, watcher=self.camera.watch,
                              open_camera=lambda: self.camera, clock=self.clock, confidence=0.9,
                              learner=getattr(self.camera, "learner", None))
        self.stats = DemoStats()
        self.turns_done = 0

    # -- helpers ---------------------------------------------------------------------------
    def choose(self, value) -> None:
        """Turn the knob to the item whose value is ``value`` and push."""
        menu = self.loop.menu or self.loop.answering_menu
        self.turn_knob_to(menu, [item.value for item in menu.items].index(value))

    def progress(self, message: str) -> None:
        total = len(self.state.players) * self.state.rules.rounds
        done = min(self.turns_done, total)
        bar = "#" * round(20 * done / total) + "." * (20 - round(20 * done / total))
        print(f"[{bar}] {done:2d}/{total} turns  {message}", flush=True)

    # -- the game --------------------------------------------------------------------------
    def play(self) -> None:
        self.loop.start()
        for player in self.state.players:
            self.choose(CHARACTER_PICKS.get(player.name))
        while not self.state.is_over:
            self.play_turn()
        if self.loop.showing_notice:
            self.press("next")  # put the last turn's score away: the final scoreboard
        self.clock.advance(5.0)
        self.loop.step()
        self.eink.flush()  # the final scoreboard, before the shutdown screen

    def throw(self, thrown: list[str], keep_after: list[int], hover: bool) -> None:
        """Roll the dice in hand (``thrown``); the camera films it; step the loop until it has read it."""
        self.film_throw(thrown, keep_after, hover)
        self.stats.rolls += 1

    def settle_read(self, truth: list[str]) -> None:
        """Answer the device's 'Check die N' questions with the truth; record misreads."""
        while self.loop.pending is not None:
            pending = self.loop.pending
            die = pending.flagged[0]
            read = pending.faces[die]
            real = self._true_face(pending.faces, truth, die)
            if pending.by_hand:
                self.choose(real)
                continue
            self.stats.flagged += 1
            if read != real:
                self.stats.misreads.append(Misread(self.state.current_player, self.state.roll_number + 1, die + 1,
                                                   real, read, pending.confidences[die],
                                                   "flagged, corrected with the knob"))
            self.choose(real)

    @staticmethod
    def _true_face(read: list[str], truth: list[str], die: int) -> str:
        """The true face of flagged die ``die``: what the truth has that the other read dice do not."""
        others = Counter(read[:die] + read[die + 1:])
        missing = Counter(truth) - others
        if read[die] in missing or not missing:
            return read[die]
        return next(iter(missing.elements()))

    def check_accepted(self, truth: list[str]) -> None:
        """After a roll was accepted: compare with the truth, fix confident misreads from the menu."""
        faces = list(self.state.faces)
        self.stats.dice_read += len(faces)
        for index, bad_face, good_face in misread_corrections(faces, truth):
            sure = self.loop.last_confidences[index] if index < len(self.loop.last_confidences) else 1.0
            self.stats.misreads.append(Misread(self.state.current_player, self.state.roll_number, index + 1,
                                               good_face, bad_face, sure, "read with confidence, corrected from the menu"))
            self.press("push")                 # the knob's menu ...
            self.choose("correct")             # ... "Correct a die"
            self.choose(index)                 # ... which die
            self.choose(good_face)             # ... its face

    def play_turn(self) -> None:
        player = self.state.current_player
        self.camera.new_turn()
        kept: list[str] = []  # true faces of the dice in the keep area
        # Once a game (round 2), a player leaves a BELL in the tray and throws it again by
        # mistake: the box must refuse that roll; the player puts the BELL back and rolls again.
        slip = self.state.round == 2 and not self.stats.slips
        left_bell = False
        for roll_number in (1, 2, 3):
            if self.state.is_over:
                return
            thrown = [self.rng.choice(FACES) for _ in range(7 - len(kept))]
            if left_bell:
                self.bell_thrown_again(player, kept, len(thrown))
                thrown[0] = "BELL"  # put back as it was; the others are rolled again
                left_bell = False
            truth = kept + thrown
            plan = keep_plan(truth, roll_number)
            if plan is not None:
                plan = sorted(set(plan) | set(range(len(kept))))  # dice set aside stay there
            keep_after = [i - len(kept) for i in (plan or []) if i >= len(kept)]
            if slip and plan is not None and roll_number == 1 and "BELL" in thrown:
                keep_after.remove(thrown.index("BELL"))  # the BELL stays in the rolling area...
                plan.remove(thrown.index("BELL"))
                left_bell = True
            hover = plan is not None and self.rng.random() < 0.3
            rolls_before = self.state.roll_number
            self.throw(thrown, keep_after, hover)
            self.settle_read(truth)
            if self.state.roll_number == rolls_before and self.loop.same_read is not None:
                self.press("next")  # the same faces as before: tell the box it was a roll
            if self.state.roll_number == rolls_before:
                found = self.camera.last_read_faces()
                why = (f"found {how_many_dice(len(found))}" if len(found) != len(truth)
                       else f"read {' '.join(found)}, refused by the rules")
                self.stats.misreads.append(Misread(player, roll_number, 0, " ".join(truth), why, 0.0,
                                                   "the dice entered with the knob"))
                self.press("push")
                self.settle_read(truth)
            if self.state.roll_number == rolls_before:
                self.stats.refused += 1
                break
            self.check_accepted(truth)
            self.stats.thrown.append(list(truth))
            if self.state.is_over:
                self.turns_done += 1
                self.progress(f"{player} rolled SEVEN BELLS and wins at once")
                return
            if plan is None:
                break
            kept = [truth[i] for i in plan]
        self.score_turn()
        record = self.state.history[-1]
        self.turns_done += 1
        self.progress(f"{record.player} scored {record.points:2d} ({', '.join(w for w, _ in record.breakdown)})")

    def bell_thrown_again(self, player: str, kept: list[str], count: int) -> None:
        """The slip: the dice in the tray, a BELL among them, are all thrown again."""
        thrown = [self.rng.choice(FACES[:-1]) for _ in range(count)]  # the BELL comes up something else
        rolls_before = self.state.roll_number
        self.throw(thrown, [], hover=False)
        self.settle_read(kept + thrown)
        self.stats.slips += 1
        if self.state.roll_number == rolls_before and self.loop.unusable is not None \
                and len(self.camera.last_read_faces()) != len(kept + thrown):
            self.press("push")  # the camera missed dice: enter them with the knob, as they are
            self.settle_read(kept + thrown)
        if self.state.roll_number == rolls_before:
            refusal = next((s for s in reversed(self.recorder.screens) if s.kind == "error"), None)
            why = refusal.lines[0] if refusal and refusal.lines else "refused"
            self.progress(f"{player} threw a BELL again by mistake; the box refused the roll: {why}")
            self.press("next")  # put the error away; the BELL goes back
        else:
            self.stats.misreads.append(Misread(player, rolls_before + 1, 0, "a BELL thrown again",
                                               "a roll the box accepted", 0.0, "NOT refused: the reader hid the slip"))
            self.press("undo")

    def score_turn(self) -> None:
        self.press("score")
        wizard = self.loop.wizard
        while self.loop.wizard is not None:
            menu = self.loop.answering_menu
            if menu.kind == "gift-card":
                held = menu.context
                card = "Secret Santa" if held > 0 and self.state.faces.count("GIFT") >= 2 and \
                    "Secret Santa" not in wizard.cards else None
                self.choose(card if card else menu.items[0].value)
            elif menu.kind == "recipient":
                self.choose(self.rng.choice([item.value for item in menu.items]))
            elif menu.kind == "letter":
                self.choose(menu.items[1 + self.rng.randrange(len(menu.items) - 1)].value)
            elif menu.kind == "cover":
                self.choose(menu.items[0].value)
            else:
                self.press("push")

    # -- the report ------------------------------------------------------------------------
    def truth_check(self) -> str:
        """Do the rolls the session stored match what was really thrown (after the corrections)?"""
        from host.session_store import effective_events
        stored = [Counter(e["faces"]) for e in effective_events(self.table.entries) if e.get("type") == "roll"]
        thrown = [Counter(t) for t in self.stats.thrown]
        wrong = sum(1 for a, b in zip(stored, thrown) if a != b) + abs(len(stored) - len(thrown))
        if wrong:
            return f"CHECK: {wrong} of {len(thrown)} stored rolls differ from what was thrown"
        return f"check: all {len(stored)} stored rolls match what was thrown"

    def report(self, elapsed: float) -> str:
        from rules.core import format_table
        state = self.state
        lines = [format_table(self.table.game.scoreboard(state)), "",
                 self.table.game.status(state), ""]
        s = self.stats
        typed = sum(1 for m in s.misreads if not m.die)
        lines.append(f"{counted(s.rolls, 'roll', 'rolls')} filmed ({s.frames} frames through the settle gate), "
                     f"{how_many_dice(s.dice_read)} scored, {how_many_dice(s.flagged)} flagged for a check, "
                     f"{how_many_dice(len(s.misreads) - typed)} misread, "
                     f"{counted(typed, 'roll', 'rolls')} entered with the knob, "
                     f"{counted(s.hands, 'hand', 'hands')} passing, "
                     f"{counted(s.slips, 'BELL', 'BELLS')} thrown again by mistake")
        if s.refused:
            lines.append(f"{s.refused} turns ended early: a roll could not be used even when entered by hand")
        lines.append(self.truth_check())
        for m in s.misreads:
            if m.die:
                lines.append(f"  MISREAD {m.turn} roll {m.roll} die {m.die}: read {m.read} "
                             f"({m.confidence:.0%} sure), really {m.truth} -> {m.how}")
            else:
                lines.append(f"  ENTERED BY HAND {m.turn} roll {m.roll}: {m.read}; really {m.truth} -> {m.how}")
        lines.append(f"e-ink: {self.eink.full_updates} full refreshes, {self.eink.coalesced} screens coalesced, "
                     f"{len(self.panel.written)} PNGs in {self.panel.folder}")
        lines.append(f"session {self.table.id} stored in {self.table.store.path} (its history: dicewatch export "
                     f"latest --sessions {self.table.store.path} --format csv)")
        if self.vision_note:
            lines.append(self.vision_note)
        if getattr(self.camera, "teaching", ""):
            lines.append(self.camera.teaching)
        watcher = getattr(self.camera, "watcher", None)
        if watcher is not None and watcher.calibration is not None:
            lines.append(f"tray calibrated from the empty mat; {watcher.outside} things found off the mat "
                         "(its corner markers) left out of the rolls")
        if watcher is not None and watcher.overlays:
            lines.append(f"what the camera read, die by die with its confidence: {len(watcher.overlays)} overlays "
                         f"in {watcher.overlays[0].parent}")
        lines.append(f"wall time {elapsed:.1f} s")
        return "\n".join(lines)


def keep_plan(faces: list[str], roll_number: int) -> list[int] | None:
    """A plain player's choice: which dice to keep for the next roll, or None to score now.

    Keeps the BELLS (they may not be re-rolled), MILK & COOKIE pairs, exactly two LISTS,
    and STOCKINGS or GIFTS when there are two or more.
    """
    if roll_number >= 3:
        return None
    counts = Counter(faces)
    keep: list[int] = []
    want = Counter()
    want["BELL"] = counts["BELL"]
    pairs = min(counts["MILK"], counts["COOKIE"])
    want["MILK"] = want["COOKIE"] = pairs
    want["LIST"] = 2 if counts["LIST"] >= 2 else 0
    for face in ("STOCKING", "GIFT"):
        want[face] = counts[face] if counts[face] >= 2 else 0
    for i, face in enumerate(faces):
        if want[face] > 0:
            keep.append(i)
            want[face] -= 1
    if len(keep) >= 6:
        return None
    return keep


def make_camera(clock: SimClock, rng: random.Random, overlay_dir: Path | None = None,
                data: Path | None = None):
    """The synthetic camera with the real Jingle Bell Roll reader (see ``filmed_game``)."""
    return filmed_game(clock, rng, "jingle-bell-roll", SyntheticTable, "rolls", overlay_dir, data)


def filmed_game(clock: SimClock, rng: random.Random, dice_set: str, camera_class, throws: str,
                overlay_dir: Path | None = None, data: Path | None = None):
    """(camera, note) for a demo game of ``dice_set``: a ``camera_class`` (SyntheticTable or a
    subclass) on a synthetic camera whose tray is calibrated from its empty mat, read by the
    real watcher with the set the players taught at that camera first (``camera.teaching``
    says how it went). If vision cannot read these dice here: the scripted stand-in, with a
    note saying so (``throws``: what the note calls the game's throws)."""
    from host.table_setup import learning_watcher
    from host.watcher import dice_reader
    seed = rng.randrange(1 << 20)
    calibration, note = calibrate_synthetic(seed)
    scratch = None
    if data is None:  # never the user's data folder: a demo's set would replace their real dice
        scratch = data = Path(tempfile.mkdtemp(prefix="dicewatch-demo-"))
    shots = 8
    try:
        right, total = teach_at_synthetic_camera(dice_set, seed, data, shots)
        reader = dice_reader(dice_set, data, calibration)
    except Exception as exc:  # noqa: BLE001 - any reason the reader is missing: say it, go on
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        return ScriptedCamera(clock), (f"NOTE: no dice reader for {dice_set} here ({exc}); "
                                       f"the {throws} were handed to the loop as read, not filmed")
    # the demo's box learns the dice as it plays, as `dicewatch run` does; in the loop's
    # thread here, so that a demo seed always plays the same game
    watcher = learning_watcher(reader, dice_set, data, calibration, overlay_dir=overlay_dir, background=False)
    camera = camera_class(clock, watcher, seed=seed)
    camera.data = data  # where the demo's taught set lives
    if scratch is not None:  # gone with the camera (or at exit), not left behind in /tmp
        weakref.finalize(camera, shutil.rmtree, scratch, True)
    camera.teaching = (f"the {dice_set} dice were taught at the camera first ({shots} pictures per "
                       f"face, as 'dicewatch teach --camera synthetic:{seed}' does): {right} of "
                       f"{total} read right when left out")
    return camera, note


def teach_at_synthetic_camera(dice_set: str, seed: int, data, shots: int = 8) -> tuple[int, int]:
    """Teach ``dice_set`` at the synthetic camera ``seed`` films the game with, as a player
    does before the first game (`dicewatch teach --dice NAME --camera synthetic:SEED
    --replace`): one die per face, ``shots`` pictures each, moved and turned between them.
    Stored in ``data``, replacing an earlier demo's; returns its self-check (examples read
    right when left out, examples)."""
    from host.teach_limits import MIN_PHOTOS
    from host.teaching import CameraSession, capture_examples
    from host.teach_console import TeachConsole
    from vision import dicesets, sources
    faces = list(dicesets.FACE_SETS[dice_set])
    script = [(face,) for face in faces for _ in range(shots)]
    session = CameraSession(sources.parse_spec(f"synthetic:{seed}"), dice_set, script)
    try:
        session.learn_background()
        examples = capture_examples(session, faces, shots, TeachConsole.silent())
    finally:
        session.close()
    dicesets.save_set(dice_set, examples, data, replace=True, min_examples=MIN_PHOTOS)
    return dicesets.load_model(dice_set, data).self_check


def calibrate_synthetic(seed: int, fps: float = 10.0):
    """Calibrate the tray from the synthetic camera's empty mat, as `dicewatch calibrate` does
    once at a real box; (calibration, "") or (None, a note saying why not)."""
    from vision.calibrate import CalibrationError, calibrate
    from vision.synthetic_camera import SyntheticCamera
    empty = SyntheticCamera(seed, script=[], dice_set="jingle-bell-roll", fps=fps, lead_in=0.8)
    frames = []
    while True:
        try:
            frames.append(empty.read().image)
        except StopIteration:
            break
    try:
        return calibrate(frames, name="demo"), ""
    except CalibrationError as exc:
        return None, f"NOTE: the tray could not be calibrated ({exc}); dice are read on the whole picture"


class ScriptedCamera:
    """Stand-in camera for when no dice reader is available: the read is the truth.

    Same interface as :class:`SyntheticTable`; the watcher hands over the thrown faces
    after a few "moving" frames, so the loop's motion and settle handling still runs.
    """

    def __init__(self, clock: SimClock):
        self.clock = clock
        self.frames: list[tuple[str, object]] = []
        self.kept: list[str] = []
        self.count = 0
        self.last: list[str] = []

    def new_turn(self) -> None:
        self.kept = []

    def show_throw(self, thrown: list[str], keep_after: list[int], hover: bool = False) -> None:
        from vision.roll import Die, Roll
        faces = self.kept + list(thrown)
        dice = tuple(Die(face, 0.99, 40.0 * i, 40.0, 30.0, 30.0) for i, face in enumerate(faces))
        roll = Roll(dice=dice, dice_set="jingle-bell-roll", frame_size=(640, 480), notes=("scripted",))
        self.frames = [(SETTLING, None)] * 3 + [(SETTLED, roll)]
        self.kept = self.kept + [thrown[i] for i in keep_after]
        self.last = faces

    def reads(self) -> int:
        """Settled reads so far (the last one once its frames are used up)."""
        return self.count if not self.frames else self.count - 1

    def exhausted(self) -> bool:
        return False

    def freeze(self) -> None:
        pass

    def last_read_faces(self) -> list[str]:
        return self.last

    def read(self):
        self.clock.advance(0.1)
        return self.frames[0] if self.frames else (STILL, None)

    def watch(self, frame):
        if self.frames:
            self.frames.pop(0)
        if frame[0] == SETTLED:
            self.count += 1
        return frame

    def close(self) -> None:
        pass


class SyntheticTable:
    """The demo's camera: vision's SyntheticCamera filming each turn, the real watcher reading it.

    One SyntheticCamera per turn (the tray is cleared when the dice pass to the next
    player). Between throws the picture is held still (``freeze``), as a real camera keeps
    seeing the dice lying there while the players press buttons.
    """

    def __init__(self, clock: SimClock, watcher, *, seed: int, fps: float = 10.0, size=(640, 480)):
        self.clock, self.watcher, self.seed, self.fps, self.size = clock, watcher, seed, fps, size
        self.learner = getattr(watcher, "learner", None)   # the table loop tells it of each roll stored
        self.camera = None
        self.teaching = ""  # how the dice set was taught at this camera, if it was
        self.turn = 0
        self.live = False
        self.image = None
        self.still_reads = 0

    def watch(self, frame):
        motion, roll = self.watcher(frame)
        truth = self.camera.truth if self.camera is not None else None
        if roll is not None and self.live and truth is not None and truth.phase == "still":
            self.still_reads += 1  # a read of dice lying still after a throw (not the empty tray)
        return motion, roll

    def new_turn(self) -> None:
        from vision.synthetic_camera import SyntheticCamera
        self.turn += 1
        # The same seed every turn: the same table and mat under the camera (the settle gate
        # compares with the last scene it saw); the throws differ with the scripted dice.
        self.camera = SyntheticCamera(self.seed, script=[], dice_set="jingle-bell-roll",
                                      size=self.size, fps=self.fps, hold=1.5, lead_in=0.4)
        self.live = True  # the empty tray first

    def show_throw(self, thrown: list[str], keep_after: list[int], hover: bool = False) -> None:
        from vision.synthetic_camera import ScriptedRoll
        self.camera.script.append(ScriptedRoll(tuple(thrown), keep=tuple(keep_after), hover=hover))
        self.live = True

    def reads(self) -> int:
        return self.still_reads

    def exhausted(self) -> bool:
        """The script's frames are used up (the throw was never read)."""
        return not self.live

    def freeze(self) -> None:
        self.live = False

    def last_read_faces(self) -> list[str]:
        roll = self.watcher.last_roll
        return [] if roll is None else roll.faces

    def truth_faces(self) -> list[str]:
        return [] if self.camera is None or self.camera.truth is None else self.camera.truth.faces

    def read(self):
        self.clock.advance(1.0 / self.fps)
        if self.camera is None:
            self.new_turn()  # the empty tray before the first throw
        if self.live and self.camera is not None:
            try:
                self.image = self.camera.read().image
            except StopIteration:
                self.live = False
        if self.image is None:
            raise RuntimeError("no picture yet")
        return self.image, self.clock.now

    def close(self) -> None:
        pass



def play_at_the_knob(game_name: str, setup: dict, *, out: Path, size: tuple[int, int], quiet: bool,
                     move, seconds_per_move: float, max_moves: int, new_seed=None):
    """A scripted game played with the knob alone (the dice-less games' demos): ``move(loop)``
    makes one player's move; between moves the table's clock runs on and the loop ticks its
    presenters (the e-ink draws, the phone page's presses are taken). ``new_seed``: where
    the box's own randomness comes from (seeded: the demo is the same every time). Returns
    (table, loop)."""
    game = get_game(game_name)
    clock = SimClock()
    _, eink, _, presenters = demo_presenters(out, size, clock, quiet)
    store = SessionStore(out / "demo-sessions.db")
    table = store.create(game, setup)
    loop = TableLoop(table, presenters=presenters, clock=clock, new_seed=new_seed)
    loop.start()
    try:
        for _ in range(max_moves):
            if game.is_over(table.state):
                break
            move(loop)
            clock.advance(seconds_per_move)   # the table takes its time: the e-ink draws the new screen
            loop.step(look=False)
        eink.flush()
    finally:
        loop.shutdown()
        store.close()
    return table, loop


PLAYERS = ["Ann", "Ben", "Cy"]


def run(args, size: tuple[int, int], out: Path) -> int:
    """``dicewatch demo`` (Jingle Bell Roll): see host/commands/demo.py."""
    started = time.perf_counter()
    game = get_game(args.game)
    store = SessionStore(out / "demo-sessions.db")
    table = store.create(game, {"players": PLAYERS})
    print(f"dicewatch demo: {game.title}, {', '.join(PLAYERS)}, {table.state.rules.rounds} rounds, on the "
          f"synthetic camera; e-ink screens ({size[0]}x{size[1]}) go to {out}/", flush=True)
    demo = DemoTable(table, out=out, size=size, rng=random.Random(args.seed), quiet=args.quiet)
    if demo.vision_note:
        print(demo.vision_note, flush=True)
    if getattr(demo.camera, "teaching", ""):
        print(demo.camera.teaching, flush=True)
    if not args.quiet:
        print("    (lines starting with LED: the status light, the roll bar and the buzzer, as they change)",
              flush=True)
    try:
        demo.play()
    finally:
        demo.loop.shutdown()
        store.close()
    elapsed = time.perf_counter() - started
    print()
    print(demo.report(elapsed))
    return 0
