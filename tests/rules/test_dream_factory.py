"""Dream Factory's rules, one test per rule, and the rulebook's worked examples."""
from __future__ import annotations

from dataclasses import replace

import pytest

from rules import get_game
from rules.core import PUBLIC, RuleError, Session
from rules.dream_factory import (GAME, Screenplay, Trophy, actors_and_stars, all_markers, best_director,
                                 party_order, pay_out, place_tile, points, take_marker, winners)

FOUR = ["Adrian", "Bea", "Cal", "Dot"]


def new(players=FOUR, **options):
    return GAME.setup({"players": list(players), **options})


def play(state, *events):
    for event in events:
        state = GAME.apply(state, event)
    return state


def reveal_all(state):
    """Turn up the tiles of the current location as the box suggests (the first legal tile)."""
    while state.phase == "reveal":
        state = GAME.apply(state, GAME.legal_events(state)[0])
    return state


def with_stacks(state, ident, stacks=None, stars=()):
    """Screenplay ``ident`` with the given tiles on its spaces (a test shortcut past the auctions)."""
    play_ = state.screenplay(ident)
    stacks = tuple(tuple(s) for s in stacks) if stacks is not None else play_.stacks
    changed = replace(play_, stacks=stacks, stars=tuple(stars))
    return replace(state, screenplays=tuple(changed if p.id == ident else p for p in state.screenplays))


def placing(state, player, hand):
    return replace(state, phase="place", placer=player, hand=tuple(hand))


# -- setup ------------------------------------------------------------------------------------
def test_setup_gives_three_studio_screenplays_and_twelve_tokens_each():
    state = new()
    assert state.tokens == (12, 12, 12, 12)
    assert [len(state.owned(i)) for i in range(4)] == [3, 3, 3, 3]
    assert len(state.pile) == 7 and state.popcorn == 0
    assert state.round == 1 and state.location_name == "Legendary Director"


def test_five_players_get_ten_tokens_by_default_and_the_option_changes_it():
    assert new(FOUR + ["Eve"]).tokens == (10,) * 5
    assert new(FOUR + ["Eve"], tokens_five_players=12).tokens == (12,) * 5


def test_players_must_be_two_to_five_and_options_known():
    with pytest.raises(RuleError):
        new(["Ann"])
    with pytest.raises(RuleError):
        new(FOUR + ["Eve", "Fay"])
    with pytest.raises(RuleError, match="unknown setup option"):
        new(colour="red")


def test_rating_markers_run_0_to_22_with_a_plus_marker_on_8_to_14():
    markers = all_markers()
    assert len(markers) == 30
    assert markers.index((10, 1)) < markers.index((10, 0))


def test_the_game_is_registered():
    assert get_game("dream-factory") is GAME


# -- auctions ---------------------------------------------------------------------------------
def test_adrians_seven_token_bid_gives_two_to_each_and_leaves_one_in_the_middle():
    state = reveal_all(new())
    assert state.phase == "auction" and state.auction.turn == 0
    state = play(state, {"type": "bid", "player": "Adrian", "amount": 7},
                 *({"type": "pass", "player": p} for p in FOUR[1:]))
    assert state.tokens == (5, 14, 14, 14) and state.middle == 1
    assert state.popcorn == 0 and state.phase == "place" and state.placer == 0 and len(state.hand) == 1


def test_the_middle_is_shared_with_the_next_winning_bid_by_default():
    assert pay_out((5, 14, 14, 14), 1, 1, 5) == ((7, 9, 16, 16), 0)
    assert pay_out((5, 14, 14, 14), 1, 1, 5, "stays") == ((6, 9, 15, 15), 3)


def test_with_two_players_the_whole_bid_goes_to_the_other():
    assert pay_out((12, 12), 0, 0, 5) == ((7, 17), 0)


