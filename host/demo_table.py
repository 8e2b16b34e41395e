"""The demo's table: scripted players, a synthetic camera, and the real loop in between.

:class:`DemoTable` plays a whole game the way people would at a real box: it picks up and
throws dice (the synthetic camera renders them), waits for the device to read the roll,
answers the device's questions with the knob and buttons (``TableLoop.post``), and
checks what the device read against what was really thrown. Nothing in the loop knows
it is a demo.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from host.eink import EinkScreen, PngPanel
from host.loop import SETTLED, SETTLING, STILL, TableLoop
from host.presenters import RecordingPresenter, TerminalPresenter

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
class DemoStats:
    rolls: int = 0
    dice_read: int = 0
    flagged: int = 0
    misreads: list[Misread] = field(default_factory=list)
    frames: int = 0
    hands: int = 0
    refused: int = 0


class DemoTable:
    """Scripted players at a table with a synthetic camera; see the module docstring."""

    def __init__(self, table, *, out: Path, size: tuple[int, int], rng: random.Random, quiet: bool = False,
                 camera=None):
        self.table, self.rng, self.quiet = table, rng, quiet
        self.clock = SimClock()
        self.panel = PngPanel(out, size)
        self.eink = EinkScreen(self.panel, min_interval=3.0, clock=self.clock)
        self.recorder = RecordingPresenter()
        presenters = [self.eink, self.recorder]
        if not quiet:
            presenters.append(TerminalPresenter(screens=False, prefix="    "))
        self.camera = camera or ScriptedCamera(self.clock)
        self.loop = TableLoop(table, presenters=presenters, watcher=self.camera.watch,
                              open_camera=lambda: self.camera, clock=self.clock, confidence=0.9)
        self.stats = DemoStats()
        self.turns_done = 0

    # -- helpers ---------------------------------------------------------------------------
    @property
    def state(self):
        return self.loop.state

    def press(self, *commands: str) -> None:
        for command in commands:
            self.loop.post(command)
        self.loop.step()
        self.clock.advance(1.5)  # a person takes a moment per click

    def choose(self, value) -> None:
        """Turn the knob to the item whose value is ``value`` and push."""
        menu = self.loop.menu or self.loop.wizard_menu or (self.loop.wizard.menu() if self.loop.wizard else None)
        target = [item.value for item in menu.items].index(value)
        steps = target - menu.highlight
        self.press(*(["right"] * steps if steps > 0 else ["left"] * -steps), "push")

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
        self.clock.advance(5.0)
        self.loop.step()
        self.eink.flush()  # the final scoreboard, before the shutdown screen

    def throw(self, faces: list[str], kept: list[int]) -> list[str]:
        """Physically roll every die not in ``kept``; returns the true faces afterwards."""
        new = [face if i in kept else self.rng.choice(FACES) for i, face in enumerate(faces)]
        hand = self.rng.random() < 0.25
        self.stats.hands += hand
        self.camera.show_throw(new, kept, hand=hand)
        while self.camera.busy:
            self.loop.step()
            self.stats.frames += 1
        self.clock.advance(3.0)  # the players look at the roll
        self.loop.step()
        self.stats.rolls += 1
        return new

    def settle_read(self, truth: list[str]) -> None:
        """Answer the device's 'Check die N' questions truthfully; record misreads."""
        state_before = self.state.roll_number
        while self.loop.pending is not None:
            pending = self.loop.pending
            die = pending.flagged[0]
            read = pending.faces[die]
            real = self._true_face_for(pending.faces, truth, die)
            self.stats.flagged += 1
            if read != real:
                self.stats.misreads.append(Misread(self.state.current_player, state_before + 1, die + 1, real, read,
                                                   pending.confidences[die], "flagged, corrected with the knob"))
            self.choose(real)
        del state_before

    @staticmethod
    def _true_face_for(read: list[str], truth: list[str], die: int) -> str:
        """The truth for die ``die`` of a read: the read is a permutation of the truth when right."""
        return truth[die] if len(truth) == len(read) else read[die]

    def check_accepted(self, truth: list[str]) -> None:
        """After a roll was accepted: compare with the truth, fix confident misreads via the menu."""
        faces = list(self.state.faces)
        self.stats.dice_read += len(faces)
        wrong = Counter(faces) - Counter(truth)
        missing = Counter(truth) - Counter(faces)
        for bad_face in list(wrong.elements()):
            good_face = next(iter((missing).elements()), None)
            if good_face is None:
                break
            index = faces.index(bad_face)
            self.stats.misreads.append(Misread(self.state.current_player, self.state.roll_number, index + 1,
                                               good_face, bad_face, 1.0, "confident misread, corrected from the menu"))
            self.loop.post(f"face:{index + 1}:{good_face}")
            self.loop.step()
            missing[good_face] -= 1
            faces = list(self.state.faces)

    def play_turn(self) -> None:
        player = self.state.current_player
        truth: list[str] = []
        kept: list[int] = []
        for _ in range(3):
            if self.state.is_over:
                return
            rolls_before = self.state.roll_number
            truth = self.throw(truth or ["BELL"] * 7, kept if truth else [])
            self.settle_read(truth)
            if self.state.roll_number == rolls_before:
                # Not taken (same faces as before, or refused): say it was a roll with Next.
                if self.loop.same_read is not None:
                    self.press("next")
                else:
                    self.stats.refused += 1
            if self.state.roll_number == rolls_before:
                break
            self.check_accepted(truth)
            if self.state.is_over:
                self.turns_done += 1
                self.progress(f"{player} rolled SEVEN BELLS and wins at once")
                return
            truth = list(self.state.faces)  # the dice as the rules now number them
            plan = keep_plan(truth, self.state.roll_number)
            if plan is None:
                break
            kept = plan
        self.score_turn()
        record = self.state.history[-1]
        self.turns_done += 1
        self.progress(f"{record.player} scored {record.points:2d} ({', '.join(w for w, _ in record.breakdown)})")

    def score_turn(self) -> None:
        self.press("score")
        wizard = self.loop.wizard
        while self.loop.wizard is not None:
            menu = self.loop.wizard_menu or wizard.menu()
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
    def report(self, elapsed: float) -> str:
        from rules.core import format_table
        state = self.state
        lines = [format_table(self.table.game.scoreboard(state)), "",
                 self.table.game.status(state), ""]
        s = self.stats
        lines.append(f"{s.rolls} rolls, {s.dice_read} dice read, {s.flagged} flagged for a check, "
                     f"{len(s.misreads)} misread, {s.hands} hands passing, {s.refused} rolls refused")
        for m in s.misreads:
            lines.append(f"  MISREAD {m.turn} roll {m.roll} die {m.die}: read {m.read} "
                         f"({m.confidence:.0%}), really {m.truth} -> {m.how}")
        lines.append(f"e-ink: {self.eink.full_updates} full refreshes, {self.eink.coalesced} screens coalesced, "
                     f"{len(self.panel.written)} PNGs in {self.panel.folder}")
        lines.append(f"session {self.table.id} stored in {self.table.store.path}")
        lines.append(f"wall time {elapsed:.1f} s")
        return "\n".join(lines)


