"""Properties of Making Christmas under random play: a seeded player picks among the legal
events (completing a goal when it can, so that games end); the rules decide the rest."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from rules import making_christmas as mc
from rules.core import PUBLIC, RuleError, Session, fold, load_replay

GAME = mc.GAME
PLAYERS = [["Ann", "Ben"], ["Ann", "Ben", "Cat"], ["Ann", "Ben", "Cat", "Dan", "Eve"]]
BAD_EVENTS = [{"type": "swap", "spaces": [0, 0]}, {"type": "swap", "spaces": [0, 9]}, {"type": "replace", "space": -1},
              {"type": "complete", "slot": 0, "toy": "vampire-teddy", "spaces": [2, 3]},
              {"type": "complete", "slot": 1, "toy": "jack-in-the-box", "spaces": [0, 1]},
              {"type": "end_turn", "exchange": [0, 0]}, {"type": "end_turn", "exchange": [5]},
              {"type": "goal", "slot": 0, "goal": "snowman"}, {"type": "lay", "space": 0, "part": "bat-wing"},
              {"type": "hold", "player": "Zed", "card": 0, "part": "teddy-left"}, {"type": "dance"}]


def pick(state: mc.State, rng: random.Random) -> dict:
    events = GAME.legal_events(state)
    completes = [e for e in events if e["type"] == "complete"]
    if completes and rng.random() < 0.9:
        return rng.choice(completes)
    table = [e for e in events if e["type"] != "hold"]
    return rng.choice(events if rng.random() < 0.1 else table)


def random_session(seed: int, steps: int, players: list[str], **options) -> Session:
    rng = random.Random(seed)
    session = Session(GAME, {"players": players, **options})
    for _ in range(steps):
        if GAME.is_over(session.state):
            break
        session.play(pick(session.state, rng))
    return session


def toy_parts(state: mc.State) -> int:
    return sum(p is not None for p in state.bench) + sum(map(len, state.hands)) + state.deck + state.discard


def goal_cards(state: mc.State) -> int:
    return sum(g is not None for g in state.goal_slots) + state.goal_deck + sum(state.points)


seeds = st.integers(0, 2**32 - 1)
players = st.sampled_from(PLAYERS)
options = st.fixed_dictionaries({"short": st.booleans(), "enter_workbench": st.booleans()})


@settings(max_examples=25, deadline=None)
@given(seeds, players, options, st.integers(0, 300))
def test_replay_equals_the_incremental_state(seed, names, opts, steps):
    session = random_session(seed, steps, names, **opts)
    assert fold(GAME, session.setup_options, session.events) == session.state
    assert load_replay(session.to_jsonl(), {GAME.name: GAME}).state == session.state


@settings(max_examples=25, deadline=None)
@given(seeds, players, options, st.integers(1, 300))
def test_undo_is_exact(seed, names, opts, steps):
    session = random_session(seed, steps, names, **opts)
    before = session._states[-2] if len(session._states) > 1 else None
    if before is None:
        return
    session.undo()
    assert session.state == before


@settings(max_examples=25, deadline=None)
@given(seeds, players, options, st.integers(0, 300), st.sampled_from(BAD_EVENTS))
def test_an_illegal_event_never_changes_the_state(seed, names, opts, steps, bad):
    session = random_session(seed, steps, names, **opts)
    state, count = session.state, len(session.events)
    try:
        session.play(bad)
    except RuleError:
        assert session.state is state and len(session.events) == count
    else:
        assert len(session.events) == count + 1


@settings(max_examples=20, deadline=None)
@given(seeds, players, options, st.integers(0, 200))
def test_every_legal_event_applies_and_cards_are_conserved(seed, names, opts, steps):
    session = random_session(seed, steps, names, **opts)
    parts, goals = toy_parts(session.state), goal_cards(session.state)
    in_game = session.state.goals_in_game
    assert parts == sum(mc.DEFAULT_PARTS.values()) and goals == in_game
    for event in GAME.legal_events(session.state):
        after = GAME.apply(session.state, event)
        assert toy_parts(after) == parts and goal_cards(after) == goals


@settings(max_examples=10, deadline=None)
@given(seeds, players)
def test_a_whole_game_ends_with_every_goal_completed(seed, names):
    session = random_session(seed, 20000, names, short=True)
    state = session.state
    assert GAME.is_over(state) and sum(state.points) == state.goals_in_game
    assert bool(state.winners) != bool(state.tied)


@settings(max_examples=20, deadline=None)
@given(seeds, players, st.integers(0, 300))
def test_no_hand_part_is_ever_public(seed, names, steps):
    session = random_session(seed, steps, names)
    public = GAME.view(session.state, PUBLIC)
    assert all("hand" not in seat for seat in public["players"])
    for event in session.events:
        if event["type"] == "hold":
            assert "part" not in GAME.event_view(event, PUBLIC)
            assert GAME.event_view(event, event["player"]) == event