def test_zero_is_a_bid_and_the_next_bid_must_be_higher():
    state = reveal_all(new())
    state = play(state, {"type": "bid", "player": "Adrian", "amount": 0})
    assert state.auction.high_bid == 0
    with pytest.raises(RuleError, match="beat 0"):
        play(state, {"type": "bid", "player": "Bea", "amount": 0})


def test_no_bid_above_the_tokens_held():
    state = reveal_all(new())
    with pytest.raises(RuleError, match="cannot bid more"):
        play(state, {"type": "bid", "player": "Adrian", "amount": 13})
    bids = [e["amount"] for e in GAME.legal_events(state) if e["type"] == "bid"]
    assert bids == list(range(0, 13))


def test_only_the_player_whose_turn_it_is_may_bid():
    state = reveal_all(new())
    with pytest.raises(RuleError, match="Adrian's turn"):
        play(state, {"type": "bid", "player": "Bea", "amount": 1})


def test_a_player_who_passed_is_out_of_the_auction():
    state = reveal_all(new())
    state = play(state, {"type": "pass", "player": "Adrian"}, {"type": "bid", "player": "Bea", "amount": 1},
                 {"type": "bid", "player": "Cal", "amount": 2}, {"type": "bid", "player": "Dot", "amount": 3})
    assert state.auction.turn == 1                        # Adrian is skipped
    state = play(state, {"type": "pass", "player": "Bea"}, {"type": "pass", "player": "Cal"})
    assert state.phase == "place" and state.placer == 3 and state.popcorn == 3


def test_the_last_player_in_must_still_bid_or_pass_when_nobody_bid():
    state = reveal_all(new())
    state = play(state, *({"type": "pass", "player": p} for p in FOUR[:3]))
    assert state.phase == "auction" and state.auction.turn == 3


def test_when_everyone_passes_the_tiles_leave_the_game_and_the_popcorn_stays():
    state = reveal_all(new())
    state = play(state, *({"type": "pass", "player": p} for p in FOUR))
    assert state.phase == "reveal" and state.location_name == "City 1" and state.popcorn == 0
    assert state.tokens == (12,) * 4


def test_the_popcorn_holder_opens_the_next_auction():
    state = reveal_all(new())
    state = play(state, {"type": "pass", "player": "Adrian"}, {"type": "bid", "player": "Bea", "amount": 2},
                 *({"type": "pass", "player": p} for p in ("Cal", "Dot")))
    state = play(state, {"type": "discard", "player": "Bea", "tile": state.hand[0]})
    state = reveal_all(state)
    assert state.location_name == "City 1" and state.auction.turn == 1 and len(state.offer) == 3


# -- parties ------------------------------------------------------------------------------------
def test_the_party_order_of_daniel_jon_walter_and_laurie():
    state = new(["Daniel", "Jon", "Walter", "Laurie"])
    state = with_stacks(state, "1b", [[], ["actor1"], [], [], [], []], stars=["star2"])     # Daniel: 1 actor, 1 star
    state = with_stacks(state, "2b", [[], ["actor1"], ["actor2"], [], [], []])             # Jon: 3 actors
    state = with_stacks(state, "2c", [[], ["actor0"], [], [], [], [], [], []])
    state = with_stacks(state, "3a", [[], [], [], []], stars=["star3"])                      # Walter: 1 star
    state = with_stacks(state, "4b", [[], ["actor1"], ["actor1"], [], [], []], stars=["star2"])  # Laurie: 2 + 1
    assert [actors_and_stars(state, i) for i in range(4)] == [2, 3, 1, 3]
    assert [state.players[i] for i in party_order(state)] == ["Jon", "Laurie", "Daniel", "Walter"]


def test_party_ties_go_to_the_first_player_or_the_nearest_clockwise():
    state = replace(new(), popcorn=2)
    assert party_order(state) == (2, 3, 0, 1)


