"""Dark Romance's win board as data, and `dicewatch win-board` (what a board file lacks, and
whether a completed one is right)."""
from __future__ import annotations

import json
import tomllib

import pytest

from host.cli import main
from host.commands.win_board import key_lines, read_board
from rules.core import Session
from rules.dark_romance import GAME
from rules.dark_romance_board import COINS, SIDES, STATED, BoardError, cell, check_board, missing

SHIPPED_MISSING = {"tutorial": 4, "advanced": 18}


def complete_board() -> dict:
    """Every cell filled: the stated ones, and for the rest a coin the text does not rule out."""
    board = {side: {row: dict(cells) for row, cells in rows.items()} for side, rows in STATED.items()}
    for side, families in SIDES.items():
        for row, column in missing(STATED, side):
            board[side].setdefault(row, {})[column] = "romance" if row == column else "temptation"
    return board


def as_toml(board: dict) -> str:
    return "".join(f"[{side}.{row}]\n" + "".join(f'{column} = "{coin}"\n' for column, coin in cells.items())
                   for side, rows in board.items() for row, cells in rows.items())


def test_the_stated_cells_and_the_counts_of_the_rulebook():
    assert {side: len(families) ** 2 for side, families in SIDES.items()} == {"tutorial": 9, "advanced": 25}
    assert {side: len(missing(STATED, side)) for side in SIDES} == SHIPPED_MISSING
    assert cell(STATED, "tutorial", "vampiress", "count") == "temptation"
    assert cell(STATED, "tutorial", "vampiress", "demon-huntress") == "rejection"
    assert cell(STATED, "advanced", "vampiress", "vampire") == "romance"
    assert cell(STATED, "advanced", "count", "countess") == cell(STATED, "advanced", "countess", "count") == "romance"
    assert cell(STATED, "advanced", "demon-huntress", "countess") == "rejection"
    assert cell(STATED, "advanced", "vampiress", "swindler") == "temptation"
    assert cell(STATED, "advanced", "tragic-poet", "swindleress") == "manipulation"
    assert cell(STATED, "advanced", "swindler", "vampiress") is None        # the Swindler's own needs: unknown
    assert "manipulation" not in {c for rows in STATED["tutorial"].values() for c in rows.values()}


@pytest.mark.parametrize("table, key, message", [
    ({"expert": {}}, "expert", "unknown side"),
    ({"tutorial": {"swindlers": {}}}, "tutorial.swindlers", "unknown row"),
    ({"advanced": {"counts": {"kings": "romance"}}}, "advanced.counts.kings", "unknown opponent"),
    ({"tutorial": {"counts": {"vampires": "manipulation"}}}, "tutorial.counts.vampires", "expected one of the coins"),
    ({"advanced": {"counts": {"vampires": 3}}}, "advanced.counts.vampires", "expected one of the coins"),
    ({"advanced": {"swindlers": {"vampires": "manipulation"}}}, "advanced.swindlers.vampires", "Manipulation gives"),
    ({"advanced": {"counts": {"demon-hunters": "boldness"}}}, "advanced.counts.demon-hunters", "stacked example"),
    ({"advanced": "yes"}, "advanced", "expected a table of rows"),
])
def test_a_bad_board_names_the_key_and_what_was_expected(table, key, message):
    with pytest.raises(BoardError, match=message) as err:
        check_board(table)
    assert err.value.key == key


def test_a_bad_board_in_the_setup_is_a_clear_rule_error():
    with pytest.raises(Exception, match=r"win_board\.advanced\.counts\.kings: unknown opponent"):
        GAME.setup({"players": ["Mary", "Edgar"], "win_board": {"advanced": {"counts": {"kings": "romance"}}}})


def test_key_lines_find_headers_and_keys():
    text = '# c\n[advanced.counts]  # row\ncounts = "romance"\n\n[ "advanced" . "swindlers" ]\nvampires = "x"\n'
    lines = key_lines(text)
    assert lines["advanced.counts"] == 2 and lines["advanced.counts.counts"] == 3
    assert lines["advanced.swindlers.vampires"] == 6


