"""The phone page's New game form (/controls): the same game, the players' names editable
(escaped wherever they are shown), started through the loop's thread with ``new-game:{JSON}``;
refused with a clear message when the rules refuse the setup, when the table moved on, or
while the game is not over and the box to end it was not ticked."""
from __future__ import annotations

import pytest

from tests.host.test_web import EVIL, ORIGIN, LiveTable, client, plugged_in, seq_of  # noqa: F401 - fixtures


@pytest.fixture
def live(tmp_path):
    """(the phone page tests' table, with a player named like a script; ``client`` uses it)"""
    table = LiveTable(tmp_path / "s.db", players=("Ann", EVIL))
    yield table
    table.close()


def session_of(live):
    return live.call(lambda loop: (loop.table.id, list(loop.table.session.setup_options["players"]),
                                   dict(loop.table.session.setup_options)))


def test_the_form_shows_the_players_names_escaped_and_asks_for_a_confirmation_mid_game(live, client):
    page = client.get("/controls").text
    assert 'action="/controls/new-game"' in page
    assert 'value="&lt;script&gt;alert(1)&lt;/script&gt;"' in page and EVIL not in page
    assert 'name=confirm value=yes required' in page


def test_a_new_game_with_a_name_holding_html_starts_through_the_loop(live, client):
    before, _, old_setup = session_of(live)
    made = client.post("/controls/new-game", data={"seq": seq_of(client), "player1": "Cy", "player2": f"  {EVIL} ",
                                                   "player3": "", "confirm": "yes"},
                       headers=ORIGIN, follow_redirects=False)
    assert made.status_code == 303, made.text
    after, players, setup = session_of(live)
    assert after != before and players == ["Cy", EVIL]
    assert setup["target"] == old_setup["target"]                      # the other options kept
    assert live.call(lambda loop: loop.table.session.events) == []
    table = client.get("/").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in table and EVIL not in table
    assert sorted(live.web.seats()) == sorted([("Cy", False), (EVIL, False)])   # new seats for the new players
    assert client.get("/api/state").json()["status"] == "Cy: pick a lucky face"


def test_mid_game_without_the_box_ticked_nothing_is_done(live, client):
    before = session_of(live)[0]
    made = client.post("/controls/new-game", data={"seq": seq_of(client), "player1": "Cy", "player2": "Di"},
                       headers=ORIGIN)
    assert made.status_code == 400 and "this game is not over" in made.text
    assert session_of(live)[0] == before


@pytest.mark.parametrize("names, says, status", [
    (["Cy"], "expected 2 to 4 different names", 409),                 # the rules refuse it
    (["Cy", "Di", "Ed", "Fi", "Gus"], "expected 2 to 4 different names", 409),
    (["Cy", "Cy"], "two players have the same name", 400),
    (["", " "], "a new game needs the players", 400),
    (["x" * 41, "Di"], "at most 40 characters", 400),
])
def test_a_setup_refused_leaves_the_game_as_it_was(live, client, names, says, status):
    before = session_of(live)[0]
    data = {f"player{n}": name for n, name in enumerate(names, start=1)}
    made = client.post("/controls/new-game", data={"seq": seq_of(client), "confirm": "yes", **data}, headers=ORIGIN)
    assert made.status_code == status and says in made.text, made.text
    assert session_of(live)[0] == before


def test_a_stale_or_foreign_form_is_refused(live, client):
    before = session_of(live)[0]
    stale = client.post("/controls/new-game", data={"seq": seq_of(client) + 1, "player1": "Cy", "player2": "Di",
                                                    "confirm": "yes"}, headers=ORIGIN)
    assert stale.status_code == 409 and "the table has changed" in stale.text
    foreign = client.post("/controls/new-game", data={"seq": seq_of(client), "player1": "Cy", "player2": "Di",
                                                      "confirm": "yes"}, headers={"origin": "http://evil.example"})
    assert foreign.status_code == 403
    assert session_of(live)[0] == before


def test_once_the_game_is_over_no_confirmation_is_needed(live, client):
    def finish(loop):
        for event in ({"type": "lucky", "player": "Ann", "face": "2"}, {"type": "lucky", "player": EVIL, "face": "2"},
                      {"type": "roll", "faces": ["6"]}, {"type": "roll", "faces": ["6"]}, {"type": "hold"}):
            loop.play(event)
        loop.show_home()
        return loop.game.is_over(loop.state)
    assert live.call(finish)
    page = client.get("/controls").text
    assert "New game" in page and "name=confirm" not in page
    made = client.post("/controls/new-game", data={"seq": seq_of(client), "player1": "Ann", "player2": "Ben"},
                       headers=ORIGIN, follow_redirects=False)
    assert made.status_code == 303, made.text
    assert session_of(live)[1] == ["Ann", "Ben"]


def test_the_loop_refuses_a_command_that_is_not_a_json_setup(live):
    def try_it(loop):
        before = loop.table.id
        loop.handle("new-game:[1]")
        loop.handle("new-game:{nope")
        return before == loop.table.id
    assert live.call(try_it)
    assert "expected new-game:{a JSON setup}" in live.screens.screens[-1].text()
