"""Dark Romance over many random games: the secrets stay secret, and the rules hold together.

A seeded driver plays only what ``legal_events`` offers (the box's deal gets a seed, as the
host adds one). The secret property compares twin games that differ only in a role: until
the end, everything public (the public view, status line, scoreboard, the public view of
every event, the choices offered, the error an event gets) and the other player's own view
must be the same, and no public output may name either role or hold the deal's seed.
"""
from __future__ import annotations

import json
import random
import re

from hypothesis import given, settings, strategies as st

from rules.core import PUBLIC, RuleError, Session, fold
from rules.dark_romance import GAME, scenario_roles
from rules.dark_romance_board import ROLE_NAMES, SIDES, STATED, missing

PLAYERS = ["Mary", "Edgar"]


def completed(board: dict) -> dict:
    """``board`` with every missing cell filled by a coin the text does not rule out."""
    out = {side: {row: dict(cells) for row, cells in rows.items()} for side, rows in board.items()}
    for side in SIDES:
        for row, column in missing(board, side):
            out.setdefault(side, {}).setdefault(row, {})[column] = "boldness" if row != "counts" else "romance"
    return out


BOARDS = st.sampled_from([STATED, completed(STATED)])


ILLEGAL = [{"type": "scene", "player": "Edgar", "category": "feelings"}, {"type": "react", "player": "Mary",
           "coins": ["romance"]}, {"type": "visit", "player": "Edgar", "courtier": "Healer", "pay": ["deeds"] * 9},
           {"type": "push", "player": "Mary", "coin": "love"}, {"type": "role", "player": "Zed", "role": "count"},
           {"type": "draw_roles"}, {"type": "win_condition", "role": "count", "against": "count", "coin": "x"},
           {"type": "end_turn", "player": "Nobody"}, {"type": "flirt"}]


def refusal(session: Session, event: dict) -> str | None:
    """The error message ``event`` gets now (errors are public), or None when it applies."""
    try:
        session.check(event)
    except RuleError as exc:
        return str(exc)
    return None


def public_outputs(session: Session) -> list[str]:
    """Everything anyone sees without a key: public view, status, scoreboard, each event's public view."""
    state = session.state
    return [json.dumps(GAME.view_of(state, PUBLIC), sort_keys=True), GAME.status(state),
            json.dumps(GAME.scoreboard(state)),
            json.dumps([GAME.event_view(event, PUBLIC) for event in session.events], sort_keys=True)]


def names_of(roles) -> list[str]:
    return [ROLE_NAMES[role] for role in roles] + list(roles)


def mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def next_event(session: Session, rng: random.Random, deal_seed: int | None) -> dict:
    offered = GAME.legal_events(session.state)
    event = dict(rng.choice(offered))
    if event["type"] == "draw_roles":
        event["seed"] = deal_seed
    return event


def roles_entered(scenario: int, rng: random.Random, count: int = 3) -> list[str]:
    return rng.sample(scenario_roles(scenario), count)


@settings(max_examples=40, deadline=None)
@given(scenario=st.sampled_from([1, 2, 3]), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 160), board=BOARDS)
def test_twin_games_differing_in_a_role_look_the_same_to_everyone_without_it(scenario, seed, steps, board):
    rng = random.Random(seed)
    a, b, c = roles_entered(scenario, rng)
    setup = {"players": PLAYERS, "scenario": scenario, "win_board": board}
    games = {(a, b): Session(GAME, setup), (a, c): Session(GAME, setup), (c, b): Session(GAME, setup)}
    base, edgar_differs, mary_differs = games.values()
    entries = [("Mary", 0), ("Edgar", 1), (None, None)]
    for _ in range(steps):
        if base.state.ended:
            break
        outputs = public_outputs(base)
        for twin in (edgar_differs, mary_differs):
            assert public_outputs(twin) == outputs
            assert GAME.legal_events(twin.state) == GAME.legal_events(base.state)
        assert GAME.view_of(edgar_differs.state, "Mary") == GAME.view_of(base.state, "Mary")
        assert GAME.view_of(mary_differs.state, "Edgar") == GAME.view_of(base.state, "Edgar")
        text = " ".join(outputs)
        assert not any(mentions(text, word) for word in names_of((a, b, c)))
        tried = rng.choice(ILLEGAL + list(GAME.legal_events(base.state)))
        said = [refusal(session, tried) for session in games.values()]
        if tried["type"] != "role":       # the one refusal that depends on a role: the other's card entered
            assert said[0] == said[1] == said[2]
        assert not any(mentions(error, word) for error in said if error for word in names_of((a, b, c)))
        player, index = entries[0]
        if player is not None:            # the roles first, a different one in each twin
            entries.pop(0)
            for roles, session in games.items():
                session.play({"type": "role", "player": player, "role": roles[index]})
            continue
        event = next_event(base, rng, None)
        for session in games.values():
            session.play(event)
    assert edgar_differs.state.ended == mary_differs.state.ended == base.state.ended


