"""The christmas-romance demo: a solo (or co-op) game against fate on the synthetic camera.

``dicewatch demo --game christmas-romance --mode solo`` plays a whole game the way a person
would at the box: before each turn the player picks a love interest with the knob, throws
their dice into the tray, places them with the knob's menu (melting a snowflake when three
dice match), ends the turn, then throws fate's dice (or, with ``--virtual-fate``, lets the
box roll them). Every throw is rendered by vision's synthetic camera with the
christmas-romance dice and goes through the real settle gate and dice reader into
:class:`host.loop.TableLoop` (host/games/christmas_romance.py). Each fate roll and its snowflakes are printed; every
e-ink screen is written as a PNG into ``--out``.

The demo knows the faces it threw, so every misread is reported: a die the box flags is
confirmed or corrected with the knob, a confident misread is corrected from the menu
afterwards, and a read with the wrong number of dice (the box asks again) is entered with
the knob. All of it is counted in the report.
"""
from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from host.demo_table import (DemoTable, Misread, ReadStats, ScriptedPlayers, SimClock,
                             SyntheticTable, filmed_game, misread_corrections)
from host.games.christmas_romance import DICE_SET, story_pages
from host.loop import TableLoop
from rules import get_game
from host.session_store import SessionStore
from host.presenters import counted, how_many_dice
from rules.christmas_romance import snowflakes_gone

MAX_TURNS = 60          # a guard: a solo game against fate ends long before (fate freezes over)
SOLO_PLAYERS = ["Holly"]
COOP_PLAYERS = ["Holly", "Noel"]

#: the demo's movie: card titles as players would enter them (setup options of the rules),
#: so the story at the end reads like one (our own invented cards, not the game's)
DEMO_MOVIE = {
    "love_interests": {"Holly": ["a big-city pastry chef", "the widowed innkeeper"]},
    "stage_cards": [
        {"title": "meet cute", "text": "reach for the last gingerbread kit at the same time"},
        {"title": "start to fall for each other", "text": "are snowed in at the inn"},
        {"title": "hit a snag", "text": "find out the inn is to be sold"},
        {"title": "make a grand gesture", "text": "save the town's winter fair together"},
        {"title": "find their Merrily Ever After", "text": "kiss under the mistletoe"},
    ],
    "romance_cards": ["decorating the town tree", "judging the cookie bake-off", "skating on the frozen pond",
                      "caroling door to door", "wrapping presents for the toy drive", "building a snowman"],
    "element_cards": ["a meddling grandmother", "a misheard phone call", "an ex back in town",
                      "a blizzard", "a runaway puppy"],
}


@dataclass
class FateStats(ReadStats):
    throws: int = 0
    fate_rolls: list[tuple[int, int, int]] = field(default_factory=list)   # (dice, true snowflakes, frozen after)
    melts: int = 0
    placed: int = 0
    first_reads: list[tuple[int, int, int, int]] = field(default_factory=list)  # fate: (dice, found, snowflakes, counted)


class FateCamera(SyntheticTable):
    """The demo's camera for christmas-romance dice: one synthetic camera for the whole game
    (each throw picks up the dice of the last one), read by the real watcher."""

    def new_turn(self) -> None:
        from vision.synthetic_camera import SyntheticCamera
        if self.camera is None:
            self.turn += 1
            self.camera = SyntheticCamera(self.seed, script=[], dice_set=DICE_SET, size=self.size, fps=self.fps,
                                          hold=1.2, lead_in=0.4)
        self.live = True


def make_fate_camera(clock: SimClock, rng: random.Random, overlay_dir: Path | None = None,
                     data: Path | None = None):
    """The synthetic camera with the real christmas-romance reader (see ``filmed_game``)."""
    return filmed_game(clock, rng, DICE_SET, FateCamera, "throws", overlay_dir, data)