def test_a_party_is_picked_in_order_and_the_first_player_does_not_change():
    state = replace(new(), stop=3, popcorn=2)
    assert state.location == "party"
    state = reveal_all(state)
    assert state.phase == "pick" and state.pick_order == (2, 3, 0, 1) and len(state.offer) == 4
    tile = state.offer[0]
    state = play(state, {"type": "pick", "player": "Cal", "tile": tile})
    assert state.phase == "place" and state.hand == (tile,)
    state = play(state, {"type": "discard", "player": "Cal", "tile": tile})
    assert state.phase == "pick" and state.pick_order == (3, 0, 1) and state.popcorn == 2
    with pytest.raises(RuleError, match="Dot's turn"):
        play(state, {"type": "pick", "player": "Adrian", "tile": state.offer[0]})


# -- placing tiles ----------------------------------------------------------------------------------
def small(stacks=None, stars=()):
    spaces = ("director", "actor", "camera", "music")
    return Screenplay("1a", 0, "drama", spaces, tuple(tuple(s) for s in (stacks or [[], [], [], []])), tuple(stars))


def blank_play(stacks=None):
    return Screenplay("x", 0, "drama", ("director", "blank"), tuple(tuple(s) for s in (stacks or [[], []])))


def test_a_tile_goes_on_the_space_of_its_icon():
    assert place_tile(small(), "director2", 0).stacks[0] == ("director2",)
    with pytest.raises(RuleError, match="does not go"):
        place_tile(small(), "camera1", 0)


def test_a_tile_may_go_on_top_of_one_of_its_kind_and_replaces_it():
    play_ = place_tile(place_tile(small(), "actor1", 1), "actor3", 1)
    assert play_.stacks[1] == ("actor1", "actor3") and play_.top_tiles == ("actor3",)


def test_a_blank_space_takes_actor_camera_music_or_effects_but_never_a_director():
    for code in ("actor1", "camera1", "music1", "effects1"):
        assert place_tile(blank_play(), code, 1).stacks[1] == (code,)
    with pytest.raises(RuleError, match="never a director"):
        place_tile(blank_play(), "director2", 1)


def test_a_tile_on_a_used_blank_space_must_match_the_type_there():
    play_ = place_tile(blank_play(), "music1", 1)
    assert place_tile(play_, "music2", 1).stacks[1] == ("music1", "music2")
    with pytest.raises(RuleError, match="holds a music"):
        place_tile(play_, "actor2", 1)


def test_a_contract_replaces_any_tile_and_then_only_contracts_follow():
    play_ = place_tile(small([["director3"], [], [], []]), "contract0", 0)
    assert play_.top_tiles == ("contract0",)
    with pytest.raises(RuleError, match="only another contract"):
        place_tile(play_, "director2", 0)
    assert place_tile(play_, "contract0", 0).stacks[0] == ("director3", "contract0", "contract0")
    assert place_tile(blank_play(), "contract0", 1).stacks[1] == ("contract0",)


def test_stars_go_only_on_the_star_space_stack_and_are_optional():
    play_ = place_tile(place_tile(small(), "star2", "star"), "star4", "star")
    assert play_.stars == ("star2", "star4") and play_.top_tiles == ("star4",)
    with pytest.raises(RuleError, match="only on the star space"):
        place_tile(small(), "star2", 1)
    with pytest.raises(RuleError, match="only star tiles"):
        place_tile(small(), "actor2", "star")
    with pytest.raises(RuleError, match="only star tiles"):
        place_tile(small(), "contract0", "star")


def test_a_finished_screenplay_takes_nothing_not_even_a_star():
    done = replace(small([["director1"], ["actor1"], ["camera1"], ["music1"]]), marker=(4, 0))
    with pytest.raises(RuleError, match="finished"):
        place_tile(done, "star3", "star")
    with pytest.raises(RuleError, match="finished"):
        place_tile(done, "contract0", 1)


def test_a_player_places_only_on_their_own_screenplays_and_only_tiles_in_hand():
    state = placing(new(), 0, ["actor1"])
    with pytest.raises(RuleError, match="Bea's"):
        play(state, {"type": "place", "player": "Adrian", "tile": "actor1", "screenplay": "2a", "space": 1})
    with pytest.raises(RuleError, match="holds no"):
        play(state, {"type": "place", "player": "Adrian", "tile": "actor2", "screenplay": "1a", "space": 1})


