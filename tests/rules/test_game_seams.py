"""What each game offers the table loop (rules/core.py's seam): options, chance, legal
events and views, for Jingle Bell Roll and Another Christmas Romance Movie.

Worked examples first, then properties over random games: a seeded driver plays only what
``legal_events`` offers and what ``chance`` asks to be thrown, and the rules must accept
every such event.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules
from rules import christmas_romance as cr
from rules import jingle_bell_roll as jbr
from rules.core import PUBLIC, Chance, Game, OptionError, RuleError, Session, check_event_keys, no_chance
from rules.dice import FACE_SETS
from rules.jingle_bell_roll_cards import CHARACTERS

JBR = jbr.GAME
CR = cr.GAME
S, F2, F3, F4, F5, F6 = FACE_SETS["christmas-romance"]
LAYOUTS = Path(rules.__file__).resolve().parent / "layouts"


def jbr_session(players=("Ann", "Ben", "Cat"), **options) -> Session:
    return Session(JBR, {"players": list(players), **options})


def dice(text: str) -> list[str]:
    return text.split()


def thrown(chance: Chance, faces) -> dict:
    """The chance's event with the standing dice and ``faces`` thrown."""
    return chance.with_faces(list(chance.standing) + list(faces))


# --- core ----------------------------------------------------------------------------------

def test_a_game_without_dice_throws_nothing_even_for_a_chosen_event():
    assert no_chance(object()) is None
    assert no_chance(object(), {"type": "reroll"}) is None


@pytest.mark.parametrize("name", rules.GAME_MODULES)
def test_every_game_names_the_keys_of_each_of_its_events(name):
    """A misspelt key in a typed or phoned-in event is refused, never silently dropped: every
    built-in game lists the keys of every event type it has (the random games below play
    only events within them)."""
    game = rules.get_game(name)
    assert set(game.event_keys) == set(game.event_types)
    for kind, keys in game.event_keys.items():
        check_event_keys(game, {"type": kind, **{key: None for key in keys}})
        with pytest.raises(RuleError, match=f"a '{kind}' event has no key 'plaer'"):
            check_event_keys(game, {"type": kind, "plaer": "Ann"})


def test_a_chance_counts_its_standing_dice_and_puts_them_in_the_event():
    chance = Chance(event={"type": "roll", "player": "Ann"}, dice=5, face_set="jingle-bell-roll",
                    standing=("BELL", "BELL"))
    assert chance.total == 7
    assert chance.with_faces(["BELL", "BELL", "MILK"]) == {"type": "roll", "player": "Ann",
                                                          "faces": ["BELL", "BELL", "MILK"]}
    assert chance.event == {"type": "roll", "player": "Ann"}   # untouched


def test_defaults_read_are_copies_the_caller_may_change():
    values = JBR.read_options({})
    values["stocking_points"].append(99)
    assert JBR.read_options({})["stocking_points"] == [1, 3, 6, 10, 15, 21, 28]
    assert jbr.DEFAULTS["stocking_points"] == [1, 3, 6, 10, 15, 21, 28]


# --- Jingle Bell Roll: options ---------------------------------------------------------------

def test_jbr_offers_one_option_per_config_key_with_todays_defaults():
    assert tuple(o.name for o in JBR.options) == jbr.OPTION_KEYS
    assert JBR.read_options({}) == {"rounds": 5, **jbr.DEFAULTS}
    assert JBR.option("rounds").choices == (5, 6)


def test_jbr_help_says_which_options_are_assumptions():
    assumed = {o.name for o in JBR.options if "ASSUMPTION" in o.help}
    assert assumed == {"stocking_points", "gift_points", "letter_stacks", "letter_effects", "lactose_intolerant_milk"}


@pytest.mark.parametrize("key, value", [
    ("rounds", 7), ("rounds", True), ("rounds", "5"),
    ("stocking_points", []), ("stocking_points", [3, 1]), ("gift_points", [2, -1]),
    ("letter_stacks", {"6": 2}), ("letter_stacks", []), ("letter_effects", ["BELL"]),
    ("gift_deck", -1), ("starting_gift_cards", 1.5),
])
def test_jbr_rejects_a_bad_value_with_the_message_dicewatch_score_gives(key, value):
    with pytest.raises(RuleError) as rules_said:
        jbr.make_rules({key: value})
    with pytest.raises(OptionError) as err:
        JBR.read_options({key: value})
    assert err.value.key == key
    assert str(err.value) == f"[jingle-bell-roll] {rules_said.value}"


