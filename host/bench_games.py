"""Benchmark: whole games at the synthetic table, played through the device's table loop.

    python -m host.bench_games                                 # seeds 11-14, every kind of game
    python -m host.bench_games --seeds 1 4 --games jingle-bell-roll

What `dicewatch run --camera synthetic:SEED` does, in-process and faster than real time: for
each camera seed the game's dice are taught at that camera (as `dicewatch teach --camera
synthetic:SEED` does, 8 pictures per face), the tray is calibrated from its empty mat, and
a game is played through the table loop (settle gate, calibrated tray finder, the taught
set, the rules, the journal). The rendered players throw what the game asks for (the loop's
``dice_wanted``: Jingle Bell Roll's BELLS and the dice a re-roll leaves stay standing); a
scripted player at the buttons (each game's ``bench_player`` and ``BENCH`` setups, in host/games/) answers
as a careful player would:

* Jingle Bell Roll (two players, Frosty and Holly Daze): after each turn's first roll it
  announces the first re-roll on the knob's menu when there is one, and it scores after the
  third roll, taking the score wizard's usual answers;
* the fate game (solo, and co-op for two): it opens each menu and takes one of its events
  (drawn with the seed), or pushes the knob when the game waits for it;
* both: each die the loop asks to check is answered with what lies on the table.

The box learns the dice as it plays, as `dicewatch run` does (vision/learning.py: each die
scored or corrected becomes an example, here in the loop's thread so that a seed always
plays the same game; ``--no-learning`` reads with the taught set alone).

Printed per game: whether it was played to the end, the turns, the rolls and re-rolls
stored, the rolls the rules refused, the dice checked, the reads that could not be used
(not the number of dice the game needs: the players throw again), the rolls stored
without a check that differ from what lay on the table (confident misreads), and the turns
that needed no press but Score (no die asked about, no read refused or unusable, no roll
stored wrong: the product's goal is 95 % of Jingle Bell Roll's turns). These are
rendered dice: they show the whole device path holds together over a game, not how real
dice read (see the README's real-photo figures).
"""
from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from host import games
from host.bench_teach import as_labels, as_reads
from host.demo_table import calibrate_synthetic, teach_at_synthetic_camera
from host.loop import TableLoop
from host.presenters import RecordingPresenter, counted
from host.session_store import SessionStore
from host.table_setup import learning_watcher
from host.watcher import FrameWatcher, dice_reader
from rules import get_game
from vision.synthetic_camera import SyntheticCamera
from vision.bench.scoring import Tally

MAX_FRAMES = 40000      # a guard: a game takes 1,000-3,000 frames at 10 per second
STUCK_FRAMES = 3000     # five minutes of film without an event: the game is stuck


@dataclass
class GameFigures:
    game: str
    seed: int
    table_game: int = 0      # 0: the first game at this table (the set just taught); 1: the next ...
    finished: bool = False
    stuck: str = ""
    frames: int = 0
    events: Counter = field(default_factory=Counter)
    refused: int = 0
    checked: int = 0
    checked_right: int = 0   # dice checked whose read was already right (the player only confirmed)
    checked_reads: int = 0   # reads that asked about at least one die (Score answers all of one read at once)
    dice_stored: int = 0     # dice in the rolls, re-rolls and fate rolls stored
    unusable: int = 0
    misread: list = field(default_factory=list)
    taught: tuple[int, int] = (0, 0)
    seconds: float = 0.0
    turns: int = 0           # turns ended (scored, or ended by the fate game)
    turns_clean: int = 0     # ... that needed no press but Score (see the module docstring)
    reads: Tally = field(default_factory=Tally)   # every settled read, against the dice on the table

    def line(self) -> str:
        rolls = self.events["roll"] + self.events["fate_roll"]
        state = "played to the end" if self.finished else f"NOT finished ({self.stuck})"
        return (f"{self.game:<16} seed {self.seed:<3} game {self.table_game + 1} {state}; {self.frames} frames; "
                f"{self.events['score'] + self.events['end_turn']} turns, {rolls} rolls, "
                f"{self.events['reroll']} re-rolls; refused {self.refused}; dice checked {self.checked} of "
                f"{self.dice_stored} stored ({self.checked_right} only confirmed) in {self.checked_reads} reads; "
                f"reads not usable {self.unusable}; rolls stored unchecked and wrong {len(self.misread)}; "
                f"turns with no press but Score {self.turns_clean} of {self.turns}; "
                f"taught {self.taught[0]}/{self.taught[1]}; {self.seconds:.0f} s")


