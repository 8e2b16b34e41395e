"""host/bench_games.py: whole games at the synthetic table, counted as they were played."""
from __future__ import annotations

import pytest

from host import bench_games
from host.loop import Pending
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
    loop = _Loop(Pending(["BELL", "GIFT", "MILK"], [0.99, 0.4, 0.98], flagged=[1],
                         spots=[(10, 10, 20), (50, 10, 20), (90, 10, 20)]))
    assert bench_games.answer_check(loop, on_table) is False   # the read was wrong: corrected
    assert loop.commands == ["face:2:BELL"]
    loop = _Loop(Pending(["MILK", "GIFT", "?"], [0.99, 0.4, 0.0], flagged=[1, 2], by_hand=True))
    bench_games.answer_check(loop, on_table)
    assert loop.commands == ["face:2:BELL"]
    loop = _Loop(Pending(["BELL", "BELL", "MILK"], [0.99, 0.4, 0.98], flagged=[1],
                         spots=[(10, 10, 20), (50, 10, 20), (90, 10, 20)]))
    assert bench_games.answer_check(loop, on_table) is True    # read right, only confirmed


def test_a_fate_game_is_played_to_the_end_and_counted(tmp_path):
    figures = bench_games.play("fate-solo", 11, tmp_path)
    assert figures.finished and not figures.stuck
    assert figures.refused == 0 and figures.misread == []
    assert figures.events["fate_roll"] >= 1 and figures.events["roll"] == figures.events["end_turn"]
    assert figures.taught[0] >= 0.9 * figures.taught[1] > 0
    assert figures.checked_right <= figures.checked <= figures.dice_stored
    assert figures.dice_stored >= 3 * figures.events["roll"] + figures.events["fate_roll"]
    assert "played to the end" in figures.line()


@pytest.mark.parametrize("argv, message", [(["--games", "chess"], "invalid choice: 'chess'"),
                                           (["--seeds", "x"], "invalid int value: 'x'")])
def test_bad_flags_say_what_was_expected(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        bench_games.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