def keep_plan(faces: list[str], roll_number: int) -> list[int] | None:
    from host.commands.demo import keep_plan as plan
    return plan(faces, roll_number)


class ScriptedCamera:
    """Stand-in camera for when the vision pipeline is not there: the read is the truth.

    ``show_throw`` queues a few "moving" frames then one settled read, so the loop's
    motion and settle handling runs as with a real camera.
    """

    def __init__(self, clock: SimClock):
        self.clock = clock
        self.frames: list[tuple[str, object]] = []

    @property
    def busy(self) -> bool:
        return bool(self.frames)

    def show_throw(self, faces: list[str], kept: list[int], hand: bool = False) -> None:
        from vision.roll import Die, Roll
        dice = tuple(Die(face, 0.99, 40.0 * i, 40.0, 30.0, 30.0) for i, face in enumerate(faces))
        roll = Roll(dice=dice, dice_set="jingle-bell-roll", frame_size=(640, 480), notes=("scripted",))
        self.frames = [(SETTLING, None)] * 3 + [(SETTLED, roll), (STILL, None)]

    def read(self):
        self.clock.advance(0.1)
        return self.frames[0] if self.frames else (STILL, None)

    def watch(self, frame):
        if self.frames:
            self.frames.pop(0)
        return frame

    def close(self) -> None:
        pass


