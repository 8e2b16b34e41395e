"""The league: standings by each scoring, a malformed or forged message logged and ignored, its
store rebuilt after a restart, the page and the command line; and the example Mosquitto ACL
(a box writes only its own topics, the league only reads and asks again)."""
from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time

import pytest
from starlette.testclient import TestClient

from host.cli import main
from host.league.follower import League
from host.league.standings import TableResult, parse_scoring, standings
from host.league.web import make_app
from host.mqtt.broker import make_client, parse_broker_url
from host.mqtt.messages import encode
from tests.host.mosquitto import SHORT_GAME, Mosquitto, eventually, need_mosquitto, need_tool, play_published


def standing(players, points, winners, over=True):
    return {"players": players, "points": points, "winners": winners, "over": over}


RESULTS = [TableResult("a/1", "pig", standing(["Ann", "Ben", "Cy"], [30, 12, 12], ["Ann"])),
           TableResult("b/1", "pig", standing(["Ann", "Ben"], [20, 20], ["Ann", "Ben"])),
           TableResult("c/1", "jingle-bell-roll", standing(["Ben", "Cy"], [61, 81], ["Cy"])),
           TableResult("d/1", "pig", standing(["Dee", "Eve"], [3, 9], [], over=False))]


def test_standings_by_wins_draws_and_losses():
    out = standings(RESULTS, parse_scoring("3/1/0"))
    assert out["overall"][0] == {"player": "Ann", "played": 2, "wins": 2, "points": 50, "score": 4}
    assert [r["player"] for r in out["overall"]] == ["Ann", "Cy", "Ben"]   # Cy 3 (1 win), Ben 1 (a shared win)
    assert out["games"]["pig"][1] == {"player": "Ben", "played": 2, "wins": 1, "points": 32, "score": 1}
    assert out["live"] == [{"table": "d/1", "game": "pig", "players": ["Dee", "Eve"], "points": [3, 9]}]
    assert (out["finished"], out["tables"]) == (3, 4)


def test_standings_by_rank():
    out = standings(RESULTS[:1], parse_scoring("rank:10/6/4"))
    assert [(r["player"], r["score"]) for r in out["overall"]] == [("Ann", 10), ("Ben", 6), ("Cy", 6)]  # level: share
    with pytest.raises(ValueError, match="W/D/L"):
        parse_scoring("3/1")
    with pytest.raises(ValueError, match="rank:"):
        parse_scoring("rank:x")


def entry(seq, prev, *, table="kitchen/s1", over=False, points=(0, 0), **changes):
    message = {"table": table, "box": table.split("/")[0], "session": table.split("/")[1], "game": "pig",
               "seq": seq, "prev": prev, "at": 1.0, "kind": "event", "event": {"type": "roll"},
               "standing": standing(["Ann", "Ben"], list(points), ["Ann"] if over else [], over)}
    message.update(changes)
    return encode(message)


def test_malformed_and_forged_messages_are_logged_and_ignored(tmp_path, caplog):
    league = League(parse_broker_url("mqtt://127.0.0.1/club"), tmp_path / "league.db", parse_scoring("3/1/0"))
    topic = "club/tables/kitchen/s1/events"
    bad = [(topic, b"\xff\xfe"), (topic, b"[1, 2]"), (topic, b"{"), (topic, entry(0, 0)),
           (topic, entry(2, 5)), (topic, entry(1, 0, kind="cheat")),
           (topic, entry(1, 0, standing={"players": ["Ann"], "points": [1, 2], "winners": [], "over": False})),
           ("club/tables/kitchen/s1/events", entry(1, 0, table="attic/s1")),      # forged: another box's table
           ("club/tables/kitchen/online", encode({"box": "attic", "online": True})),
           ("club/tables/kitchen/s1/state", encode({"table": "kitchen/s1", "last": "many"})),
           ("club/elsewhere", b"{}")]
    for where, payload in bad:
        league._on_message(None, None, type("Message", (), {"topic": where, "payload": payload})())
    assert league.ignored == len(bad) and league.tables == {}
    assert "forged" not in caplog.text and "names table 'attic/s1' but came on kitchen/s1's topic" in caplog.text
    for seq, prev in ((1, 0), (2, 1), (2, 1), (4, 3)):                     # one twice, one after a hole
        league.take(topic, entry(seq, prev, points=(seq, 0), over=seq == 4))
    assert league.snapshot()["missing"] == ["kitchen/s1"]
    league.take(topic, entry(3, 2))                                         # the hole filled
    assert league.tables["kitchen/s1"].complete == 4 and league.snapshot()["missing"] == []
    league.store.close()
    again = League(parse_broker_url("mqtt://127.0.0.1/club"), tmp_path / "league.db", parse_scoring("3/1/0"))
    assert len(again.tables["kitchen/s1"].prevs) == 4                       # rebuilt from its store, once each
    assert again.snapshot()["overall"][0] == {"player": "Ann", "played": 1, "wins": 1, "points": 4, "score": 3}
    page = TestClient(make_app(again))
    assert "Ann" in page.get("/").text and page.get("/api/standings").json()["finished"] == 1
    again.store.close()


