"""End to end: synthetic camera frames -> settle gate -> real dice reader -> loop -> rules,
and `dicewatch run` as a process stopped with SIGTERM."""
from __future__ import annotations

import contextlib
import os
from collections import Counter

import pytest
from sigterm_run import run_then_sigterm

from host.watcher import FrameWatcher
from host.session_store import SessionStore
from rules import get_game
from vision.roll import Throw


def reroll_with(loop):
    """The ability whose re-roll the loop waits for (its Awaiting interaction), or None."""
    return (loop.awaited or {}).get("with")


def announce(loop, source):
    """As if the knob's "Re-roll one die with SOURCE" had been chosen."""
    from host.interactions import Awaiting
    loop.stack.remove(Awaiting)
    loop.stack.push(Awaiting({"type": "reroll", "player": loop.state.current_player, "with": source}))


@pytest.fixture
def jbr_reader(dicewatch_home):
    # The reader is in the tree: a reader that fails to load is a failure, not a skip.
    from vision.dicesets import load_reader
    return load_reader("jingle-bell-roll", dicewatch_home)


def standing_rolls(entries):
    """The roll events of a log that no later undo took back (a confident misread corrected
    from the menu is an undo of the roll and the roll again with the right face)."""
    rolls = []
    for entry in entries:
        if entry.kind == "event" and entry.body["type"] == "roll":
            rolls.append(entry.body)
        elif entry.kind == "undo" and entry.body["undoes"].get("type") == "roll":
            assert rolls and rolls[-1] == entry.body["undoes"]
            rolls.pop()
    return rolls


def test_turns_filmed_by_the_synthetic_camera_go_through_vision_loop_and_rules(jbr_reader, tmp_path):
    """Two turns of the demo's players at the synthetic camera, read by the real gate and reader
    with a calibrated tray. Whatever the reader gets wrong must be caught (flagged, corrected
    from the menu, typed in), so the stored rolls are exactly what was thrown."""
    import random

    from host.demo_table import DemoTable, SimClock, SyntheticTable, calibrate_synthetic

    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben"]})
        clock = SimClock()
        calibration, note = calibrate_synthetic(11)
        assert calibration is not None, note
        from host.watcher import dice_reader
        # as the device builds it: with the calibration, dice are found against the empty mat
        watcher = FrameWatcher(dice_reader("jingle-bell-roll", tmp_path / "data", calibration),
                               calibration=calibration)
        camera = SyntheticTable(clock, watcher, seed=11)
        demo = DemoTable(table, out=tmp_path / "out", size=(250, 122), rng=random.Random(3), quiet=True,
                         camera=camera)
        demo.loop.start()
        for player in ("Ann", "Ben"):
            demo.choose(None)  # no character cards
        demo.play_turn()
        demo.play_turn()
        rolls = standing_rolls(table.entries)
        assert len(rolls) == len(demo.stats.thrown) == demo.stats.rolls >= 2
        assert [Counter(r["faces"]) for r in rolls] == [Counter(t) for t in demo.stats.thrown]
        assert watcher.dice_reads >= demo.stats.rolls  # every throw was read from the frames
        assert watcher.outside == 0  # only the mat's areas are looked at: never its corner markers
        assert len(table.state.history) == 2
        assert any(s.light == "moving" for s in demo.recorder.statuses)
        print(demo.report(0.0))


@pytest.mark.skipif(os.name != "posix", reason="signals are POSIX")
def test_run_stops_cleanly_on_sigterm_and_resumes(jbr_reader, dicewatch_home, tmp_path):
    screens = tmp_path / "screens"
    args = ["--players", "Ann,Ben,Cy", "--camera", "synthetic:3", "--no-gpio", "--no-characters", "--quiet"]
    status, out, err = run_then_sigterm(args, dicewatch_home, screens)
    assert status == 0, err
    assert "Traceback" not in err and "saved" in err
    written = sorted(screens.glob("*.png"))
    assert written and "sleep" in written[-1].name  # the display was put to sleep last
    with SessionStore(dicewatch_home / "sessions.db") as store:
        (info,) = store.list()
        assert info.players == ("Ann", "Ben", "Cy") and info.closed is None  # unfinished: resumable
    # the screens are there already, so this one is stopped 3 s after it starts
    status, _, err = run_then_sigterm(args + ["--resume"], dicewatch_home, screens, settle=3.0)
    assert status == 0 and f"resumed session {info.id}" in err


@pytest.mark.skipif(os.name != "posix", reason="signals are POSIX")
def test_sigterm_to_the_quick_start_launcher_reaches_the_game(jbr_reader, dicewatch_home, tmp_path):
    """`python3 dicewatch.py run ...` then `kill PID`: the launcher execs dicewatch, so the
    signal stops the game itself (saved, display asleep) instead of killing a parent and
    leaving the game running with nobody to stop it."""
    screens = tmp_path / "screens"
    args = ["--players", "Ann,Ben", "--camera", "synthetic:3", "--no-gpio", "--no-characters", "--quiet"]
    status, _, err = run_then_sigterm(args, dicewatch_home, screens, launcher=True)
    assert status == 0, err
    assert "stopped; session" in err and "saved" in err
    assert "sleep" in sorted(screens.glob("*.png"))[-1].name


