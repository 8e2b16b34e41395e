"""Properties of Another Christmas Romance Movie under random play, and fate's odds.

A random player (seeded) picks among plausible events in every phase; the rules decide
which are legal. Over whole random games we check what must always hold.
"""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from rules import christmas_romance as cr
from rules.core import RuleError, Session, fold, load_replay

GAME = cr.GAME
PLAYERS = {"solo": None, "coop": ["Ann", "Al"], "couples": ["Ann", "Al", "Bea", "Bob"],
           "multiplayer": ["Ann", "Ben", "Cat", "Dan"]}


def candidates(state: cr.State, rng: random.Random) -> list[dict]:
    """Plausible next events, the most interesting first, one that is always legal last."""
    seed = rng.getrandbits(32)
    phase, faces = state.phase, state.faces
    if phase == "declare":
        event = {"type": "declare", "defer": rng.randint(0, 2), "release": rng.random() < 0.4}
        fallback = {"type": "declare"}
        if state.mode == "solo":
            event["use"] = rng.choice(["star", "headliner", "none"])
            fallback["use"] = "none"
        return [event, fallback]
    if phase in ("roll", "penalty", "fate"):
        kind = {"roll": "roll", "penalty": "penalty_roll", "fate": "fate_roll"}[phase]
        return [{"type": kind, "seed": seed}]
    if phase == "fate_choice":
        return [{"type": "fate_choice", "take": "copy", "face": rng.choice(state.fate_roll)},
                {"type": "fate_choice", "take": "defer"}, {"type": "fate_choice", "take": "none"}]
    pool = list(state.turn.pool)
    events = [{"type": "melt", "faces": [f] * 3} for f in set(pool) if pool.count(f) >= 3]
    for player in state.players:
        if player != state.turn.player and state.turn.rolled:
            events.append({"type": "copy", "player": player, "face": rng.choice(state.turn.rolled)})
    events.append({"type": "add_copied"})
    if pool:
        rng.shuffle(pool)
        for card in ("stage", "romance", "romance-2"):
            events.append({"type": "place", "card": card, "faces": pool[:rng.randint(1, len(pool))],
                           "reward": rng.randint(0, 3)})
        events.append({"type": "element", "slot": rng.randint(1, 3), "give": pool[:1],
                       "get": [rng.choice(faces)]} if rng.random() < 0.5 else
                      {"type": "element", "slot": rng.randint(1, 3), "give": pool[:1], "get_deferred": 1})
    rng.shuffle(events)
    return events + [{"type": "end_turn"}]


def random_game(mode: str, seed: int, steps: int) -> tuple[Session, list[cr.State]]:
    rng = random.Random(seed)
    options = {"mode": mode, "element_locations": 2}
    if PLAYERS[mode]:
        options["players"] = PLAYERS[mode]
    session = Session(GAME, options)
    states = [session.state]
    for _ in range(steps):
        if GAME.is_over(session.state):
            break
        for event in candidates(session.state, rng):
            try:
                states.append(session.play(event))
                break
            except RuleError:
                continue
        else:
            raise AssertionError(f"no legal event in phase {session.state.phase}")
    return session, states


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 250))
def test_solo_snowflakes_never_exceed_ten_and_only_a_melt_thaws_one(seed, steps):
    session, states = random_game("solo", seed, steps)
    for before, event, after in zip(states, session.events, states[1:]):
        assert 0 <= after.snowflakes_frozen <= 10
        if after.snowflakes_frozen < before.snowflakes_frozen:
            assert event["type"] == "melt" and after.snowflakes_frozen == before.snowflakes_frozen - 1
        if event["type"] == "melt":
            assert after.melts == before.melts + 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 250))
def test_coop_fate_pool_never_grows(seed, steps):
    session, states = random_game("coop", seed, steps)
    pools = [state.fate_dice for state in states]
    assert all(later <= earlier for earlier, later in zip(pools, pools[1:]))
    assert all(0 <= pool <= 10 for pool in pools)
    if GAME.is_over(session.state) and cr.outcome(session.state)["result"] == "lost":
        assert session.state.fate_dice == 0


@settings(max_examples=25, deadline=None)
@given(mode=st.sampled_from(list(PLAYERS)), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 250))
def test_replay_equals_the_incremental_state_and_love_interests_stay_in_bounds(mode, seed, steps):
    session, states = random_game(mode, seed, steps)
    assert fold(GAME, session.setup_options, session.events) == session.state
    assert load_replay(session.to_jsonl(), {"christmas-romance": GAME}).state == session.state
    for before, event, after in zip(states, session.events, states[1:]):
        assert event["type"] in before.expecting          # the device may prompt from `expecting`
        if event["type"] in ("roll", "penalty_roll", "fate_roll"):
            assert before.dice_due > 0
        for old, new in zip(before.sides, after.sides):
            assert len(new.copied) <= cr.STAR_HOLDS and 0 <= new.deferred <= cr.HEADLINER_HOLDS
            assert new.stage >= old.stage and len(new.movie) >= len(old.movie)


# --- fate's odds -------------------------------------------------------------------------

def solo_loss_rate(turns: int, games: int, seed: int) -> float:
    """How often fate freezes all ten snowflakes within ``turns`` turns, with no melts."""
    rng = random.Random(seed)
    losses = 0
    for _ in range(games):
        state = GAME.setup({"mode": "solo"})
        for _ in range(turns):
            for event in ({"type": "declare", "use": "none"}, {"type": "roll", "seed": rng.getrandbits(32)},
                          {"type": "end_turn"}, cr.virtual_fate_event(rng.getrandbits(32))):
                state = GAME.apply(state, event)
            if GAME.is_over(state):
                losses += 1
                break
            state = GAME.apply(state, {"type": "fate_choice", "take": "none"})
    return losses / games


def test_solo_fate_loss_probability_matches_the_closed_form():
    # Each fate die freezes with probability 1/6 per roll, so after N rolls it is frozen with
    # probability 1 - (5/6)^N and all ten are: (1 - (5/6)^N)^10. The seed is fixed, so the
    # estimate is the same on every run; the tolerance is over 3.5 standard errors.
    games = 1200
    for turns in (10, 15):
        exact = (1 - (5 / 6) ** turns) ** 10
        estimate = solo_loss_rate(turns, games, seed=6)
        standard_error = (exact * (1 - exact) / games) ** 0.5
        assert abs(estimate - exact) < 3.5 * standard_error, (turns, estimate, exact)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from(
    ["SNOWFLAKE", "FACE-2", "star", "headliner", "none", "stage", "romance", "copy", "defer", "Ann", "Al", ""]),
    lambda inner: st.lists(inner, max_size=4), max_leaves=6)
KEYS = ["use", "defer", "release", "faces", "seed", "player", "face", "slot", "give", "give_deferred", "get",
        "get_deferred", "card", "cells", "reward", "take", "side", "title", "text"]


@settings(max_examples=60, deadline=None)
@given(mode=st.sampled_from(list(PLAYERS)), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60),
       kind=st.sampled_from(list(cr.HANDLERS) + ["nonsense"]), fields=st.dictionaries(st.sampled_from(KEYS), JSON))
def test_any_malformed_event_is_a_rule_error_and_changes_nothing(mode, seed, steps, kind, fields):
    session, _ = random_game(mode, seed, steps)
    before = session.state
    try:
        after = GAME.apply(before, {"type": kind, **fields})
    except RuleError as exc:
        assert str(exc)
    else:
        assert isinstance(after, cr.State)
    assert session.state is before
