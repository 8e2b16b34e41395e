"""Dream Factory's invariants over random games: tokens conserved, replay equals the
incremental state, undo exact, an illegal event changes nothing, every legal event applies,
and the public view never holds a hidden token count."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from rules.core import PUBLIC, RuleError, Session, fold
from rules.dream_factory import GAME

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve"]
players = st.integers(2, 5).map(lambda n: NAMES[:n])


def random_session(names, seed: int, steps: int, **options) -> Session:
    rng = random.Random(seed)
    session = Session(GAME, {"players": names, **options})
    for _ in range(steps):
        if GAME.is_over(session.state):
            break
        session.play(rng.choice(GAME.legal_events(session.state)))
    return session


def bank(state) -> int:
    return sum(state.tokens) + state.middle


@settings(max_examples=25, deadline=None)
@given(names=players, seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 500),
       middle=st.sampled_from(["with-next", "stays"]))
def test_tokens_are_conserved_and_only_auctions_move_them(names, seed, steps, middle):
    rng = random.Random(seed)
    state = GAME.setup({"players": names, "middle": middle})
    total = bank(state)
    for _ in range(steps):
        if GAME.is_over(state):
            break
        event = rng.choice(GAME.legal_events(state))
        after = GAME.apply(state, event)
        assert bank(after) == total
        assert all(n >= 0 for n in after.tokens)
        auction_won = state.phase == "auction" and after.phase == "place"
        if not auction_won:
            assert after.tokens == state.tokens and after.middle == state.middle
        state = after


@settings(max_examples=25, deadline=None)
@given(names=players, seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 500))
def test_replay_equals_the_incremental_state(names, seed, steps):
    session = random_session(names, seed, steps)
    assert fold(GAME, session.setup_options, session.events) == session.state


@settings(max_examples=25, deadline=None)
@given(names=players, seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 400))
def test_undo_is_exact(names, seed, steps):
    session = random_session(names, seed, steps)
    if not session.events:
        return
    before_last = fold(GAME, session.setup_options, session.events[:-1])
    session.undo()
    assert session.state == before_last


ILLEGAL = [{"type": "bid", "player": "Ann", "amount": 99}, {"type": "bid", "player": "Nobody", "amount": 0},
           {"type": "pass", "player": "Zed"}, {"type": "reveal", "tile": "dragon3"},
           {"type": "pick", "player": "Ann", "tile": "actor9"}, {"type": "discard", "player": "Ann", "tile": "star9"},
           {"type": "place", "player": "Ann", "tile": "actor1", "screenplay": "nope", "space": 0},
           {"type": "cheat"}]


@settings(max_examples=25, deadline=None)
@given(names=players, seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 300), which=st.sampled_from(ILLEGAL))
def test_an_illegal_event_never_changes_the_state(names, seed, steps, which):
    session = random_session(names, seed, steps)
    before, events = session.state, list(session.events)
    try:
        session.play(which)
    except RuleError:
        assert session.state is before and session.events == events
    else:
        raise AssertionError(f"{which} was accepted")


@settings(max_examples=20, deadline=None)
@given(names=players, seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 400))
def test_every_legal_event_applies(names, seed, steps):
    session = random_session(names, seed, steps)
    legal = GAME.legal_events(session.state)
    assert legal or GAME.is_over(session.state)
    for event in legal:
        GAME.apply(session.state, event)


@settings(max_examples=10, deadline=None)
@given(names=players, seed=st.integers(0, 2**32 - 1))
def test_a_random_game_ends_with_winners_and_the_public_view_hides_tokens_until_then(names, seed):
    rng = random.Random(seed)
    state = GAME.setup({"players": names})
    while not GAME.is_over(state):
        public = GAME.view_of(state, PUBLIC)
        if len(names) >= 3:
            assert all(p["tokens"] is None for p in public["players"])
            assert all(row[2] == "hidden" for row in GAME.scoreboard(state)[1:])
        state = GAME.apply(state, rng.choice(GAME.legal_events(state)))
    final = GAME.to_json(state)
    assert final["winners"] and all(p["tokens"] is not None for p in final["players"])
