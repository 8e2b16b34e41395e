"""Dream Factory at the box: a whole game on the knob through the one TableLoop, with no
hidden token count on a public screen; the demo and replay --json from the command line."""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

from host.games import module_for, table_for, turn_knob_to
from host.games import dream_factory as table_module
from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from rules import get_game

ROOT = Path(__file__).resolve().parents[2]
THREE = ["Ann", "Ben", "Cy"]


def play_on_the_knob(loop, table, rng: random.Random, limit: int = 5000) -> int:
    """Push the knob and take a legal event from the menu, until the game is over; return
    how many unaffordable bids (offered on the public menu) were refused."""
    game, refused = table.session.game, 0
    for _ in range(limit):
        if game.is_over(table.state):
            return refused
        if loop.showing_notice:
            loop.handle("next")
        loop.handle("push")
        items = loop.menu.items
        events = [i for i, item in enumerate(items) if isinstance(item.value, dict)]
        pick = rng.choice(events)
        if not loop.legal(items[pick].value):
            refused += 1
            if rng.random() < 0.7:
                pick = rng.choice([i for i in events if loop.legal(items[i].value)])
        turn_knob_to(loop, pick)
    raise AssertionError("the game did not end")


def test_the_module_plugs_in():
    assert module_for("dream-factory") is table_module
    assert table_for(get_game("dream-factory")) is table_module.Table
    assert table_module.setup_options(None, []) == {"players": THREE}


def test_a_whole_game_on_the_knob_never_shows_a_hidden_token_count(tmp_path):
    game = get_game("dream-factory")
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(game, {"players": THREE})
        screen = RecordingPresenter()
        loop = TableLoop(table, presenters=[screen])
        loop.start()
        refused = play_on_the_knob(loop, table, random.Random(7))
        assert game.is_over(table.state)
        ending = len(screen.screens)
        before_the_end = [s for s in screen.screens if "final ranking" not in s.title]
        state = table.state
        events = list(table.session.events)
    assert refused > 0                                    # the menu offered more than some held
    for shown in before_the_end:
        if shown.kind == "scoreboard":
            header = list(shown.table[0])
            assert all(row[header.index("Tokens")] == "hidden" for row in shown.table[1:])
        assert not re.search(r"\b\d+ tokens?\b", shown.text()), shown.text()
    assert ending > len(events)
    last = screen.screens[-1]
    assert "final ranking" in last.title and str(max(state.tokens)) in last.text()
    bars = {s.bar for s in screen.statuses}
    assert bars <= set(range(0, 11)) and 10 in bars


def test_the_bids_on_the_shared_knob_do_not_tell_the_bidders_tokens(tmp_path):
    game = get_game("dream-factory")
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(game, {"players": THREE})
        loop = TableLoop(table, presenters=[RecordingPresenter()])
        loop.start()
        table.session.play(game.legal_events(table.state)[0])          # the legendary director
        loop.handle("push")
        amounts = [item.value["amount"] for item in loop.menu.items
                   if isinstance(item.value, dict) and item.value["type"] == "bid"]
        assert amounts == list(range(0, 37))                            # up to all the tokens held
        turn_knob_to(loop, amounts.index(20))                           # Ann holds 12
        assert loop.showing_notice and table.session.events[-1]["type"] == "reveal"


def test_the_bids_on_the_phone_pages_controls_do_not_tell_the_bidders_tokens(tmp_path):
    """The Controls page offers the same bids as the shared knob: up to all the tokens held."""
    from host.web.table import WebTable
    game = get_game("dream-factory")
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(game, {"players": THREE})
        web = WebTable()
        loop = TableLoop(table, presenters=[RecordingPresenter(), web])
        loop.start()
        loop.play(game.legal_events(table.state)[0])                   # the legendary director
        loop.show_home()
        amounts = [event["amount"] for _, event in web.seen().choices if event["type"] == "bid"]
        assert amounts == list(range(0, 37)) and table.state.tokens[0] == 12


def test_two_players_bid_on_the_knob_up_to_their_own_tokens(tmp_path):
    game = get_game("dream-factory")
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(game, {"players": ["Ann", "Ben"]})
        loop = TableLoop(table, presenters=[RecordingPresenter()])
        loop.start()
        table.session.play(game.legal_events(table.state)[0])
        loop.handle("push")
        amounts = [item.value["amount"] for item in loop.menu.items
                   if isinstance(item.value, dict) and item.value["type"] == "bid"]
        assert amounts == list(range(0, 13))


def dicewatch(*args, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DICEWATCH_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "host.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_demo_plays_a_whole_game_and_replay_json_gives_points_and_winners(tmp_path):
    listed = dicewatch("games", "--json", home=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "dream-factory" in {about["name"] for about in json.loads(listed.stdout)}

    out = tmp_path / "demo"
    demo = dicewatch("demo", "--game", "dream-factory", "--seed", "3", "--quiet", "--out", str(out), home=tmp_path)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert ("wins with" in demo.stdout or "win with" in demo.stdout) and "Final ranking:" in demo.stdout

    exported = dicewatch("export", "latest", "--sessions", str(out / "demo-sessions.db"), home=tmp_path)
    assert exported.returncode == 0, exported.stderr
    replay_file = tmp_path / "game.jsonl"
    replay_file.write_text(exported.stdout)
    replayed = dicewatch("replay", str(replay_file), "--json", home=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    state = json.loads(replayed.stdout)["state"]
    assert all(isinstance(p["name"], str) and isinstance(p["points"], int) for p in state["players"])
    assert state["winners"] and set(state["winners"]) <= {p["name"] for p in state["players"]}


def test_the_screens_follow_the_round_auction_screenplay_card_and_words(tmp_path):
    game = get_game("dream-factory")
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(game, {"players": THREE})
        screen = RecordingPresenter()
        loop = TableLoop(table, presenters=[screen])
        loop.start()
        assert screen.screens[-1].title == "Round 1: Legendary Director"
        for event in ({"type": "reveal", "tile": "director5"}, {"type": "bid", "player": "Ann", "amount": 3}):
            loop.play(event)
            loop.show_home()
        auction = screen.screens[-1]
        assert auction.title == "Auction: Legendary Director" and "high bid 3 by Ann" in auction.text()
        assert "director (5*)" in auction.text() and "to bid: Ben" in auction.text()
        for event in ({"type": "pass", "player": "Ben"}, {"type": "pass", "player": "Cy"}):
            loop.play(event)
        loop.show_home()
        card = screen.screens[-1]
        assert card.title == "Ann places" and "1a " in card.text() and "in hand: director (5*)" in card.text()
        words = loop.plays.label({"type": "place", "player": "Ann", "tile": "director5", "screenplay": "1a",
                                  "space": 0})
        assert words == "director (5*) on 1a space 1"
        assert loop.plays.bar() == 1


def test_two_players_see_the_tokens_on_the_scoreboard(tmp_path):
    game = get_game("dream-factory")
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(game, {"players": ["Ann", "Ben"]})
        screen = RecordingPresenter()
        TableLoop(table, presenters=[screen]).start()
        board = screen.screens[-1]
        assert board.kind == "scoreboard" and [row[2] for row in board.table[1:]] == ["12", "12"]
