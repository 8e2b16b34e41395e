"""Making Christmas at the box: a whole game through the one TableLoop, its screens, its
secrets (a hand card never reaches a public screen), and the CLI's demo and replay."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

from host.games import making_christmas as table_module
from host.games.making_christmas import path_to
from host.games import turn_knob_to
from host.loop import TableLoop
from host.making_christmas_demo import drawn_part
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from rules import get_game
from rules.making_christmas import UNKNOWN, complete_events

ROOT = Path(__file__).resolve().parents[2]
GAME = get_game("making-christmas")


def table_choice(loop, rng: random.Random) -> dict:
    """The players' choice at the shared knob, never a swap with a hand (so that the hands
    never reach the workbench and every public screen must be the same whatever they hold)."""
    events = loop.plays.public_events()
    kinds = {e["type"] for e in events}
    if kinds & {"goal", "lay"}:
        return rng.choice(events)
    completes = [e for e in events if e["type"] == "complete"]
    if completes:
        return completes[0]
    swaps = [e for e in events if e["type"] == "swap"]
    useful = [e for e in swaps if complete_events(GAME.apply(loop.state, e))]
    if useful or loop.state.step == "swap":
        return rng.choice(useful or swaps)
    return rng.choice([e for e in events if e["type"] == "end_turn"])


def play_game(tmp_path: Path, hand_seed: int, table_seed: int = 7):
    """A whole game at the box; returns (the stored session's events, what the panel showed, loop)."""
    table_rng, hand_rng = random.Random(table_seed), random.Random(hand_seed)
    store = SessionStore(tmp_path / f"s{hand_seed}.db")
    table = store.create(GAME, {"players": ["Ann", "Ben"], "short": True})
    panel = RecordingPresenter()
    loop = TableLoop(table, presenters=[panel])
    loop.start()
    for _ in range(3000):
        if GAME.is_over(table.state):
            break
        for player, hand in zip(table.state.players, table.state.hands):
            for card, part in enumerate(hand):
                if part == UNKNOWN:   # on the player's own device
                    loop.choose_privately({"type": "hold", "player": player, "card": card,
                                           "part": drawn_part(table.state, hand_rng)})
        loop.handle("push")
        assert all(item.value.get("type") != "hold" for item in loop.menu.items if isinstance(item.value, dict))
        event = table_choice(loop, table_rng)
        for value in path_to(event):
            turn_knob_to(loop, [item.value for item in loop.menu.items].index(value))
    return table, panel, loop, store


def test_a_whole_game_at_the_box_never_shows_a_hand(tmp_path):
    first, panel_one, _, store_one = play_game(tmp_path, hand_seed=1)
    second, panel_two, _, store_two = play_game(tmp_path, hand_seed=2)
    assert GAME.is_over(first.state) and sum(first.state.points) == 17
    holds = [[e for e in t.session.events if e["type"] == "hold"] for t in (first, second)]
    assert holds[0] and holds[0] != holds[1]                          # the hands differed ...
    texts = [[screen.text() for screen in panel.screens] for panel in (panel_one, panel_two)]
    assert texts[0] == texts[1]                                      # ... and nothing public showed it
    assert not any("hand card" in text and " is " in text for text in texts[0])
    assert "Final ranking" in texts[0][-1] or any("Final ranking" in t for t in texts[0][-3:])
    store_one.close(), store_two.close()


def test_next_after_the_end_starts_a_rematch_with_the_same_players(tmp_path):
    table, _, loop, store = play_game(tmp_path, hand_seed=3)
    assert GAME.is_over(table.state)
    loop.handle("next")
    assert loop.table.session.events == [] and loop.table.session.setup_options["players"] == ["Ann", "Ben"]
    store.close()


def test_the_screens_words_and_bar(tmp_path):
    store = SessionStore(tmp_path / "s.db")
    table = store.create(GAME, {"players": ["Ann", "Ben"]})
    panel = RecordingPresenter()
    loop = TableLoop(table, presenters=[panel])
    loop.start()
    assert loop.plays.bar() == 10
    assert "workbench" in panel.screens[-1].title and "enter the new goal in slot 1" in panel.screens[-1].footer
    loop.handle("right")                                             # the knob flips to the scoreboard
    assert "20 goals left" in panel.screens[-1].title
    label = loop.plays.label
    assert label({"type": "swap", "spaces": [0, 4]}) == "Swap a1 and b2"
    assert label({"type": "complete", "slot": 2, "toy": "nesting-doll", "spaces": [3, 6]}) == \
        "Nesting Doll a2-a3 for goal 3"
    assert label({"type": "goal", "slot": 0, "goal": "zombie-duck-arrows"}) == "Goal 1 is Zombie Duck (+ a swap)"
    assert label({"type": "end_turn", "exchange": [0, 1]}) == "End the turn, exchange hand cards 1 and 2"
    store.close()


def test_the_swaps_are_chosen_in_steps(tmp_path):
    store = SessionStore(tmp_path / "s.db")
    table = store.create(GAME, {"players": ["Ann", "Ben"]})
    loop = TableLoop(table, presenters=[RecordingPresenter()])
    loop.start()
    for slot in range(3):
        loop.play({"type": "goal", "slot": slot, "goal": "vampire-teddy"})
    for space in range(9):
        loop.play({"type": "lay", "space": space, "part": "doll-top"})
    loop.handle("push")
    labels = [item.label for item in loop.menu.items]
    assert labels == ["Swap two workbench parts", "Swap a part with your hand", "Replace a part from the deck",
                      "Undo the last event", "Back"]
    turn_knob_to(loop, 0)
    assert [item.label for item in loop.menu.items][:2] == ["Swap a1 with ...", "Swap b1 with ..."]
    turn_knob_to(loop, 1)
    assert [item.label for item in loop.menu.items][:2] == ["Swap b1 and c1", "Swap b1 and a2"]
    turn_knob_to(loop, 1)
    assert table.session.events[-1] == {"type": "swap", "spaces": [1, 3]}
    assert path_to({"type": "swap_hand", "card": 1, "space": 4}) == [
        ("group", "swap_hand"), ("group", "swap_hand", 1), {"type": "swap_hand", "card": 1, "space": 4}]
    store.close()


def test_run_setup_options():
    args = Namespace(short_game=True)
    assert table_module.setup_options(args, ["Ann", "Ben"]) == {"players": ["Ann", "Ben"], "short": True}
    assert table_module.setup_options(Namespace(), []) == {"players": ["Ann", "Ben"]}


def dicewatch(*args, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DICEWATCH_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "host.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_demo_and_replay_json(tmp_path):
    out = tmp_path / "demo"
    demo = dicewatch("demo", "--game", "making-christmas", "--seed", "1", "--quiet", "--out", str(out), home=tmp_path)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "Final ranking" in demo.stdout and list(out.glob("*.png"))
    sessions = out / "demo-sessions.db"
    public = dicewatch("export", "latest", "--sessions", str(sessions), home=tmp_path)
    assert public.returncode == 0, public.stderr
    holds = [json.loads(line) for line in public.stdout.splitlines()[1:] if '"hold"' in line]
    assert holds and all("part" not in event for event in holds)
    full = dicewatch("export", "latest", "--sessions", str(sessions), "--with-secrets", home=tmp_path)
    replay_file = tmp_path / "game.jsonl"
    replay_file.write_text(full.stdout)
    replayed = dicewatch("replay", str(replay_file), "--json", home=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    state = json.loads(replayed.stdout)["state"]
    assert sum(seat["points"] for seat in state["players"]) == 20
    assert {seat["name"] for seat in state["players"]} == {"Sally", "Jack"}
    best = max(seat["points"] for seat in state["players"])
    assert state["winners"] == [s["name"] for s in state["players"] if s["points"] == best] or state["tied"]
    assert all("hand" not in seat for seat in state["players"])
    listed = dicewatch("games", "--json", home=tmp_path)
    assert "making-christmas" in {about["name"] for about in json.loads(listed.stdout)}