def test_jbr_rejects_an_unknown_key_as_dicewatch_score_does():
    with pytest.raises(OptionError) as err:
        JBR.read_options({"rounds": 5, "snow": 1})
    assert err.value.key == "snow"
    assert str(err.value) == ("[jingle-bell-roll] unknown key 'snow'; expected one of "
                              f"{', '.join(jbr.OPTION_KEYS)}")


def test_a_config_value_that_is_not_a_table_is_refused():
    with pytest.raises(OptionError, match=r"^jingle-bell-roll: expected a table \[jingle-bell-roll\]$"):
        JBR.read_options(6)


def test_jbr_accepts_the_longer_game_and_keeps_it_in_the_setup():
    values = JBR.read_options({"rounds": 6, "gift_deck": 20})
    assert values["rounds"] == 6 and values["gift_deck"] == 20
    setup = JBR.setup_options(values)
    assert setup == values   # all setup options, defaults too: the header says how the game was set up
    assert jbr_session(**setup).state.rules.rounds == 6


# --- Jingle Bell Roll: chance --------------------------------------------------------------

def test_jbr_first_roll_throws_all_seven_dice():
    state = jbr_session().state
    assert JBR.chance(state) == Chance(event={"type": "roll", "player": "Ann"}, dice=7,
                                       face_set="jingle-bell-roll", standing=(), thrower="Ann")


def test_jbr_bells_stand_for_the_second_roll():
    s = jbr_session()
    s.play({"type": "roll", "faces": dice("BELL MILK BELL COOKIE LIST GIFT STOCKING")})
    chance = JBR.chance(s.state)
    assert (chance.dice, sorted(chance.standing)) == (5, ["BELL", "BELL"])
    s.play(thrown(chance, dice("MILK MILK COOKIE COOKIE LIST")))
    assert s.state.roll_number == 2


def test_jbr_no_throw_after_the_third_roll_or_at_the_end():
    s = jbr_session()
    for _ in range(3):
        s.play(thrown(JBR.chance(s.state), dice("MILK COOKIE LIST STOCKING GIFT MILK COOKIE")))
    assert JBR.chance(s.state) is None
    s = jbr_session()
    s.play({"type": "roll", "faces": ["BELL"] * 7})   # seven BELLS win at once
    assert s.state.is_over and JBR.chance(s.state) is None


def test_jbr_frosty_rerolls_one_milk_and_six_dice_stand():
    s = jbr_session(characters={"Ann": "Frosty"})
    s.play({"type": "roll", "faces": dice("BELL MILK COOKIE MILK LIST GIFT STOCKING")})
    chosen = {"type": "reroll", "player": "Ann", "with": "Frosty"}
    chance = JBR.chance(s.state, chosen)
    assert chance.event == chosen and chance.dice == 1 and chance.thrower == "Ann"
    assert sorted(chance.standing) == sorted(dice("BELL COOKIE MILK LIST GIFT STOCKING"))
    after = s.play(thrown(chance, ["GIFT"]))
    assert sorted(after.faces) == sorted(dice("BELL COOKIE MILK LIST GIFT STOCKING GIFT"))
    assert JBR.chance(after, chosen) is None   # the ability is used once per turn


def test_jbr_rockin_around_picks_up_a_die_that_is_not_a_bell():
    s = jbr_session()
    s.play({"type": "roll", "faces": dice("BELL BELL BELL LIST BELL BELL BELL")})
    chance = JBR.chance(s.state, {"type": "reroll", "with": "Rockin' Around"})
    assert sorted(chance.standing) == ["BELL"] * 6
    assert s.play(thrown(chance, ["BELL"])).instant_win


@pytest.mark.parametrize("chosen", [
    {"type": "reroll", "player": "Ann", "with": "Frosty"},            # no MILK showing
    {"type": "reroll", "player": "Ann", "with": "Holly Daze"},        # not Ann's character
    {"type": "reroll", "player": "Ben", "with": "Rockin' Around"},    # not Ben's turn
    {"type": "reroll", "player": "Ann", "with": "Letter"},            # no re-roll letter
    {"type": "reroll", "player": "Ann"},                              # with nothing
    {"type": "score", "player": "Ann"},                               # not a throw
])
def test_jbr_a_reroll_that_cannot_be_played_throws_nothing(chosen):
    s = jbr_session(characters={"Ann": "Frosty"})
    s.play({"type": "roll", "faces": dice("BELL GIFT COOKIE LIST LIST GIFT STOCKING")})
    assert JBR.chance(s.state, chosen) is None


