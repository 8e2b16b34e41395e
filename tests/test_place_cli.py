"""`dicewatch place`: legal placements of a roll on a card, from a layout file or example."""
from __future__ import annotations

import json

from host import cli


def run(capsys, *argv):
    code = cli.main(["place", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_builtin_example_lists_placements_and_suggests_the_biggest(capsys):
    code, out, err = run(capsys, "stage1-meet-cute", "--roll", "SNOWFLAKE,FACE-2,FACE-2,FACE-3")
    assert code == 0, err
    assert "meet cute (stage 1, 0/4 dice placed)" in out
    assert "6 legal placements:" in out
    assert ("suggested (fills the most locations, 3): SNOWFLAKE at row 1 col 1, FACE-2 at row 1 col 2, "
            "FACE-2 at row 1 col 3") in out
    assert "*SNOWFLAKE*" in out


def test_placed_dice_and_json(capsys):
    code, out, _ = run(capsys, "stage1-meet-cute", "--roll", "3,4", "--placed", "2,2=2", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["suggestion"] == [{"row": 3, "col": 2, "face": "FACE-3"},
                                    {"row": 3, "col": 3, "face": "FACE-4"}]
    assert all(len(p) >= 1 for p in result["placements"])
    # every legal placement, biggest first: FACE-4 alone at row 3 col 3 touches no die on the card
    assert result["placements"] == [[{"row": 3, "col": 2, "face": "FACE-3"}, {"row": 3, "col": 3, "face": "FACE-4"}],
                                    [{"row": 3, "col": 2, "face": "FACE-3"}]]


def test_no_legal_placement_is_said_plainly(capsys):
    code, out, _ = run(capsys, "stage1-meet-cute", "--roll", "FACE-4", "--placed", "1,1=SNOWFLAKE")
    assert code == 0
    assert "no legal placement" in out


def test_a_bad_layout_file_names_file_line_and_expectation(capsys, tmp_path):
    card = tmp_path / "mine.layout"
    card.write_text("kind: stage\nstage: 2\ndice:\n  ? ? 2\n  . HEART .\n")
    code, out, err = run(capsys, str(card), "--roll", "2")
    assert code == 1 and out == ""
    assert f"{card}:5: grid column 2: expected '.', '?', a face" in err
    assert "got 'HEART'" in err


def test_a_missing_card_lists_the_builtin_examples(capsys, tmp_path):
    code, _, err = run(capsys, str(tmp_path / "nope.layout"), "--roll", "2")
    assert code == 1
    assert "no such layout file" in err and "stage1-meet-cute" in err


def test_bad_flags_are_usage_errors(capsys):
    code, _, err = run(capsys, "stage1-meet-cute", "--roll", "2,HEART")
    assert code == 2 and "'HEART' is not a face" in err
    code, _, err = run(capsys, "stage1-meet-cute", "--roll", "2", "--placed", "1=2")
    assert code == 2 and "expected ROW,COL=FACE" in err
    code, _, err = run(capsys, "stage1-meet-cute", "--roll", "2", "--placed", "2,1=2")
    assert code == 1 and "row 2, column 1 is not a dice location on meet cute" in err


def test_faces_renamed_in_the_config_file(capsys, dicewatch_home):
    (dicewatch_home / "config.toml").write_text(
        '[dice.christmas-romance]\nfaces = ["FLAKE", "TREE", "MUG", "SLED", "GIFT", "STAR"]\n')
    code, out, _ = run(capsys, "romance-tree-lighting", "--roll", "TREE,MUG,MUG")
    assert code == 0
    assert "TREE at row 1 col 1, MUG at row 1 col 2, MUG at row 1 col 3" in out
    code, out, _ = run(capsys, "romance-tree-lighting", "--roll", "FACE-2")   # default names still work
    assert code == 0 and "TREE at row 1 col 1" in out


def test_a_bad_faces_entry_in_the_config_names_its_line(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('# mine\n[dice.christmas-romance]\nfaces = ["A", "B"]\n')
    code, _, err = run(capsys, "romance-tree-lighting", "--roll", "2", "--config", str(config))
    assert code == 1
    assert f"{config}:3: [dice.christmas-romance] faces: expected six different names" in err


def test_a_dice_entry_that_is_not_a_table_names_its_line(capsys, tmp_path):
    config = tmp_path / "config.toml"
    for text, where in (("dice = 3\n", ":1: dice: expected tables such as [dice.christmas-romance]"),
                        ("[dice]\nchristmas-romance = 3\n", ":2: [dice] christmas-romance: expected a table")):
        config.write_text(text)
        code, _, err = run(capsys, "romance-tree-lighting", "--roll", "2", "--config", str(config))
        assert code == 1 and f"{config}{where}" in err, err


def test_a_movie_element_shows_its_trade_and_how_the_roll_can_pay(capsys):
    code, out, _ = run(capsys, "element-small-town-bakery", "--roll", "2,2,3,3,4")
    assert code == 0
    assert "trade: ? ? -> deferred" in out
    assert "pay with FACE-2, FACE-2" in out and "pay with FACE-3, FACE-3" in out
    code, out, _ = run(capsys, "element-small-town-bakery", "--roll", "2,3")
    assert "this roll cannot pay the trade" in out
