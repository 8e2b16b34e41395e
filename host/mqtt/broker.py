"""Where the broker is and how to log in: the ``--publish`` / ``--broker`` URL, and paho clients.

::

    mqtt://HOST[:PORT]/PREFIX                       plain MQTT (port 1883), no login
    mqtt://USER:PASS@HOST/PREFIX                    a username and password
    mqtts://USER@HOST/PREFIX?ca=/etc/dicewatch/ca.crt&password_file=/etc/dicewatch/mqtt.pass
                                                    TLS (port 8883), the password kept in a file

Query options (all optional): ``ca`` (the CA certificate to trust; default the system's),
``cert`` and ``key`` (a client certificate, for brokers that ask for one), ``password_file``
(the password on the file's first line, so it is not on the command line for ``ps`` to show),
``discovery`` (a box only: Home Assistant's discovery prefix, usually ``homeassistant``; see
host/mqtt/home_assistant.py).
The password may also come from ``$DICEWATCH_MQTT_PASSWORD``. ``PREFIX`` (default
``dicewatch``) is the root of every topic, so several clubs can share a broker.
"""
from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

EXPECTED = "mqtt://[USER[:PASS]@]HOST[:PORT]/PREFIX (or mqtts:// for TLS)"
QUERY_KEYS = ("ca", "cert", "key", "password_file", "discovery")
#: one topic level of ours: a box's name, a session id, a prefix level
TOPIC_LEVEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class Broker:
    """A broker's address, login and TLS settings (:func:`parse_broker_url`)."""

    host: str
    port: int
    prefix: str = "dicewatch"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: bool = False
    ca: str | None = None
    cert: str | None = None
    key: str | None = None
    discovery: str | None = None     # Home Assistant's discovery prefix (a box's option)

    def shown(self) -> str:
        """The URL without the password (for logs and messages)."""
        who = f"{self.username}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{who}{host}:{self.port}/{self.prefix}"


def parse_broker_url(text: str, environ=os.environ) -> Broker:
    """``mqtt://...`` as a :class:`Broker`; ValueError says what is wrong and what was expected."""
    url = urllib.parse.urlsplit(text.strip())
    if url.scheme not in ("mqtt", "mqtts"):
        raise ValueError(f"expected {EXPECTED}, got {text!r} (the scheme must be mqtt or mqtts)")
    try:
        host, port = url.hostname, url.port
    except ValueError as exc:
        raise ValueError(f"expected {EXPECTED}, got {text!r} ({exc})") from None
    if not host:
        raise ValueError(f"expected {EXPECTED}, got {text!r} (no host)")
    tls = url.scheme == "mqtts"
    prefix = url.path.strip("/") or "dicewatch"
    for level in prefix.split("/"):
        if not TOPIC_LEVEL.fullmatch(level):
            raise ValueError(f"the topic prefix {prefix!r}: each level is letters, digits, '.', '-' or '_' "
                             "(no '+', '#' or empty level)")
    query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
    for key in query:
        if key not in QUERY_KEYS:
            raise ValueError(f"unknown option {key!r} in {text!r}; expected {', '.join(QUERY_KEYS)}")
    options = {key: values[-1] for key, values in query.items()}
    if not tls and any(options.get(k) for k in ("ca", "cert", "key")):
        raise ValueError(f"ca, cert and key are TLS options: use mqtts:// ({text!r})")
    if bool(options.get("cert")) != bool(options.get("key")):
        raise ValueError("a client certificate needs both cert=FILE and key=FILE")
    for key in ("ca", "cert", "key", "password_file"):
        if options.get(key) and not Path(options[key]).is_file():
            raise ValueError(f"{key}={options[key]}: no such file")
    if options.get("discovery") and not TOPIC_LEVEL.fullmatch(options["discovery"]):
        raise ValueError(f"discovery={options['discovery']}: expected Home Assistant's discovery prefix, "
                         "such as homeassistant")
    password = urllib.parse.unquote(url.password) if url.password is not None else None
    if options.get("password_file"):
        try:
            password = Path(options["password_file"]).read_text(encoding="utf-8").splitlines()[0].strip()
        except (OSError, UnicodeDecodeError, IndexError) as exc:
            raise ValueError(f"password_file={options['password_file']}: cannot read a password from it "
                             f"({exc or 'empty file'})") from None
    if password is None and environ.get("DICEWATCH_MQTT_PASSWORD"):
        password = environ["DICEWATCH_MQTT_PASSWORD"]
    username = urllib.parse.unquote(url.username) if url.username else None
    if password is not None and not username:
        raise ValueError(f"a password without a username in {text!r}: expected USER:PASS@HOST")
    return Broker(host=host, port=port or (8883 if tls else 1883), prefix=prefix, username=username,
                  password=password, tls=tls, ca=options.get("ca") or None, cert=options.get("cert") or None,
                  key=options.get("key") or None, discovery=options.get("discovery") or None)


def check_level(text: str, what: str) -> str:
    """``text`` if it can be one topic level (a box's name, a session id); ValueError otherwise."""
    if not TOPIC_LEVEL.fullmatch(text):
        raise ValueError(f"{what} {text!r}: expected 1 to 64 letters, digits, '.', '-' or '_', "
                         "starting with a letter or digit")
    return text


def make_client(broker: Broker, client_id: str, *, clean: bool = True):
    """A paho client for ``broker`` (login and TLS set), not yet connected. ``clean=False`` asks
    the broker to keep this client's subscriptions and queue its QoS 1 messages while it is away
    (the league)."""
    import paho.mqtt.client as mqtt
    client = mqtt.Client(callback_api_version=mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                         clean_session=clean, protocol=mqtt.MQTTv311)
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls:
        client.tls_set(ca_certs=broker.ca, certfile=broker.cert, keyfile=broker.key)
    client.reconnect_delay_set(min_delay=1, max_delay=30)
    return client