def benchmarks() -> dict[str, tuple]:
    """Every game's benchmark setups (``BENCH`` in its host/games/ module): name -> (module, setup)."""
    found = {}
    for name in games.names():
        module = games.module_for(name)
        for bench, setup in getattr(module, "BENCH", {}).items():
            found[bench] = (module, setup)
    return found


def answer_check(loop, on_table) -> bool:
    """The die the loop asks about, answered with what lies on the table, as a player looking
    at it would: the face of the die lying there (``on_table``: the camera's true dice, with
    their places). Without places (dice entered by hand), the face the dice not in question
    leave over. True if the loop's read of that die was already right (a confirmation)."""
    pending = loop.pending
    die = pending.flagged[0]
    if pending.spots is not None and on_table:
        x, y, _ = pending.spots[die]
        face = min(on_table, key=lambda d: math.hypot(d.x - x, d.y - y)).face
    else:
        sure = [face for i, face in enumerate(pending.faces) if i not in pending.flagged]
        missing = Counter(d.face for d in on_table) - Counter(sure)
        face = pending.faces[die] if missing[pending.faces[die]] else next(missing.elements(), pending.faces[die])
    was_read = pending.faces[die]
    loop.handle(f"face:{die + 1}:{face}")
    return was_read == face


def tally_read(tally: Tally, roll, on_table) -> None:
    """Count one settled read against the dice that lay on the table (as the photo benchmarks
    count: vision.bench.scoring), so the confidence the device asks below can be judged."""
    tally.add(as_labels(on_table), as_reads(roll))


def reliability_lines(tally: Tally, thresholds=(0.5, 0.7, 0.8, 0.9, 0.95)) -> list[str]:
    """How many of the dice read each confidence threshold would take without asking, and how
    many of those were right (the loop asks below its ``confidence``, 0.9 by default)."""
    lines = [f"settled reads: {tally.images}; dice on the table {tally.labelled}, read right {tally.per_die:.1%}, "
             f"found {tally.recall:.1%}, finds that were dice {tally.precision:.1%}",
             "asked below | dice taken unasked | right among them"]
    for threshold in thresholds:
        taken, right = tally.confident(threshold)
        share = taken / len(tally.readings) if tally.readings else 0.0
        lines.append(f"{threshold:>11.2f} | {taken:>5} ({share:6.1%})     | {right:.2%}")
    return lines


TURN_ENDS = ("score", "end_turn")


