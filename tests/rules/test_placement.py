"""Card layouts and the placement rules of Another Christmas Romance Movie [5. Place Dice]."""
from __future__ import annotations

import itertools
from importlib import resources

import pytest
from hypothesis import given, settings, strategies as st

from rules import placement as pl

S, F2, F3, F4 = "SNOWFLAKE", "FACE-2", "FACE-3", "FACE-4"


def layout(grid: str, kind: str = "element", stage: int = 1, needs: int | None = None) -> pl.Layout:
    head = f"kind: {kind}\n" + (f"stage: {stage}\n" if kind == "stage" else "")
    head += f"needs: {needs}\n" if needs else ""
    return pl.parse_layout(head + "dice:\n" + grid, "test.layout")


def builtin(name: str) -> pl.Layout:
    text = (resources.files("rules") / "layouts" / f"{name}.layout").read_text()
    return pl.parse_layout(text, name)


# --- the layout format ------------------------------------------------------------------

def test_builtin_examples_parse_and_say_they_are_invented():
    folder = resources.files("rules") / "layouts"
    names = [p.name for p in folder.iterdir() if p.name.endswith(".layout")]
    assert len(names) >= 4
    for name in names:
        text = (folder / name).read_text()
        assert "EXAMPLE LAYOUT, invented by dicewatch" in text
        card = pl.parse_layout(text, name)
        assert card.title and card.cells
    stage5 = builtin("stage5-merrily-ever-after")
    assert stage5.needs == 8 == len(stage5.cells)      # "all 8 dice for stage 5"
    romance = builtin("romance-tree-lighting")
    assert romance.kind == "romance" and len(romance.cells) == 4 and romance.reward == 2
    element = builtin("element-small-town-bakery")
    assert element.exchange == pl.Exchange(give=("?", "?"), get_deferred=1)


def test_grid_tokens_faces_numbers_unmarked_and_gaps():
    card = layout("  SNOWFLAKE ? .\n  . 2 face-3\n", kind="stage")
    assert card.locations == {(0, 0): S, (0, 1): None, (1, 1): F2, (1, 2): F3}
    assert card.needs == 4          # stage 1: 3 + 1


def test_face_numbers_follow_renamed_faces():
    faces = ("FLAKE", "TREE", "MUG", "SLED", "GIFT", "STAR")
    card = pl.parse_layout("kind: romance\ndice:\n 1 2 ? star\n", "x", faces)
    assert [f for _, f in card.cells] == ["FLAKE", "TREE", None, "STAR"]
    card = pl.parse_layout("kind: romance\ndice:\n SNOWFLAKE face-2 ? FACE-6\n", "x", faces)
    assert [f for _, f in card.cells] == ["FLAKE", "TREE", None, "STAR"]


@pytest.mark.parametrize("text, line, expected", [
    ("kind: stage\nstage: 1\ndice:\n 1 X\n", 4, "grid column 2"),
    ("kind: stage\ncolour: red\n", 2, "unknown key 'colour'"),
    ("kind: card\ndice:\n ?\n", 1, "kind: expected one of stage, romance, element"),
    ("title: no kind\ndice:\n ?\n", 1, "missing 'kind"),
    ("kind: romance\ntitle: x\n", 2, "missing 'dice:'"),
    ("kind: stage\ndice:\n ? ? ? ?\n", 1, "needs 'stage: N'"),
    ("kind: stage\nstage: 3\ndice:\n ? ? ?\n", 3, "needs 6 dice but the grid has only 3"),
    ("kind: stage\nstage: 9\ndice:\n ?\n", 2, "stage: expected a whole number from 1 to 5"),
    ("kind: stage\nstage: 1\nreward: 2\ndice:\n ? ? ? ?\n", 3, "'reward' is only for Christmas romance"),
    ("kind: element\nexchange: ? ?\ndice:\n ?\n", 2, "expected 'GIVE -> GET'"),
    ("kind: element\nexchange: ? -> hat\ndice:\n ?\n", 2, "got 'hat'"),
    ("kind: romance\ndice:\n . .\n", 2, "no dice locations"),
    ("kind: romance\nkind: stage\n", 2, "given twice"),
    ("kind: romance\njust words\n", 2, "expected 'key: value'"),
])
def test_bad_layouts_name_the_line_and_what_was_expected(text, line, expected):
    with pytest.raises(pl.LayoutError) as info:
        pl.parse_layout(text, "my.layout")
    assert info.value.line == line
    assert str(info.value).startswith(f"my.layout:{line}: ")
    assert expected in str(info.value)


# --- the placement rules ------------------------------------------------------------------

def test_a_die_must_match_a_marked_location():
    card = layout(" 1 2 3 4\n")
    pl.check_placement(card, {}, {(0, 0): S})
    with pytest.raises(pl.PlacementError, match="takes a FACE-2, not a FACE-3"):
        pl.check_placement(card, {}, {(0, 1): F3})