class FateDemo(ScriptedPlayers):
    """A scripted player (or couple) against fate at a box with a synthetic camera."""

    def __init__(self, table, *, out: Path, size: tuple[int, int], rng: random.Random, quiet: bool = False,
                 camera=None, virtual_fate: bool = False, max_turns: int = MAX_TURNS):
        super().__init__(out=out, size=size, quiet=quiet, camera=camera,
                         default_camera=lambda clock: make_fate_camera(clock, rng, overlay_dir=Path(out) / "reads",
                                                                        data=Path(out) / "data"))
        self.table, self.rng, self.max_turns = table, rng, max_turns
        self.loop = TableLoop(table, presenters=self.presenters, watcher=self.camera.watch,
                              open_camera=lambda: self.camera, clock=self.clock, confidence=0.9,
                              options={"virtual_fate": virtual_fate}, new_seed=lambda: rng.randrange(1 << 31),
                              learner=getattr(self.camera, "learner", None))
        self.stats = FateStats()
        self.turns = 0
        self.stopped = ""
        self.first_read: list[str] = []

    # -- the knob and buttons ----------------------------------------------------------------
    def choose(self, want) -> bool:
        """Open the phase's menu if needed, turn the knob to the first item ``want(value)``
        accepts and push. False (menu left with Back/Next) when there is none."""
        if self.loop.menu is None:
            self.press("push")
        menu = self.loop.menu
        values = [item.value for item in menu.items]
        target = next((i for i, v in enumerate(values) if want(v)), None)
        if target is None:
            self.press("next")
            return False
        self.turn_knob_to(menu, target)
        return True

    def say(self, message: str) -> None:
        print(f"[turn {self.turns:2d}] {message}", flush=True)

    # -- throwing dice -----------------------------------------------------------------------
    def throw(self, count: int, hover: bool = False) -> list[str]:
        """Throw ``count`` dice; the box reads them; misreads are put right as a player would.
        Returns the true faces."""
        faces = list(self.state.faces)
        truth = [self.rng.choice(faces) for _ in range(count)]
        events_before = len(self.table.session.events)
        self.camera.new_turn()   # the dice of the last throw are picked up
        self.film_throw(truth, [], hover)
        self.stats.throws += 1
        self.first_read = list(self.camera.last_read_faces())   # what the camera alone made of it
        self.settle_read(truth)
        if len(self.table.session.events) == events_before and self.loop.same_read is not None:
            self.press("next")   # the same faces as the last read: it was a throw all the same
            self.settle_read(truth)
        if len(self.table.session.events) == events_before:
            found = self.camera.last_read_faces()
            why = f"found {how_many_dice(len(found))}" if len(found) != count else f"read {' '.join(found)}, refused"
            self.stats.misreads.append(Misread(self.state.current_player, self.turns, 0, " ".join(truth), why, 0.0,
                                               "the box asked again; the dice entered with the knob"))
            self.press("push")
            self.settle_read(truth)
        if len(self.table.session.events) == events_before:
            raise RuntimeError(f"the box did not take the throw {truth}")
        self.check_accepted(truth)
        return truth

    def settle_read(self, truth: list[str]) -> None:
        """Answer 'Check die N' with the truth; count the misreads among the flagged dice."""
        while self.loop.pending is not None:
            pending = self.loop.pending
            die = pending.flagged[0]
            read = pending.faces[die]
            real = DemoTable._true_face(pending.faces, truth, die)
            if not pending.by_hand:
                self.stats.flagged += 1
                if read != real:
                    self.stats.misreads.append(Misread(self.state.current_player, self.turns, die + 1, real, read,
                                                       pending.confidences[die], "flagged, corrected with the knob"))
            self.choose(lambda v, real=real: v == real)

    def check_accepted(self, truth: list[str]) -> None:
        """Compare the accepted dice with the truth; correct confident misreads from the menu."""
        last = self.table.session.events[-1]
        faces = list(last.get("faces", []))
        self.stats.dice_read += len(faces)
        for index, bad, good in misread_corrections(faces, truth):
            self.stats.misreads.append(Misread(self.state.current_player, self.turns, index + 1, good, bad, 1.0,
                                               "read with confidence, corrected from the menu"))
            self.loop.post(f"face:{index + 1}:{good}")
            self.loop.step(look=False)

    # -- the game ----------------------------------------------------------------------------
    def play(self) -> None:
        self.loop.start()
        while self.state.phase != "over":
            if self.turns >= self.max_turns:
                self.stopped = f"stopped after {self.turns} turns (the demo's limit)"
                break
            self.play_turn()
        if self.state.phase == "over":
            self.tell_story()
        self.clock.advance(5.0)
        self.loop.step(look=False)
        self.eink.flush()

    def play_turn(self) -> None:
        self.turns += 1
        state = self.state
        player = state.current_player
        self.declare()
        self.throw(self.state.dice_due, hover=self.rng.random() < 0.2)
        rolled = " ".join(self.state.turn.rolled)
        self.use_dice()
        placed = self.end_turn()
        side = self.state.sides[0]
        stage = f"stage {min(side.stage, 5)}" + (f" {len(side.stage_card.placed)}/{side.stage_card.needs}"
                                                 if side.stage_card else "")
        self.say(f"{player} rolled {rolled}; placed {placed}; {stage}, "
                 f"{'romance card done' if side.romance else 'romance card not done yet'}")
        if self.state.phase == "fate":
            self.fate()

    def declare(self) -> None:
        side = self.state.sides[0]
        solo = self.state.mode == "solo"

        def want(v):
            if not isinstance(v, dict):
                return False
            if solo and side.copied and len(side.copied) >= 2:
                return v.get("use") == "star"
            if side.deferred >= 3:
                return v.get("release") is True and not v.get("defer")
            return v.get("use", "headliner") == "headliner" and not v.get("defer") and not v.get("release")

        if not self.choose(want):
            self.choose(lambda v: isinstance(v, dict))

    def use_dice(self) -> None:
        """Add copied dice, melt when three match, place as much as possible, stage card first."""
        turn = self.state.turn
        if turn.use == "star" or (self.state.mode != "solo" and self.state.sides[0].copied):
            self.choose(lambda v: isinstance(v, dict) and v["type"] == "add_copied")
        for _ in range(20):
            if self.state.phase == "penalty":
                dice = self.state.dice_due
                truth = self.throw(dice)
                self.say(f"completed the Christmas romance card: its roll ({how_many_dice(dice)}) {' '.join(truth)}")
                continue
            if self.state.phase != "play":
                return
            menu = self.loop.plays.turn_menu()
            values = [item.value for item in menu.items]
            melt = next((v for v in values if isinstance(v, dict) and v["type"] == "melt"), None)
            if melt and self.state.snowflakes_frozen:
                self.choose(lambda v, melt=melt: v == melt)
                self.stats.melts += 1
                self.say(f"melted a snowflake with 3 {melt['faces'][0]}: {self.state.snowflakes_frozen} frozen")
                continue
            best = self._best_placement(values)
            if best is None:
                return
            self.choose(lambda v, best=best: v == best)
            if self.loop.menu is not None and self.loop.menu.kind == "reward":
                self.choose(lambda v: v == self.rng.choice((1, 2, 3)))
            self.stats.placed += len(best[1]["faces"] if isinstance(best, tuple) else best["faces"])

    def _best_placement(self, values):
        def event(v):
            return v[1] if isinstance(v, tuple) and v and v[0] == "reward" else v
        places = [v for v in values if isinstance(event(v), dict) and event(v).get("type") == "place"]
        if not places:
            return None
        stage = [v for v in places if event(v)["card"] == "stage"]
        pool = stage or places
        return max(pool, key=lambda v: len(event(v)["faces"]))

    def end_turn(self) -> str:
        """Score ends the turn; returns what was placed this turn, for the log line."""
        placed = []
        for event in reversed(self.table.session.events):
            if event.get("type") == "declare":
                break
            if event.get("type") == "place":
                placed[:0] = [f"{' '.join(event['faces'])} on the {event['card']} card"]
        if self.state.phase == "play":
            self.press("score")
        return ", ".join(placed) or "nothing"

    def fate(self) -> None:
        state = self.state
        dice = state.fate_dice
        frozen_before = state.snowflakes_frozen
        if self.loop.plays.virtual_fate:
            self.press("push")
            truth = list(self.state.fate_roll)
            how = "rolled by the box"
        else:
            truth = self.throw(dice)
            how = "read by the camera"
        state = self.state
        true_snow = truth.count(state.snowflake)
        read_snow = state.fate_roll.count(state.snowflake)
        self.stats.fate_rolls.append((dice, true_snow, state.snowflakes_frozen))
        if not self.loop.plays.virtual_fate:
            first = self.first_read
            self.stats.first_reads.append((dice, len(first), true_snow, first.count(state.snowflake)))
        self.say(f"fate rolls {how_many_dice(dice)} ({how}): {' '.join(state.fate_roll)} -> {read_snow} "
                 f"{'snowflake' if read_snow == 1 else 'snowflakes'}; {state.snowflakes_frozen}/"
                 f"{state.fate_dice_total} {snowflakes_gone(state)} "
                 f"(was {frozen_before})")
        if state.phase == "fate_choice":
            side = state.sides[0]
            if side.deferred < 5:
                self.choose(lambda v: isinstance(v, dict) and v.get("take") == "defer")
            elif not self.choose(lambda v: isinstance(v, dict) and v.get("take") == "copy"
                                 and v.get("face") != state.snowflake):
                self.choose(lambda v: isinstance(v, dict) and v.get("take") == "none")

    def tell_story(self) -> None:
        from rules.christmas_romance import outcome, story
        result = outcome(self.state)
        self.say(f"the end: {result['reason']}")
        pages = len(story_pages(story(self.state)))
        for _ in range(pages):
            self.press("next")   # page through the movie on the screen

    # -- the report --------------------------------------------------------------------------
    def report(self, elapsed: float) -> str:
        from rules.christmas_romance import outcome, story
        from rules.core import format_table
        state = self.state
        s = self.stats
        lines = [format_table(self.table.game.scoreboard(state)), ""]
        result = outcome(state)
        lines.append(f"result: {result['result'].upper()}: {result['reason']}" if result else f"result: {self.stopped}")
        lines.append(f"the movie: {story(state)}")
        lines.append("")
        snow = sum(t for _, t, _ in s.fate_rolls)
        lines.append(f"{len(s.fate_rolls)} fate rolls ({sum(d for d, _, _ in s.fate_rolls)} dice, {snow} snowflakes "
                     f"thrown), {s.melts} melts, {s.placed} dice placed in {self.turns} turns")
        if s.first_reads:
            found = sum(1 for d, f, _, _ in s.first_reads if f == d)
            right = sum(1 for d, f, t, c in s.first_reads if f == d and t == c)
            lines.append(f"the camera alone: all of fate's dice found in {found} of {len(s.first_reads)} fate rolls, "
                         f"and the snowflakes counted right as well in {right}")
        typed = sum(1 for m in s.misreads if not m.die)
        lines.append(f"{counted(s.throws, 'throw', 'throws')} filmed, {how_many_dice(s.dice_read)} taken, "
                     f"{how_many_dice(s.flagged)} flagged for a check, {how_many_dice(len(s.misreads) - typed)} misread, "
                     f"{counted(typed, 'throw', 'throws')} entered with the knob (wrong number of dice seen), "
                     f"{counted(s.hands, 'hand', 'hands')} passing")
        for m in s.misreads:
            if m.die:
                lines.append(f"  MISREAD turn {m.roll} die {m.die}: read {m.read} ({m.confidence:.0%} sure), "
                             f"really {m.truth} -> {m.how}")
            else:
                lines.append(f"  ENTERED BY HAND turn {m.roll}: {m.read}; really {m.truth} -> {m.how}")
        lines.append(f"e-ink: {self.eink.full_updates} full refreshes, {self.eink.coalesced} screens coalesced, "
                     f"{len(self.panel.written)} PNGs in {self.panel.folder}")
        lines.append(f"session {self.table.id} stored in {self.table.store.path}")
        watcher = getattr(self.camera, "watcher", None)
        if watcher is not None and watcher.overlays:
            lines.append(f"what the camera read, die by die with its confidence: {len(watcher.overlays)} overlays "
                         f"in {watcher.overlays[0].parent}")
        if self.vision_note:
            lines.append(self.vision_note)
        if getattr(self.camera, "teaching", ""):
            lines.append(self.camera.teaching)
        lines.append(f"wall time {elapsed:.1f} s")
        return "\n".join(lines)


def run(args, size: tuple[int, int], out: Path) -> int:
    """``dicewatch demo --game christmas-romance``: see the module docstring."""
    started = time.perf_counter()
    mode = getattr(args, "mode", None) or "solo"
    if mode not in ("solo", "coop"):
        print(f"dicewatch demo: the scripted movie is played solo or co-op, not {mode}; "
              f"`dicewatch run --game christmas-romance --mode {mode}` plays it at the table", file=sys.stderr)
        return 2
    players = SOLO_PLAYERS if mode == "solo" else COOP_PLAYERS
    store = SessionStore(out / "demo-sessions.db")
    table = store.create(get_game("christmas-romance"), {"mode": mode, "players": players, **DEMO_MOVIE})
    demo = FateDemo(table, out=out, size=size, rng=random.Random(args.seed), quiet=args.quiet,
                    virtual_fate=getattr(args, "virtual_fate", False))
    if getattr(demo.camera, "teaching", ""):
        print(demo.camera.teaching, flush=True)
    try:
        demo.play()
    finally:
        demo.loop.shutdown()
        store.close()
    print()
    print(demo.report(time.perf_counter() - started))
    return 0