def play(game: str, seed: int, work: Path, learn: bool = True, table_game: int = 0) -> GameFigures:
    """One benchmark game (``game``: a name of ``benchmarks()``) at synthetic camera ``seed``;
    ``learn``: the box learns the dice from each roll stored. ``table_game`` 0 teaches the
    set at that camera first; 1, 2, ...: the next game at the same table (the same dice, other
    throws), with the set as the games before left it (what it learned, the table's word)."""
    started = time.perf_counter()
    module, setup = benchmarks()[game]
    rules = get_game(module.GAME)
    dice_set = rules.dice
    figures = GameFigures(game, seed, table_game=table_game)
    data = work / f"{game}-{seed}"
    if table_game == 0:
        figures.taught = teach_at_synthetic_camera(dice_set, seed, data)
    else:
        from vision.dicesets import load_model
        figures.taught = load_model(dice_set, data).self_check
    calibration, note = calibrate_synthetic(seed)
    if calibration is None:
        raise SystemExit(f"synthetic:{seed}: the tray could not be calibrated: {note}")
    with SessionStore(data / "sessions.db") as store:
        screen = RecordingPresenter()
        reader = dice_reader(dice_set, data, calibration)
        watcher = (learning_watcher(reader, dice_set, data, calibration, background=False) if learn
                   else FrameWatcher(reader, calibration=calibration))
        table = store.create(rules, setup)
        loop = TableLoop(table, presenters=[screen], watcher=watcher, **getattr(module, "BENCH_LOOP", {}))
        player = module.bench_player
        camera = SyntheticCamera(seed, dice_set=dice_set, fps=10, lead_in=0.5, hold=1.5,
                                 dice_count=loop.dice_wanted, game=table_game)
        loop.open_camera = lambda: camera
        loop.start()
        rng = random.Random(seed)
        waited, events, checked_since, asking, troubled = 0, 0, False, None, False
        while not rules.is_over(table.state) and figures.frames < MAX_FRAMES:
            refused = loop.refused
            if loop.pending is not None:
                troubled = True
                if loop.pending is not asking:
                    asking = loop.pending
                    figures.checked_reads += 1
                figures.checked_right += answer_check(loop, camera.truth.dice)
                figures.checked += 1
                checked_since = True
            elif loop.showing_notice and screen.screens and screen.screens[-1].kind == "error":
                figures.unusable += screen.screens[-1].title.startswith("I see")
                troubled = True
                loop.handle("next")   # put it away: the players throw again
            else:
                player(loop, table, waited, rng)
            reads_before = watcher.reads
            loop.step()
            figures.frames += 1
            troubled = troubled or loop.refused != refused
            if watcher.reads != reads_before and watcher.last_roll is not None:
                tally_read(figures.reads, watcher.last_roll, camera.truth.dice)
            if len(table.session.events) != events:
                events, waited = len(table.session.events), 0
                event = table.session.events[-1]
                if (event["type"] in loop.plays.throw_events and "faces" in event and not checked_since
                        and Counter(event["faces"]) != Counter(camera.truth.faces)):
                    figures.misread.append((event["type"], event["faces"], camera.truth.faces))
                    troubled = True
                checked_since = False
                if event["type"] in TURN_ENDS:
                    figures.turns += 1
                    figures.turns_clean += not troubled
                    troubled = False
            else:
                waited += 1
                if waited > STUCK_FRAMES:
                    figures.stuck = f"stuck at {screen.screens[-1].title!r}"
                    break
        figures.finished = rules.is_over(table.state)
        if not figures.finished and not figures.stuck:
            figures.stuck = f"{MAX_FRAMES} frames"
        figures.events = Counter(e["type"] for e in table.session.events)
        figures.dice_stored = sum(len(e["faces"]) for e in table.session.events
                                  if e["type"] in loop.plays.throw_events and "faces" in e)
        figures.refused = loop.refused
        camera.close()
    figures.seconds = time.perf_counter() - started
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m host.bench_games", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[11, 12, 13, 14], metavar="SEED",
                        help="synthetic camera seeds, one game of each kind per seed (default 11-14)")
    kinds = list(benchmarks())
    parser.add_argument("--games", nargs="+", choices=kinds, default=kinds, metavar="GAME",
                        help=f"which games: {', '.join(kinds)} (default all)")
    parser.add_argument("--no-learning", action="store_true",
                        help="read every roll with the set taught at the camera alone")
    parser.add_argument("--games-per-table", type=int, default=1, metavar="N",
                        help="games in a row at each seed's table: the first teaches the set, the "
                             "next play on with what it learned (same dice, other throws; default 1)")
    args = parser.parse_args(argv)
    if args.games_per_table < 1:
        parser.error(f"--games-per-table {args.games_per_table}: expected a whole number from 1 up")
    results = []
    with tempfile.TemporaryDirectory(prefix="dicewatch-games-") as work:
        for game in args.games:
            for seed in args.seeds:
                for table_game in range(args.games_per_table):
                    figures = play(game, seed, Path(work), learn=not args.no_learning, table_game=table_game)
                    print(figures.line(), flush=True)
                    for kind, stored, on_table in figures.misread:
                        print(f"    {kind} stored {' '.join(sorted(stored))}; on the table {' '.join(sorted(on_table))}")
                    results.append(figures)
    finished = sum(f.finished for f in results)
    everything = Tally()
    for f in results:
        everything += f.reads
    print()
    print("\n".join(reliability_lines(everything)))
    for game in dict.fromkeys(f.game for f in results):
        for table_game in range(args.games_per_table):
            mine = [f for f in results if f.game == game and f.table_game == table_game]
            turns = sum(f.turns for f in mine)
            clean = sum(f.turns_clean for f in mine)
            which = f" (game {table_game + 1} at each table)" if args.games_per_table > 1 else ""
            if turns:
                print(f"{game}{which}: {clean} of {turns} turns ({clean / turns:.1%}) needed no press but Score "
                      f"({'learning the dice as it plays' if not args.no_learning else 'not learning'})")
    rolls = sum(f.events["roll"] + f.events["fate_roll"] + f.events["reroll"] for f in results)
    print(f"\n{finished} of {len(results)} games played to the end; {rolls} rolls and re-rolls stored, "
          f"{sum(f.refused for f in results)} refused by the rules, {sum(f.checked for f in results)} of "
          f"{sum(f.dice_stored for f in results)} dice stored checked ({sum(f.checked_right for f in results)} "
          f"of those read right and only confirmed) in {sum(f.checked_reads for f in results)} reads, {counted(sum(f.unusable for f in results), 'read', 'reads')} "
          f"not usable, "
          f"{sum(len(f.misread) for f in results)} stored unchecked and wrong")
    return 0 if finished == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