# -- finishing and rating ----------------------------------------------------------------------------
def test_three_tiles_won_one_finishes_a_screenplay_and_the_new_one_takes_the_other_two():
    state = with_stacks(new(), "1a", [["director1"], ["actor2"], ["camera1"], []])
    top = state.pile[0]
    state = placing(state, 0, ["music1", "director2", "actor1"])
    state = play(state, {"type": "place", "player": "Adrian", "tile": "music1", "screenplay": "1a", "space": 3})
    finished = state.screenplay("1a")
    assert finished.finished and finished.marker == (5, 0)
    fresh = state.screenplay(top)
    assert fresh.owner == 0 and state.pile[0] != top and len(state.pile) == 6
    actor_space = fresh.spaces.index("actor")
    state = play(state, {"type": "place", "player": "Adrian", "tile": "director2", "screenplay": top, "space": 0},
                 {"type": "place", "player": "Adrian", "tile": "actor1", "screenplay": top, "space": actor_space})
    assert state.screenplay(top).top_tiles == ("director2", "actor1")
    assert state.phase == "reveal"


def test_the_star_space_is_not_required_to_finish():
    state = with_stacks(new(), "1a", [["director1"], ["actor1"], ["camera1"], []])
    state = play(placing(state, 0, ["music1"]),
                 {"type": "place", "player": "Adrian", "tile": "music1", "screenplay": "1a", "space": 3})
    assert state.screenplay("1a").finished


def test_a_rating_takes_its_marker_or_the_next_lowest_free_plus_before_plain():
    free = all_markers()
    marker, free = take_marker(free, 10)
    assert marker == (10, 1)
    marker, free = take_marker(free, 10)
    assert marker == (10, 0)
    marker, free = take_marker(free, 10)
    assert marker == (9, 1)
    assert take_marker(all_markers(), 30)[0] == (22, 0)
    assert take_marker(all_markers(), -1)[0] == (0, 0)


def test_the_rating_counts_the_yellow_stars_of_the_top_tiles_knizia_minus_one():
    play_ = small([["director3", "director-1"], ["actor2"], ["camera1"], ["music0"]], stars=["star3"])
    assert play_.rating == -1 + 2 + 1 + 0 + 3


def test_the_first_finished_screenplay_of_a_genre_wins_its_trophy_once():
    state = new()
    state = with_stacks(state, "1a", [["director1"], ["actor1"], ["camera1"], []])
    genre = state.screenplay("1a").genre
    state = play(placing(state, 0, ["music1"]),
                 {"type": "place", "player": "Adrian", "tile": "music1", "screenplay": "1a", "space": 3})
    assert Trophy(f"first {genre}", 5, "1a", 0) in state.trophies
    same = next(p for p in state.screenplays if p.genre == genre and p.owner == 1)
    full = [[k + "1" if k not in ("blank",) else "actor1"] for k in same.spaces]
    state = with_stacks(state, same.id, full[:-1] + [[]])
    last = same.spaces[-1]
    tile = (last if last != "blank" else "actor") + "1"
    state = play(placing(state, 1, [tile]),
                 {"type": "place", "player": "Bea", "tile": tile, "screenplay": same.id, "space": len(same.spaces) - 1})
    assert [t.name for t in state.trophies].count(f"first {genre}") == 1


def test_an_empty_pile_gives_no_new_screenplay():
    state = replace(with_stacks(new(), "1a", [["director1"], ["actor1"], ["camera1"], []]), pile=())
    count = len(state.screenplays)
    state = play(placing(state, 0, ["music1"]),
                 {"type": "place", "player": "Adrian", "tile": "music1", "screenplay": "1a", "space": 3})
    assert len(state.screenplays) == count