def test_jbr_no_reroll_before_the_first_roll():
    state = jbr_session(starting_gift_cards=1).state
    assert JBR.chance(state, {"type": "reroll", "with": "Rockin' Around"}) is None


# --- Jingle Bell Roll: legal events -------------------------------------------------------

def test_jbr_before_the_first_roll_each_player_without_a_character_may_choose():
    """In seat order: a player may decline, so the table may ask the next one first."""
    s = jbr_session()
    offered = JBR.legal_events(s.state)
    assert offered == tuple({"type": "choose_character", "player": p, "character": name}
                            for p in ("Ann", "Ben", "Cat") for name in CHARACTERS)
    s.play({"type": "choose_character", "player": "Ann", "character": "Frosty"})
    offered = JBR.legal_events(s.state)
    assert [e["player"] for e in offered] == ["Ben"] * (len(CHARACTERS) - 1) + ["Cat"] * (len(CHARACTERS) - 1)
    assert "Frosty" not in [e["character"] for e in offered]


def test_jbr_no_choices_once_everyone_has_a_character_or_the_dice_are_rolled():
    s = jbr_session(players=("Ann", "Ben"), characters={"Ann": "Frosty", "Ben": "Holly Daze"})
    assert JBR.legal_events(s.state) == ()
    s = jbr_session()
    s.play({"type": "roll", "faces": dice("MILK COOKIE LIST LIST STOCKING BELL BELL")})
    assert all(e["type"] != "choose_character" for e in JBR.legal_events(s.state))


def test_jbr_after_a_roll_score_then_each_reroll_in_order():
    s = jbr_session(characters={"Ann": "Frosty"})
    s.play({"type": "roll", "faces": dice("MILK COOKIE LIST LIST STOCKING BELL BELL")})
    assert JBR.legal_events(s.state) == (
        {"type": "score", "player": "Ann"},
        {"type": "reroll", "player": "Ann", "with": "Frosty"},
        {"type": "reroll", "player": "Ann", "with": "Rockin' Around"})
    s.play({"type": "score"})
    assert JBR.legal_events(s.state) == ()   # Ben has not rolled yet


def test_jbr_nothing_to_choose_when_the_game_is_over():
    s = jbr_session()
    s.play({"type": "roll", "faces": ["BELL"] * 7})
    assert JBR.legal_events(s.state) == ()


def test_jbr_views_show_everything_to_everyone():
    s = jbr_session()
    s.play({"type": "roll", "faces": dice("MILK COOKIE LIST LIST STOCKING BELL BELL")})
    for viewer in (PUBLIC, "Ann", "Ben"):
        assert JBR.view_of(s.state, viewer) == jbr.to_json(s.state)
    event = {"type": "score", "player": "Ann"}
    assert JBR.event_view(event, "Ben") == event


# --- Another Christmas Romance Movie: options ---------------------------------------------

def test_cr_options_and_their_defaults():
    decks = ["love_interests", "stage_cards", "romance_cards", "element_cards", "fate_dice", "melts",
             "element_locations", "coop_reward"]
    assert [o.name for o in CR.options] == ["mode", "faces", *decks, "virtual_fate"]
    assert CR.read_options(None) == {"mode": "solo", "faces": list(FACE_SETS["christmas-romance"]),
                                     **{name: None for name in decks}, "virtual_fate": False}
    assert CR.option("mode").choices == ("solo", "coop", "couples", "multiplayer")


def test_cr_virtual_fate_steers_the_box_and_stays_out_of_the_setup():
    values = CR.read_options({"virtual_fate": True, "faces": ["SNOW", "B", "C", "D", "E", "F"]})
    setup = CR.setup_options(values)
    assert setup == {"mode": "solo", "faces": ["SNOW", "B", "C", "D", "E", "F"]}
    state = Session(CR, setup).state
    assert state.mode == "solo" and state.snowflake == "SNOW"


@pytest.mark.parametrize("faces", [
    ["A", "B", "C", "D", "E"], ["A", "A", "C", "D", "E", "F"], ["A", "B C", "C", "D", "E", "F"],
    ["", "B", "C", "D", "E", "F"], "ABCDEF", ["?", "B", "C", "D", "E", "F"], [1, 2, 3, 4, 5, 6],
])
def test_cr_faces_must_be_six_different_names_as_dicewatch_place_says(faces):
    with pytest.raises(OptionError) as err:
        CR.read_options({"faces": faces})
    assert err.value.key == "faces"
    assert str(err.value).startswith("[christmas-romance] faces: expected six different names without "
                                     f"spaces, the snowflake first, got {faces!r}")


