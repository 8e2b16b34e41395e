"""Dark Romance at the box: the scripted demo to its verdict, the roles entered by "passing
the box" or on the phone, private screens that reach the panel only and clear themselves,
the next game of a series, and no role in anything public before the end."""
from __future__ import annotations

import concurrent.futures
import io
import json
import random
import re
import time
import warnings

import pytest

from host.dark_romance_demo import look_at_own_role, move, play, press
from host.games import turn_knob_to
from host.games.dark_romance import ENTER, PRIVATE_SECONDS, SEE, SHOW_ME
from host.loop import TableLoop
from host.presenters import RecordingPresenter, TerminalPresenter
from host.session_store import SessionStore
from host.web.app import make_app
from host.web.table import WebTable
from rules import get_game
from rules.dark_romance_board import ROLE_NAMES

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ORIGIN = {"origin": "http://testserver"}
ROLE_WORDS = sorted(set(ROLE_NAMES.values()) | set(ROLE_NAMES), key=len, reverse=True)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Table:
    """A Dark Romance loop with a panel (sees everything), the terminal and the phone page."""

    def __init__(self, path, scenario=2, seed=7):
        self.store = SessionStore(path)
        self.panel, self.out, self.web, self.clock = RecordingPresenter(), io.StringIO(), WebTable(), Clock()
        deal = random.Random(seed)
        table = self.store.create(get_game("dark-romance"), {"players": ["Mary", "Edgar"], "scenario": scenario})
        self.loop = TableLoop(table, presenters=[self.panel, TerminalPresenter(self.out), self.web],
                              clock=self.clock, new_seed=lambda: deal.randrange(2**62))
        self.loop.start()
        self.client = TestClient(make_app(self.web, loopback=True, pin=None))

    def public_outputs(self) -> str:
        """Everything the public can see: the terminal, the phone page's public pages and API,
        the lights, the stored journal as exported."""
        loop = self.loop
        self.web.tick(0)
        pages = [self.client.get(p).text for p in ("/", "/controls", "/history", "/history.jsonl", "/api/state")]
        lights = [repr(s) for s in self.panel.statuses]
        return "\n".join([self.out.getvalue(), *pages, *lights, loop.plays.public_status()])

    def close(self):
        self.loop.shutdown()
        self.store.close()


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path / "s.db")
    yield t
    t.close()


