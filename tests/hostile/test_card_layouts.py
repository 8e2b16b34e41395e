"""Hostile card layouts and placed dice (issue 56, "rules that a file can bend"): a layout may
never bend the rulebook (stage N needs N + 3 dice; a Christmas romance card has four
locations), and `place --placed` only takes a card the rules could have built."""
from __future__ import annotations

import pytest

from tests.hostile import run_cli
from rules import get_game, placement as pl
from rules.core import RuleError, Session

S, F2, F3, F4 = "SNOWFLAKE", "FACE-2", "FACE-3", "FACE-4"


@pytest.mark.parametrize("stage", [1, 2, 3, 4, 5])
def test_a_stage_layout_may_raise_the_dice_count_never_lower_it(stage):
    grid = " ".join(["?"] * 9)
    rulebook = stage + 3
    for needs in (1, rulebook - 1):
        with pytest.raises(pl.LayoutError, match=f"needs {rulebook} dice .* never fewer, got {needs}"):
            pl.parse_layout(f"kind: stage\nstage: {stage}\nneeds: {needs}\ndice:\n {grid}\n", "mine.layout")
    assert pl.parse_layout(f"kind: stage\nstage: {stage}\nneeds: {rulebook + 1}\ndice:\n {grid}\n").needs == rulebook + 1
    assert pl.parse_layout(f"kind: stage\nstage: {stage}\ndice:\n {grid}\n").needs == rulebook


def test_a_game_set_up_with_a_lowering_layout_is_refused():
    low = {"layout": "kind: stage\nstage: 1\nneeds: 1\ndice:\n ? ? ? ?\n"}
    with pytest.raises(RuleError, match="stage 1 card needs 4 dice"):
        Session(get_game("christmas-romance"), {"mode": "solo", "players": ["Ann"],
                                                  "stage_cards": [low] + ["s2", "s3", "s4", "s5"]})


@pytest.mark.parametrize("grid, count", [("? ? ?", 3), ("? ? ? ? ?", 5), ("1", 1)])
def test_a_romance_card_has_four_locations(grid, count, capsys, tmp_path):
    with pytest.raises(pl.LayoutError, match=f"has 4 dice locations .* this grid has {count}"):
        pl.parse_layout(f"kind: romance\ndice:\n {grid}\n")
    card = tmp_path / "romance.layout"
    card.write_text(f"kind: romance\nreward: 1\ndice:\n {grid}\n")
    code, out, err = run_cli(capsys, "place", str(card), "--roll", "1")
    assert code == 1 and out == "" and f"{card}:3: a Christmas romance card has 4 dice locations" in err
    with pytest.raises(pl.LayoutError, match="completed by its 4 dice, got 3"):
        pl.parse_layout("kind: romance\nneeds: 3\ndice:\n ? ? ? ?\n")


@pytest.mark.parametrize("placed, says", [
    (["1,1=SNOWFLAKE", "1,1=SNOWFLAKE"], "row 1, column 1 is given twice"),
    (["1,1=SNOWFLAKE", "1,1=2"], "given twice (it already holds a SNOWFLAKE)"),
    (["1,1=SNOWFLAKE", "3,2=3"], "row 3, column 2 touches none of the others"),
    (["1,2=2"], "touching unmarked locations are filled together"),
    (["1,2=2", "1,3=3"], "filled together with dice of one face"),
    (["1,1=1", "1,2=2", "1,3=2", "2,2=2", "3,2=3"], "complete with 4 dice; 5 are given"),
    (["2,1=2"], "row 2, column 1 is not a dice location"),
    (["1,1=2"], "takes a SNOWFLAKE, not a FACE-2"),
    (["100,1=2"], "expected ROW,COL=FACE (1 to 99)"),
    (["0,1=2"], "expected ROW,COL=FACE"),
])
def test_placed_dice_the_rules_could_not_have_put_there_are_refused(placed, says, capsys):
    argv = ["place", "stage1-meet-cute", "--roll", "3"]
    for item in placed:
        argv += ["--placed", item]
    code, out, err = run_cli(capsys, *argv)
    assert code in (1, 2) and out == "" and says in err


def test_a_roll_never_fills_more_than_the_card_needs():
    card = pl.parse_layout("kind: stage\nstage: 1\ndice:\n 2 2 2 2 2 2\n")
    placed = {(0, 0): F2, (0, 1): F2, (0, 2): F2}
    options = pl.legal_placements(card, placed, [F2, F2, F2])
    assert options and max(len(o) for o in options) == 1
    with pytest.raises(pl.PlacementError, match="room for 1 more, not 2"):
        pl.check_placement(card, placed, {(0, 3): F2, (0, 4): F2})
    done = {**placed, (0, 3): F2}
    assert pl.legal_placements(card, done, [F2]) == []