@pytest.mark.parametrize("key, value, message", [
    ("mode", "duel", "[christmas-romance] mode: expected one of solo, coop, couples, multiplayer, got 'duel'"),
    ("virtual_fate", "yes", "[christmas-romance] virtual_fate: expected true or false, got 'yes'"),
    ("stage_card", [], "[christmas-romance] unknown key 'stage_card'; expected one of mode, faces, love_interests, "
     "stage_cards, romance_cards, element_cards, fate_dice, melts, element_locations, coop_reward, virtual_fate"),
])
def test_cr_bad_options_are_named(key, value, message):
    with pytest.raises(OptionError) as err:
        CR.read_options({key: value})
    assert (err.value.key, str(err.value)) == (key, message)


# --- Another Christmas Romance Movie: chance ----------------------------------------------

def test_cr_the_players_roll_after_declaring_and_fate_after_the_turn():
    s = Session(CR, {"mode": "solo"})
    assert CR.chance(s.state) is None                      # declare first
    s.play({"type": "declare", "use": "headliner", "defer": 1})
    assert CR.chance(s.state) == Chance(event={"type": "roll"}, dice=2, face_set="christmas-romance",
                                        thrower="Player")
    s.play(CR.chance(s.state).with_faces([F2, F3]))
    assert CR.chance(s.state) is None                      # placing is a choice
    s.play({"type": "end_turn"})
    fate = CR.chance(s.state)
    assert fate == Chance(event={"type": "fate_roll"}, dice=10, face_set="christmas-romance",
                          thrower="fate", seeded=True)
    s.play({**fate.event, "seed": 7})                      # the box may roll fate itself
    assert s.state.phase in ("fate_choice", "over")


def test_cr_a_completed_romance_card_asks_for_its_penalty_roll():
    s = Session(CR, {"mode": "solo", "romance_cards": [{"title": "skating", "reward": 2}] * 6})
    s.play({"type": "declare", "use": "none"})
    s.play({"type": "roll", "faces": [F2, F3, F4]})
    s.play({"type": "place", "card": "stage", "faces": [F2, F3, F4]})
    s.play({"type": "end_turn"})
    s.play({"type": "fate_roll", "faces": [F2] * 10})
    s.play({"type": "fate_choice", "take": "none"})
    s.play({"type": "declare", "use": "none"})
    s.play({"type": "roll", "faces": [F5, F6, F6]})
    s.play({"type": "place", "card": "stage", "faces": [F5]})
    s.play({"type": "place", "card": "romance", "faces": [F6, F6]})
    s.play({"type": "end_turn"})
    s.play({"type": "fate_roll", "faces": [F2] * 10})
    s.play({"type": "fate_choice", "take": "none"})
    s.play({"type": "declare", "use": "none"})
    s.play({"type": "roll", "faces": [F2, F3, F4]})
    s.play({"type": "place", "card": "romance", "faces": [F2, F3]})
    assert CR.chance(s.state) == Chance(event={"type": "penalty_roll"}, dice=2, face_set="christmas-romance",
                                        thrower="Player")
    assert CR.chance(s.state, {"type": "penalty_roll"}) is None   # no choice here is completed by a throw


# --- Another Christmas Romance Movie: legal events ----------------------------------------

def test_cr_solo_ways_to_start_the_first_turn():
    assert CR.legal_events(Session(CR, {"mode": "solo"}).state) == (
        {"type": "declare", "use": "star"}, {"type": "declare", "use": "headliner"},
        {"type": "declare", "use": "headliner", "defer": 1}, {"type": "declare", "use": "headliner", "defer": 2},
        {"type": "declare", "use": "none"})


def test_cr_completing_a_romance_card_without_a_known_reward_offers_each_reward():
    s = Session(CR, {"mode": "multiplayer", "players": ["Ann", "Ben"]})
    s.play({"type": "declare"})
    s.play({"type": "roll", "faces": [S, S, S]})
    s.play({"type": "place", "card": "romance", "faces": [S, S, S]})
    s.play({"type": "end_turn"})
    s.play({"type": "declare"})
    s.play({"type": "roll", "faces": [F2, F3, F3]})
    rewards = [{"type": "place", "card": "romance", "faces": [face], "reward": n}
               for face in (F2, F3) for n in range(7)]
    assert CR.legal_events(s.state) == (
        {"type": "place", "card": "stage", "faces": [F2]}, {"type": "place", "card": "stage", "faces": [F3]},
        {"type": "place", "card": "stage", "faces": [F2, F3, F3]},
        *rewards,
        {"type": "copy", "player": "Ann", "face": F2}, {"type": "copy", "player": "Ann", "face": F3},
        {"type": "end_turn"})
    s.play(rewards[3])
    assert s.state.sides[0].deferred == 3   # both on stage 1: Ann gets the card's reward