def test_read_board_reports_the_line_of_a_bad_cell():
    text = '[advanced.counts]\ncounts = "romance"\n[advanced.swindlers]\nvampires = "manipulation"\n'
    with pytest.raises(ValueError, match=r"^b\.toml:4: advanced\.swindlers\.vampires: cannot be 'manipulation'"):
        read_board(text, "b.toml")
    with pytest.raises(ValueError, match=r"^b\.toml: not valid TOML: .*line 1"):
        read_board("[advanced\n", "b.toml")


def test_the_command_lists_the_shipped_boards_missing_cells(capsys):
    assert main(["win-board"]) == 0
    out = capsys.readouterr().out
    assert "tutorial side (scenario 1): 5 of 9 cells filled, 4 missing:" in out
    assert "advanced side (scenario 2 and up): 7 of 25 cells filled, 18 missing:" in out
    assert "[advanced.swindlers]\ncounts = ?    # what the Swindler/Swindleress needs against the Count/Countess\n" \
        "vampires = ?    # what the Swindler/Swindleress needs against the Vampire/Vampiress\n" in out
    assert main(["win-board", "--json", "--side", "advanced"]) == 0
    listed = json.loads(capsys.readouterr().out)["missing"]
    assert len(listed) == 18 and {"side": "advanced", "row": "swindlers", "column": "vampires"} in listed
    assert main(["win-board", "--complete"]) == 1
    assert "22 cell(s) missing" in capsys.readouterr().err


def test_uncommenting_a_cell_of_the_shipped_file_fills_it(tmp_path, capsys):
    from importlib import resources
    text = (resources.files("rules") / "data" / "dark-romance-win-board.toml").read_text()
    text = text.replace('# swindlers = ""                  # unknown: against the Swindler/Swindleress',
                        'swindlers = "boldness"', 1)
    path = tmp_path / "board.toml"
    path.write_text(text)
    assert main(["win-board", str(path), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["missing"]) == 21


def test_a_completed_file_passes_and_becomes_a_config_table(tmp_path, capsys):
    path = tmp_path / "board.toml"
    path.write_text(as_toml(complete_board()))
    assert main(["win-board", str(path), "--complete"]) == 0
    assert "complete" in capsys.readouterr().out
    assert main(["win-board", str(path), "--config"]) == 0
    config = tomllib.loads(capsys.readouterr().out)
    board = GAME.read_options(config["dark-romance"])["win_board"]
    assert board == complete_board()
    state = Session(GAME, {"players": ["Mary", "Edgar"], "scenario": 3, "win_board": board}).state
    assert len(state.rules.board) == 25


@pytest.mark.parametrize("text, expected", [
    ('[advanced.counts]\nvampires = "love"\n', "board.toml:2: advanced.counts.vampires: expected one of the coins"),
    ('[advanced.counts]\nvampires = ""\n', "board.toml:2: advanced.counts.vampires: expected one of the coins"),
    ('[advanced.kings]\n', "board.toml:1: advanced.kings: unknown row"),
    ('[advanced.counts]\ncounts = "romance"\n[advanced.counts]\n', "not valid TOML"),
])
def test_a_bad_file_is_one_clear_line_and_exit_1(tmp_path, capsys, text, expected):
    path = tmp_path / "board.toml"
    path.write_text(text)
    assert main(["win-board", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert expected in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_a_missing_file_is_said_so(tmp_path, capsys):
    assert main(["win-board", str(tmp_path / "nope.toml")]) == 1
    assert "nope.toml: no such file" in capsys.readouterr().err


def test_every_coin_is_offered_for_the_advanced_side():
    assert set(COINS) == {"romance", "temptation", "rejection", "boldness", "manipulation"}
