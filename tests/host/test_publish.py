"""A box publishes its table over MQTT: the URL and [box] checked, nothing secret on the wire
(Secret Pig through the real table loop, every byte the broker carried), and the journal as
the outbox (a box that played with no broker sends it all, in order, when the broker comes)."""
from __future__ import annotations

import json
import threading
import time

import pytest

from host.config import ConfigError, load_config
from host.loop import TableLoop
from host.mqtt.box import box_settings, publishing
from host.mqtt.broker import make_client, parse_broker_url
from host.mqtt.messages import encode
from host.mqtt.publisher import Outbox, Publisher
from host.session_store import SessionStore
from rules import register_game
from tests.games.secret_pig_rules import GAME as PIG
from tests.host.mosquitto import SHORT_GAME, Mosquitto, eventually, free_port, play_published
from vision.roll import Die, Roll

LUCKY = {"Ann": "5", "Ben": "3"}


@pytest.fixture(autouse=True)
def secret_pig():
    from host import games
    from tests.games import secret_pig_table
    games.add_module(secret_pig_table)
    register_game(PIG)


def test_broker_urls(tmp_path):
    broker = parse_broker_url("mqtt://box1:s3cret@league.local/club/east")
    assert (broker.host, broker.port, broker.prefix, broker.username, broker.password, broker.tls) == \
        ("league.local", 1883, "club/east", "box1", "s3cret", False)
    assert "s3cret" not in broker.shown() and "s3cret" not in repr(broker)
    (tmp_path / "pass").write_text("from-a-file\n")
    (tmp_path / "ca.crt").write_text("-")
    secure = parse_broker_url(f"mqtts://box1@h/club?ca={tmp_path}/ca.crt&password_file={tmp_path}/pass")
    assert (secure.port, secure.tls, secure.password, secure.ca) == (8883, True, "from-a-file", f"{tmp_path}/ca.crt")
    assert parse_broker_url("mqtt://h").prefix == "dicewatch"
    assert parse_broker_url("mqtt://u@h", environ={"DICEWATCH_MQTT_PASSWORD": "env"}).password == "env"
    for bad, said in [("http://h/p", "scheme"), ("mqtt:///p", "no host"), ("mqtt://h:99999/p", "Port"),
                      ("mqtt://h/club/+", "prefix"), ("mqtt://h/p?ca=/x", "mqtts"), ("mqtt://h/p?colour=red", "colour"),
                      ("mqtts://h/p?ca=/no/such/ca.crt", "no such file"), ("mqtt://:pw@h/p", "without a username"),
                      ("mqtts://h/p?cert=/etc/hostname", "both cert")]:
        with pytest.raises(ValueError, match=said):
            parse_broker_url(bad)