def test_league_command_usage_errors(capsys):
    for argv, said in [(["league", "--broker", "http://x/p"], "--broker: expected mqtt://"),
                       (["league", "--broker", "mqtt://x/p", "--scoring", "3/1"], "--scoring: expected W/D/L"),
                       (["league", "--broker", "mqtt://x/p", "--json", "--web", "8090"], "one or the other"),
                       (["league", "--broker", "mqtt://x/p", "--web", "x:y"], "--web: expected"),
                       (["run", "--publish", "mqtt://x/p+"], "--publish: the topic prefix"),
                       (["demo", "--publish", "mqtts://h/p?ca=/nope"], "--publish: ca=/nope: no such file")]:
        assert main(argv) == 2
        assert said in capsys.readouterr().err


ACL = """# the league: reads every table, asks boxes to send again
user league
topic read club/tables/#
topic write club/resend/#

# Home Assistant (optional): reads the boxes' entities
user homeassistant
topic read homeassistant/#
topic read club/tables/#

# every box (its MQTT user name is its [box] name): its own topics only
pattern write club/tables/%u/#
pattern read club/resend/%u
pattern write homeassistant/sensor/%u/#
"""


def test_the_example_acl_keeps_each_box_to_its_own_topics(tmp_path):
    need_mosquitto()
    passwords = tmp_path / "passwords"
    passwords.write_text("")
    for user, password in (("kitchen", "k-pass"), ("attic", "a-pass"), ("league", "l-pass"), ("homeassistant", "h")):
        subprocess.run(["mosquitto_passwd", "-b", str(passwords), user, password], check=True)
    (tmp_path / "acl").write_text(ACL)
    broker = Mosquitto(tmp_path / "broker", anonymous=False,
                       extra=f"password_file {passwords}\nacl_file {tmp_path / 'acl'}")
    heard = {"league": [], "homeassistant": []}
    listeners = []
    subscribed = threading.Semaphore(0)
    for user, password in (("league", "l-pass"), ("homeassistant", "h")):
        listener = make_client(parse_broker_url(broker.url("club", f"{user}:{password}")), user)
        listener.on_connect = lambda c, u, f, r, p: c.subscribe("#", qos=1)
        listener.on_subscribe = lambda *_: subscribed.release()
        listener.on_message = lambda c, u, m, said=heard[user]: said.append((m.topic, m.payload))
        listener.connect("127.0.0.1", broker.port)
        listener.loop_start()
        listeners.append(listener)
    league = listeners[0]
    refused, kitchen_read = [], []
    try:
        kitchen = make_client(parse_broker_url(broker.url("club", "kitchen:k-pass")), "kitchen")
        kitchen.on_connect = lambda c, u, f, r, p: c.subscribe("club/#", qos=1)
        kitchen.on_subscribe = lambda *_: subscribed.release()
        kitchen.on_message = lambda c, u, m: kitchen_read.append(m.topic)
        kitchen.connect("127.0.0.1", broker.port)
        kitchen.loop_start()
        assert all(subscribed.acquire(timeout=10) for _ in range(3))
        for topic, payload in (("club/tables/kitchen/s1/events", b"mine"), ("club/tables/attic/s1/events", b"forged"),
                               ("club/resend/attic", b"not mine to ask"), ("homeassistant/sensor/kitchen/turn/config",
                                                                          b"my entity"),
                               ("homeassistant/sensor/attic/turn/config", b"not my entity")):
            kitchen.publish(topic, payload, qos=1).wait_for_publish(3)
        league.publish("club/tables/kitchen/s1/events", b"the league writes no table", qos=1).wait_for_publish(3)
        league.publish("club/resend/kitchen", b"send again", qos=1).wait_for_publish(3)
        wrong = make_client(parse_broker_url(broker.url("club", "attic:k-pass")), "intruder")
        wrong.on_connect = lambda c, u, f, r, p: refused.append(r.is_failure)
        wrong.connect("127.0.0.1", broker.port)
        wrong.loop_start()
        # the last word, after everything above has reached the broker: once both listeners and
        # the kitchen have it, they have had whatever the ACL let through
        kitchen.publish("club/tables/kitchen/s1/events", b"last", qos=1).wait_for_publish(3)
        league.publish("club/resend/kitchen", b"last", qos=1).wait_for_publish(3)
        assert eventually(lambda: all((b"last" in [p for _, p in said]) for said in heard.values())
                          and kitchen_read.count("club/resend/kitchen") == 2 and refused)
        wrong.loop_stop()
        kitchen.loop_stop()
    finally:
        for listener in listeners:
            listener.loop_stop()
        broker.stop()
    last = ("club/tables/kitchen/s1/events", b"last")
    assert heard["league"] == [("club/tables/kitchen/s1/events", b"mine"), last]
    assert heard["homeassistant"] == [("club/tables/kitchen/s1/events", b"mine"),
                                      ("homeassistant/sensor/kitchen/turn/config", b"my entity"), last]
    assert kitchen_read == ["club/resend/kitchen"] * 2       # what the league asks of it, nothing else
    assert refused and all(r is True for r in refused)      # a wrong password: refused