@pytest.mark.skipif(os.name != "posix", reason="signals are POSIX")
def test_run_on_the_synthetic_camera_throws_what_the_game_needs(jbr_reader, dicewatch_home, tmp_path):
    """`dicewatch run --camera synthetic` throws all 7 of Jingle Bell Roll's dice every time
    (it asks the game loop how many), so the game is played instead of answering every
    throw with "I see 5 dice"."""
    import subprocess
    import sys
    calibrate = subprocess.run([sys.executable, "-m", "host.cli", "calibrate", "--camera", "synthetic:3"],
                               env=dict(os.environ, DICEWATCH_HOME=str(dicewatch_home)),
                               capture_output=True, text=True, timeout=120)
    assert calibrate.returncode == 0, calibrate.stderr
    args = ["--players", "Ann,Ben", "--camera", "synthetic:3", "--no-gpio", "--no-characters"]
    status, out, err = run_then_sigterm(args, dicewatch_home, tmp_path / "screens", settle=7.0)
    assert status == 0, err
    dice_lines = [line for line in out.splitlines() if line.strip().startswith("dice 1:")]
    assert dice_lines, out
    assert all(" 7:" in line and " 8:" not in line for line in dice_lines), dice_lines
    assert "I see" not in out


@pytest.mark.parametrize("follows", [True, False])
def test_a_lamp_switched_on_mid_game_is_made_up_for_by_the_cameras_exposure(jbr_reader, tmp_path, follows):
    """The room gets 35 % brighter while the first roll lies still (the camera's exposure is
    locked, so the pale mat burns out). A camera that can change its exposure is told to, and
    every later throw is read whole and once; one that cannot gets a warning instead."""
    from host.demo_table import calibrate_synthetic
    from host.watcher import SETTLED, dice_reader
    from vision.synthetic_camera import ScriptedRoll, SyntheticCamera
    calibration, note = calibrate_synthetic(11)
    assert calibration is not None, note
    watcher = FrameWatcher(dice_reader("jingle-bell-roll", tmp_path / "data", calibration), calibration=calibration)
    script = [ScriptedRoll(("MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL", "BELL")),
              ScriptedRoll(("LIST", "LIST", "GIFT", "MILK", "COOKIE", "STOCKING", "GIFT")),
              ScriptedRoll(("BELL", "MILK", "MILK", "COOKIE", "GIFT", "LIST", "STOCKING"))]
    camera = SyntheticCamera(11, script=script, dice_set="jingle-bell-roll", fps=10, lead_in=0.8, hold=3.0)
    if follows:
        watcher.adjust_exposure = camera.adjust_exposure
    reads = []
    for frame in camera:
        motion, roll = watcher(frame)
        if motion == SETTLED and roll.dice:
            reads.append((frame.timestamp, roll))
            if len(reads) == 1:
                camera.light = [(frame.timestamp + 0.5, 1.35)]
    assert len(reads) == 3   # once per throw, no read of the relit dice lying still
    if follows:
        assert watcher.exposure.adjustments >= 1 and abs(camera.exposure * 1.35 - 1.0) < 0.08
        assert watcher.light_warning is None
        assert [sorted(roll.faces) for _, roll in reads[1:]] == [sorted(r.faces) for r in script[1:]]
    else:
        assert "brighter than at calibration" in watcher.light_warning


@contextlib.contextmanager
def synthetic_run(tmp_path, **setup):
    """`run --camera synthetic` in-process: Ann and Ben at a calibrated synthetic tray whose
    players throw what the loop's ``dice_wanted`` asks for. Yields (table, loop, camera,
    play_until): ``play_until(done, frames)`` steps the loop until ``done()`` (a die to check
    is taken as read)."""
    from host.demo_table import calibrate_synthetic
    from host.loop import TableLoop
    from host.watcher import dice_reader
    from vision.synthetic_camera import SyntheticCamera

    calibration, note = calibrate_synthetic(11)
    assert calibration is not None, note
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben"], **setup})
        loop = TableLoop(table, ask_setup=False, watcher=FrameWatcher(
            dice_reader("jingle-bell-roll", tmp_path / "data", calibration), calibration=calibration))
        camera = SyntheticCamera(11, dice_set="jingle-bell-roll", fps=10, lead_in=0.5, hold=1.5,
                                 dice_count=loop.dice_wanted)
        loop.open_camera = lambda: camera
        loop.start()

        def play_until(done, frames=900, check=lambda: loop.handle("next")):
            for _ in range(frames):
                if done():
                    return
                if loop.pending is not None:
                    check()  # "Check die N": by default the die as read (a read of too few dice is thrown again)
                loop.step()
            raise AssertionError(f"not reached in {frames} frames (roll {table.state.roll_number})")

        yield table, loop, camera, play_until