def test_cr_a_card_with_a_layout_offers_its_best_placement_and_element_trades():
    layout = {p.stem: p.read_text() for p in LAYOUTS.glob("*.layout")}
    s = Session(CR, {"mode": "solo", "stage_cards": [{"layout": layout["stage1-meet-cute"]}, {}, {}, {}, {}],
                     "element_cards": [{"layout": layout["element-small-town-bakery"]}] * 5})
    s.play({"type": "declare", "use": "none"})
    s.play({"type": "roll", "faces": [S, F2, F2]})
    offered = CR.legal_events(s.state)
    assert offered[0] == {"type": "place", "card": "stage", "faces": [S, F2, F2], "cells": [[1, 1], [1, 2], [1, 3]]}
    assert {"type": "element", "slot": 1, "give": [F2, F2], "get_deferred": 1} in offered
    assert offered[-1] == {"type": "end_turn"}


def test_cr_fate_s_turn_copies_defers_or_passes():
    s = Session(CR, {"mode": "solo"})
    s.play({"type": "declare", "use": "none"})
    s.play({"type": "roll", "faces": [F2, F3, F4]})
    s.play({"type": "end_turn"})
    s.play({"type": "fate_roll", "faces": [F6, F2, F6, F3, F3, F3, F3, F3, F3, F3]})
    assert CR.legal_events(s.state) == (
        {"type": "fate_choice", "take": "copy", "face": F2}, {"type": "fate_choice", "take": "copy", "face": F3},
        {"type": "fate_choice", "take": "copy", "face": F6}, {"type": "fate_choice", "take": "defer"},
        {"type": "fate_choice", "take": "none"})


def test_cr_nothing_to_choose_while_dice_are_due_or_at_the_end():
    s = Session(CR, {"mode": "solo", "fate_dice": 1})
    s.play({"type": "declare", "use": "none"})
    assert CR.legal_events(s.state) == ()
    s.play({"type": "roll", "faces": [F2, F3, F4]})
    s.play({"type": "end_turn"})
    assert CR.legal_events(s.state) == ()
    s.play({"type": "fate_roll", "faces": [S]})
    assert s.state.phase == "over" and CR.legal_events(s.state) == () and CR.chance(s.state) is None


def test_cr_views_show_everything_to_everyone():
    state = Session(CR, {"mode": "coop", "players": ["Ann", "Al"]}).state
    for viewer in (PUBLIC, "Ann", "Al"):
        assert CR.view_of(state, viewer) == cr.to_json(state)


# --- properties over random games ---------------------------------------------------------

def complete_jbr(state, event: dict, rng: random.Random) -> dict:
    """A score event with its gift recipients (the box's wizard would ask for them)."""
    if event["type"] != "score":
        return event
    result = jbr.score_roll(state.faces, (), state.rules, state.player.letter_faces)
    others = [p.name for p in state.players if p.name != state.current_player]
    return {**event, "gift_recipients": [rng.choice(others) for _ in range(result.gift_cards_to_deal)]}


def random_jbr_game(seed: int, steps: int) -> list:
    """A seeded random game played only through legal_events and chance; every event offered
    (completed where it must be) is checked against the rules on the way."""
    rng = random.Random(seed)
    players = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"][:rng.randint(2, 6)]
    session = Session(JBR, {"players": players, "starting_gift_cards": rng.randint(0, 3),
                            "letter_stacks": {"2": 6, "3": 5, "4": 4, "5": 3}})
    states = [session.state]
    for _ in range(steps):
        state = session.state
        if JBR.is_over(state):
            break
        moves = []
        for event in JBR.legal_events(state):
            if event["type"] == "reroll":
                chance = JBR.chance(state, event)
                assert chance is not None and chance.dice == 1 and len(chance.standing) == 6, event
                event = thrown(chance, [rng.choice(jbr.FACES)])
            event = complete_jbr(state, event, rng)
            JBR.apply(state, event)    # every offered event, completed, is legal
            moves.append(event)
        chance = JBR.chance(state)
        if chance is not None:
            assert chance.total == jbr.DICE
            roll = thrown(chance, [rng.choice(jbr.FACES) for _ in range(chance.dice)])
            moves += [roll] * 3        # rolling is the likeliest move
        assert moves, f"nothing to do in {state}"
        states.append(session.play(rng.choice(moves)))
    return states