@settings(max_examples=40, deadline=None)
@given(scenario=st.sampled_from([1, 2, 3]), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 200), board=BOARDS,
       deal_seed=st.integers(10**15, 2**63))
def test_a_dealt_game_never_shows_a_role_or_the_seed_before_the_end(scenario, seed, steps, board, deal_seed):
    rng = random.Random(seed)
    session = Session(GAME, {"players": PLAYERS, "scenario": scenario, "win_board": board})
    session.play({"type": "draw_roles", "seed": deal_seed})
    secrets = names_of(session.state.roles) + [str(deal_seed)]
    for _ in range(steps):
        text = " ".join(public_outputs(session))
        if session.state.ended:
            assert str(deal_seed) in text and all(ROLE_NAMES[r] in text for r in session.state.roles)
            break
        assert not any(mentions(text, word) for word in secrets)
        mine = GAME.view_of(session.state, "Mary")
        del mine["players"][0]["needs"]      # Mary's row of the board names every pair of roles
        mine = json.dumps(mine)
        assert str(deal_seed) not in mine and not any(mentions(mine, word) for word in names_of(session.state.roles[1:]))
        session.play(next_event(session, rng, None))


def random_session(scenario: int, seed: int, steps: int, board: dict) -> Session:
    """Random legal play. Every offered event applies but one: the role card the other player
    entered (offering every role is what keeps that entry secret), which is refused."""
    rng = random.Random(seed)
    session = Session(GAME, {"players": PLAYERS, "scenario": scenario, "win_board": board})
    for _ in range(steps):
        if GAME.is_over(session.state):
            break
        event = next_event(session, rng, rng.getrandbits(64))
        taken = event["type"] == "role" and event["role"] in session.state.roles
        if taken:
            continue
        session.play(event)
    return session


POINTS = {"direct": {2}, "shared-direct": {4}, "indirect": {1}, "shared-indirect": {2}, "shared-loss": {0},
          "draw": {0}, "unsettled": {0}}


@settings(max_examples=40, deadline=None)
@given(scenario=st.sampled_from([1, 2, 3]), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 400), board=BOARDS)
def test_replay_equals_play_and_an_ended_game_has_a_reasoned_verdict(scenario, seed, steps, board):
    session = random_session(scenario, seed, steps, board)
    state = session.state
    assert fold(GAME, session.setup_options, session.events) == state
    if state.ended:
        verdict = state.verdict
        assert sum(verdict.points) in POINTS[verdict.outcome]
        assert all(ROLE_NAMES[role] in verdict.reason for role in state.roles)
        assert len(state.center) >= 1
        assert (verdict.outcome == "unsettled") == (state.phase == "settle")
    else:
        assert state.verdict is None
    totals = [p["total"] for p in GAME.view_of(state)["players"]]
    assert totals == [p["points"] for p in GAME.view_of(state)["players"]]


@settings(max_examples=30, deadline=None)
@given(scenario=st.sampled_from([1, 2, 3]), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 300))
def test_undo_is_exact(scenario, seed, steps):
    session = random_session(scenario, seed, steps, STATED)
    if not session.events:
        return
    before_last = fold(GAME, session.setup_options, session.events[:-1])
    session.undo()
    assert session.state == before_last


@settings(max_examples=30, deadline=None)
@given(scenario=st.sampled_from([1, 2, 3]), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 200),
       which=st.sampled_from(ILLEGAL))
def test_an_illegal_event_never_changes_the_state(scenario, seed, steps, which):
    session = random_session(scenario, seed, steps, STATED)
    before, events = session.state, list(session.events)
    try:
        session.play(which)
    except RuleError:
        assert session.state == before and session.events == events
