"""host/bench_games.py: whole games at the synthetic table, counted as they were played."""
from __future__ import annotations

import pytest

from host import bench_games
from host.dice_check import DiceCheck
from vision.roll import Die


class _Loop:
    def __init__(self, pending):
        self.pending, self.commands = pending, []

    def handle(self, command):
        self.commands.append(command)


def test_a_die_check_is_answered_with_the_die_lying_there():
    """Die 2 read as GIFT, unsure, at (50, 10): the die lying there is a BELL. Dice entered by
    hand (no places) get the face the sure dice leave over."""
    on_table = [Die("BELL", 1.0, 10, 10, 20, 20), Die("BELL", 1.0, 52, 11, 20, 20), Die("MILK", 1.0, 90, 10, 20, 20)]
    loop = _Loop(DiceCheck.of(["BELL", "GIFT", "MILK"], [0.99, 0.4, 0.98], flagged=[1],
                         spots=[(10, 10, 20), (50, 10, 20), (90, 10, 20)]))
    assert bench_games.answer_check(loop, on_table) is False   # the read was wrong: corrected
    assert loop.commands == ["face:2:BELL"]
    loop = _Loop(DiceCheck.of(["MILK", "GIFT", "?"], [0.99, 0.4, 0.0], flagged=[1, 2], by_hand=True))
    bench_games.answer_check(loop, on_table)
    assert loop.commands == ["face:2:BELL"]
    loop = _Loop(DiceCheck.of(["BELL", "BELL", "MILK"], [0.99, 0.4, 0.98], flagged=[1],
                         spots=[(10, 10, 20), (50, 10, 20), (90, 10, 20)]))
    assert bench_games.answer_check(loop, on_table) is True    # read right, only confirmed


def test_reads_are_counted_against_the_dice_on_the_table_and_by_confidence():
    """A read of three dice: a BELL right and sure, a MILK read as GIFT unsure, and a false
    find; the tallies of two games add up, and the table says what each threshold takes."""
    from vision.bench.scoring import Tally
    from vision.roll import Roll

    on_table = [Die("BELL", 1.0, 10, 10, 20, 20), Die("MILK", 1.0, 60, 10, 20, 20)]
    read = Roll(dice=(Die("BELL", 0.97, 11, 10, 20, 20), Die("GIFT", 0.6, 59, 12, 20, 20),
                      Die("LIST", 0.3, 200, 200, 20, 20)), dice_set="jingle-bell-roll")
    one, two = Tally(), Tally()
    bench_games.tally_read(one, read, on_table)
    bench_games.tally_read(two, read, on_table)
    one += two
    assert (one.images, one.labelled, one.predicted, one.matched, one.right) == (2, 4, 6, 4, 2)
    assert one.confusion["MILK"]["GIFT"] == 2 and one.confusion["none"]["LIST"] == 2
    lines = bench_games.reliability_lines(one, thresholds=(0.5, 0.9))
    assert "read right 50.0%" in lines[0] and "finds that were dice 66.7%" in lines[0]
    assert lines[2].split("|")[1].split()[0] == "4" and lines[2].strip().endswith("50.00%")   # >= 0.5
    assert lines[3].split("|")[1].split()[0] == "2" and lines[3].strip().endswith("100.00%")  # >= 0.9


def test_a_fate_game_is_played_to_the_end_and_counted(tmp_path):
    figures = bench_games.play("fate-solo", 11, tmp_path)
    assert figures.finished and not figures.stuck
    assert figures.refused == 0 and figures.misread == []
    assert figures.events["fate_roll"] >= 1 and figures.events["roll"] == figures.events["end_turn"]
    assert figures.taught[0] >= 0.9 * figures.taught[1] > 0
    assert figures.checked_right <= figures.checked <= figures.dice_stored
    assert 0 < figures.checked_reads <= figures.checked
    assert figures.reads.images >= figures.events["roll"] and figures.reads.labelled > 0
    assert figures.dice_stored >= 3 * figures.events["roll"] + figures.events["fate_roll"]
    assert "played to the end" in figures.line()
    # the next game at the same table plays on with what the first taught the set
    from vision import dicesets, learning
    folder = dicesets.load_set("christmas-romance", tmp_path / "fate-solo-11").folder
    learned = learning.ExampleStore.of_set(folder)
    assert learned.examples and learned.outcomes
    second = bench_games.play("fate-solo", 11, tmp_path, table_game=1)
    assert second.finished and second.misread == [] and second.taught == figures.taught
    assert "game 2 played to the end" in second.line()
    assert len(learning.ExampleStore.of_set(folder).outcomes) > len(learned.outcomes)


@pytest.mark.parametrize("argv, message", [(["--games", "chess"], "invalid choice: 'chess'"),
                                           (["--seeds", "x"], "invalid int value: 'x'"),
                                           (["--games-per-table", "0"], "--games-per-table 0: expected a whole number from 1 up")])
def test_bad_flags_say_what_was_expected(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        bench_games.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