def test_the_box_table_of_the_config(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[box]\nname = "kitchen"\npublish = "mqtt://broker.local/club"\n')
    assert box_settings(load_config(config)[0], config) == ("kitchen", "mqtt://broker.local/club")
    for text, said in [('[box]\nname = "a/b"\n', r"config.toml:2: .*\[box\] name 'a/b'"),
                       ('[box]\ncolour = "red"\n', r"config.toml:2: \[box\] unknown key 'colour'"),
                       ('[box]\npublish = "ftp://x"\n', r"config.toml:2: \[box\] publish: expected mqtt://"),
                       ('[bx]\nname = "k"\n', r"did you mean \[box\]")]:
        config.write_text(text)
        with pytest.raises(ConfigError, match=said):
            box_settings(load_config(config)[0], config)


class Spy:
    """Everything the broker carries, as it arrives."""

    def __init__(self, broker):
        self.messages: list[tuple[str, bytes, bool]] = []
        self.client = make_client(parse_broker_url(broker.url()), "spy")
        ready = threading.Event()
        self.client.on_connect = lambda c, u, f, r, p: c.subscribe("#", qos=1)
        self.client.on_subscribe = lambda *_: ready.set()
        self.client.on_message = lambda c, u, m: self.messages.append((m.topic, m.payload, m.retain))
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        assert ready.wait(10)

    def saw_offline(self, box: str) -> bool:
        """Wait for the box's last word (the box is offline): all it sent before has arrived."""
        said = encode({"box": box, "online": False})
        return eventually(lambda: any(t.endswith(f"/tables/{box}/online") and p == said
                                      for t, p, _ in list(self.messages)))

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()


def one_die(face: str) -> Roll:
    return Roll(dice=(Die(face, 0.99, 40.0, 40.0, 20.0, 20.0),), dice_set="d6-pips")


def test_nothing_secret_goes_on_the_wire(tmp_path):
    broker = Mosquitto(tmp_path / "broker")
    spy = Spy(broker)
    try:
        with SessionStore(tmp_path / "sessions.db") as store:
            table = store.create(PIG, {"players": ["Ann", "Ben"], "target": 10})
            mqtt = publishing(parse_broker_url(broker.url("club")), "kitchen", flush=5)
            loop = TableLoop(table, presenters=[mqtt])
            loop.start()
            for player, face in LUCKY.items():
                loop.choose_privately({"type": "lucky", "player": player, "face": face})
            loop.on_read(one_die("5"))               # Ann's lucky face: 10 this turn, not yet held
            assert mqtt.publisher.wait_idle(10)
            assert eventually(lambda: sum(t.endswith("/events") for t, _, _ in list(spy.messages)) == 3)
            before_the_end = list(spy.messages)
            loop.handle("undo")
            loop.on_read(one_die("5"))
            loop.handle('choose:{"type": "hold"}')
            loop.shutdown()                          # sends what is left, says offline
        assert spy.saw_offline("kitchen")
    finally:
        spy.close()
        broker.stop()
    assert before_the_end, "nothing was published"
    for topic, payload, _ in before_the_end:
        assert b'"face":' not in payload, (topic, payload)          # a lucky face is never named
        assert b'"lucky":{}' in payload or not topic.endswith("/state")
    events = [json.loads(p) for t, p, _ in spy.messages if t.endswith("/events")]
    session = table.id
    assert [e["seq"] for e in events] == [e.seq for e in table.entries if e.kind in ("event", "undo")]
    assert [e["kind"] for e in events] == ["event", "event", "event", "undo", "event", "event"]
    assert events[3]["undoes"] == {"type": "roll", "faces": ["5"]}
    assert all(e["table"] == f"kitchen/{session}" for e in events)
    assert events[-1]["standing"] == {"players": ["Ann", "Ben"], "points": [10, 0], "winners": ["Ann"], "over": True}
    topics = {t for t, _, _ in spy.messages}
    assert topics == {f"club/tables/kitchen/{session}/events", f"club/tables/kitchen/{session}/state",
                      "club/tables/kitchen/online"}
    assert json.loads([p for t, p, _ in spy.messages if t.endswith("/online")][-1]) == {"box": "kitchen",
                                                                                      "online": False}
    final = json.loads([p for t, p, _ in spy.messages if t.endswith("/state")][-1])
    assert final["over"] and final["state"]["lucky"] == LUCKY      # over: shown to all, as on the table
    assert final["status"] == PIG.status(table.state) and final["game"] == "secret-pig"


def test_a_box_that_played_with_no_broker_sends_it_all_in_order_when_it_comes(tmp_path, caplog):
    port = free_port()
    url = f"mqtt://127.0.0.1:{port}/club"
    with SessionStore(tmp_path / "sessions.db") as store:
        table = store.create(PIG, {"players": ["Ann", "Ben"], "target": 10})
        publisher = Publisher(parse_broker_url(url), "attic", tmp_path / "sessions.db").start()
        for player, face in LUCKY.items():
            table.play({"type": "lucky", "player": player, "face": face})
            publisher.notify(table.id)
        table.play({"type": "roll", "faces": ["4"]})
        publisher.notify(table.id)
        assert not publisher.wait_idle(0.5)
        switched_off = time.monotonic()
        publisher.stop(flush=30)                     # the box is switched off; nothing reached a broker
        assert time.monotonic() - switched_off < 5   # and it does not wait for a broker it cannot reach
        assert f"3 entries are not yet at mqtt://127.0.0.1:{port}/club" in caplog.text and "next start" in caplog.text
        table.play({"type": "hold"})                 # and played on after the reboot, before publishing
        assert Outbox(tmp_path / "mqtt-outbox.db").marks() == {table.id: 0}
    broker = Mosquitto(tmp_path / "broker", port=port)
    spy = Spy(broker)
    try:
        publisher = Publisher(parse_broker_url(url), "attic", tmp_path / "sessions.db").start()
        assert publisher.wait_idle(10)           # resumed from the outbox alone: nobody notified it
        publisher.stop()
        assert spy.saw_offline("attic")
    finally:
        spy.close()
        broker.stop()
    seqs = [json.loads(p)["seq"] for t, p, _ in spy.messages if t.endswith("/events")]
    assert seqs == [1, 2, 3, 4]
    assert Outbox(tmp_path / "mqtt-outbox.db").marks() == {table.id: 4}


def test_home_assistant_discovery_whose_turn_and_each_seat(tmp_path):
    import jinja2
    broker = Mosquitto(tmp_path / "broker")
    spy = Spy(broker)
    try:
        with SessionStore(tmp_path / "sessions.db") as store:
            table = store.create(PIG, {"players": ["Ann", "Ben"], "target": 10})
            url = parse_broker_url(broker.url("club") + "?discovery=homeassistant")
            publisher = Publisher(url, "kitchen", tmp_path / "sessions.db").start()
            play_published(table, SHORT_GAME, publisher)
            assert publisher.wait_idle(10)
            publisher.stop()
        assert spy.saw_offline("kitchen")
    finally:
        spy.close()
        broker.stop()
    configs = {t: json.loads(p) for t, p, _ in spy.messages if t.startswith("homeassistant/")}
    assert set(configs) == {"homeassistant/sensor/kitchen/turn/config", "homeassistant/sensor/kitchen/seat-1/config",
                            "homeassistant/sensor/kitchen/seat-2/config"}
    current = [p for t, p, _ in spy.messages if t == "club/tables/kitchen/current"][-1]
    value = json.loads(current)
    render = lambda template: jinja2.Environment().from_string(template).render(value_json=value)  # noqa: E731
    turn, seat = configs["homeassistant/sensor/kitchen/turn/config"], configs["homeassistant/sensor/kitchen/seat-2/config"]
    assert render(turn["value_template"]) == "Ann wins with 10"
    assert (render(seat["value_template"]), json.loads(render(seat["json_attributes_template"]))) == ("0", {"player": "Ben"})
    assert render(configs["homeassistant/sensor/kitchen/seat-1/config"]["value_template"]) == "10"
    assert turn["state_topic"] == "club/tables/kitchen/current" and turn["availability_topic"] == "club/tables/kitchen/online"
    assert b'"face":' not in current
