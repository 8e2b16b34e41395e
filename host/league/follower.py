"""The league: follows every table on the broker, keeps their entries, knows the standings.

It subscribes (QoS 1, a persistent session: the broker queues what arrives while the league
is away) to ``PREFIX/tables/+/+/events``, ``.../state`` and ``PREFIX/tables/+/online``. Each
message is checked (host.mqtt.messages): one that is not JSON, lacks a field, or names a
table other than its topic's is logged and ignored. Entries go to the league's own store
(host.league.store), each table's kept once by sequence number.

Nothing lost: each entry names the one before it (``prev``) and each retained state the
last one (``last``), so the league sees a hole (a broker killed before it delivered what it
had acknowledged, a league store that lost its tail) and asks the box to send the table
again after the last entry it holds without a gap (``PREFIX/resend/BOX``), at most every
few seconds per table, until the hole is filled.

Restarted, it reads its store first, then hears the broker's retained states (and what the
broker queued for it), and asks for whatever is still missing.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from host.league.standings import Scoring, TableResult, standings
from host.league.store import LeagueStore
from host.mqtt.broker import Broker, make_client
from host.mqtt.messages import BadMessage, check_entry, check_state, decode, encode, topic_resend

log = logging.getLogger(__name__)

ASK_EVERY = 3.0    # seconds between two resend requests for one table


@dataclass
class Table:
    """What the league holds of one table."""

    game: str = ""
    standing: dict | None = None
    top: int = 0                                          # the highest sequence number held
    last: int = 0                                         # the last one the box says it published
    prevs: dict[int, int] = field(default_factory=dict)   # seq -> prev, of the entries held
    following: dict[int, int] = field(default_factory=dict)   # prev -> seq
    complete: int = 0                                     # every entry up to here is held
    asked: float = 0.0
    standing_at: int = -1                                 # the entry the standing is the one after

    def hold(self, seq: int, prev: int, game: str, standing: dict) -> None:
        self.prevs[seq] = prev
        self.following[prev] = seq
        self.game = game
        self.top = max(self.top, seq)
        self.stand(seq, standing)
        self.advance()

    def stand(self, seq: int, standing: dict) -> None:
        """Take ``standing`` if it is the latest known (an entry's, or a retained state's)."""
        if seq > self.standing_at:
            self.standing, self.standing_at = standing, seq

    def advance(self) -> None:
        """Move ``complete`` along the chain of entries held."""
        while self.complete in self.following:
            self.complete = self.following[self.complete]

    def missing(self) -> bool:
        return self.complete < max(self.top, self.last)


class League:
    """Follows the tables of ``broker`` into ``store_path``. Thread-safe :meth:`snapshot`.

    ``ask_every=None``: never ask the boxes for anything (a look, such as ``--json``)."""

    def __init__(self, broker: Broker, store_path: Path | str, scoring: Scoring, *,
                 client_id: str = "dicewatch-league", persistent: bool = True, ask_every: float | None = ASK_EVERY):
        self.broker, self.scoring, self.ask_every = broker, scoring, ask_every
        self.store = LeagueStore(store_path)
        self.client_id, self.persistent = client_id, persistent
        self._lock = threading.Lock()
        self.tables: dict[str, Table] = {}
        self.online: dict[str, bool] = self.store.boxes()
        self.ignored = 0
        self.asked = 0          # resend requests sent
        self.version = 0
        self.connected = threading.Event()
        self.last_message = time.monotonic()
        self._stop = threading.Event()
        self._rebuild()
        self.client = None

    def _rebuild(self) -> None:
        for table, seq, prev, body in self.store.entries():
            self.tables.setdefault(table, Table()).hold(seq, prev, body["game"], body["standing"])
        for table, state in self.store.states().items():
            known = self.tables.setdefault(table, Table(game=state["game"]))
            known.last = max(known.last, state["last"])
            known.stand(state["last"], state["standing"])

    # -- connection -----------------------------------------------------------------------------
    def start(self) -> "League":
        client = make_client(self.broker, self.client_id, clean=not self.persistent)
        client.on_connect, client.on_message = self._on_connect, self._on_message
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = self._on_connect_fail
        client.connect_async(self.broker.host, self.broker.port, keepalive=20)
        client.loop_start()
        self.client = client
        threading.Thread(target=self._watch, name="dicewatch-league-gaps", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self.client is not None:
            self.client.disconnect()
            self.client.loop_stop()
        with self._lock:
            self.store.close()

    def _on_connect(self, client, userdata, flags, reason, properties=None) -> None:
        if reason.is_failure:
            log.error("the broker %s refused the league (%s)", self.broker.shown(), reason)
            return
        log.info("following the tables on %s", self.broker.shown())
        self._unreachable_said = False
        prefix = self.broker.prefix
        client.subscribe([(f"{prefix}/tables/+/+/events", 1), (f"{prefix}/tables/+/+/state", 1),
                          (f"{prefix}/tables/+/online", 1)])
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason, properties=None) -> None:
        self.connected.clear()
        if not self._stop.is_set():
            log.warning("lost the broker %s (%s); reconnecting", self.broker.shown(), reason)

    def _on_connect_fail(self, client, userdata) -> None:
        if not self._unreachable_said:
            log.warning("cannot connect to %s (no broker there, or TLS refused: check the host, the port and ca=); "
                        "retrying", self.broker.shown())
            self._unreachable_said = True

    _unreachable_said = False

    def _on_message(self, client, userdata, message) -> None:
        self.last_message = time.monotonic()
        try:
            self.take(message.topic, message.payload)
        except BadMessage as exc:
            self.ignored += 1
            log.warning("ignored a message on %s: %s", message.topic, exc)
        except Exception:  # noqa: BLE001 - one bad message must never stop the league
            self.ignored += 1
            log.exception("ignored a message on %s that could not be taken", message.topic)

    # -- messages ---------------------------------------------------------------------------------
    def take(self, topic: str, payload: bytes) -> None:
        """Check and keep one message (BadMessage says why not)."""
        levels = topic.split("/")
        prefix = self.broker.prefix.split("/")
        if levels[:len(prefix)] != prefix or levels[len(prefix):len(prefix) + 1] != ["tables"]:
            raise BadMessage("not one of the league's topics")
        rest = levels[len(prefix) + 1:]
        message = decode(payload)
        if len(rest) == 2 and rest[1] == "online":
            if not isinstance(message.get("online"), bool) or message.get("box") != rest[0]:
                raise BadMessage('expected {"box": BOX, "online": true or false} naming the topic\'s box')
            with self._lock:
                self.online[rest[0]] = message["online"]
                self.store.set_online(rest[0], message["online"])
                self.version += 1
            return
        if len(rest) != 3 or rest[2] not in ("events", "state"):
            raise BadMessage("not one of the league's topics")
        box, session, kind = rest
        table = f"{box}/{session}"
        if kind == "events":
            check_entry(message, box, session)
            with self._lock:
                if self.store.add_entry(message):
                    self.tables.setdefault(table, Table()).hold(message["seq"], message["prev"], message["game"],
                                                                message["standing"])
                    self.version += 1
        else:
            check_state(message, box, session)
            with self._lock:
                self.store.set_state(table, message)
                known = self.tables.setdefault(table, Table(game=message["game"]))
                known.last = max(known.last, message["last"])
                known.stand(message["last"], message["standing"])
                self.version += 1
        self._ask_for_gaps(only=table)

    def _watch(self) -> None:
        while not self._stop.wait(1.0):
            self._ask_for_gaps()

    def _ask_for_gaps(self, only: str | None = None) -> None:
        """Ask the boxes again for what is missing (at most every ``ask_every`` s per table)."""
        if not self.connected.is_set() or self.client is None or self.ask_every is None:
            return
        now = time.monotonic()
        asks = []
        with self._lock:
            for name, table in self.tables.items():
                if (only is None or name == only) and table.missing() and now - table.asked >= self.ask_every:
                    table.asked = now
                    asks.append((name, table.complete))
        self.asked += len(asks)
        for name, after in asks:
            box, session = name.split("/", 1)
            log.info("table %s: asking its box for the entries after %d again", name, after)
            self.client.publish(topic_resend(self.broker.prefix, box), encode({"session": session, "after": after}),
                                qos=1)

    # -- what the page and --json show -------------------------------------------------------------
    def results(self) -> list[TableResult]:
        with self._lock:
            return [TableResult(name, t.game, t.standing, len(t.prevs)) for name, t in self.tables.items()
                    if t.standing is not None]

    def snapshot(self) -> dict:
        with self._lock:
            missing = sorted(name for name, t in self.tables.items() if t.missing())
            online = dict(self.online)
            version = self.version
        out = standings(self.results(), self.scoring)
        out.update({"boxes": online, "missing": missing, "ignored": self.ignored, "asked": self.asked, "version": version,
                    "broker": self.broker.shown()})
        return out
