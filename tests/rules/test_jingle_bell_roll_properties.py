"""Properties of the Jingle Bell Roll rules, checked on generated games (hypothesis).

* points are never negative, whatever the dice, ability and cards;
* replaying any legal event sequence gives the state built up event by event;
* undo restores the previous state exactly;
* an illegal event never changes the state, and the rules only ever answer RuleError.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jbr_helpers import GAME
from rules.core import RuleError, Session, fold, load_replay
from rules.jingle_bell_roll import BELL, FACES, best_scoring, parse_uses, score_roll
from rules.jingle_bell_roll_cards import CHARACTERS, GIFT_CARDS, change_options

faces7 = st.lists(st.sampled_from(FACES), min_size=7, max_size=7)
characters = st.sampled_from([None, *CHARACTERS])
card_names = st.lists(st.sampled_from(sorted(GIFT_CARDS)), max_size=3)
letter_faces = st.lists(st.sampled_from(["MILK", "COOKIE", "LIST", "STOCKING", "GIFT"]), max_size=3)


@settings(max_examples=150, deadline=None)
@given(faces7, characters, card_names, letter_faces)
def test_best_scoring_is_never_negative_and_never_below_plain_scoring(faces, character, cards, letters):
    plain = score_roll(faces, (), letter_faces=letters)
    best = best_scoring(faces, character=character, cards=cards, letter_faces=letters)
    assert best.points >= plain.points >= 0
    assert best.gift_cards_to_deal >= 0 and best.stamps >= 0
    assert best.instant_win == (faces.count(BELL) == 7)
    assert sum(p for _, p in best.breakdown) == best.points


@st.composite
def uses(draw):
    """Any list of uses, legal for the dice or not."""
    chosen = []
    for name in draw(st.lists(st.sampled_from(sorted({**CHARACTERS, **GIFT_CARDS})), max_size=4)):
        ability = {**CHARACTERS, **GIFT_CARDS}[name]
        if ability.effect == "change":
            source, target = draw(st.sampled_from(change_options(ability)))
            chosen.append({"name": name, "from": source, "to": target})
        else:
            chosen.append(name)
    return chosen


@settings(max_examples=150, deadline=None)
@given(faces7, uses(), letter_faces)
def test_any_use_either_scores_something_non_negative_or_is_refused(faces, raw_uses, letters):
    character = next((u if isinstance(u, str) else u["name"] for u in raw_uses
                      if (u if isinstance(u, str) else u["name"]) in CHARACTERS), None)
    try:
        result = score_roll(faces, parse_uses(raw_uses, character), letter_faces=letters)
    except RuleError:
        return
    assert result.points >= 0


# --- generated whole games ------------------------------------------------------------------

@st.composite
def legal_event(draw, state):
    """One legal event for ``state`` (drawn from what a real table could do)."""
    turn = state.turn
    if turn.rolls == 0:
        return {"type": "roll", "faces": draw(faces7)}
    options = ["score"]
    movable = [i for i, f in enumerate(turn.faces) if f != BELL]
    if turn.rolls < 3 and movable:
        options.append("roll")
    if state.rerolls_available():
        options.append("reroll")
    kind = draw(st.sampled_from(options))
    if kind == "roll":
        picked = draw(st.lists(st.sampled_from(movable), min_size=1, unique=True))
        faces = list(turn.faces)
        for i in picked:
            faces[i] = draw(st.sampled_from(FACES))
        if draw(st.booleans()):
            return {"type": "roll", "faces": faces, "rerolled": sorted(picked)}
        # as the camera reports it: no indexes, the dice in any order
        return {"type": "roll", "faces": draw(st.permutations(faces))}
    if kind == "reroll":
        source = draw(st.sampled_from(state.rerolls_available()))
        allowed = {"Frosty": ["MILK"], "Holly Daze": ["GIFT"], "Wreathmaster Winston": ["COOKIE"]}.get(source, FACES)
        candidates = [i for i, f in enumerate(turn.faces) if f in allowed]
        faces = list(turn.faces)
        if candidates:
            faces[draw(st.sampled_from(candidates))] = draw(st.sampled_from(FACES))
            return {"type": "reroll", "with": source, "faces": faces}
    cards = draw(st.lists(st.sampled_from(sorted(GIFT_CARDS)), max_size=state.player.hand))
    result = state.best_scoring(cards)
    others = [p.name for p in state.players if p.name != state.current_player]
    event = {"type": "score", "uses": [u.to_json() for u in result.uses],
             "gift_recipients": [draw(st.sampled_from(others)) for _ in range(result.gift_cards_to_deal)]}
    if result.stamps in (2, 3, 4, 5) and state.stack_left(result.stamps) and draw(st.booleans()):
        letter = {"effect": draw(st.sampled_from(["MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "REROLL"]))}
        if len(state.player.letters) == 3:
            letter["cover"] = draw(st.integers(0, 2))
        event["letter"] = letter
    return event


@st.composite
def games(draw, max_events=60):
    """A setup and a legal event sequence, with the state recorded after every event."""
    count = draw(st.integers(2, 4))
    names = ["Ann", "Ben", "Cat", "Dan"][:count]
    chars = draw(st.lists(st.sampled_from(sorted(CHARACTERS)), min_size=count, max_size=count, unique=True))
    setup = {"players": names, "characters": dict(zip(names, chars))}
    session = Session(GAME, setup)
    states = [session.state]
    for _ in range(draw(st.integers(0, max_events))):
        if session.state.is_over:
            break
        session.play(draw(legal_event(session.state)))
        states.append(session.state)
    return setup, session, states


@settings(max_examples=25, deadline=None)
@given(games())
def test_replaying_equals_the_incremental_state(game):
    setup, session, states = game
    assert fold(GAME, setup, session.events) == session.state
    assert load_replay(session.to_jsonl(), {"jingle-bell-roll": GAME}).state == session.state
    for player in session.state.players:
        assert player.points >= 0 and player.hand >= 0
    total_cards = session.state.deck + session.state.discard + sum(p.hand for p in session.state.players)
    assert total_cards == 30


@settings(max_examples=20, deadline=None)
@given(games(max_events=30))
def test_undo_restores_the_previous_state_exactly(game):
    _, session, states = game
    for expected in reversed(states[:-1]):
        session.undo()
        assert session.state == expected


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 9) | st.sampled_from(FACES + ("Ann", "Ben", "Frosty", "x")),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.sampled_from(
        ["type", "faces", "rerolled", "with", "uses", "gift_recipients", "letter", "effect", "cover", "stack",
         "player", "character", "name", "from", "to"]), inner, max_size=4),
    max_leaves=12)
event_types = st.sampled_from(["roll", "reroll", "score", "choose_character", "pass", 3])


@settings(max_examples=60, deadline=None)
@given(games(max_events=12), event_types, st.dictionaries(
    st.sampled_from(["faces", "rerolled", "with", "uses", "gift_recipients", "letter", "player", "character"]),
    json_values, max_size=4))
def test_an_illegal_event_never_changes_the_state(game, kind, fields):
    _, session, _ = game
    before, events = session.state, list(session.events)
    try:
        session.play({"type": kind, **fields})
    except RuleError:
        assert session.state is before and session.events == events
    else:
        assert len(session.events) == len(events) + 1


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["players", "characters", "rounds", "stocking_points", "gift_points",
                                        "letter_stacks", "letter_effects", "gift_deck", "starting_gift_cards",
                                        "colour"]), json_values, max_size=5))
def test_any_bad_setup_is_a_rule_error(options):
    try:
        GAME.setup(options)
    except RuleError:
        pass
