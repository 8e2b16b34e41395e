"""Many tables against a real Mosquitto: twenty boxes play at once while the broker is killed
and restarted, one box is cut off and comes back, and the league is restarted; afterwards the
league holds exactly what the boxes' journals hold, nothing lost and nothing counted twice."""
from __future__ import annotations

import random
import threading
import time

import pytest

from host.league.follower import League
from host.league.standings import TableResult, parse_scoring, standings
from host.mqtt.broker import parse_broker_url
from host.mqtt.messages import standing_of
from host.mqtt.publisher import Publisher
from host.session_store import EVENT, UNDO, SessionStore
from rules import get_game, register_game
from tests.games.secret_pig_rules import GAME as PIG
from tests.host.mosquitto import Link, Mosquitto, eventually

BOXES = 20
CUT_OFF = 7


@pytest.fixture(autouse=True)
def secret_pig():
    register_game(PIG)


def scripted_game(store: SessionStore, publisher: Publisher, rng: random.Random, players: list[str],
                  pause: float) -> None:
    """Secret Pig to the end: lucky faces, rolls, holds, and now and then an undo."""
    table = store.create(PIG, {"players": players, "target": 30})

    def stored(step):
        step()
        publisher.notify(table.id)
        time.sleep(pause)

    for player in players:
        stored(lambda: table.play({"type": "lucky", "player": player, "face": rng.choice("23456")}))
    while not PIG.is_over(table.state):
        if table.state.turn_total >= 8 and rng.random() < 0.5:
            stored(lambda: table.play({"type": "hold"}))
        else:
            stored(lambda: table.play({"type": "roll", "faces": [rng.choice("123456")]}))
            if rng.random() < 0.08:
                stored(table.undo)


def box(number: int, folder, url: str, errors: list, publishers: list) -> None:
    """One box plays two games; its publisher goes on (as a box's does) until the test stops it."""
    try:
        rng = random.Random(number)
        with SessionStore(folder / "sessions.db") as store:
            publisher = Publisher(parse_broker_url(url), f"box{number:02d}", folder / "sessions.db").start()
            publishers.append(publisher)
            for game in range(2):
                scripted_game(store, publisher, rng, [f"P{(number + game + k) % 9}" for k in range(2)], 0.05)
            if not publisher.wait_idle(45):
                errors.append(f"box {number}: not everything acknowledged")
    except Exception as exc:  # noqa: BLE001 - said by the test
        errors.append(f"box {number}: {type(exc).__name__}: {exc}")


def journal_results(folders) -> tuple[list[TableResult], int]:
    """What the boxes' own journals say: each table's final standing, and how many entries were published."""
    results, published = [], 0
    for number, folder in enumerate(folders):
        with SessionStore(folder / "sessions.db") as store:
            for info in store.list():
                table = store.open(info.id, get_game)
                state = table.state
                standing = standing_of(PIG.view_of(state, None), PIG.is_over(state))
                count = sum(1 for e in table.entries if e.kind in (EVENT, UNDO))
                published += count
                results.append(TableResult(f"box{number:02d}/{info.id}", PIG.name, standing, count))
    return results, published


def last_stored(folders) -> float:
    latest = 0.0
    for folder in folders:
        with SessionStore(folder / "sessions.db") as store:
            for info in store.list():
                latest = max([latest] + [entry.at for entry in store.entries(info.id)])
    return latest


def test_twenty_boxes_a_killed_broker_a_cut_box_and_a_restarted_league(tmp_path):
    broker = Mosquitto(tmp_path / "broker")
    link = Link(broker.port)
    scoring = parse_scoring("3/1/0")
    league_url = broker.url()
    league = League(parse_broker_url(league_url), tmp_path / "league.db", scoring, ask_every=1.0).start()
    folders = [tmp_path / f"box{n:02d}" for n in range(BOXES)]
    errors: list[str] = []
    threads = []
    publishers: list[Publisher] = []
    try:
        assert league.connected.wait(10)
        for number, folder in enumerate(folders):
            folder.mkdir()
            port = link.port if number == CUT_OFF else broker.port
            url = f"mqtt://127.0.0.1:{port}/test"
            threads.append(threading.Thread(target=box, args=(number, folder, url, errors, publishers)))
            threads[-1].start()
        time.sleep(0.8)
        broker.kill()                 # mid-game: nothing the broker held survives, not the league's session
        killed_at = time.time()
        link.cut()                    # and one box loses its network for a while
        league.stop()                 # the league is restarted on its own store
        time.sleep(0.5)
        broker.start()
        time.sleep(1.5)               # the boxes are back and publish; nobody is subscribed yet
        league = League(parse_broker_url(league_url), tmp_path / "league.db", scoring, ask_every=1.0).start()
        time.sleep(0.5)
        link.mend()
        for thread in threads:
            thread.join(60)
        assert not errors
        expected_results, published = journal_results(folders)
        assert last_stored(folders) > killed_at + 2.5          # the boxes played on through it all
        expected = standings(expected_results, scoring)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            snapshot = league.snapshot()
            if snapshot["games"] == expected["games"] and not snapshot["missing"]:
                break
            time.sleep(0.25)
        print({k: snapshot[k] for k in ("missing", "live", "finished", "tables", "asked")})
        assert snapshot["finished"] == expected["finished"] == 2 * BOXES
        assert snapshot["games"] == expected["games"]          # per game: played, wins, points, score
        assert snapshot["overall"] == expected["overall"]
        assert snapshot["missing"] == [] and snapshot["live"] == []
        held = {r.table: r.entries for r in league.results()}
        assert held == {r.table: r.entries for r in expected_results}   # every entry, once
        assert sum(held.values()) == published
        for publisher in publishers:
            publisher.stop(flush=1)
        assert eventually(lambda: all(league.snapshot()["boxes"].get(f"box{n:02d}") is False
                                      for n in range(BOXES)))                                      # stopped
    finally:
        for publisher in publishers:
            publisher.stop(flush=0)
        league.stop()
        link.close()
        broker.stop()
