"""The christmas-romance demo's player and report (host/fate_demo.py). The full demo on the
synthetic camera is `dicewatch demo --game christmas-romance`; here a scripted camera
hands the loop its reads (with misreads) so a whole game runs in a moment."""
from __future__ import annotations

import random

from host.demo_table import ScriptedCamera, SimClock
from host.fate_demo import DEMO_MOVIE, FateDemo
from host.session_store import SessionStore
from rules import get_game
from vision.roll import Die, Roll


class MisreadingCamera(ScriptedCamera):
    """The scripted camera, but throw 3, 6, 9.. read die 1 wrong with low confidence, throw 4, 8..
    read it wrong with full confidence, and throw 5, 10.. miss a die (the box must ask again)."""

    def show_throw(self, thrown, keep_after, hover=False):
        super().show_throw(thrown, keep_after, hover)
        self.throws = getattr(self, "throws", 0) + 1
        kind, roll = self.frames[-1]
        first = roll.dice[0]
        wrong = "FACE-6" if first.face != "FACE-6" else "FACE-2"
        if self.throws % 5 == 0 and len(roll.dice) > 1:
            dice = roll.dice[1:]
        elif self.throws % 4 == 0:
            dice = (Die(wrong, 0.97, first.x, first.y, first.w, first.h),) + roll.dice[1:]
        elif self.throws % 3 == 0:
            dice = (Die(wrong, 0.41, first.x, first.y, first.w, first.h),) + roll.dice[1:]
        else:
            return
        self.frames[-1] = (kind, Roll(dice=dice, dice_set="christmas-romance"))


def play(tmp_path, mode="solo", players=("Holly",), seed=3, **kw):
    store = SessionStore(tmp_path / "s.db")
    table = store.create(get_game("christmas-romance"), {"mode": mode, "players": list(players), **DEMO_MOVIE})
    demo = FateDemo(table, out=tmp_path / "out", size=(250, 122), rng=random.Random(seed), quiet=True,
                    camera=MisreadingCamera(SimClock()), **kw)
    demo.play()
    demo.loop.shutdown()
    return store, table, demo


def test_a_whole_solo_game_with_every_misread_reported(tmp_path, capsys):
    store, table, demo = play(tmp_path)
    try:
        state = table.state
        assert state.phase == "over"
        out = capsys.readouterr().out
        assert "fate rolls 10 dice (read by the camera)" in out
        assert len(demo.stats.fate_rolls) == state.fate_rolls > 0
        report = demo.report(1.0)
        kinds = {m.how for m in demo.stats.misreads}
        assert {"flagged, corrected with the knob", "read with confidence, corrected from the menu",
                "the box asked again; the dice entered with the knob"} <= kinds
        typed = sum(1 for m in demo.stats.misreads if not m.die)
        assert report.count("MISREAD") == len(demo.stats.misreads) - typed   # dice read wrong
        assert report.count("ENTERED BY HAND") == typed > 0                  # throws typed in with the knob
        # the misreads were put right: every accepted die is what was thrown
        notes = [e.body["type"] for e in table.entries if e.kind == "note"]
        assert notes.count("typed-roll") == sum(1 for m in demo.stats.misreads if not m.die)
        assert "a big-city pastry chef and the widowed innkeeper meet cute" in report.lower()
        pngs = sorted((tmp_path / "out").glob("screen-*.png"))
        assert len(pngs) > 20 and "sleep" in pngs[-1].name
        titles = [s.title for s in demo.recorder.screens]
        assert any(t.startswith("Fate rolls") for t in titles) and any(t.startswith("Our movie") for t in titles)
        bars = [s.bar for s in demo.recorder.statuses]
        assert max(bars) <= 10 and bars[-2] == state.snowflakes_frozen   # the last is the shutdown (all off)
    finally:
        store.close()


def test_virtual_fate_in_the_demo_is_rolled_by_the_box_from_logged_seeds(tmp_path):
    store, table, demo = play(tmp_path, virtual_fate=True, seed=5)
    try:
        fate_events = [e for e in table.session.events if e["type"] == "fate_roll"]
        assert fate_events and all(set(e) == {"type", "seed"} for e in fate_events)
        assert table.state.phase == "over"
    finally:
        store.close()


def test_a_coop_demo_rolls_fate_once_a_round(tmp_path):
    store, table, demo = play(tmp_path, mode="coop", players=("Holly", "Noel"), seed=8)
    try:
        events = [e["type"] for e in table.session.events]
        ends = events.count("end_turn")
        assert table.state.phase == "over"
        assert events.count("fate_roll") in (ends // 2, (ends + 1) // 2)
        assert "fate_choice" not in events and "melt" not in events
    finally:
        store.close()


def test_fate_filmed_by_the_synthetic_camera_is_stored_as_thrown(dicewatch_home, tmp_path):
    """One solo turn and fate's roll through the real settle gate and christmas-romance reader:
    whatever the reader gets wrong is caught (flagged, asked again, corrected), so the stored
    fate roll is exactly what was thrown."""
    from host.fate_demo import make_fate_camera
    from vision.dicesets import load_reader
    load_reader("christmas-romance", dicewatch_home)   # in the tree: failing to load it fails the test
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(get_game("christmas-romance"), {"mode": "solo", "players": ["Holly"]})
        clock = SimClock()
        rng = random.Random(2)
        camera, note = make_fate_camera(clock, rng)
        assert not note, note
        demo = FateDemo(table, out=tmp_path / "out", size=(250, 122), rng=rng, quiet=True, camera=camera)
        demo.loop.start()
        demo.play_turn()
        fate = [e for e in table.session.events if e["type"] == "fate_roll"]
        assert len(fate) == 1 and len(fate[0]["faces"]) == 10
        thrown = demo.stats.fate_rolls[0]
        assert fate[0]["faces"].count("SNOWFLAKE") == thrown[1] == table.state.snowflakes_frozen
        assert camera.watcher.dice_reads >= 2     # the player's throw and fate's were read from frames


def test_without_a_camera_the_demo_films_with_the_synthetic_one(tmp_path):
    """The default path of `dicewatch demo --game christmas-romance`: the demo makes its own
    camera and the loop watches that camera's frames."""
    store = SessionStore(tmp_path / "s.db")
    table = store.create(get_game("christmas-romance"), {"mode": "solo", "players": ["Holly"], **DEMO_MOVIE})
    demo = FateDemo(table, out=tmp_path / "out", size=(250, 122), rng=random.Random(3), quiet=True)
    assert demo.camera is not None and demo.camera.clock is demo.clock
    assert demo.loop.watcher == demo.camera.watch
    store.close()


def test_turn_lines_never_say_there_is_no_romance_card_while_placing_on_it(tmp_path, capsys):
    """side.romance is the *completed* romance card: a turn that places dice on the romance
    card must not end with 'no romance card yet'."""
    store, table, demo = play(tmp_path)
    try:
        lines = capsys.readouterr().out.splitlines()
        placing = [line for line in lines if "on the romance card" in line]
        assert placing
        assert not any("no romance card" in line for line in placing)
        assert any("romance card not done yet" in line for line in placing)
    finally:
        store.close()
