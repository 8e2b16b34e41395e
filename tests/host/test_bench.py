"""host/bench.py: the device path is timed as the device reads a calibrated tray."""
from __future__ import annotations

from host import bench
from vision import dicesets


def test_the_benchmark_reads_the_dice_with_the_calibrated_trays_finder(monkeypatch):
    def no_pip_finder():
        raise AssertionError("the device reads a calibrated tray without the pip finder")

    monkeypatch.setattr(dicesets, "_finder_net", no_pip_finder)
    timings = bench.bench_path(3, (250, 122))
    counted, right, reads = timings["_reads"]
    assert reads == 3 and counted == 3 and right == 3
    assert all(len(timings[stage]) == 3 for stage in bench.STAGES)


def test_the_whole_game_presses_what_a_player_would():
    """host.bench plays `dicewatch run` at its terminal: Score once a roll is shown, Next on a
    question, a die to check or an error, nothing while the table waits for the dice."""
    roll = "[roll] Ann · Roll 1 of 3\n  dice 1:GIFT 2:BELL\n  = 7 pts\n  (next: Roll 2 of 3, or press Score)\n"
    assert bench.key_for(roll) == "s"
    assert bench.key_for("[menu] Score 9 points?\n> Yes, score 9\n") == "n"
    assert bench.key_for("[prompt] Check die 7\n  is it MILK? turn the knob to change, push to confirm\n") == "n"
    assert bench.key_for("[error] I see 6 dice\n  Next or Undo: back to the game\n") == "n"
    assert bench.key_for("[scoreboard] Round 1 of 5\n  (Ben: Roll 1 of 3)\n") is None
    assert bench.key_for("[prompt] Ann scores 9\n  (Next: the scoreboard)\n") is None


def test_the_game_is_followed_in_its_database_beside_the_box(tmp_path):
    from host.session_store import SessionStore
    from rules import get_game
    from vision.roll import Die, Roll
    from host.loop import TableLoop

    database = tmp_path / "sessions.db"
    assert bench.progress(database) == (False, 0)
    with SessionStore(database) as store:
        table = store.create(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben"]})
        loop = TableLoop(table, ask_setup=False)
        loop.on_read(Roll(dice=tuple(Die(f, 1.0, 20.0 * i, 10.0, 10.0, 10.0) for i, f in
                                     enumerate(["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "GIFT"])),
                          dice_set="jingle-bell-roll"))
        assert bench.progress(database) == (False, 1)
        table.close()
        assert bench.progress(database) == (True, 1)
