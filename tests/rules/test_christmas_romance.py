"""Another Christmas Romance Movie: every rule and example of the rulebook, mode by mode.

Section names in the test names and comments are the rulebook's (seeds/000_...txt).
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from rules import get_game
from rules.core import RuleError, Session, fold, load_replay
from rules import christmas_romance as cr

S, F2, F3, F4, F5, F6 = cr.FACE_SETS["christmas-romance"]
GAME = cr.GAME


def new(mode="multiplayer", players=None, **options) -> Session:
    opts = {"mode": mode, **options}
    if players is not None:
        opts["players"] = players
    return Session(GAME, opts)


def play(s: Session, *events) -> None:
    for event in events:
        s.play(event)


def turn(s: Session, faces, stage=(), romance=(), reward=None, defer=0, release=False, use=None, end=True):
    """One player turn: declare, roll ``faces``, place on stage / romance, end."""
    declare = {"type": "declare", "defer": defer, "release": release}
    if use:
        declare["use"] = use
    play(s, declare, {"type": "roll", "faces": list(faces)})
    if stage:
        s.play({"type": "place", "card": "stage", "faces": list(stage)})
    if romance:
        event = {"type": "place", "card": "romance", "faces": list(romance)}
        if reward is not None:
            event["reward"] = reward
        s.play(event)
    if end:
        s.play({"type": "end_turn"})


def fate(s: Session, snowflakes=0, choice=None) -> None:
    n = s.state.fate_dice
    s.play({"type": "fate_roll", "faces": [S] * snowflakes + [F2] * (n - snowflakes)})
    if s.state.phase == "fate_choice":
        s.play(choice or {"type": "fate_choice", "take": "none"})


def with_sides(s: Session, **changes_by_player) -> Session:
    """A session whose state has sides changed (to start an example mid-game)."""
    state = s.state
    sides = tuple(replace(side, **changes_by_player.get(side.name, {})) for side in state.sides)
    s._states[-1] = replace(state, sides=sides)
    return s


def test_registered_under_its_name():
    assert get_game("christmas-romance") is GAME
    assert GAME.dice == "christmas-romance"


# --- setup ------------------------------------------------------------------------

def test_stage_cards_need_four_to_eight_dice():
    # [7. Moving up a stage] 4, 5, 6, 7 and all 8 dice
    side = new(players=["Ann", "Ben"]).state.sides[0]
    assert [side.stage_card.needs] + [c.needs for c in side.next_stages] == [4, 5, 6, 7, 8]


@pytest.mark.parametrize("players, active", [(2, 1), (3, 1), (4, 2), (6, 2)])
def test_one_active_romance_card_for_up_to_three_players_two_for_four_or_more(players, active):
    s = new(players=[f"P{i}" for i in range(players)])
    assert len(s.state.romances) == active and all(s.state.romances)


def test_solo_setup_six_romance_cards_five_stages_five_elements_three_face_up():
    state = new("solo").state
    assert len(state.romances) + len(state.romance_deck) == 6
    assert len(state.sides[0].next_stages) + 1 == 5
    assert len([e for e in state.elements if e]) == 3 and len(state.element_deck) == 2
    assert state.fate_dice == 10 and state.snowflakes_frozen == 0


@pytest.mark.parametrize("options, message", [
    ({"mode": "duel"}, "unknown mode"),
    ({"mode": "coop", "players": ["A", "B", "C"]}, "coop mode needs 2 players"),
    ({"mode": "couples", "players": ["A", "B", "C"]}, "even number of players"),
    ({"mode": "multiplayer", "players": ["A", "A"]}, "different player names"),
    ({"mode": "solo", "faces": ["A", "B"]}, "six different face names"),
    ({"mode": "solo", "stage_cards": [{}]}, "list of 5 stage cards"),
    ({"mode": "solo", "romance_cards": [{"layout": "kind: stage\nstage: 1\ndice:\n ? ? ? ?\n"}]}, "needs a romance card"),
    ({"mode": "solo", "romance_cards": [{"layout": "kind: romance\ndice:\n ? X\n"}]}, "romance_cards[1]:3: grid column 2"),
])
def test_bad_setups_are_explained(options, message):
    with pytest.raises(RuleError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Session(GAME, options)


@pytest.mark.parametrize("mode, players, message", [
    ("multiplayer", 8, "multiplayer mode needs 2 to 7 players, got 8"),
    ("couples", 16, "couples mode needs an even number of players, 4 to 14, got 16"),
])
def test_at_most_seven_sides_one_stage_card_of_each_stage_per_side(mode, players, message):
    # [Stage Cards] seven cards of each stage; [Player Setup] each player (couple) gets one of each
    assert len(new(mode, players=[f"P{i}" for i in range(players - 1 - (mode == "couples"))]).state.sides) == 7
    with pytest.raises(RuleError, match=message):
        new(mode, players=[f"P{i}" for i in range(players)])
    assert GAME.max_players == 14


@pytest.mark.parametrize("options, message", [
    ({"mode": "solo", "fate_die": 5}, r"unknown setup option\(s\) fate_die; valid: .*fate_dice"),
    ({"mode": "couples", "players": ["Ann", "Al", "Bea", "Bob"], "stage_cards": {"Ann": [{}] * 5}},
     "stage_cards.*'Ann'.*Ann & Al, Bea & Bob"),
    ({"mode": "multiplayer", "players": ["Ann", "Ben"], "love_interests": {"Cat": ["Nick", "Holly"]}},
     "love_interests.*'Cat'"),
    ({"mode": "solo", "stage_cards": [{"title": "meet cute", "needs": 6}, {}, {}, {}, {}]},
     r"stage_cards stage 1: unknown key\(s\) needs"),
])
def test_setup_options_that_would_be_ignored_are_refused(options, message):
    # a misspelt option must not silently fall back to a default (10 fate dice instead of 5)
    with pytest.raises(RuleError, match=message):
        Session(GAME, options)


def test_faces_can_be_renamed_snowflake_first():
    s = new("solo", faces=["FLAKE", "TREE", "MUG", "SLED", "GIFT", "STAR"])
    play(s, {"type": "declare", "use": "none"}, {"type": "roll", "faces": ["tree", "MUG", "3"]})
    assert s.state.turn.pool == ("TREE", "MUG", "MUG")
    s.play({"type": "end_turn"})
    s.play({"type": "fate_roll", "faces": ["FLAKE"] * 2 + ["STAR"] * 8})
    assert s.state.snowflakes_frozen == 2


# --- your turn [1. Decide how many dice to roll .. 3. Add copied dice] -----------------

def test_defer_up_to_two_release_all_and_roll_up_to_eight():
    s = new(players=["Ann", "Ben"])
    with pytest.raises(RuleError, match="from 0 to 2"):
        s.play({"type": "declare", "defer": 3})          # must always roll at least one
    with pytest.raises(RuleError, match="no deferred dice"):
        s.play({"type": "declare", "release": True})
    s.play({"type": "declare", "defer": 2})
    assert cr.dice_to_roll(s.state) == 1
    with pytest.raises(RuleError, match="1 dice must be rolled, got 3"):
        s.play({"type": "roll", "faces": [F2, F3, F4]})
    play(s, {"type": "roll", "faces": [F2]}, {"type": "end_turn"})
    turn(s, [F2, F3, F4])                                 # Ben
    turn(s, [F2], defer=2)                                # Ann: 4 deferred
    turn(s, [F2, F3, F4])
    with pytest.raises(RuleError, match="room for 1 more"):
        s.play({"type": "declare", "defer": 2})           # five locations on the headliner
    turn(s, [F2, F3], defer=1)                            # Ann: 5 deferred
    turn(s, [F2, F3, F4])
    s.play({"type": "declare", "release": True})          # releasing rolls all of them
    assert cr.dice_to_roll(s.state) == 8
    assert s.state.sides[0].deferred == 0


def test_copy_one_rolled_die_per_other_players_turn():
    s = new(players=["Ann", "Ben", "Cat"])
    play(s, {"type": "declare"}, {"type": "roll", "faces": [F2, F3, F3]})
    with pytest.raises(RuleError, match="own roll"):
        s.play({"type": "copy", "player": "Ann", "face": F2})
    with pytest.raises(RuleError, match="FACE-4 was not rolled"):
        s.play({"type": "copy", "player": "Ben", "face": F4})
    play(s, {"type": "copy", "player": "Ben", "face": F3}, {"type": "copy", "player": "Cat", "face": F3})
    with pytest.raises(RuleError, match="already copied"):
        s.play({"type": "copy", "player": "Ben", "face": F2})
    assert s.state.sides[1].copied == (F3,)


def test_copied_dice_only_from_rolled_dice_and_using_them_takes_all():
    s = new(players=["Ann", "Ben"])
    turn(s, [F2, F3, F4], end=False)
    play(s, {"type": "copy", "player": "Ben", "face": F4}, {"type": "end_turn"})
    turn(s, [F5, F5, F5], end=False)                      # Ben
    play(s, {"type": "add_copied"})
    assert s.state.turn.pool == (F5, F5, F5, F4) and s.state.sides[1].copied == ()
    with pytest.raises(RuleError, match="already added"):
        s.play({"type": "add_copied"})
    with pytest.raises(RuleError, match="FACE-4 was not rolled"):
        s.play({"type": "copy", "player": "Ann", "face": F4})   # added, not rolled


def test_star_love_interest_holds_three_copied_dice():
    s = new(players=["Ann", "Ben"])
    for _ in range(3):
        turn(s, [F2, F3, F4], end=False)
        play(s, {"type": "copy", "player": "Ben", "face": F2}, {"type": "end_turn"})
        turn(s, [F6, F6, F6])                             # Ben does not use them
    turn(s, [F2, F3, F4], end=False)
    with pytest.raises(RuleError, match="star love interest is full"):
        s.play({"type": "copy", "player": "Ben", "face": F3})


# --- 4. Movie elements ---------------------------------------------------------------

def test_each_movie_element_once_per_turn_and_completed_ones_are_replaced():
    s = new(players=["Ann", "Ben"], element_locations=1,
            element_cards=["the dog escapes", "a snowed-in inn", "an ex returns", "the big city job"])
    turn(s, [F2, F3, F4], end=False)
    s.play({"type": "element", "slot": 2, "give": [F2], "get": [F5]})
    assert s.state.turn.pool == (F3, F4, F5)
    with pytest.raises(RuleError, match="already used this turn|no open location"):
        s.play({"type": "element", "slot": 2, "give": [F3], "get": [F5]})
    s.play({"type": "end_turn"})
    ann = s.state.sides[0]
    assert [c.title for c in ann.movie] == ["a snowed-in inn"]
    assert [c.title for c in s.state.elements] == ["the dog escapes", "the big city job", "an ex returns"]


def test_movie_element_exchange_from_its_layout():
    layout = ("kind: element\ntitle: the bakery may close\nexchange: ? ? -> deferred\n"
              "dice:\n ? ? ?\n")
    s = new(players=["Ann", "Ben"], element_cards=[{"layout": layout}] * 3)
    turn(s, [F2, F2, F4], end=False)
    with pytest.raises(RuleError, match="takes \\? \\? -> deferred"):
        s.play({"type": "element", "slot": 1, "give": [F2, F4], "get_deferred": 1})
    with pytest.raises(RuleError, match="gives"):
        s.play({"type": "element", "slot": 1, "give": [F2, F2], "get": [F5]})
    s.play({"type": "element", "slot": 1, "give": [F2, F2], "get_deferred": 1})
    assert s.state.sides[0].deferred == 1 and s.state.turn.pool == (F4,)


# --- 5. Place dice (cards with layouts) ------------------------------------------------

MEET_CUTE = ("kind: stage\nstage: 1\ntitle: meet cute\ndice:\n"
             " SNOWFLAKE ? ?\n . 2 .\n . 3 4\n")


def test_placing_on_a_card_with_a_layout_follows_the_placement_rules():
    s = new("solo", stage_cards=[{"layout": MEET_CUTE}, {}, {}, {}, {}])
    play(s, {"type": "declare", "use": "none"}, {"type": "roll", "faces": [F2, F2, F4]})
    with pytest.raises(RuleError, match="say where each die goes"):
        s.play({"type": "place", "card": "stage", "faces": [F2]})
    with pytest.raises(RuleError, match=r"2 \[row, column\] pairs"):   # true is no row number
        s.play({"type": "place", "card": "stage", "faces": [F2, F2], "cells": [[True, 2], [1, 3]]})
    with pytest.raises(RuleError, match="filled together"):
        s.play({"type": "place", "card": "stage", "faces": [F2], "cells": [[1, 2]]})
    s.play({"type": "place", "card": "stage", "faces": [F2, F2], "cells": [[1, 2], [1, 3]]})
    with pytest.raises(RuleError, match="must touch"):
        s.play({"type": "place", "card": "stage", "faces": [F4], "cells": [[3, 3]]})
    assert s.state.sides[0].stage_card.placed == ((F2, (0, 1)), (F2, (0, 2)))


def test_cards_without_a_layout_count_dice_up_to_what_they_need():
    s = new(players=["Ann", "Ben"])
    turn(s, [F2, F3, F4], end=False)
    s.play({"type": "place", "card": "stage", "faces": [F2, F3, F4]})
    with pytest.raises(RuleError, match="no FACE-2 among your dice"):
        s.play({"type": "place", "card": "romance", "faces": [F2]})


# --- 6. Completing a Christmas romance card, and its reward -----------------------------

def near_complete_romance(s: Session, reward: int | None = 2) -> Session:
    card = replace(s.state.romances[0], placed=((F2, None),) * 3, reward=reward)
    s._states[-1] = replace(s.state, romances=(card,) + s.state.romances[1:])
    return s


def test_reward_example_1_highest_stage_and_completer_get_nothing():
    # One player on stage 4, all others on stage 3.
    s = new(players=["Ann", "Ben", "Cat", "Dan"])
    with_sides(s, Ann={"stage": 3}, Ben={"stage": 4}, Cat={"stage": 3}, Dan={"stage": 3})
    near_complete_romance(s, reward=2)
    turn(s, [F2, F3, F4], romance=[F3], end=False)        # Ann completes it
    deferred = {side.name: side.deferred for side in s.state.sides}
    assert deferred == {"Ann": 0, "Ben": 0, "Cat": 2, "Dan": 2}
    assert s.state.sides[0].romance.title == "Christmas romance card 1"


def test_reward_example_2_everyone_on_the_same_stage_all_but_the_completer_get_it():
    s = new(players=["Ann", "Ben", "Cat"])
    with_sides(s, Ann={"stage": 2}, Ben={"stage": 2}, Cat={"stage": 2})
    near_complete_romance(s, reward=3)
    turn(s, [F2, F3, F4], romance=[F4], end=False)
    assert [side.deferred for side in s.state.sides] == [0, 3, 3]


def test_a_reward_that_contradicts_the_cards_known_reward_is_refused():
    # the card's reward is known (setup or layout): a different "reward" in the event is a misreading
    s = new(players=["Ann", "Ben"], romance_cards=[{"title": "skating", "reward": 2}, "caroling"])
    near_complete_romance(s, reward=2)
    play(s, {"type": "declare"}, {"type": "roll", "faces": [F2, F3, F4]})
    before = s.state
    with pytest.raises(RuleError, match="reward is 2 deferred dice"):
        s.play({"type": "place", "card": "romance", "faces": [F3], "reward": 3})
    assert s.state is before
    s.play({"type": "place", "card": "romance", "faces": [F3], "reward": 2})
    assert s.state.sides[1].deferred == 2


def test_rewarded_sides_rule_directly():
    assert cr.rewarded_sides([3, 4, 3, 3], completer=0) == [2, 3]
    assert cr.rewarded_sides([2, 2, 2], completer=1) == [0, 2]
    assert cr.rewarded_sides([5, 1, 3], completer=0) == [1, 2]


def test_a_new_romance_card_is_turned_up_and_only_one_is_held_at_a_time():
    s = new(players=["Ann", "Ben"])
    near_complete_romance(s, reward=1)
    turn(s, [F2, F3, F4], romance=[F2], end=False)
    assert s.state.romances[0].title == "Christmas romance card 2"
    near_complete_romance(s, reward=1)
    with pytest.raises(RuleError, match="already hold a completed Christmas romance"):
        s.play({"type": "place", "card": "romance", "faces": [F3]})


def test_an_unknown_reward_is_asked_for_when_the_card_is_completed():
    s = new(players=["Ann", "Ben"])
    near_complete_romance(s, reward=None)
    turn(s, [F2, F3, F4], end=False)
    with pytest.raises(RuleError, match="add \"reward\""):
        s.play({"type": "place", "card": "romance", "faces": [F2]})
    s.play({"type": "place", "card": "romance", "faces": [F2], "reward": 2})
    assert s.state.sides[1].deferred == 2


# --- 7. Moving up a stage, winning -------------------------------------------------------

def test_moving_up_needs_the_stage_card_and_a_romance_card():
    s = new(players=["Ann", "Ben"])
    turn(s, [F2, F3, F4], stage=[F2, F3, F4])
    turn(s, [F2, F3, F4])
    turn(s, [F2, F3, F4], stage=[F2])                     # stage 1 card complete ...
    assert s.state.sides[0].stage == 1                    # ... but no romance card yet
    turn(s, [F2, F3, F4])
    near_complete_romance(s, reward=1)
    turn(s, [F2, F3, F4], romance=[F2])
    ann = s.state.sides[0]
    assert ann.stage == 2 and ann.stage_card.needs == 5 and ann.romance is None
    assert [c.kind for c in ann.movie] == ["stage", "romance"]
    assert s.state.sides[1].deferred == 1


def test_first_to_finish_stage_five_with_a_final_romance_card_wins():
    s = new(players=["Ann", "Ben"])
    last = s.state.sides[0].next_stages[-1]
    with_sides(s, Ann={"stage": 5, "stage_card": replace(last, placed=((F2, None),) * 7), "next_stages": ()})
    near_complete_romance(s, reward=1)
    turn(s, [F2, F3, F4], stage=[F3], romance=[F4])
    assert GAME.is_over(s.state)
    assert cr.outcome(s.state)["result"] == "won" and cr.outcome(s.state)["side"] == "Ann"
    with pytest.raises(RuleError, match="game is over"):
        s.play({"type": "declare"})


# --- couples mode and 2-player co-op --------------------------------------------------------

def test_couples_share_one_stage_card_star_holder_copies_headliner_holder_defers():
    s = new("couples", players=["Ann", "Al", "Bea", "Bob"])
    assert [side.name for side in s.state.sides] == ["Ann & Al", "Bea & Bob"]
    with pytest.raises(RuleError, match="headliner love interest is Al's"):
        s.play({"type": "declare", "defer": 1})
    turn(s, [F2, F3, F4], stage=[F2])                     # Ann
    assert s.state.current_player == "Al"
    play(s, {"type": "declare", "defer": 1}, {"type": "roll", "faces": [F3, F4]})
    with pytest.raises(RuleError, match="only Bea"):
        s.play({"type": "copy", "player": "Bob", "face": F3})
    s.play({"type": "copy", "player": "Bea", "face": F3})
    s.play({"type": "place", "card": "stage", "faces": [F3]})
    assert len(s.state.sides[0].stage_card.placed) == 2   # one card for the couple
    with pytest.raises(RuleError, match="star love interest is Ann's"):
        s.play({"type": "add_copied"})


def test_coop_fate_rolls_after_each_round_and_loses_when_no_dice_are_left():
    s = new("coop", players=["Ann", "Al"])
    turn(s, [F2, F3, F4])
    assert s.state.phase == "declare" and s.state.current_player == "Al"
    turn(s, [F2, F3, F4])
    assert s.state.phase == "fate" and cr.dice_to_roll(s.state) == 10
    assert cr.prompt(s.state) == "fate is due: roll 10 fate dice"
    fate(s, snowflakes=3)
    assert s.state.fate_dice == 7 and s.state.phase == "declare" and s.state.current_player == "Ann"
    # co-op's own words, in `replay`'s scoreboard as on the box: taken away, not frozen
    assert GAME.scoreboard(s.state)[-1] == ["fate", "", "3/10 taken away", "", "", "", "7 dice to roll"]
    with pytest.raises(RuleError, match="single-player game only"):
        turn(s, [F2, F2, F2], end=False) or s.play({"type": "melt", "faces": [F2, F2, F2]})
    s.play({"type": "end_turn"})
    turn(s, [F2, F3, F4])
    fate(s, snowflakes=7)
    assert cr.outcome(s.state) == {"result": "lost", "side": "Ann & Al",
                                   "reason": "fate rolled its last snowflake: the romance froze over"}


# --- single player ----------------------------------------------------------------------

def test_solo_fate_rolls_only_dice_not_yet_snowflakes():
    s = new("solo")
    turn(s, [F2, F3, F4], use="none")
    with pytest.raises(RuleError, match="10 dice must be rolled, got 9"):
        s.play({"type": "fate_roll", "faces": [F2] * 9})
    fate(s, snowflakes=2)
    assert s.state.snowflakes_frozen == 2
    turn(s, [F2, F3, F4], use="none")
    assert cr.dice_to_roll(s.state) == 8
    fate(s, snowflakes=1)
    assert s.state.snowflakes_frozen == 3


def test_solo_ten_snowflakes_before_the_movie_is_complete_is_a_loss():
    s = new("solo")
    for snowflakes in (4, 5):
        turn(s, [F2, F3, F4], use="none")
        fate(s, snowflakes=snowflakes)
    assert not GAME.is_over(s.state)
    turn(s, [F2, F3, F4], use="none")
    fate(s, snowflakes=1)
    assert cr.outcome(s.state)["result"] == "lost" and s.state.snowflakes_frozen == 10


def test_solo_melt_trades_three_of_a_kind_for_one_snowflake():
    s = new("solo")
    play(s, {"type": "declare", "use": "none"}, {"type": "roll", "faces": [F5, F5, F5]})
    with pytest.raises(RuleError, match="no frozen snowflake"):
        s.play({"type": "melt", "faces": [F5, F5, F5]})
    s.play({"type": "end_turn"})
    fate(s, snowflakes=2)
    play(s, {"type": "declare", "use": "none"}, {"type": "roll", "faces": [F5, F5, F2]})
    with pytest.raises(RuleError, match="3 dice of the same face"):
        s.play({"type": "melt", "faces": [F5, F5, F2]})
    with pytest.raises(RuleError, match="no FACE-5 among your dice"):
        s.play({"type": "melt", "faces": [F5, F5, F5]})
    s.play({"type": "end_turn"})
    fate(s)
    play(s, {"type": "declare", "use": "none"}, {"type": "roll", "faces": [F3, F3, F3]},
         {"type": "melt", "faces": [F3, F3, F3]})
    assert s.state.snowflakes_frozen == 1 and s.state.turn.pool == () and s.state.melts == 1
    s.play({"type": "end_turn"})
    assert cr.dice_to_roll(s.state) == 9                  # the melted one is rolled again


def test_solo_fates_turn_copy_one_of_its_dice_or_take_a_free_deferred_die():
    s = new("solo")
    turn(s, [F2, F3, F4], use="none")
    s.play({"type": "fate_roll", "faces": [S, F6] + [F2] * 8})
    with pytest.raises(RuleError, match="fate did not roll a FACE-5"):
        s.play({"type": "fate_choice", "take": "copy", "face": F5})
    with pytest.raises(RuleError, match="on fate's turn take"):
        s.play({"type": "fate_choice", "take": "both"})
    s.play({"type": "fate_choice", "take": "copy", "face": F6})
    assert s.state.sides[0].copied == (F6,)
    turn(s, [F2, F3, F4], use="none")
    fate(s, choice={"type": "fate_choice", "take": "defer"})
    assert s.state.sides[0].deferred == 1


def test_solo_only_one_love_interest_per_turn_chosen_before_rolling():
    s = new("solo")
    turn(s, [F2, F3, F4], use="none")
    s.play({"type": "fate_roll", "faces": [F6] + [F2] * 9})
    s.play({"type": "fate_choice", "take": "copy", "face": F6})
    with pytest.raises(RuleError, match="choose the love interest"):
        s.play({"type": "declare"})
    with pytest.raises(RuleError, match="chose the star love interest"):
        s.play({"type": "declare", "use": "star", "defer": 1})
    play(s, {"type": "declare", "use": "headliner", "defer": 1}, {"type": "roll", "faces": [F2, F3]})
    with pytest.raises(RuleError, match="chose the headliner love interest"):
        s.play({"type": "add_copied"})
    s.play({"type": "end_turn"})
    fate(s)
    play(s, {"type": "declare", "use": "star"}, {"type": "roll", "faces": [F2, F3, F4]}, {"type": "add_copied"})
    assert s.state.turn.pool == (F2, F3, F4, F6)
    with pytest.raises(RuleError, match="only deferred dice earned from movie elements"):
        s.play({"type": "element", "slot": 1, "give_deferred": 1, "get": [F5]})


def test_solo_combo_deferred_dice_earned_from_an_element_may_feed_another():
    s = new("solo")
    play(s, {"type": "declare", "use": "star"}, {"type": "roll", "faces": [F2, F3, F4]},
         {"type": "element", "slot": 1, "give": [F2], "get_deferred": 1},
         {"type": "element", "slot": 2, "give_deferred": 1, "get": [F5]})
    assert s.state.turn.pool == (F3, F4, F5) and s.state.sides[0].deferred == 0


def test_solo_stage_card_before_romance_card_and_the_romance_cards_roll():
    s = new("solo", romance_cards=[{"title": "caroling", "reward": 2}] * 6)
    turn(s, [F2, F3, F4], stage=[F2, F3, F4], use="none")
    fate(s)
    turn(s, [F2, F5, F5], romance=[F2, F5, F5], use="none")
    fate(s)
    play(s, {"type": "declare", "use": "none"}, {"type": "roll", "faces": [F2, F6, F6]})
    with pytest.raises(RuleError, match="complete your stage card before"):
        s.play({"type": "place", "card": "romance", "faces": [F6]})
    play(s, {"type": "place", "card": "stage", "faces": [F2]}, {"type": "place", "card": "romance", "faces": [F6]})
    # completing it: roll 2 dice, take one of each matching face off the stage card
    assert s.state.phase == "penalty" and cr.dice_to_roll(s.state) == 2
    assert cr.prompt(s.state) == "Player: roll 2 dice for the Christmas romance card"
    with pytest.raises(RuleError, match="not now"):
        s.play({"type": "end_turn"})
    s.play({"type": "penalty_roll", "faces": [F2, F2]})
    assert [f for f, _ in s.state.sides[0].stage_card.placed] == [F2, F3, F4]
    s.play({"type": "end_turn"})
    assert s.state.sides[0].stage == 1                    # the stage card is no longer complete
    fate(s)
    turn(s, [F5, F3, F4], stage=[F5], use="none")
    side = s.state.sides[0]
    assert side.stage == 2 and [c.title for c in side.movie] == ["go through stage 1", "caroling"]


def test_solo_penalty_takes_off_only_faces_that_are_there():
    s = new("solo", romance_cards=[{"title": "caroling", "reward": 3}] * 6)
    turn(s, [F2, F3, F4], stage=[F2, F3, F4], use="none")
    fate(s)
    turn(s, [F2, F5, F5], romance=[F2, F5, F5], use="none")
    fate(s)
    play(s, {"type": "declare", "use": "none"}, {"type": "roll", "faces": [F2, F6, F6]},
         {"type": "place", "card": "stage", "faces": [F2]}, {"type": "place", "card": "romance", "faces": [F6]},
         {"type": "penalty_roll", "faces": [S, F6, F3]})
    assert [f for f, _ in s.state.sides[0].stage_card.placed] == [F2, F4, F2]


def test_solo_movie_elements_replaced_until_none_remain():
    s = new("solo", element_locations=1)
    for slot in (1, 2, 3, 1, 2):
        play(s, {"type": "declare", "use": "none"}, {"type": "roll", "faces": [F2, F3, F4]},
             {"type": "element", "slot": slot, "give": [F2], "get": [F3]}, {"type": "end_turn"})
        fate(s)
    assert s.state.elements == (None, None, None) and not s.state.element_deck
    assert [c.title for c in s.state.sides[0].movie] == [f"movie element card {n}" for n in (1, 2, 3, 4, 5)]
    play(s, {"type": "declare", "use": "none"}, {"type": "roll", "faces": [F2, F3, F4]})
    with pytest.raises(RuleError, match="face-up movie element"):
        s.play({"type": "element", "slot": 1, "give": [F2], "get": [F3]})


# --- virtual fate, replay, errors -------------------------------------------------------------

def test_virtual_fate_is_seeded_and_replays_exactly():
    s = new("solo")
    turn(s, [F2, F3, F4], use="none")
    s.play(cr.virtual_fate_event(2026))
    assert s.state.fate_roll == cr.roll_faces(2026, 10, s.state.faces)
    assert s.events[-1] == {"type": "fate_roll", "seed": 2026}
    again = load_replay(s.to_jsonl(), {"christmas-romance": GAME})
    assert again.state == s.state
    assert fold(GAME, s.setup_options, s.events) == s.state


def test_an_illegal_event_leaves_the_state_untouched():
    s = new("solo")
    before, events = s.state, list(s.events)
    for event in ({"type": "roll", "faces": [F2]}, {"type": "dance"}, {"type": "fate_roll", "faces": []},
                  {"type": "declare", "use": "star", "defer": 2}):
        with pytest.raises(RuleError):
            s.play(event)
        assert s.state is before and s.events == events


def test_no_fate_in_the_multiplayer_game():
    s = new(players=["Ann", "Ben"])
    with pytest.raises(RuleError, match="no fate in the multiplayer game"):
        s.play({"type": "fate_roll", "seed": 1})


# --- the movie, told as a story [Winning the game, Example Story] --------------------------------

def test_the_movie_deck_reads_as_the_example_story():
    s = new("solo", love_interests={"Player": ["Miss Broke", "Mr. Handsome Widower"]},
            stage_cards=[{"title": "meet cute", "text": "are reunited"}, {}, {}, {}, {}],
            romance_cards=[{"title": "decorating the town Christmas tree", "reward": 0}] * 6,
            element_locations=1)
    turn(s, [F2, F3, F4], stage=[F2, F3, F4], use="none")
    fate(s)
    turn(s, [F2, F3, F4], stage=[F2], romance=[F3, F4], use="none")
    fate(s)
    turn(s, [F2, F3, F4], romance=[F2, F3], use="none", end=False)
    play(s, {"type": "element", "slot": 1, "give": [F4], "get": [F2]}, {"type": "end_turn"},
         {"type": "title", "card": 3, "title": "Miss Broke's dog escapes the next day"})
    assert cr.story(s.state) == (
        "Miss Broke and Mr. Handsome Widower meet cute when they are reunited while decorating the "
        "town Christmas tree. Miss Broke's dog escapes the next day.")


def test_titles_can_be_entered_for_love_interests_and_cards():
    s = new("solo")
    play(s, {"type": "title", "card": "star", "title": "Miss Broke"},
         {"type": "title", "card": "stage", "title": "meet cute", "text": "bump into each other"})
    with pytest.raises(RuleError, match="\"card\": expected"):
        s.play({"type": "title", "card": 9, "title": "x"})
    side = s.state.sides[0]
    assert side.star == "Miss Broke" and side.stage_card.title == "meet cute"
    assert cr.story(s.state) == "Miss Broke and the headliner love interest have not made their movie yet."


def test_state_for_the_device():
    s = new("solo")
    view = GAME.to_json(s.state)
    assert view["phase"] == "declare" and view["player"] == "Player" and view["dice_to_roll"] == 0
    turn(s, [F2, F3, F4], use="none")
    view = GAME.to_json(s.state)
    assert (view["phase"], view["dice_to_roll"], view["snowflakes_frozen"]) == ("fate", 10, 0)
    assert s.state.fate_due and s.state.expecting == ("fate_roll",) and view["expecting"] == ["fate_roll"]
    assert GAME.status(s.state) == "fate is due: roll 10 fate dice"
    assert GAME.scoreboard(s.state)[-1] == ["fate", "", "0/10 frozen", "", "", "", "10 dice to roll"]


# --- a whole game, through events only ---------------------------------------------------

def greedy_turn(s: Session, faces) -> None:
    """Roll ``faces``; fill the stage card first, then the Christmas romance card."""
    state = s.state
    side = state.sides[cr.side_of(state, state.current_player)]
    play(s, {"type": "declare"}, {"type": "roll", "faces": list(faces)})
    pool = list(faces)
    need = side.stage_card.needs - len(side.stage_card.placed)
    if need:
        s.play({"type": "place", "card": "stage", "faces": pool[:need]})
        pool = pool[need:]
    romance = s.state.romances[0]
    if pool and side.romance is None and romance is not None:
        count = min(len(pool), romance.needs - len(romance.placed))
        s.play({"type": "place", "card": "romance", "faces": pool[:count], "reward": 1})
    s.play({"type": "end_turn"})


def test_a_two_player_game_to_the_end_replays_and_tells_the_winners_movie():
    stages = [{"title": f"reach stage {n}"} for n in range(1, 6)]
    s = new(players=["Ann", "Ben"], stage_cards=stages,
            love_interests={"Ann": ["Miss Broke", "Mr. Handsome Widower"], "Ben": ["Holly", "Nick"]})
    rolls = [[F2, F3, F4], [F5, F6, F2], [F3, F3, F4]]
    turns = 0
    while not GAME.is_over(s.state):
        greedy_turn(s, rolls[turns % len(rolls)])
        turns += 1
        assert turns < 200
    result = cr.outcome(s.state)
    assert result["result"] == "won"
    winner, loser = sorted(s.state.sides, key=lambda side: side.name != result["side"])
    assert winner.stage == 6 and loser.stage < 6
    assert [c.stage for c in winner.movie if c.kind == "stage"] == [1, 2, 3, 4, 5]
    assert [c.kind for c in winner.movie] == ["stage", "romance"] * 5
    assert load_replay(s.to_jsonl(), {"christmas-romance": GAME}).state == s.state
    told = cr.story(s.state)
    couple = f"{winner.star} and {winner.headliner}"
    assert told.startswith(f"{couple} reach stage 1 while Christmas romance card ")
    assert [told.count(f"{couple} reach stage {n} while") for n in range(1, 6)] == [1] * 5


# --- our documented defaults (seeds/christmas-romance.md, "Unknowns") ---------------------------

def test_release_and_defer_in_one_turn_and_rewards_beyond_five_are_lost():
    s = new(players=["Ann", "Ben", "Cat"])
    with_sides(s, Ann={"deferred": 4}, Cat={"deferred": 4})
    s.play({"type": "declare", "release": True, "defer": 2})
    assert cr.dice_to_roll(s.state) == 3 - 2 + 4 and s.state.sides[0].deferred == 2
    play(s, {"type": "roll", "faces": [F2] * 5})
    near_complete_romance(s, reward=3)
    s.play({"type": "place", "card": "romance", "faces": [F2]})
    assert [side.deferred for side in s.state.sides] == [2, 3, 5]     # Cat: 4 + 3, capped at 5


def test_a_move_up_happens_at_the_end_of_the_turn():
    s = new(players=["Ann", "Ben"])
    with_sides(s, Ann={"stage_card": replace(s.state.sides[0].stage_card, placed=((F2, None),) * 3)})
    near_complete_romance(s, reward=0)
    turn(s, [F2, F3, F4], stage=[F2], romance=[F3], end=False)
    assert s.state.sides[0].stage == 1
    with pytest.raises(RuleError, match="room for 0 more dice"):
        s.play({"type": "place", "card": "stage", "faces": [F4]})
    s.play({"type": "end_turn"})
    assert s.state.sides[0].stage == 2


def test_couples_rewards_go_to_the_other_couple():
    s = new("couples", players=["Ann", "Al", "Bea", "Bob"])
    assert len(s.state.romances) == 2                     # 4 players at the table
    near_complete_romance(s, reward=2)
    turn(s, [F2, F3, F4], romance=[F2], end=False)
    assert [side.deferred for side in s.state.sides] == [0, 2]
    assert s.state.sides[0].romance is not None


def test_element_deferred_dice_need_room_on_the_headliner():
    s = new(players=["Ann", "Ben"])
    with_sides(s, Ann={"deferred": 5})
    turn(s, [F2, F3, F4], end=False)
    with pytest.raises(RuleError, match="room for 0 deferred dice"):
        s.play({"type": "element", "slot": 1, "give": [F2], "get_deferred": 1})
    s.play({"type": "element", "slot": 1, "give_deferred": 2, "get": [F5, F5]})
    assert s.state.sides[0].deferred == 3 and s.state.turn.pool == (F2, F3, F4, F5, F5)


def test_titles_in_a_multiplayer_game_name_the_side():
    s = new(players=["Ann", "Ben"])
    with pytest.raises(RuleError, match="\"side\": expected one of Ann, Ben"):
        s.play({"type": "title", "card": "star", "title": "Holly"})
    s.play({"type": "title", "side": "Ben", "card": "headliner", "title": "Nick"})
    assert s.state.sides[1].headliner == "Nick"


def test_a_specific_movie_from_layout_files():
    stage = "kind: stage\nstage: {n}\ntitle: stage {n} of our movie\ndice:\n"
    layouts = {f"s{n}.layout": stage.format(n=n) + " ".join(["2"] * (n + 3)) + "\n" for n in (3, 1, 2, 5, 4)}
    layouts["r.layout"] = "kind: romance\ntitle: caroling\nreward: 1\ndice:\n 2 3 4 5\n"
    options = cr.cards_from_layouts(layouts)
    s = new("solo", **options)
    side = s.state.sides[0]
    assert [c.title for c in (side.stage_card, *side.next_stages)] == [f"stage {n} of our movie" for n in range(1, 6)]
    assert s.state.romances[0].title == "caroling" and s.state.romances[0].reward == 1
    del layouts["s4.layout"]
    with pytest.raises(RuleError, match="no layout for stage 4"):
        cr.cards_from_layouts(layouts)
    layouts["s4.layout"] = "kind: stage\nstage: 3\ndice:\n 2 2 2 2 2 2\n"
    with pytest.raises(RuleError, match="s4.layout: a second stage 3 card"):
        cr.cards_from_layouts(layouts)
    with pytest.raises(RuleError, match="bad.layout:1: "):
        cr.cards_from_layouts({"bad.layout": "kind: hat\n"})


def test_solo_never_expects_a_copy_the_rules_would_refuse():
    """A die is copied from another player's roll; solo has no other player."""
    s = new("solo")
    turn(s, [F2, F3, F4], use="none", end=False)
    assert s.state.phase == "play" and "copy" not in s.state.expecting and "place" in s.state.expecting
    with pytest.raises(RuleError):
        s.play({"type": "copy", "player": "Player", "face": F2})
    m = new("multiplayer", ["Ann", "Ben"])
    turn(m, [F2, F3, F4], end=False)
    assert "copy" in m.state.expecting


@pytest.mark.parametrize("mode, players, need", [("solo", ["A", "B"], "needs 1 player, got 2"),
                                                  ("coop", ["A"], "needs 2 players, got 1")])
def test_a_wrong_player_count_is_said_in_plain_words(mode, players, need):
    with pytest.raises(RuleError, match=need):
        new(mode, players)