def test_league_json_against_a_real_broker(tmp_path):
    need_mosquitto()
    broker = Mosquitto(tmp_path / "broker")
    try:
        box = make_client(parse_broker_url(broker.url("club")), "kitchen")
        box.connect("127.0.0.1", broker.port)
        box.loop_start()
        state = {"table": "kitchen/s1", "box": "kitchen", "session": "s1", "game": "pig", "last": 0, "seq": 0,
                 "standing": standing(["Ann", "Ben"], [30, 12], ["Ann"])}
        box.publish("club/tables/kitchen/s1/state", encode(state), qos=1, retain=True).wait_for_publish(3)
        box.loop_stop()
        done = subprocess.run([sys.executable, "-m", "host.cli", "league", "--broker", broker.url("club"), "--json",
                               "--wait", "3", "--store", str(tmp_path / "league.db")],
                              capture_output=True, text=True, timeout=60)
    finally:
        broker.stop()
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["overall"][0] == {"player": "Ann", "played": 1, "wins": 1, "points": 30, "score": 3}


def make_certificates(folder) -> None:
    """A test CA and a server certificate for 127.0.0.1 (openssl, EC keys: quick)."""
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=dicewatch test CA")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "2", "-extfile", "san.ext")


def test_over_tls_with_a_password_from_a_file(tmp_path):
    need_mosquitto()
    need_tool("openssl")
    from host.mqtt.publisher import Publisher
    from host.session_store import SessionStore
    from rules import register_game
    from tests.games.secret_pig_rules import GAME as PIG
    register_game(PIG)
    make_certificates(tmp_path)
    passwords = tmp_path / "passwords"
    passwords.write_text("")
    for user, password in (("kitchen", "k-pass"), ("league", "l-pass")):
        subprocess.run(["mosquitto_passwd", "-b", str(passwords), user, password], check=True)
    (tmp_path / "kitchen.pass").write_text("k-pass\n")
    broker = Mosquitto(tmp_path / "broker", anonymous=False,
                       extra=f"cafile {tmp_path}/ca.crt\ncertfile {tmp_path}/server.crt\nkeyfile {tmp_path}/server.key\n"
                             f"password_file {passwords}")
    secure = f"mqtts://{{}}@127.0.0.1:{broker.port}/club?ca={tmp_path}/ca.crt"
    league = League(parse_broker_url(secure.format("league:l-pass")), tmp_path / "league.db",
                    parse_scoring("3/1/0")).start()
    try:
        assert league.connected.wait(10)
        with SessionStore(tmp_path / "sessions.db") as store:
            table = store.create(PIG, {"players": ["Ann", "Ben"], "target": 10})
            untrusting = Publisher(parse_broker_url(f"mqtts://kitchen:k-pass@127.0.0.1:{broker.port}/club"),
                                   "kitchen", tmp_path / "sessions.db", outbox_path=tmp_path / "other.db").start()
            publisher = Publisher(parse_broker_url(secure.format("kitchen") + f"&password_file={tmp_path}/kitchen.pass"),
                                  "kitchen", tmp_path / "sessions.db").start()
            play_published(table, SHORT_GAME, publisher, untrusting)
            assert publisher.wait_idle(10)
            assert not untrusting.wait_idle(0.5)       # the broker's certificate is not one it trusts
            untrusting.stop(flush=0)
            publisher.stop()
        deadline = time.monotonic() + 10
        while league.snapshot()["finished"] != 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert league.snapshot()["overall"][0] == {"player": "Ann", "played": 1, "wins": 1, "points": 10, "score": 3}
        assert untrusting.connected is False and "TLS refused" in untrusting.failure
    finally:
        league.stop()
        broker.stop()