def test_touching_unmarked_locations_need_doubles_placed_at_once():
    card = layout(" ? ? 2 3\n")
    pl.check_placement(card, {}, {(0, 0): F4, (0, 1): F4})            # doubles
    with pytest.raises(pl.PlacementError, match="same face"):
        pl.check_placement(card, {}, {(0, 0): F4, (0, 1): F3})
    with pytest.raises(pl.PlacementError, match="filled together in one turn"):
        pl.check_placement(card, {}, {(0, 0): F4})


def test_three_touching_unmarked_locations_need_triples():
    card = layout(" ? ?\n . ?\n")
    with pytest.raises(pl.PlacementError, match="3 dice of one face are needed, 2 given"):
        pl.check_placement(card, {}, {(0, 0): F4, (0, 1): F4})
    pl.check_placement(card, {}, {(0, 0): F4, (0, 1): F4, (1, 1): F4})


def test_diagonal_unmarked_locations_do_not_touch():
    card = layout(" ? .\n . ?\n 2 2\n")
    legal = pl.legal_placements(card, {(2, 0): F2}, [F3, F4])
    # (1,1) touches (2,1)? No: (2,1) is empty. Only (2,1) itself is reachable.
    assert legal == []
    pl.check_placement(card, {(2, 0): F2, (2, 1): F2}, {(1, 1): F3})  # a group of one


def test_every_die_touches_a_placed_die_except_the_first():
    card = layout(" 2 3 4 1\n")
    pl.check_placement(card, {}, {(0, 3): S})                          # the first: anywhere
    with pytest.raises(pl.PlacementError, match="must touch a die already placed"):
        pl.check_placement(card, {(0, 3): S}, {(0, 0): F2})
    pl.check_placement(card, {(0, 3): S}, {(0, 2): F4, (0, 1): F3})    # a chain in one go
    with pytest.raises(pl.PlacementError, match="must touch each other"):
        pl.check_placement(card, {}, {(0, 0): F2, (0, 2): F4})


def test_occupied_and_missing_locations_are_refused():
    card = layout(" 2 . 3\n")
    with pytest.raises(pl.PlacementError, match="already holds"):
        pl.check_placement(card, {(0, 0): F2}, {(0, 0): F2})
    with pytest.raises(pl.PlacementError, match="not a dice location"):
        pl.check_placement(card, {}, {(0, 1): F2})


def test_suggestion_fills_the_most_locations():
    card = builtin("stage1-meet-cute")
    best = pl.suggest(card, {}, [S, F2, F2, F3])
    assert best == {(0, 0): S, (0, 1): F2, (0, 2): F2}
    assert pl.suggest(card, {}, [F4]) == {(2, 2): F4}
    assert pl.suggest(card, {(0, 0): S}, [F4]) is None                 # F4 is not touching


def test_render_marks_placed_and_new_dice():
    card = layout(" 1 ?\n")
    assert pl.render(card, {(0, 0): S}, {(0, 1): F2}) == "[SNOWFLAKE]  *FACE-2*"


# --- legal_placements is exactly what check_placement accepts ----------------------------

TOKENS = [".", "?", "?", "1", "2", "3"]
FACES3 = (S, F2, F3)


def brute_force(card: pl.Layout, placed: dict, roll: list[str]) -> set:
    empty = [cell for cell, _ in card.cells if cell not in placed]
    found = set()
    for choice in itertools.product([None, *FACES3], repeat=len(empty)):
        new = {cell: face for cell, face in zip(empty, choice) if face}
        if not new or any(list(new.values()).count(f) > roll.count(f) for f in FACES3):
            continue
        try:
            pl.check_placement(card, placed, new)
        except pl.PlacementError:
            continue
        found.add(frozenset(new.items()))
    return found


@settings(max_examples=40, deadline=None)
@given(grid=st.lists(st.sampled_from(TOKENS), min_size=6, max_size=6),
       roll=st.lists(st.sampled_from(FACES3), min_size=1, max_size=4),
       first=st.integers(0, 5), seeded=st.booleans())
def test_legal_placements_match_brute_force(grid, roll, first, seeded):
    if all(t == "." for t in grid):
        grid[0] = "?"
    text = "kind: element\ndice:\n" + " ".join(grid[:3]) + "\n" + " ".join(grid[3:]) + "\n"
    card = pl.parse_layout(text, "random", pl.DEFAULT_FACES)
    placed = {}
    cells = [cell for cell, face in card.cells if face is not None]
    if seeded and cells:       # one marked die already on the card
        cell = cells[first % len(cells)]
        placed = {cell: card.locations[cell]}
    got = {frozenset(p.items()) for p in pl.legal_placements(card, placed, roll)}
    assert got == brute_force(card, placed, roll)


def test_ways_to_pay_a_movie_elements_trade():
    trade = pl.Exchange(give=(F2, "?", "?"), get_deferred=1)
    assert pl.ways_to_pay(trade, [F2, F3, F3, F4, F4]) == [(F2, F3, F3), (F2, F4, F4)]
    assert pl.ways_to_pay(trade, [F3, F3]) == []
    assert pl.ways_to_pay(pl.Exchange(give=(F2,), get=(F3,)), [F2]) == [(F2,)]