def cr_setup(mode: str, rng: random.Random) -> dict:
    options = {"mode": mode, "element_locations": rng.choice([1, 2, 3])}
    options["players"] = {"solo": ["Ann"], "coop": ["Ann", "Al"], "couples": ["Ann", "Al", "Bea", "Bob"],
                          "multiplayer": ["Ann", "Ben", "Cat"]}[mode]
    if rng.random() < 0.5:   # the example layouts: placements with cells, trades, known rewards
        layout = {p.stem: {"layout": p.read_text()} for p in LAYOUTS.glob("*.layout")}
        options["stage_cards"] = [layout["stage1-meet-cute"], {}, {}, {}, layout["stage5-merrily-ever-after"]]
        options["romance_cards"] = [layout["romance-tree-lighting"], {"title": "skating"}] * 12
        options["element_cards"] = [layout["element-small-town-bakery"], {"title": "a blizzard"}] * 12
    return options


def random_cr_game(mode: str, seed: int, steps: int) -> list:
    """As :func:`random_jbr_game`, for Another Christmas Romance Movie: in every phase either
    a throw is due or there is a choice, never both, never neither."""
    rng = random.Random(seed)
    session = Session(CR, cr_setup(mode, rng))
    states = [session.state]
    for _ in range(steps):
        state = session.state
        if CR.is_over(state):
            assert CR.chance(state) is None and CR.legal_events(state) == ()
            break
        offered, chance = CR.legal_events(state), CR.chance(state)
        assert bool(offered) != bool(chance), (state.phase, offered, chance)
        if chance is not None:
            assert chance.dice == state.dice_due > 0 and chance.thrower
            event = chance.with_faces([rng.choice(state.faces) for _ in range(chance.dice)])
            if chance.seeded and rng.random() < 0.5:
                event = {**chance.event, "seed": rng.getrandbits(31)}
            states.append(session.play(event))
            continue
        for event in offered:
            CR.apply(state, event)     # every offered event is legal
        weights = [1 if e["type"] == "end_turn" else 4 for e in offered]
        states.append(session.play(rng.choices(offered, weights)[0]))
    return states


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 120))
def test_jbr_every_offered_event_and_every_throw_is_legal(seed, steps):
    random_jbr_game(seed, steps)


@settings(max_examples=25, deadline=None)
@given(mode=st.sampled_from(cr.MODES), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 150))
def test_cr_every_offered_event_and_every_throw_is_legal(mode, seed, steps):
    random_cr_game(mode, seed, steps)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 60))
def test_views_are_json_for_every_viewer(seed, steps):
    for game, states in ((JBR, random_jbr_game(seed, steps)), (CR, random_cr_game("couples", seed, steps))):
        state = states[-1]
        names = [p.name for p in state.players] if game is JBR else list(state.players)
        for viewer in (PUBLIC, *names):
            json.dumps(game.view_of(state, viewer))
        for event in game.legal_events(state):
            assert game.event_view(event, names[0]) == event
            json.dumps(event)


@pytest.mark.parametrize("game", [JBR, CR], ids=lambda g: g.name)
@given(data=st.data())
def test_read_options_round_trips_any_subset_of_the_defaults(game: Game, data):
    defaults = game.read_options({})
    keys = data.draw(st.lists(st.sampled_from([o.name for o in game.options]), unique=True))
    assert game.read_options({key: defaults[key] for key in keys}) == defaults
    assert game.read_options(defaults) == defaults


@pytest.mark.parametrize("game", [JBR, CR], ids=lambda g: g.name)
@given(key=st.text(min_size=1, max_size=12))
def test_read_options_names_an_unknown_key(game: Game, key):
    known = [o.name for o in game.options]
    if key in known:
        return
    with pytest.raises(OptionError) as err:
        game.read_options({known[0]: game.option(known[0]).default, key: 1})
    assert err.value.key == key and repr(key) in str(err.value)


@given(rounds=st.integers().filter(lambda n: n not in (5, 6)))
def test_jbr_rounds_other_than_five_or_six_are_refused(rounds):
    with pytest.raises(OptionError) as err:
        JBR.read_options({"rounds": rounds})
    assert err.value.key == "rounds" and '"rounds" must be 5, or 6' in str(err.value)