def test_a_demo_box_publishes_and_the_league_page_shows_its_game(tmp_path):
    """End to end, as an organiser runs it: dicewatch league --web, dicewatch demo --publish."""
    import os
    import re
    import signal
    import urllib.request
    from host.session_store import SessionStore
    from rules import get_game
    need_mosquitto()
    broker = Mosquitto(tmp_path / "broker")
    env = {**os.environ, "DICEWATCH_HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.toml").write_text('[box]\nname = "kitchen"\n')
    league = subprocess.Popen([sys.executable, "-m", "host.cli", "league", "--broker", broker.url("club"),
                               "--web", "127.0.0.1:0", "--scoring", "rank:5/3/1"],
                              stderr=subprocess.PIPE, text=True, env=env)
    try:
        address = None
        while address is None:
            line = league.stderr.readline()
            assert line, "the league ended before serving its page"
            found = re.search(r"the standings page is at (http://\S+/)", line)
            address = found.group(1) if found else None
        demo = subprocess.run([sys.executable, "-m", "host.cli", "demo", "--game", "making-christmas", "--quiet",
                               "--out", str(tmp_path / "out"), "--publish", broker.url("club")],
                              capture_output=True, text=True, env=env, timeout=120)
        assert demo.returncode == 0, demo.stderr
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            standings_now = json.loads(urllib.request.urlopen(address + "api/standings", timeout=5).read())
            if standings_now["finished"] == 1:
                break
            time.sleep(0.2)
        page = urllib.request.urlopen(address, timeout=5).read().decode()
        league.send_signal(signal.SIGTERM)
        assert league.wait(15) == 0
    finally:
        if league.poll() is None:
            league.kill()
        broker.stop()
    with SessionStore(tmp_path / "out" / "demo-sessions.db") as store:
        state = store.open(store.list()[0].id, get_game).state
    assert standings_now["finished"] == 1, f"the league has no finished game; the demo said: {demo.stderr}"
    assert standings_now["scoring"] == "rank:5/3/1"
    assert standings_now["boxes"] == {"kitchen": False}                  # the demo ended: offline
    best = standings_now["games"]["making-christmas"][0]
    assert [best["player"], best["wins"], best["score"]] == [state.winners[0], 1, 5]
    assert best["points"] == max(state.points) and "making-christmas" in page and e_html(best["player"]) in page


def e_html(text: str) -> str:
    import html
    return html.escape(text)


