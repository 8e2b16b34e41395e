"""The demo's players and report (the full synthetic-camera demo is `dicewatch demo`, timed by host/bench.py)."""
from __future__ import annotations

import random

import pytest

from host.demo_table import DemoTable, ScriptedCamera, SimClock, keep_plan
from host.session_store import SessionStore
from rules import get_game
from vision.roll import Die, Roll


def test_keep_plan_keeps_bells_pairs_and_two_lists():
    faces = ["BELL", "MILK", "COOKIE", "LIST", "LIST", "LIST", "GIFT"]
    assert keep_plan(faces, 1) == [0, 1, 2, 3, 4]
    assert keep_plan(faces, 3) is None            # no fourth roll
    assert keep_plan(["BELL"] * 6 + ["GIFT"], 1) is None  # six kept: score now


class MisreadingCamera(ScriptedCamera):
    """The scripted camera, but every third throw reads the first die wrong with low confidence."""

    def show_throw(self, thrown, keep_after, hover=False):
        super().show_throw(thrown, keep_after, hover)
        kind, roll = self.frames[-1]
        if self.count % 3 == 0:
            first = roll.dice[0]
            wrong = "GIFT" if first.face != "GIFT" else "LIST"
            dice = (Die(wrong, 0.42, first.x, first.y, first.w, first.h),) + roll.dice[1:]
            self.frames[-1] = (kind, Roll(dice=dice, dice_set=roll.dice_set))


def test_a_whole_demo_game_with_misreads_reported(tmp_path):
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben", "Cy"]})
        clock = SimClock()
        demo = DemoTable(table, out=tmp_path / "out", size=(250, 122), rng=random.Random(4), quiet=True,
                         camera=MisreadingCamera(clock))
        demo.play()
        demo.loop.shutdown()
        state = table.state
        assert state.is_over
        assert len(state.history) == 15 or state.instant_win
        report = demo.report(1.0)
        assert f"check: all {len(demo.stats.thrown)} stored rolls match what was thrown" in report
        assert "MISREAD" in report and "flagged, corrected with the knob" in report
        assert demo.stats.flagged >= len(demo.stats.misreads) > 0
        corrections = [e for e in table.entries if e.kind == "note" and e.body.get("type") == "correction"]
        assert len(corrections) == len(demo.stats.misreads)
        # the BELL thrown again by mistake in round 2 was refused, and noted in the journal
        assert demo.stats.slips == 1
        refused = [e.body for e in table.entries if e.kind == "note" and e.body.get("type") == "refused"]
        assert any("BELL cannot be re-rolled" in note["reason"] for note in refused)
        pngs = sorted((tmp_path / "out").glob("screen-*.png"))
        assert len(pngs) > 20 and "sleep" in pngs[-1].name
        assert any("scoreboard" in p.name for p in pngs[-3:])  # the final scoreboard was shown


def test_misread_corrections_pair_each_wrong_face_with_a_missing_one():
    from host.demo_table import misread_corrections
    assert misread_corrections(["BELL", "GIFT", "GIFT"], ["BELL", "GIFT", "MILK"]) == [(1, "GIFT", "MILK")]
    assert misread_corrections(["LIST", "LIST", "BELL"], ["MILK", "COOKIE", "BELL"]) == [
        (0, "LIST", "MILK"), (1, "LIST", "COOKIE")]
    assert misread_corrections(["BELL", "MILK"], ["MILK", "BELL"]) == []


def test_a_demo_camera_without_a_data_folder_cleans_up_its_scratch_set():
    """Tests and benchmarks film a demo game without a data folder: the set taught at the
    camera goes to a scratch folder that is removed with the camera, not left in /tmp."""
    import gc

    from host.demo_table import make_camera
    camera, note = make_camera(SimClock(), random.Random(5))
    assert not note, note          # the reader and calibration are in the tree: a filmed game, not the stand-in
    scratch = camera.data
    assert (scratch / "dice").is_dir() or any(scratch.iterdir())   # the taught set is there
    del camera
    gc.collect()
    assert not scratch.exists()


@pytest.mark.parametrize("size, says", [("100000x100000", "panels go from 200x100 to 1600x1200"),
                                        ("100x50", "panels go from 200x100"), ("big", "expected WIDTHxHEIGHT")])
def test_a_panel_size_out_of_range_is_refused_before_the_game(capsys, tmp_path, size, says):
    from host import cli
    assert cli.main(["demo", "--size", size, "--out", str(tmp_path / "out")]) == 2
    assert says in capsys.readouterr().err