# -- rounds, trophies, the end -------------------------------------------------------------------------
def finish(state, ident, marker, round_=1):
    play_ = state.screenplay(ident)
    full = tuple((("actor1" if k == "blank" else f"{k}1"),) for k in play_.spaces)
    done = replace(play_, stacks=full, marker=marker, finished_round=round_)
    return replace(state, screenplays=tuple(done if p.id == ident else p for p in state.screenplays))


def end_of_round(state):
    """Skip to the last location's placing and discard the last tile."""
    state = replace(state, stop=len(state.rules.board) - 1)
    return play(placing(state, 0, ["actor1"]), {"type": "discard", "player": "Adrian", "tile": "actor1"})


def test_the_best_movie_of_rounds_one_to_three_is_the_highest_marker_finished_that_round():
    state = finish(finish(finish(new(), "1a", (9, 1)), "2a", (12, 0)), "3a", (15, 0), round_=0)
    state = end_of_round(state)
    assert state.round == 2 and state.stop == 0 and state.phase == "reveal"
    assert Trophy("best movie 1", 5, "2a", 1) in state.trophies
    assert not any(t.name.startswith("best movie") and t.screenplay == "3a" for t in state.trophies)


def test_no_screenplay_finished_in_a_round_gives_no_best_movie():
    state = end_of_round(new())
    assert state.round == 2 and state.trophies == ()


def test_the_end_gives_best_of_each_genre_best_director_and_worst_movie():
    state = new()
    genres = {p.id: p.genre for p in state.screenplays}
    state = finish(finish(new(), "1a", (9, 1)), "2a", (12, 0))
    state = end_of_round(replace(state, round=4))
    assert state.phase == "over" and GAME.is_over(state)
    names = {t.name: t.screenplay for t in state.trophies}
    assert names[f"best {genres['2a']}"] == "2a"
    assert names["worst movie"] == "1a"
    assert "best director" not in names                   # director1 on both: a tie gives none


def test_best_director_counts_directors_not_contracts():
    a = replace(small([["director2"], ["actor1"], ["camera1"], ["music1"]]), marker=(5, 0))
    b = replace(small([["director3", "contract0"], ["actor1"], ["camera1"], ["music1"]]), id="b", marker=(4, 0))
    assert best_director([a, b]) is a


def test_the_score_is_finished_screenplays_trophies_and_tokens_and_ties_go_to_the_highest_marker():
    state = finish(finish(new(["Ann", "Ben"]), "1a", (9, 0)), "2a", (9, 1))
    state = replace(state, tokens=(10, 10), phase="over")
    assert points(state, 0) == points(state, 1) == 19
    assert winners(state) == ["Ben"]


def test_unfinished_screenplays_count_nothing():
    state = with_stacks(new(["Ann", "Ben"]), "1c", [["director3"]] + [[]] * 7)
    assert points(state, 0) == 12


# -- views --------------------------------------------------------------------------------------------
def test_with_three_or_more_players_tokens_are_behind_the_screens():
    state = new(["Ann", "Ben", "Cy"])
    public = GAME.view_of(state, PUBLIC)
    assert all(p["tokens"] is None for p in public["players"])
    own = GAME.view_of(state, "Ben")
    assert [p["tokens"] for p in own["players"]] == [None, 12, None]
    assert all(row[2] == "hidden" for row in GAME.scoreboard(state)[1:])
    assert "12" not in GAME.status(state)


def test_with_two_players_tokens_are_public():
    state = new(["Ann", "Ben"])
    assert [p["tokens"] for p in GAME.view_of(state, PUBLIC)["players"]] == [12, 12]


def test_bids_the_middle_and_the_popcorn_are_public():
    state = reveal_all(new(["Ann", "Ben", "Cy"]))
    state = play(state, {"type": "bid", "player": "Ann", "amount": 3})
    public = GAME.view_of(state, PUBLIC)
    assert public["high_bid"] == 3 and public["high_bidder"] == "Ann" and public["popcorn"] == "Ann"
    assert public["middle"] == 0
    assert GAME.event_view({"type": "bid", "player": "Ann", "amount": 3}, PUBLIC)["amount"] == 3


