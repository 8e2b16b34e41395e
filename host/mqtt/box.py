"""The box's name and where it publishes: the config's ``[box]`` table and ``--publish``.

::

    [box]
    name = "kitchen"                      # this box's topics: PREFIX/tables/kitchen/...
    publish = "mqtts://kitchen@league.local/club?ca=/etc/dicewatch/ca.crt&password_file=/etc/dicewatch/mqtt.pass"

``name`` defaults to the machine's host name (made topic-safe); ``publish`` (optional) is
what ``--publish`` gives on the command line, which wins over it.
"""
from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Any

from host.config import ConfigError, expect, line_of_key
from host.mqtt.broker import Broker, check_level, parse_broker_url

KEYS = ("name", "publish")


def default_box_name() -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", socket.gethostname()).strip("-.") or "box"
    return name[:64]


def box_settings(doc: dict[str, Any], path: Path | str | None) -> tuple[str, str | None]:
    """``(name, publish URL or None)`` from the ``[box]`` table, checked (ConfigError names the line)."""
    where = path if path is not None else "<config>"
    table = doc.get("box", {})
    if not isinstance(table, dict):
        raise ConfigError(where, "box: expected a table [box]", line_of_key(where, "box"))
    for key in table:
        if key not in KEYS:
            raise ConfigError(where, f"[box] unknown key {key!r}; expected one of {', '.join(KEYS)}",
                              line_of_key(where, key, "box"))
    name = expect(where, "box", "name", table.get("name", default_box_name()), str, "the box's name")
    try:
        check_level(name, "[box] name")
    except ValueError as exc:
        raise ConfigError(where, str(exc), line_of_key(where, "name", "box")) from None
    publish = table.get("publish")
    if publish is not None:
        expect(where, "box", "publish", publish, str, "a broker URL")
        try:
            parse_broker_url(publish)
        except ValueError as exc:
            raise ConfigError(where, f"[box] publish: {exc}", line_of_key(where, "publish", "box")) from None
    return name, publish


def broker_of(text: str, flag: str = "--publish") -> Broker:
    """``--publish URL`` checked; ValueError with the flag's name in front."""
    try:
        return parse_broker_url(text)
    except ValueError as exc:
        raise ValueError(f"{flag}: {exc}") from None


def publishing(broker: Broker, box: str, *, flush: float | None = None):
    """The presenter that publishes the loop's table (host.mqtt.publisher.MqttTable)."""
    from host.mqtt.publisher import FLUSH, MqttTable, Publisher
    return MqttTable(lambda sessions_path: Publisher(broker, box, sessions_path),
                     flush=FLUSH if flush is None else flush)
