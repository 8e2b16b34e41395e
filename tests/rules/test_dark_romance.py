"""Dark Romance's rules: the rulebook's three worked endings first, then one test per rule."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from rules import get_game
from rules.core import PUBLIC, RuleError, Session
from rules.dark_romance import DEFAULTS, GAME
from rules.dark_romance_board import STATED, check_board

MARY, EDGAR = "Mary", "Edgar"


def session(scenario=2, start=None, **options) -> Session:
    coins = {"romance": 1, "temptation": 1, "rejection": 1, "boldness": 1, "manipulation": 1}
    coins.update(start or {})
    return Session(GAME, {"players": [MARY, EDGAR], "scenario": scenario, "start": coins, **options})


def with_roles(s: Session, mary: str, edgar: str) -> Session:
    s.play({"type": "role", "player": MARY, "role": mary})
    s.play({"type": "role", "player": EDGAR, "role": edgar})
    return s


def other(name: str) -> str:
    return EDGAR if name == MARY else MARY


def turn(s: Session, coins: list[str], category: str = "words", end: bool = True) -> Session:
    """The active player plays a scene, the other pushes ``coins``, the turn ends."""
    active = s.state.players[s.state.active]
    s.play({"type": "scene", "player": active, "category": category})
    s.play({"type": "react", "player": other(active), "coins": coins})
    if end:
        s.play({"type": "end_turn", "player": active})
    return s


# -- the rulebook's worked endings ---------------------------------------------------------------
def stacked_example(**options) -> Session:
    """The Countess (Mary) pushes Temptation then Rejection to the Center on the Demon Huntress's
    (Edgar's) turn; he visits the Maidservant to push Boldness there too."""
    s = with_roles(session(start={"temptation": 4, "rejection": 4, "boldness": 4}, **options),
                   "countess", "demon-huntress")
    for coins in (["romance"], ["temptation"], ["romance"], ["rejection"], ["boldness"]):
        turn(s, coins)
    turn(s, ["temptation", "rejection"], end=False)
    s.play({"type": "visit", "player": EDGAR, "courtier": "Maidservant", "pay": ["words"] * 3})
    s.play({"type": "push", "player": EDGAR, "coin": "boldness"})
    s.play({"type": "end_turn", "player": EDGAR})
    return s


def test_worked_example_stacked_direct_victory_with_boldness_over_rejection():
    board = {"advanced": {"counts": {"demon-hunters": "romance"}, "demon-hunters": {"counts": "rejection"}}}
    s = stacked_example(win_board=board)
    assert s.state.center == ("temptation", "rejection", "boldness")
    assert GAME.is_over(s.state)
    verdict = GAME.view_of(s.state)["verdict"]
    assert verdict["outcome"] == "direct" and verdict["points"] == {MARY: 0, EDGAR: 2}
    assert ("Rejection reached the Center on the Demon Huntress's turn; the Demon Huntress beats the Countess "
            "with Rejection: 2 points") in verdict["reason"]
    assert verdict["reason"].startswith("Boldness in the Center wins for neither")


def test_worked_example_stacked_with_the_shipped_board_asks_for_the_countess_cell():
    s = stacked_example()
    assert s.state.phase == "settle" and not GAME.is_over(s.state)
    reason = GAME.view_of(s.state)["verdict"]["reason"]
    assert "what the Countess needs against the Demon Huntress" in reason
    assert "row Count/Countess, column Demon Hunter/Demon Huntress" in reason
    offered = {e["coin"] for e in GAME.legal_events(s.state)}
    assert offered == {"romance", "temptation", "manipulation"}   # the example rules out Boldness and Rejection
    with pytest.raises(RuleError, match="neither Boldness nor Rejection"):
        s.play({"type": "win_condition", "role": "countess", "against": "demon-huntress", "coin": "boldness"})
    s.play({"type": "win_condition", "role": "countess", "against": "demon-huntress", "coin": "romance"})
    assert GAME.is_over(s.state) and s.state.verdict.points == (0, 2)


def swindler_example(**options) -> Session:
    """The Swindler (Edgar) pushes Manipulation to the Center against the Vampiress (Mary);
    Temptation is on space 3, the other coins further out."""
    s = with_roles(session(start={"manipulation": 5, "temptation": 3}, **options), "vampiress", "swindler")
    return turn(s, ["manipulation"])


def test_worked_example_swindler_and_vampiress_indirect_victory_with_temptation_on_space_3():
    s = swindler_example(win_board={"advanced": {"swindlers": {"vampires": "boldness"},
                                                 "vampires": {"swindlers": "temptation"}}})
    verdict = s.state.verdict
    assert (verdict.outcome, verdict.points) == ("indirect", (1, 0))
    assert verdict.reason == ("Manipulation in the Center wins for neither; Temptation (on space 3) is closer to the "
                              "Center than Boldness (on space 1): the Vampiress beats the Swindler indirectly with "
                              "Temptation: 1 point")


def test_worked_example_swindler_with_the_shipped_board_asks_and_refuses_manipulation():
    s = swindler_example()
    assert s.state.verdict.missing == (("swindler", "vampiress"),)
    with pytest.raises(RuleError, match="Manipulation gives neither"):
        s.play({"type": "win_condition", "role": "swindler", "against": "vampiress", "coin": "manipulation"})
    s.play({"type": "win_condition", "role": "Swindler", "against": "Vampiress", "coin": "rejection"})
    assert s.state.verdict.points == (1, 0)


def test_worked_example_two_vampires_share_an_indirect_victory():
    s = with_roles(session(start={"temptation": 5, "romance": 4, "rejection": 2}), "vampire", "vampiress")
    turn(s, ["temptation"])
    verdict = s.state.verdict
    assert (verdict.outcome, verdict.points) == ("shared-indirect", (1, 1))
    assert "Romance (on space 4) is closer to the Center than Rejection (on space 2)" in verdict.reason
    assert GAME.scoreboard(s.state)[1:] == [[MARY, "1", "1", "Vampire"], [EDGAR, "1", "1", "Vampiress"]]


def test_the_game_is_registered():
    assert get_game("dark-romance") is GAME


# -- the shipped data ---------------------------------------------------------------------------
DATA = Path(__file__).resolve().parents[2] / "rules" / "data"


def test_the_shipped_win_board_file_holds_exactly_the_stated_cells():
    table = tomllib.loads((DATA / "dark-romance-win-board.toml").read_text())
    assert check_board(table) == STATED


def test_the_shipped_defaults_file_matches_the_built_in_defaults():
    table = tomllib.loads((DATA / "dark-romance.toml").read_text())["dark-romance"]
    assert GAME.read_options(table) == GAME.read_options({})
    assert table["courtier_cards"] == DEFAULTS["courtier_cards"]
    assert (table["spaces"], table["start"]) == (DEFAULTS["spaces"], DEFAULTS["start"])
