"""Home Assistant's MQTT discovery: each box shows up there as a device with its entities.

Asked for with ``?discovery=homeassistant`` on the box's broker URL (the discovery prefix Home
Assistant listens on; ``homeassistant`` is its default). The box then keeps its current
table's public state retained on ``PREFIX/tables/BOX/current`` and publishes, retained, one
sensor config for "Whose turn" (the table's status line, e.g. "Ann to roll") and one per seat
("Seat 1", ... : the seat's points, the player's name as an attribute), all under
``DISCOVERY/sensor/BOX/...`` so that a box's broker login may write them (see the README's ACL).
Available while the box is online (its last will says when it is not).
"""
from __future__ import annotations

from host.mqtt.messages import encode, topic_online


def topic_current(prefix: str, box: str) -> str:
    return f"{prefix}/tables/{box}/current"


def discovery_messages(discovery: str, prefix: str, box: str, seats: int) -> list[tuple[str, bytes]]:
    """(topic, retained payload) of each entity of ``box`` with ``seats`` players."""
    common = {"state_topic": topic_current(prefix, box), "availability_topic": topic_online(prefix, box),
              "availability_template": "{{ 'online' if value_json.online else 'offline' }}",
              "device": {"identifiers": [f"dicewatch-{box}"], "name": f"dicewatch {box}",
                         "manufacturer": "dicewatch", "model": "dice box"}}
    turn = {**common, "name": "Whose turn", "unique_id": f"dicewatch-{box}-turn", "icon": "mdi:dice-multiple",
            "value_template": "{{ value_json.status }}",
            "json_attributes_topic": topic_current(prefix, box),
            "json_attributes_template": "{{ {'game': value_json.title, 'table': value_json.table} | tojson }}"}
    out = [(f"{discovery}/sensor/{box}/turn/config", encode(turn))]
    for seat in range(1, seats + 1):
        here = f"value_json.standing.players | length >= {seat}"
        seat_config = {**common, "name": f"Seat {seat}", "unique_id": f"dicewatch-{box}-seat-{seat}",
                       "state_class": "measurement",
                       "value_template": f"{{{{ value_json.standing.points[{seat - 1}] "
                                         f"if value_json.standing.points and {here} else None }}}}",
                       "json_attributes_topic": topic_current(prefix, box),
                       "json_attributes_template": f"{{{{ {{'player': value_json.standing.players[{seat - 1}] "
                                                   f"if {here} else ''}} | tojson }}}}"}
        out.append((f"{discovery}/sensor/{box}/seat-{seat}/config", encode(seat_config)))
    return out
