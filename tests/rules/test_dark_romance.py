"""Dark Romance's rules: the rulebook's three worked endings first, then one test per rule."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from rules import get_game
from rules.core import PUBLIC, RuleError, Session
from rules.dark_romance import DEFAULTS, GAME, next_game_setup, push_coin
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


# -- setup and options ------------------------------------------------------------------------------
@pytest.mark.parametrize("scenario, roles, coins, side, courtiers", [
    (1, 6, 4, "tutorial", ["Maidservant", "Healer", "Henchman"]),
    (2, 8, 5, "advanced", ["Healer", "Maidservant", "Innkeeper", "Chambermaid", "Barber"]),
    (3, 10, 5, "advanced", ["Maidservant", "Monk", "Healer", "Innkeeper", "Chambermaid", "Barber"]),
    (11, 10, 5, "advanced", ["Maidservant", "Monk", "Healer", "Innkeeper", "Chambermaid", "Barber"]),
])
def test_each_scenario_sets_up_its_roles_coins_side_and_courtiers(scenario, roles, coins, side, courtiers):
    state = session(scenario).state
    assert len(state.rules.roles) == roles and len(state.rules.coins) == coins and state.rules.side == side
    assert [c.name for c in state.rules.courtiers] == courtiers
    public = GAME.view_of(state)
    assert [c["coin"] for c in public["coins"]] == list(state.rules.coins)
    assert ("manipulation" in state.rules.coins) == (scenario > 1)
    assert public["scene_cards"] == (24 if scenario == 1 else 42)


def test_the_scenario_card_courtiers_can_be_named():
    state = session(3, courtiers=["Monk", "Barber"]).state
    assert [c.name for c in state.rules.courtiers] == ["Monk", "Barber"]


def test_the_coins_start_where_the_option_says_and_the_defaults_are_the_edge():
    assert dict(Session(GAME, {"players": [MARY, EDGAR]}).state.positions) == {
        "romance": 1, "temptation": 1, "rejection": 1, "boldness": 1}
    assert dict(session(2, start={"romance": 3}).state.positions)["romance"] == 3


@pytest.mark.parametrize("options, message", [
    ({"players": ["Mary"]}, "two different names"),
    ({"players": ["Mary", "Mary"]}, "two different names"),
    ({"players": [MARY, EDGAR], "scenario": 12}, "scenario: expected a whole number from 1 to 11"),
    ({"players": [MARY, EDGAR], "scenario": True}, "scenario: expected a whole number"),
    ({"players": [MARY, EDGAR], "spaces": 1}, "spaces: expected the number of spaces"),
    ({"players": [MARY, EDGAR], "start": {"romance": 1}}, "start: expected a starting space for each coin"),
    ({"players": [MARY, EDGAR], "spaces": 3, "start": {"romance": 4, "temptation": 1, "rejection": 1,
                                                        "boldness": 1, "manipulation": 1}},
     "start: romance would start beyond space 3"),
    ({"players": [MARY, EDGAR], "courtiers": ["Butler"]}, "courtiers: Butler not in courtier_cards"),
    ({"players": [MARY, EDGAR], "courtier_cards": {"Monk": {"cost": 2, "effect": "redraw"}}}, "cost is"),
    ({"players": [MARY, EDGAR], "courtier_cards": {"Monk": {"cost": "unknown", "effect": "fly"}}}, "effect is one"),
    ({"players": [MARY, EDGAR], "series_points": {"Zed": 1}}, "series_points: expected the points so far"),
    ({"players": [MARY, EDGAR], "series_points": {MARY: -1}}, "series_points"),
    ({"players": [MARY, EDGAR], "game_number": 0}, "game_number: expected 1 or more"),
    ({"players": [MARY, EDGAR], "roles": ["count", "countess"]}, "unknown setup option"),
])
def test_bad_setup_is_a_clear_error(options, message):
    with pytest.raises(RuleError, match=message):
        GAME.setup(options)


def test_config_options_are_read_with_the_key_named():
    from rules.core import OptionError
    with pytest.raises(OptionError) as err:
        GAME.read_options({"scenario": 0})
    assert err.value.key == "scenario" and str(err.value).startswith("[dark-romance] scenario:")
    assert GAME.read_options({"scenario": 2})["scenario"] == 2
    assert "ASSUMPTION" in GAME.option("spaces").help and "ASSUMPTION" in GAME.option("start").help


# -- roles ----------------------------------------------------------------------------------------------
def test_roles_are_entered_by_name_or_id_and_play_starts_with_the_first_player():
    s = session(1)
    s.play({"type": "role", "player": MARY, "role": "Demon Huntress"})
    assert s.state.phase == "roles" and s.state.roles == ("demon-huntress", None)
    s.play({"type": "role", "player": MARY, "role": "count"})          # entered again before both are in
    s.play({"type": "role", "player": EDGAR, "role": "vampiress"})
    assert s.state.roles == ("count", "vampiress") and s.state.phase == "scene"
    assert s.state.players[s.state.active] == MARY
    with pytest.raises(RuleError, match="not now"):
        s.play({"type": "role", "player": EDGAR, "role": "vampire"})


def test_a_role_outside_the_scenario_is_refused_without_repeating_it():
    s = session(1)
    with pytest.raises(RuleError) as err:
        s.play({"type": "role", "player": MARY, "role": "Swindler"})
    assert "Swindler" not in str(err.value) and "scenario 1" in str(err.value)
    with pytest.raises(RuleError, match="not a role"):
        s.play({"type": "role", "player": MARY, "role": "Queen"})


def test_two_players_cannot_hold_the_same_card_and_the_error_does_not_name_it():
    s = session(2)
    s.play({"type": "role", "player": MARY, "role": "vampire"})
    with pytest.raises(RuleError) as err:
        s.play({"type": "role", "player": EDGAR, "role": "vampire"})
    assert "Vampire" not in str(err.value) and "vampire" not in str(err.value)
    assert "one of you entered the wrong card" in str(err.value)


def test_every_role_is_offered_whatever_the_other_player_entered():
    s = session(1)
    s.play({"type": "role", "player": MARY, "role": "vampire"})
    offered = [e["role"] for e in GAME.legal_events(s.state)]
    assert offered == list(s.state.rules.roles) and {e["player"] for e in GAME.legal_events(s.state)} == {EDGAR}


def test_the_box_deals_two_different_roles_of_the_scenario_from_its_seed():
    dealt = set()
    for seed in range(60):
        s = session(1)
        s.play({"type": "draw_roles", "seed": seed})
        mary, edgar = s.state.roles
        assert mary != edgar and {mary, edgar} <= set(s.state.rules.roles)
        assert s.state.phase == "scene" and s.state.seed == seed
        dealt.add(mary)
        again = session(1)
        again.play({"type": "draw_roles", "seed": seed})
        assert again.state.roles == s.state.roles
    assert dealt == set(session(1).state.rules.roles)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", None, True])
def test_a_deal_needs_a_whole_seed(seed):
    with pytest.raises(RuleError, match="secret seed"):
        session().play({"type": "draw_roles", "seed": seed})


def test_no_deal_once_a_player_entered_a_role():
    s = session()
    s.play({"type": "role", "player": MARY, "role": "count"})
    with pytest.raises(RuleError, match="entered a role already"):
        s.play({"type": "draw_roles", "seed": 3})
    assert {"type": "draw_roles"} not in GAME.legal_events(s.state)
    assert {"type": "draw_roles"} in GAME.legal_events(session().state)


# -- a turn -------------------------------------------------------------------------------------------
def started(scenario=2, mary="count", edgar="vampiress", **options) -> Session:
    return with_roles(session(scenario, **options), mary, edgar)


def test_a_turn_scene_reaction_symbol_end():
    s = started()
    with pytest.raises(RuleError, match="this is for Mary"):
        s.play({"type": "scene", "player": EDGAR, "category": "words"})
    with pytest.raises(RuleError, match="category is one of feelings, words, deeds"):
        s.play({"type": "scene", "player": MARY, "category": "love"})
    s.play({"type": "scene", "player": MARY, "category": "deeds"})
    assert s.state.collected[0] == (0, 0, 0)   # not collected before the reaction
    with pytest.raises(RuleError, match="this is for Edgar"):
        s.play({"type": "react", "player": MARY, "coins": ["romance"]})
    with pytest.raises(RuleError, match="not now"):
        s.play({"type": "end_turn", "player": MARY})
    s.play({"type": "react", "player": EDGAR, "coins": ["boldness", "romance"]})
    assert s.state.collected[0] == (0, 0, 1) and s.state.phase == "after"
    assert dict(s.state.positions)["boldness"] == 2 and dict(s.state.positions)["romance"] == 2
    s.play({"type": "end_turn", "player": MARY})
    assert (s.state.phase, s.state.players[s.state.active], s.state.turn) == ("scene", EDGAR, 2)


@pytest.mark.parametrize("coins", [[], ["romance", "romance"], ["romance", "boldness", "temptation"], ["love"],
                                   "romance", None])
def test_a_reaction_is_one_or_two_different_coins(coins):
    s = started()
    s.play({"type": "scene", "player": MARY, "category": "words"})
    with pytest.raises(RuleError, match="one or two different coins"):
        s.play({"type": "react", "player": EDGAR, "coins": coins})


def test_no_manipulation_in_the_tutorial():
    s = started(1)
    s.play({"type": "scene", "player": MARY, "category": "words"})
    with pytest.raises(RuleError, match="of romance, temptation, rejection, boldness;"):
        s.play({"type": "react", "player": EDGAR, "coins": ["manipulation"]})
    assert all("manipulation" not in e["coins"] for e in GAME.legal_events(s.state))
    assert len(GAME.legal_events(s.state)) == 4 + 12


def test_a_reaction_offers_every_coin_and_every_ordered_pair():
    s = started(2)
    s.play({"type": "scene", "player": MARY, "category": "words"})
    offered = GAME.legal_events(s.state)
    assert len(offered) == 5 + 20 and {"type": "react", "player": EDGAR, "coins": ["rejection", "romance"]} in offered


def test_coins_enter_the_center_in_the_order_pushed_and_stack():
    s = started(start={"romance": 5, "temptation": 5})
    turn(s, ["temptation", "romance"], end=False)
    assert s.state.center == ("temptation", "romance") and s.state.space("romance") is None
    assert GAME.view_of(s.state)["center"] == ["temptation", "romance"]
    assert not s.state.ended                      # only at the end of the turn
    s.play({"type": "end_turn", "player": MARY})
    assert s.state.ended


def test_a_coin_already_in_the_center_stays_in_its_place():
    s = started(start={"romance": 5, "temptation": 5}, courtier_cards={"Maidservant": {
        "cost": ["words"], "effect": "push"}}, courtiers=["Maidservant"])
    turn(s, ["temptation"], category="words", end=False)
    s.play({"type": "visit", "player": MARY, "courtier": "Maidservant"})
    s.play({"type": "push", "player": MARY, "coin": "romance"})
    assert s.state.center == ("temptation", "romance")
    assert push_coin(s.state, "temptation").center == ("temptation", "romance")


# -- courtiers ----------------------------------------------------------------------------------------
def words_for(s: Session, count: int) -> Session:
    """Both players collect ``count`` Words over ``2 * count`` turns (Romance pushed each time)."""
    for _ in range(2 * count):
        turn(s, ["romance"] if s.state.space("romance") and s.state.space("romance") < 4 else ["boldness"])
    return s


def test_the_maidservant_costs_three_words_and_pushes_one_coin():
    s = words_for(started(spaces=9), 3)
    assert s.state.uncovered(0) == (0, 3, 0)
    s.play({"type": "visit", "player": MARY, "courtier": "Maidservant"})       # its cost is known: pay filled in
    assert s.state.phase == "visit" and s.state.uncovered(0) == (0, 0, 0) and s.state.covered[0] == (0, 3, 0)
    assert {e["type"] for e in GAME.legal_events(s.state)} == {"push"}
    with pytest.raises(RuleError, match="pushes one coin: say which"):
        s.play({"type": "done", "player": MARY})
    with pytest.raises(RuleError, match="does not pull"):
        s.play({"type": "pull", "player": MARY, "coin": "romance"})
    before = s.state.space("temptation")
    s.play({"type": "push", "player": MARY, "coin": "temptation"})
    assert s.state.space("temptation") == before + 1 and s.state.phase == "scene"
    with pytest.raises(RuleError, match="has 0 uncovered Words"):
        s.play({"type": "visit", "player": MARY, "courtier": "Maidservant"})


def test_a_known_cost_must_be_paid_exactly_and_only_by_the_active_player():
    s = words_for(started(spaces=9), 3)
    with pytest.raises(RuleError, match="costs 3 Words, not 2 Words"):
        s.play({"type": "visit", "player": MARY, "courtier": "Maidservant", "pay": ["words", "words"]})
    with pytest.raises(RuleError, match="this is for Mary"):
        s.play({"type": "visit", "player": EDGAR, "courtier": "Maidservant"})
    with pytest.raises(RuleError, match="'Monk' is not a courtier in play"):
        s.play({"type": "visit", "player": MARY, "courtier": "Monk", "pay": ["words"]})


def test_the_just_played_symbol_cannot_pay_before_the_reaction():
    s = words_for(started(spaces=9), 2)
    s.play({"type": "scene", "player": MARY, "category": "words"})
    assert s.state.uncovered(0) == (0, 2, 0)
    with pytest.raises(RuleError, match="not now"):
        s.play({"type": "visit", "player": MARY, "courtier": "Maidservant"})
    s.play({"type": "react", "player": EDGAR, "coins": ["boldness"]})
    s.play({"type": "visit", "player": MARY, "courtier": "Maidservant"})   # now the third Words is hers
    assert s.state.phase == "visit"


def test_an_unknown_courtier_takes_what_was_paid_and_the_coins_it_moved():
    s = words_for(started(spaces=9), 2)
    with pytest.raises(RuleError, match="Healer's cost is not in the rulebook: say what you paid"):
        s.play({"type": "visit", "player": MARY, "courtier": "Healer"})
    offered = [e["pay"] for e in GAME.legal_events(s.state) if e.get("courtier") == "Healer"]
    assert offered == [["words"], ["words", "words"]]
    s.play({"type": "visit", "player": MARY, "courtier": "Healer", "pay": ["words"]})
    s.play({"type": "push", "player": MARY, "coin": "rejection"})
    s.play({"type": "push", "player": MARY, "coin": "rejection"})
    s.play({"type": "pull", "player": MARY, "coin": "romance"})
    assert s.state.phase == "visit"
    s.play({"type": "done", "player": MARY})
    assert s.state.space("rejection") == 3 and s.state.phase == "scene" and s.state.uncovered(0) == (0, 1, 0)
    s.play({"type": "visit", "player": MARY, "courtier": "Healer", "pay": ["words"]})
    with pytest.raises(RuleError, match="Temptation cannot move away from the Center: it is on the edge"):
        s.play({"type": "pull", "player": MARY, "coin": "temptation"})


def test_the_monk_draws_new_cards_and_leaves_the_board():
    s = words_for(started(3, edgar="tragic-poet", spaces=9), 1)
    before = s.state.positions
    s.play({"type": "visit", "player": MARY, "courtier": "Monk", "pay": ["words"]})
    assert s.state.phase == "scene" and s.state.positions == before
    assert "draw two new scene cards" in s.state.last


# -- the ending --------------------------------------------------------------------------------------------
def ending(mary: str, edgar: str, center: list[str], board: dict, on: str = MARY, start=None, scenario=3) -> Session:
    """A game that ends on ``on``'s turn with the one or two ``center`` coins pushed from space 5
    into the Center, in that order (Mary's first turn pushes Romance when it ends on Edgar's)."""
    coins = {coin: 5 for coin in center}
    coins.update(start or {})
    s = with_roles(session(scenario, start=coins, win_board={"advanced": board}), mary, edgar)
    if on == EDGAR:
        turn(s, ["romance"])
    turn(s, center)
    assert s.state.ended and s.state.center == tuple(center)
    return s


def test_direct_victory_from_the_top_coin():
    board = {"counts": {"vampires": "romance"}, "vampires": {"counts": "temptation"}}
    s = ending("count", "vampiress", ["romance", "temptation"], board)
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("direct", (0, 2))
    assert s.state.verdict.reason == ("Temptation reached the Center on the Count's turn; the Vampiress beats "
                                      "the Count with Temptation: 2 points")


def test_shared_romance_in_the_center_is_2_each():
    s = ending("count", "countess", ["romance"], {"counts": {"counts": "romance"}})
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("shared-direct", (2, 2))
    assert "the Count and the Countess share a Romance victory: 2 points each" in s.state.verdict.reason


def test_indirect_victory_goes_to_the_closest_coin_and_equidistant_is_a_draw():
    board = {"counts": {"vampires": "romance"}, "vampires": {"counts": "temptation"}}
    s = ending("count", "vampiress", ["boldness"], board, start={"romance": 4, "temptation": 2})
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("indirect", (1, 0))
    s = ending("count", "vampiress", ["boldness"], board, start={"romance": 3, "temptation": 3})
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("draw", (0, 0))
    assert "Romance and Temptation are both on space 3" in s.state.verdict.reason


@pytest.mark.parametrize("romance, rejection, outcome, points", [
    (4, 2, "shared-indirect", (1, 1)), (2, 4, "shared-loss", (0, 0)), (3, 3, "shared-loss", (0, 0))])
def test_shared_romance_indirect_needs_romance_closer_than_rejection(romance, rejection, outcome, points):
    s = ending("count", "countess", ["boldness"], {"counts": {"counts": "romance"}},
               start={"romance": romance, "rejection": rejection})
    assert (s.state.verdict.outcome, s.state.verdict.points) == (outcome, points)


def test_shared_romance_loses_when_rejection_is_in_the_center():
    s = ending("count", "countess", ["rejection"], {"counts": {"counts": "romance"}}, start={"romance": 4})
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("shared-loss", (0, 0))
    assert "failed to recognize their soul mate" in s.state.verdict.reason


POET_BOARD = {"tragic-poets": {"swindlers": "manipulation", "tragic-poets": "boldness"},
              "swindlers": {"tragic-poets": "temptation"}}


def test_the_poet_wins_directly_on_the_other_players_turn():
    s = ending("swindler", "tragic-poet", ["manipulation"], POET_BOARD, on=MARY)
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("direct", (0, 2))


def test_the_poets_coin_on_the_poets_own_turn_gives_the_other_an_indirect_victory():
    s = ending("swindler", "tragic-poet", ["manipulation"], POET_BOARD, on=EDGAR, start={"temptation": 1})
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("indirect", (1, 0))
    assert s.state.verdict.reason.startswith("Manipulation reached the Center on the Tragic Poet's own turn, which "
                                             "gives the Tragic Poet no direct victory; so the Swindler scores")


def test_on_the_poets_own_turn_the_other_still_wins_directly_below():
    s = ending("swindler", "tragic-poet", ["temptation", "manipulation"], POET_BOARD, on=EDGAR)
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("direct", (2, 0))


def test_on_the_poets_own_turn_without_the_poets_coin_the_normal_indirect_rule_applies():
    s = ending("swindler", "tragic-poet", ["boldness"], POET_BOARD, on=EDGAR,
               start={"manipulation": 4, "temptation": 2})
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("indirect", (0, 1))   # the Poet wins on their turn


def test_poet_against_poetess_may_win_directly_on_their_own_turn():
    s = ending("tragic-poetess", "tragic-poet", ["boldness"], POET_BOARD, on=EDGAR)
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("shared-direct", (2, 2))


def test_a_missing_pairing_is_asked_once_per_cell_and_named():
    s = ending("demon-hunter", "demon-huntress", ["boldness"], {})
    assert s.state.phase == "settle" and s.state.verdict.missing == (("demon-hunter", "demon-huntress"),)
    public = GAME.view_of(s.state)
    assert public["verdict"]["outcome"] == "unsettled" and public["players"][0]["role"] == "Demon Hunter"
    assert GAME.status(s.state).startswith("The box's win board lacks what the Demon Hunter needs against the Demon "
                                           "Huntress (advanced side, row Demon Hunter/Demon Huntress")
    with pytest.raises(RuleError, match="asks only for"):
        s.play({"type": "win_condition", "role": "count", "against": "countess", "coin": "romance"})
    s.play({"type": "win_condition", "role": "demon-hunter", "against": "demon-huntress", "coin": "boldness"})
    assert (s.state.verdict.outcome, s.state.verdict.points) == ("shared-direct", (2, 2))


def test_both_cells_missing_are_both_asked():
    s = ending("count", "swindler", ["boldness"], {})
    assert s.state.verdict.missing == (("count", "swindler"), ("swindler", "count"))
    s.play({"type": "win_condition", "role": "count", "against": "swindler", "coin": "romance"})
    assert s.state.phase == "settle" and s.state.verdict.missing == (("swindler", "count"),)
    s.play({"type": "win_condition", "role": "swindler", "against": "count", "coin": "boldness"})
    assert GAME.is_over(s.state) and s.state.verdict.points == (0, 2)
    with pytest.raises(RuleError, match="the game is over"):
        s.play({"type": "end_turn", "player": MARY})


# -- views, series -------------------------------------------------------------------------------------------
def test_a_role_is_only_in_its_owners_view_until_the_end():
    s = started(2, "count", "vampiress")
    assert all("role" not in p for p in GAME.view_of(s.state)["players"])
    mine = GAME.view_of(s.state, MARY)["players"]
    assert mine[0]["role"] == "Count" and "role" not in mine[1]
    assert mine[0]["needs"]["Count/Countess"] == "romance" and "needs" not in mine[1]
    assert GAME.event_view(s.events[0], PUBLIC) == {"type": "role", "player": MARY}
    assert GAME.event_view(s.events[0], MARY) == s.events[0]
    assert GAME.event_view(s.events[0], EDGAR) == {"type": "role", "player": MARY}
    assert GAME.event_view({"type": "draw_roles", "seed": 99}, MARY) == {"type": "draw_roles"}
    assert GAME.scoreboard(s.state) == [["Player", "Points", "Series"], [MARY, "0", "0"], [EDGAR, "0", "0"]]


def test_after_the_end_both_roles_the_seed_and_the_reasoning_are_public():
    s = session(2, start={"temptation": 5})
    s.play({"type": "draw_roles", "seed": 1234})
    assert "seed" not in GAME.view_of(s.state) and GAME.view_of(s.state)["dealt_by_box"]
    turn(s, ["temptation"])
    public = GAME.view_of(s.state)
    assert public["seed"] == 1234 and all("role" in p for p in public["players"])
    assert public["verdict"]["reason"] == GAME.status(s.state)


def test_a_series_carries_the_running_total_into_the_next_game():
    s = with_roles(session(2, start={"temptation": 5, "romance": 4, "rejection": 2}, series_points={MARY: 3},
                           game_number=2), "vampire", "vampiress")
    with pytest.raises(RuleError, match="once this one is over"):
        next_game_setup(s.setup_options, s.state)
    turn(s, ["temptation"])
    players = GAME.view_of(s.state)["players"]
    assert [(p["points"], p["total"]) for p in players] == [(1, 4), (1, 1)]
    nxt = next_game_setup(s.setup_options, s.state)
    assert nxt["series_points"] == {MARY: 4, EDGAR: 1} and nxt["game_number"] == 3
    state = GAME.setup(nxt)
    assert state.rules.series_points == (4, 1) and state.roles == (None, None)
    assert GAME.scoreboard(state)[1] == [MARY, "0", "4"]


def test_the_next_game_remembers_the_cells_the_players_read_off_their_board():
    s = swindler_example()
    s.play({"type": "win_condition", "role": "swindler", "against": "vampiress", "coin": "rejection"})
    nxt = next_game_setup(s.setup_options, s.state)
    assert nxt["win_board"]["advanced"]["swindlers"]["vampires"] == "rejection"
    assert nxt["win_board"]["advanced"]["vampires"]["counts"] == "temptation"


@pytest.mark.parametrize("event, message", [
    ({"type": "kiss"}, "unknown event 'kiss'; expected one of role, draw_roles"),
    ({"type": "scene", "player": "Zed", "category": "words"}, "'Zed' is not playing"),
    ({"type": "scene", "category": "words"}, 'this event needs "player": Mary or Edgar'),
    ({"type": "react", "player": EDGAR, "coins": ["romance"]}, "not now: a reaction"),
    ({"type": "push", "player": MARY, "coin": "romance"}, "not now: a courtier's effect"),
    ({"type": "win_condition", "role": "count", "against": "vampiress", "coin": "romance"}, "not now"),
])
def test_a_bad_event_is_a_clear_error_and_changes_nothing(event, message):
    s = started()
    before = s.state
    with pytest.raises(RuleError, match=message):
        s.play(event)
    assert s.state == before