def while_stepping(loop, action):
    """Do ``action`` (a page's request) in another thread while this one turns the loop, as
    at the box (the loop takes the page's actions in its own thread)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        done = pool.submit(action)
        while not done.done():
            loop.step(look=False)
            time.sleep(0.005)
        return done.result()


def roles_in(text: str) -> list[str]:
    return [word for word in ROLE_WORDS if re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)]


def test_the_demo_plays_a_whole_game_through_the_loop_and_reveals_the_verdict(tmp_path):
    table, loop = play(seed=2026, out=tmp_path, size=(250, 122), quiet=True)
    state = table.state
    game = loop.game
    assert game.is_over(state)
    words = loop.plays.closing_words()
    assert "Mary was the" in words and "Edgar was the" in words and "Series: Mary" in words
    final = loop.game.view_of(state, None)
    assert all(p.get("role") for p in final["players"]) and final["verdict"]["reason"] in words
    assert len(list(tmp_path.glob("screen-*.png"))) > 10
    assert play(seed=2026, out=tmp_path / "again", size=(250, 122), quiet=True)[0].session.events == \
        table.session.events   # the same every time


def test_a_role_entered_by_passing_the_box_is_seen_by_the_panel_only(table):
    loop = table.loop
    press(loop, (ENTER, "Mary"))
    assert "look away" in loop.menu.title and "Edgar" in loop.menu.title          # a public screen first
    turn_knob_to(loop, [i.value for i in loop.menu.items].index((SHOW_ME, ENTER, "Mary")))
    assert loop.menu.private == "Mary" and table.panel.screens[-1].private == "Mary"
    assert "Countess" in table.panel.screens[-1].lines                            # the panel lists the cards
    turn_knob_to(loop, [i.label for i in loop.menu.items].index("Countess"))
    assert loop.table.session.events[-1] == {"type": "role", "player": "Mary", "role": "countess"}
    assert "role is noted" in table.panel.screens[-1].title and not table.panel.screens[-1].private
    assert roles_in(table.public_outputs()) == [], table.out.getvalue()
    assert "Mary is looking at the box" in table.out.getvalue()


def test_a_private_screen_left_up_clears_itself(table):
    loop = table.loop
    press(loop, {"type": "draw_roles"})
    press(loop, (SEE, "Edgar"))
    turn_knob_to(loop, [i.value for i in loop.menu.items].index((SHOW_ME, SEE, "Edgar")))
    assert table.panel.screens[-1].private == "Edgar" and "you are the" in table.panel.screens[-1].title
    table.clock.now += PRIVATE_SECONDS - 1
    loop.step(look=False)
    assert table.panel.screens[-1].private == "Edgar"
    table.clock.now += 2
    loop.step(look=False)
    assert not table.panel.screens[-1].private and "turn 1" in table.panel.screens[-1].title


@pytest.mark.parametrize("seed", range(6))
def test_no_role_reaches_anything_public_before_the_end(tmp_path, seed):
    """Whole games (the box deals, each player looks at their role on the panel, the demo's
    players move): before the end, the terminal, the phone page's public pages and API, the
    lights and the public status never name a role; at the end both roles are shown."""
    t = Table(tmp_path / "s.db", scenario=1 + seed % 3, seed=seed)
    try:
        rng = random.Random(seed)
        loop = t.loop
        for _ in range(400):
            if loop.game.is_over(loop.state) or loop.game.view_of(loop.state, None).get("verdict"):
                break
            move(loop, rng)
            loop.step(look=False)
            if loop.game.view_of(loop.state, None).get("verdict"):   # the end: the roles are everyone's now
                break
            assert roles_in(t.public_outputs()) == [], (seed, loop.state)
        assert loop.game.view_of(loop.state, None).get("verdict"), "the game reached its end"
        final = json.dumps(t.client.get("/api/state").json())
        assert len(roles_in(final)) >= 1       # the check can see a role once it is public
    finally:
        t.close()


def test_each_player_enters_and_sees_their_role_on_their_own_phone(table):
    client = table.client
    seq = client.get("/api/state").json()["seq"]
    mary = client.post("/join", data={"seq": seq, "player": "Mary"}, headers=ORIGIN, follow_redirects=False)
    link = mary.headers["location"]
    page = client.get(link).text
    assert "You have not entered your role yet" in page and "Mary&#x27;s role: the Countess" in page
    index = re.search(r'<button name=choice value="(\d+)">Mary&#x27;s role: the Countess<', page).group(1)
    done = while_stepping(table.loop, lambda: client.post(link, data={"seq": seq, "choice": index}, headers=ORIGIN,
                                                         follow_redirects=False))
    assert done.status_code == 303, done.text
    table.web.tick(0)
    page = client.get(link).text
    assert "You are the Countess." in page and "Against the Count/Countess: you need Romance" in page
    assert roles_in(table.public_outputs()) == []
    edgar = client.post("/join", data={"seq": seq + 1, "player": "Edgar"}, headers=ORIGIN, follow_redirects=False)
    assert "Countess" not in client.get(edgar.headers["location"]).text.split("Your choices")[0]


def test_next_after_the_end_starts_the_next_game_of_the_series(tmp_path):
    table, loop = play(seed=5, out=tmp_path, size=(250, 122), quiet=True)
    final = loop.game.view_of(table.state, None)
    totals = {p["name"]: p["total"] for p in final["players"]}
    with SessionStore(tmp_path / "demo-sessions.db") as store:
        again = TableLoop(store.open(table.id, get_game), presenters=[RecordingPresenter()])
        again.start()
        again.handle("next")
        assert again.table.id != table.id
        setup = again.table.session.setup_options
        assert setup["game_number"] == 2 and setup["series_points"] == totals
        assert again.game.view_of(again.state, None)["phase"] == "roles"
        again.shutdown()


def test_look_at_own_role_is_offered_only_once_a_role_is_held(table):
    loop = table.loop
    loop.handle("push")
    values = [i.value for i in loop.menu.items]
    assert (SEE, "Mary") not in values and (ENTER, "Mary") in values
    loop.close_menu()
    press(loop, {"type": "draw_roles"})
    look_at_own_role(loop, "Mary")
    loop.handle("push")
    values = [i.value for i in loop.menu.items]
    assert (SEE, "Mary") in values and (ENTER, "Mary") not in values