def test_the_synthetic_players_wait_at_a_question_and_throw_on_once_it_is_answered(jbr_reader, tmp_path):
    """`run --camera synthetic` in-process: the loop tells the camera how many dice it wants.
    After the turn's third roll nobody presses Score, and for ten seconds of film nothing is
    thrown (before, the players kept throwing and every throw was refused as a fourth roll);
    once Score is answered, the next player's dice are thrown and read."""
    with synthetic_run(tmp_path) as (table, loop, camera, play_until):
        play_until(lambda: table.state.roll_number == 3, 900)
        events, thrown = len(table.session.events), camera.truth.roll
        for _ in range(100):                                      # ten seconds, nobody at the buttons
            loop.step()
        assert camera.truth.roll == thrown and camera.truth.phase == "still"
        assert len(table.session.events) == events and loop.refused == 0
        loop.handle("score")
        while loop.wizard is not None:
            loop.handle("next")
        assert table.state.current_player == "Ben" and loop.dice_wanted() == Throw(7)
        play_until(lambda: table.state.roll_number == 1, 300)
        assert camera.truth.roll > thrown


def test_the_synthetic_players_keep_their_bells_and_re_roll_one_die(jbr_reader, tmp_path):
    """`run --camera synthetic` in-process, a whole turn with a re-roll: the camera is told
    which dice stay standing, so the second and third rolls leave the BELLS lying and the
    Rockin' Around re-roll picks up one die. Nothing is refused by the rules (before, every
    throw picked up all seven dice: a BELL thrown again, or seven dice changed by a one-die
    re-roll, was refused)."""
    with synthetic_run(tmp_path) as (table, loop, camera, play_until):
        def stored(kind):
            return [e for e in table.session.events if e["type"] == kind]

        play_until(lambda: table.state.roll_number == 1)
        bells_after_first = table.state.faces.count("BELL")
        loop.handle("push")
        target = [item.value for item in loop.menu.items].index(
            {"type": "reroll", "player": loop.state.current_player, "with": "Rockin' Around"})
        for _ in range(target - loop.menu.highlight):
            loop.handle("right")
        loop.handle("push")
        assert reroll_with(loop) == "Rockin' Around"
        play_until(lambda: stored("reroll"))
        play_until(lambda: table.state.roll_number == 3)
        assert loop.refused == 0, [e.body["reason"] for e in table.entries if e.body.get("type") == "refused"]
        assert table.state.faces.count("BELL") >= bells_after_first
        assert len(stored("roll")) == 3 and len(stored("reroll")) == 1


def test_a_whole_game_at_the_synthetic_table_is_played_without_a_refusal(jbr_reader, tmp_path):
    """Five rounds for two players with re-roll characters, at the synthetic table: after each
    turn's first roll the first re-roll on the menu is announced, and the third roll is scored.
    The players throw what the game asks for, so the rules refuse nothing and every announced
    re-roll is played. A die check is answered with the die lying there (as a player would);
    a roll stored without one is what lay there."""
    with synthetic_run(tmp_path, characters={"Ann": "Frosty", "Ben": "Holly Daze"}) as (
            table, loop, camera, play_until):
        announced, unchecked_wrong = 0, []
        while not table.state.is_over:
            state, events = table.state, len(table.session.events)
            if state.roll_number == 3:
                loop.handle("score")
                while loop.wizard is not None:
                    loop.handle("push")
                continue
            if state.roll_number == 1 and state.rerolls_available() and not state.turn.ability_used \
                    and not any(e["type"] == "reroll" for e in table.session.events[-1:]):
                loop.handle("push")
                values = [item.value for item in loop.menu.items]
                target = next(i for i, v in enumerate(values) if isinstance(v, dict) and v["type"] == "reroll")
                for _ in range(target - loop.menu.highlight):
                    loop.handle("right")
                loop.handle("push")
                announced += 1
            checked = []

            def answer_with_what_lies_there():
                pending = loop.pending                      # the die asked about, as a player sees it
                die = pending.flagged[0]
                x, y, _ = pending.spots[die]
                face = min(camera.truth.dice, key=lambda d: (d.x - x) ** 2 + (d.y - y) ** 2).face
                checked.append(die)
                loop.handle(f"face:{die + 1}:{face}")

            play_until(lambda: len(table.session.events) > events, check=answer_with_what_lies_there)
            if not checked and Counter(table.state.faces) != Counter(camera.truth.faces):
                unchecked_wrong.append((table.state.faces, camera.truth.faces))
        kinds = Counter(e["type"] for e in table.session.events)
        assert loop.refused == 0, [e.body for e in table.entries if e.body.get("type") == "refused"]
        assert kinds["score"] == 10 and kinds["reroll"] == announced >= 5
        assert unchecked_wrong == []
