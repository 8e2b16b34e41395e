"""The shared rules machinery: sessions, undo, fold, replay files, tables (on a toy game)."""
from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from rules import get_game
from rules.core import (Game, ReplayError, RuleError, Session, check_event_keys, check_event_shape, event_keys,
                        fold, format_table, load_replay)


@dataclass(frozen=True)
class Tally:
    total: int
    moves: tuple[int, ...] = ()


def _setup(options):
    start = options.get("start", 0)
    if not isinstance(start, int):
        raise RuleError('"start" must be a whole number')
    return Tally(start)


def _apply(state, event):
    if event["type"] != "add":
        raise RuleError(f"unknown event {event['type']!r}")
    n = event.get("n")
    if not isinstance(n, int) or state.total + n < 0:
        raise RuleError("the tally cannot go below zero")
    return Tally(state.total + n, state.moves + (n,))


TOY = Game(name="toy", title="Toy tally", min_players=1, max_players=1, dice=None, setup=_setup, apply=_apply,
           is_over=lambda s: s.total >= 10, scoreboard=lambda s: [["Total"], [str(s.total)]],
           to_json=lambda s: {"total": s.total})


def test_play_undo_and_fold():
    s = Session(TOY, {"start": 1})
    s.play({"type": "add", "n": 2})
    s.play({"type": "add", "n": 3})
    assert s.state == Tally(6, (2, 3)) == fold(TOY, {"start": 1}, s.events)
    assert s.undo() == {"type": "add", "n": 3}
    assert s.state == Tally(3, (2,))
    s.undo()
    with pytest.raises(RuleError, match="nothing to undo"):
        s.undo()


def test_an_illegal_event_changes_nothing():
    s = Session(TOY, {})
    s.play({"type": "add", "n": 1})
    before, events = s.state, list(s.events)
    for bad in ({"type": "add", "n": -5}, {"n": 1}, ["add"], {"type": ""}):
        with pytest.raises(RuleError):
            s.play(bad)
        assert s.state is before and s.events == events


def test_check_does_not_record():
    s = Session(TOY, {})
    assert s.check({"type": "add", "n": 4}) == Tally(4, (4,))
    assert s.events == [] and s.state == Tally(0)


def test_events_are_copied_so_the_log_cannot_change_from_outside():
    s = Session(TOY, {})
    event = {"type": "add", "n": 1}
    s.play(event)
    event["n"] = 99
    assert s.events == [{"type": "add", "n": 1}]


def test_replay_file_round_trip():
    s = Session(TOY, {"start": 2})
    for n in (1, 2, 3):
        s.play({"type": "add", "n": n})
    text = s.to_jsonl()
    assert json.loads(text.splitlines()[0]) == {"schema": 1, "game": "toy", "setup": {"start": 2}}
    again = load_replay(text, {"toy": TOY})
    assert again.state == s.state and again.events == s.events and again.to_jsonl() == text


@pytest.mark.parametrize("text, line, reason", [
    ("", 1, "empty"),
    ("\n\n", 1, "empty"),
    ("[1]\n", 1, "header"),
    ('{"schema": 2, "game": "toy"}\n', 1, "schema version 2"),
    ('{"schema": 1}\n', 1, '"game"'),
    ('{"schema": 1, "game": "chess"}\n', 1, "unknown game"),
    ('{"schema": 1, "game": "toy", "setup": []}\n', 1, '"setup" must be'),
    ('{"schema": 1, "game": "toy", "setup": {"start": "x"}}\n', 1, "bad setup"),
    ('{"schema": 1, "game": "toy"}\n{"type": "add", "n": 1}\n{"type": "add", "n": \n', 3, "not valid JSON"),
    ('{"schema": 1, "game": "toy"}\n\n{"type": "add", "n": -1}\n', 3, "illegal event: the tally"),
    ('{"schema": 1, "game": "toy"}\n"add"\n', 2, "must be a JSON object"),
])
def test_replay_errors_name_the_line(text, line, reason):
    with pytest.raises(ReplayError) as info:
        load_replay(text, {"toy": TOY}, source="game.jsonl")
    assert info.value.line == line and reason in info.value.reason
    assert str(info.value).startswith(f"game.jsonl:{line}: ")


def test_replay_with_the_game_registry():
    text = '{"schema": 1, "game": "nope", "setup": {}}\n'
    with pytest.raises(ReplayError, match="jingle-bell-roll"):
        load_replay(text, get_game)


def test_check_event_shape():
    assert check_event_shape({"type": "x"}) == {"type": "x"}
    with pytest.raises(RuleError, match="JSON object"):
        check_event_shape(3)


KEYED = Game(name="keyed", title="Keyed tally", min_players=1, max_players=1, dice=None, setup=_setup,
             apply=_apply, is_over=TOY.is_over, scoreboard=TOY.scoreboard, to_json=TOY.to_json,
             event_types=("add",), event_keys=event_keys(add=("n",), pass_=()))


def test_a_new_event_with_a_key_its_type_does_not_take_is_refused_and_named():
    session = Session(KEYED, {})
    with pytest.raises(RuleError, match=r"a 'add' event has no key 'm'; it takes n"):
        session.play({"type": "add", "n": 2, "m": 3})
    with pytest.raises(RuleError, match=r"has no keys 'by', 'm'; it takes n"):
        session.check({"type": "add", "by": "Ann", "m": 3})
    with pytest.raises(RuleError, match="it takes nothing but its type"):
        check_event_keys(KEYED, {"type": "pass", "n": 1})
    with pytest.raises(RuleError, match="'m'"):
        fold(KEYED, {}, [{"type": "add", "n": 1, "m": 1}])
    assert session.events == [] and session.state == Tally(0)
    check_event_keys(KEYED, {"type": "dance", "music": "loud"})   # an unknown type: apply's to refuse
    check_event_keys(TOY, {"type": "add", "n": 1, "m": 1})        # a game that lists no keys takes any


def test_an_event_a_journal_already_holds_is_replayed_whatever_its_keys():
    session = Session(KEYED, {})
    session.replay({"type": "add", "n": 2, "note": "written by an older dicewatch"})
    assert session.state == Tally(2, (2,)) and session.events[0]["note"] == "written by an older dicewatch"
    with pytest.raises(RuleError, match="below zero"):          # the rules themselves still hold
        session.replay({"type": "add", "n": -5})


def test_format_table_aligns_columns():
    table = format_table([["Player", "Points"], ["Ann", "13"], ["Rebecca", "7"]])
    assert table.splitlines() == ["Player   Points", "-------  ------", "Ann      13", "Rebecca  7"]
    assert format_table([]) == ""


def test_get_game_lists_the_valid_names():
    assert get_game("jingle-bell-roll").title == "Jingle Bell Roll"
    with pytest.raises(LookupError, match="choose one of: .*jingle-bell-roll"):
        get_game("monopoly")
