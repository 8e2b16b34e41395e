"""A game is a plug-in: Secret Pig (tests/games/, one rules module and one host module
with nothing in it) plays through the one TableLoop, the demo, replay and export with no
change to loop, CLI or screen code, and its secret never reaches anything public."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from host import games
from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from rules import get_game
from tests.games import secret_pig_table
from vision.roll import Die, Roll, Throw

ROOT = Path(__file__).resolve().parents[2]
GAME_MODULE = "tests.games.secret_pig_table"
LUCKY = {"Ann": "5", "Ben": "3"}


@pytest.fixture(scope="module", autouse=True)
def plugged_in():
    games.add_module(secret_pig_table)
    yield


def one_die(face: str) -> Roll:
    return Roll(dice=(Die(face, 0.99, 40.0, 40.0, 20.0, 20.0),), dice_set="d6-pips")


def public_texts(screens) -> str:
    return "\n".join(screen.text() for screen in screens)


def test_the_plug_in_plays_through_the_one_loop_and_keeps_its_secret(tmp_path):
    game = get_game("secret-pig")
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(game, {"players": ["Ann", "Ben"], "target": 10})
        screen = RecordingPresenter()
        loop = TableLoop(table, presenters=[screen])
        loop.start()
        assert loop.dice_wanted() == Throw(0)            # the lucky faces come first
        loop.handle("push")                               # the shared knob offers no secret choice
        assert all("lucky" not in str(item.value) for item in loop.menu.items)
        loop.handle("undo")
        for player, face in LUCKY.items():
            loop.choose_privately({"type": "lucky", "player": player, "face": face})
        assert loop.dice_wanted() == Throw(1)
        loop.on_read(one_die("5"))                        # Ann's lucky face: 10 this turn
        assert table.state.turn_total == 10
        loop.handle("push")                               # the knob's menu: hold
        hold = [item.value for item in loop.menu.items].index({"type": "hold"})
        for _ in range(hold):
            loop.handle("right")
        loop.handle("push")
        assert game.is_over(table.state) and table.state.winner == "Ann"
        assert [e["type"] for e in table.session.events] == ["lucky", "lucky", "roll", "hold"]
        shown_before_the_end = public_texts(screen.screens[:-1])
    for player, face in LUCKY.items():   # said that they must pick, never what they picked
        assert f"face {face}" not in shown_before_the_end and f"{player}: {face}" not in shown_before_the_end
    public = game.view_of(table.state, None)
    assert public["lucky"] == LUCKY                       # over: the secrets are shown to all


def test_a_lucky_face_is_only_in_its_owners_view_until_the_end():
    game = get_game("secret-pig")
    state = game.setup({"players": ["Ann", "Ben"]})
    for player, face in LUCKY.items():
        state = game.apply(state, {"type": "lucky", "player": player, "face": face})
    assert game.view_of(state, None)["lucky"] == {}
    assert game.view_of(state, "Ann")["lucky"] == {"Ann": "5"}
    assert game.event_view({"type": "lucky", "player": "Ann", "face": "5"}, None) == {"type": "lucky",
                                                                                      "player": "Ann"}


def dicewatch(*args, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DICEWATCH_GAMES": GAME_MODULE, "DICEWATCH_HOME": str(home),
           "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "host.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_plug_in_is_listed_demoed_replayed_and_exported_without_its_secret(tmp_path):
    listed = dicewatch("games", "--json", home=tmp_path)
    assert listed.returncode == 0, listed.stderr
    names = {about["name"]: about for about in json.loads(listed.stdout)}
    assert names["secret-pig"]["dice"] == "d6-pips" and names["secret-pig"]["options"][0]["name"] == "target"

    out = tmp_path / "demo"
    demo = dicewatch("demo", "--game", "secret-pig", "--seed", "3", "--quiet", "--out", str(out), home=tmp_path)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "wins with" in demo.stdout

    sessions = out / "demo-sessions.db"
    exported = dicewatch("export", "latest", "--sessions", str(sessions), home=tmp_path)
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    lucky = [line for line in lines[1:] if line["type"] == "lucky"]
    assert len(lucky) == 2 and all("face" not in line for line in lucky)   # the public export: no secret
    csv_text = dicewatch("export", "latest", "--sessions", str(sessions), "--format", "csv", home=tmp_path).stdout
    assert "lucky" in csv_text and '"face"' not in csv_text

    full = dicewatch("export", "latest", "--sessions", str(sessions), "--with-secrets", home=tmp_path)
    assert full.returncode == 0, full.stderr
    replay_file = tmp_path / "game.jsonl"
    replay_file.write_text(full.stdout)
    replayed = dicewatch("replay", str(replay_file), "--json", home=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    state = json.loads(replayed.stdout)["state"]
    assert state["winner"] and set(state["lucky"]) == {"Ann", "Ben"}   # shown once the game is over


@pytest.mark.parametrize("named, says", [
    ("nowhere.pig_table", "names the game module 'nowhere.pig_table', which cannot be imported"),
    ("host.menus", "host.menus is not a game module: it needs GAME"),
])
def test_a_game_module_that_cannot_be_loaded_is_named(tmp_path, named, says):
    env = {**os.environ, "DICEWATCH_GAMES": named, "DICEWATCH_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "host.cli", "games"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and says in result.stderr and "Traceback" not in result.stderr