def test_a_finished_game_shows_everyone_points_and_winners_in_the_dice_games_shape():
    state = replace(new(["Ann", "Ben", "Cy"]), tokens=(3, 9, 8), phase="over")
    out = GAME.to_json(state)
    shown = [(p["name"], p["points"], p["tokens"]) for p in out["players"]]
    assert shown == [("Ann", 3, 3), ("Ben", 9, 9), ("Cy", 8, 8)]
    assert out["winners"] == ["Ben"]


# -- the table's bookkeeping ---------------------------------------------------------------------------
def test_an_illegal_event_is_refused_and_changes_nothing():
    session = Session(GAME, {"players": FOUR})
    before = session.state
    with pytest.raises(RuleError):
        session.play({"type": "bid", "player": "Adrian", "amount": 1})   # the tiles are not turned up yet
    with pytest.raises(RuleError, match="no 'dragon9'"):
        session.play({"type": "reveal", "tile": "dragon9"})
    assert session.state is before and session.events == []


def test_a_location_without_tiles_left_is_skipped():
    state = replace(new(), tiles_left=())
    state = reveal_all(state)
    state = play(state, *({"type": "pass", "player": p} for p in FOUR))
    assert state.round == 2 and state.location_name == "Legendary Director"


def test_the_legendary_director_location_turns_up_one_legendary_director():
    state = new()
    assert {e["tile"] for e in GAME.legal_events(state)} == {"director4", "director5"}
    state = play(state, {"type": "reveal", "tile": "director5"})
    assert state.phase == "auction" and state.offer == ("director5",)


# -- options: the rulebook's gaps, overridable -----------------------------------------------------------
def test_the_config_table_sets_the_options_and_checks_them():
    values = GAME.read_options({"middle": "stays", "board": ["director", "city:2", "party"]})
    state = GAME.setup({"players": FOUR, **GAME.setup_options(values)})
    assert state.rules.middle_rule == "stays" and state.rules.board == ("director", "city:2", "party")
    with pytest.raises(RuleError, match="middle"):
        GAME.read_options({"middle": "burn"})
    with pytest.raises(RuleError, match="board"):
        GAME.read_options({"board": ["city:3", "director"]})
    with pytest.raises(RuleError, match="tiles"):
        GAME.read_options({"tiles": {"dragon3": 2}})


def test_the_seed_orders_the_pile():
    piles = {new(seed=seed).pile for seed in range(6)}
    assert len(piles) > 1 and all(sorted(pile) == [f"P{n}" for n in range(1, 8)] for pile in piles)


def test_the_screenplays_are_data_that_can_be_replaced():
    plays = {f"{studio}{letter}": {"genre": "comedy", "spaces": ["director", "actor"], "studio": studio}
             for studio in range(1, 6) for letter in "abc"}
    plays["Q1"] = {"genre": "drama", "spaces": ["director", "blank"], "studio": None}
    state = new(screenplays=plays)
    assert state.pile == ("Q1",) and state.screenplay("1a").spaces == ("director", "actor")
    with pytest.raises(RuleError, match="one director"):
        new(screenplays={**plays, "Q1": {"genre": "drama", "spaces": ["director", "director"], "studio": None}})
    del plays["5c"]
    with pytest.raises(RuleError, match="studio 5 needs exactly three"):
        new(screenplays=plays)


def test_a_custom_tile_mix_is_the_only_one_that_can_be_turned_up():
    state = play(new(tiles={"actor1": 30}), {"type": "reveal", "tile": "director4"},
                 *({"type": "pass", "player": p} for p in FOUR))
    assert {e["tile"] for e in GAME.legal_events(state)} == {"actor1"}
    with pytest.raises(RuleError, match="no 'actor2' left"):
        play(state, {"type": "reveal", "tile": "actor2"})