def test_a_retained_state_newer_than_the_entries_held_keeps_its_standing(tmp_path):
    """A league restarted late hears the table's last state before its old entries: the standing
    it shows is the latest, never one from an older entry that arrives after."""
    league = League(parse_broker_url("mqtt://127.0.0.1/club"), tmp_path / "league.db", parse_scoring("3/1/0"))
    final = standing(["Ann", "Ben"], [30, 12], ["Ann"])
    league.take("club/tables/attic/s2/state", encode({"table": "attic/s2", "game": "pig", "last": 9, "standing": final}))
    league.take("club/tables/attic/s2/events", entry(1, 0, table="attic/s2", points=(1, 0)))
    assert league.results()[0].standing == final and league.snapshot()["missing"] == ["attic/s2"]
    league.store.close()


def test_the_page_shows_names_as_text(tmp_path):
    league = League(parse_broker_url("mqtt://127.0.0.1/club"), tmp_path / "league.db", parse_scoring("3/1/0"))
    sneaky = standing(["<script>alert(1)</script>", "Ben"], [3, 1], ["<script>alert(1)</script>"])
    league.take("club/tables/attic/s3/state", encode({"table": "attic/s3", "game": "pig", "last": 0, "standing": sneaky}))
    page = TestClient(make_app(league)).get("/").text
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    league.store.close()


def test_a_box_running_with_publish_in_its_config_sends_its_whole_journal_across_a_restart(tmp_path, dicewatch_home):
    """`dicewatch run` as a box runs it: `[box] publish` in the config, the synthetic camera
    throwing, stopped by SIGTERM; the throw undone while it was off the network; resumed and
    stopped again. The league holds every event and undo of the journal, in one unbroken chain."""
    import os
    from host.session_store import SessionStore
    from rules import get_game
    from tests.host.sigterm_run import run_then_sigterm
    need_mosquitto()
    calibrate = subprocess.run([sys.executable, "-m", "host.cli", "calibrate", "--camera", "synthetic:3"],
                               env=dict(os.environ, DICEWATCH_HOME=str(dicewatch_home)),
                               capture_output=True, text=True, timeout=120)
    assert calibrate.returncode == 0, calibrate.stderr     # the tray found: the synthetic throws are read
    broker = Mosquitto(tmp_path / "broker")
    (dicewatch_home / "config.toml").write_text(f'[box]\nname = "attic"\npublish = "{broker.url("club")}"\n')
    league = League(parse_broker_url(broker.url("club")), tmp_path / "league.db", parse_scoring("3/1/0")).start()
    try:
        args = ["--players", "Ann,Ben", "--camera", "synthetic:3", "--no-gpio", "--no-characters", "--quiet"]
        def stored_a_throw() -> bool:   # read only: the box is writing
            import sqlite3
            try:
                with contextlib.closing(sqlite3.connect(f"file:{dicewatch_home / 'sessions.db'}?mode=ro", uri=True)) as db:
                    return db.execute("SELECT COUNT(*) FROM journal WHERE kind = 'event'").fetchone()[0] > 0
            except sqlite3.Error:   # not made yet
                return False

        for run in range(2):
            status, _, err = run_then_sigterm(args + (["--resume"] if run else []), dicewatch_home,
                                              tmp_path / f"screens-{run}", settle=2.0,
                                              until=stored_a_throw if run == 0 else None)
            assert status == 0 and "Traceback" not in err, err
            if run == 0:   # the throw taken back while the box was off the network: sent when it is back
                with SessionStore(dicewatch_home / "sessions.db") as store:
                    (info,) = store.list()
                    table = store.open(info.id, get_game)
                    assert [e.kind for e in table.entries if e.kind in ("event", "undo")] == ["event"], \
                        "the synthetic camera's first throw should have been stored"
                    table.undo()
        with SessionStore(dicewatch_home / "sessions.db") as store:
            (info,) = store.list()
            stored = [e.seq for e in store.entries(info.id) if e.kind in ("event", "undo")]
        assert stored, "the box stored no event to publish"
        deadline = time.monotonic() + 15
        table = None
        while time.monotonic() < deadline:
            table = league.tables.get(f"attic/{info.id}")
            if table is not None and table.complete == stored[-1] and not table.missing():
                break
            time.sleep(0.2)
        assert table is not None and sorted(table.prevs) == stored and table.complete == stored[-1]
        assert league.snapshot()["boxes"] == {"attic": False}          # stopped: offline
    finally:
        league.stop()
        broker.stop()
