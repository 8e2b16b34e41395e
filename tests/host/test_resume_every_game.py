"""Every game the box knows resumes exactly where it stopped: the journal replays to the same
state, and the resumed box shows the same screen (the dice-less games as the dice games)."""
from __future__ import annotations

import pytest

from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from rules import get_game
from tests.host.test_loop_properties import play_on

SETUPS = {
    "dream-factory": {"players": ["Ann", "Ben", "Cy"]},
    "making-christmas": {"players": ["Ann", "Ben"]},
    "christmas-romance": {"mode": "coop", "players": ["Ann", "Ben"]},
    "jingle-bell-roll": {"players": ["Ann", "Ben"]},
}


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_a_game_stopped_midway_resumes_where_it_stood(tmp_path, name):
    game = get_game(name)
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(game, SETUPS[name])
        loop = TableLoop(table, presenters=[RecordingPresenter()], new_seed=lambda: 5)
        loop.start()
        names = list(loop.plays.face_names()) if game.dice else []
        for step in range(60):
            play_on(loop, names, step * 7919 + 13, 0.97)
        assert len(table.session.events) >= 3, "the scripted steps should have played a few events"
        loop.shutdown()
        session_id, state = loop.table.id, game.to_json(loop.table.state)
    with SessionStore(tmp_path / "s.db") as store:
        again = store.open(session_id, get_game)
        assert game.to_json(again.state) == state
        screen = RecordingPresenter()
        resumed = TableLoop(again, presenters=[screen], new_seed=lambda: 5)
        resumed.start()
        assert screen.screens and screen.screens[-1].kind != "fault"


def test_a_game_that_ended_as_the_power_went_is_marked_finished_when_the_box_comes_back(tmp_path):
    """The last event and the "finished" mark are two writes: a power cut between them leaves an
    ended game looking unfinished. The box coming back marks it, so that Resume and
    ``--resume latest`` go to a game that can still be played."""
    from rules import register_game
    from tests.games.secret_pig_rules import GAME as PIG
    register_game(PIG)
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(PIG, {"players": ["Ann", "Ben"], "target": 10})
        for event in ({"type": "lucky", "player": "Ann", "face": "5"}, {"type": "lucky", "player": "Ben", "face": "2"},
                      {"type": "roll", "faces": ["5"]}, {"type": "hold"}):
            table.play(event)
        assert PIG.is_over(table.state) and store.latest(PIG.name) == table.id   # the power goes here
    with SessionStore(tmp_path / "s.db") as store:
        screen = RecordingPresenter()
        TableLoop(store.open(table.id, get_game), presenters=[screen]).start()
        assert store.is_closed(table.id) and store.latest(PIG.name) is None
        assert screen.screens and screen.screens[-1].kind != "fault"
