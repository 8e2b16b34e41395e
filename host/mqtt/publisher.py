"""A box publishes its table: the durable journal is the outbox.

:class:`MqttTable` is a presenter of the table loop (host.presenters): after each turn it only
tells the :class:`Publisher` "session S has new entries" and returns, so the game never waits
for the network. The publisher's own thread reads the stored entries (its own connection to
the sessions database) after the last one the broker acknowledged, folds them through the
rules to give each its public standing, and publishes them in order with QoS 1. Only a
PUBACK moves the acknowledged mark on, and the mark is kept durably in a small SQLite file
of its own next to the sessions (``mqtt-outbox.db``). After a broker outage, a network cut
or a reboot the box sends again from that mark, in order: nothing is lost. Something may
arrive twice; the league keeps each table's entry once (by its sequence number).

The league can ask for entries again (``PREFIX/resend/BOX``) when it sees a gap: a broker
killed between acknowledging an entry and delivering it loses it for the league, not for
the box.

>>> publisher = Publisher(parse_broker_url("mqtt://localhost/club"), "kitchen",   # doctest: +SKIP
...                       data_dir() / "sessions.db")
>>> loop = TableLoop(table, presenters=[MqttTable(publisher)])                     # doctest: +SKIP
"""
from __future__ import annotations

import bisect
import collections
import contextlib
import logging
import queue
import sqlite3
import threading
import time
from pathlib import Path
from typing import Callable

from host.mqtt.broker import Broker, check_level, make_client
from host.mqtt.home_assistant import discovery_messages, topic_current
from host.mqtt.messages import (BadMessage, EVENT, UNDO, decode, encode, entry_message, standing_of,
                                topic_events, topic_online, topic_resend, topic_state)
from host.presenters import Presenter
from rules import get_game
from rules.core import RuleError, Session

log = logging.getLogger(__name__)

WINDOW = 50          # entries sent and not yet acknowledged, at most
FLUSH = 10.0         # seconds a stopping box goes on sending to a broker it reaches


class Outbox:
    """The last journal entry of each session the broker has acknowledged, durably.

    Its own SQLite file (WAL, synchronous=FULL): a mark written is on disk, so after a power
    cut the box sends again what may not have reached the broker, never skips it."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._db = sqlite3.connect(str(self.path), isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS acked (session TEXT PRIMARY KEY, seq INTEGER NOT NULL)")

    def marks(self) -> dict[str, int]:
        return dict(self._db.execute("SELECT session, seq FROM acked"))

    def save(self, marks: dict[str, int]) -> None:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("INSERT INTO acked (session, seq) VALUES (?, ?) ON CONFLICT(session) "
                                 "DO UPDATE SET seq = max(seq, excluded.seq)", list(marks.items()))

    def close(self) -> None:
        self._db.close()


class TableFeed:
    """One session's entries as messages, in order, with how far they were sent and acknowledged."""

    def __init__(self, box: str, session_id: str, header: dict, games: Callable = get_game, acked: int = 0):
        self.box, self.session_id = box, check_level(session_id, "session id")
        self.game = games(header["game"])
        self.session = Session(self.game, header["setup"])
        self.messages: list[tuple[int, bytes]] = []    # (journal seq, payload) of each event and undo
        self.seqs: list[int] = []
        self.last_read = 0                            # the last journal entry folded in
        self.acked = acked                            # every entry up to here is at the broker
        self.next_index = 0                           # the next message to send
        self.sent: collections.deque[int] = collections.deque()   # sent, in order, not yet acknowledged
        self.done: set[int] = set()                   # acknowledged, not yet at the front of ``sent``
        self.standing = standing_of(self.game.view_of(self.session.state, None), False)
        self.rewind(acked)

    def read(self, entries) -> bool:
        """Fold the entries after the last one read into messages; True if there were any."""
        fresh = [entry for entry in entries if entry.seq > self.last_read]
        for entry in fresh:
            self.last_read = entry.seq
            if entry.kind not in (EVENT, UNDO):
                continue   # the box's own notes stay on the box
            try:
                if entry.kind == EVENT:
                    self.session.replay(entry.body)
                    public = self.game.event_view(entry.body, None)
                else:
                    public = self.game.event_view(self.session.undo(), None) if self.session.events else None
            except RuleError as exc:   # the journal was accepted by these rules: only a changed rulebook
                log.error("session %s, entry %s: the rules refuse it on replay (%s); published without "
                          "changing the standing", self.session_id, entry.seq, exc)
                public = None
            state = self.session.state
            self.standing = standing_of(self.game.view_of(state, None), self.game.is_over(state))
            prev = self.seqs[-1] if self.seqs else 0
            message = entry_message(box=self.box, session=self.session_id, game=self.game.name, entry=entry,
                                    prev=prev, public=dict(public) if public is not None else None,
                                    standing=self.standing)
            self.messages.append((entry.seq, encode(message)))
            self.seqs.append(entry.seq)
        if self.sent or self.next_index < len(self.messages):
            return bool(fresh)
        self.acked = max(self.acked, self.last_read)   # only notes since: nothing to wait for
        return bool(fresh)

    def state_message(self) -> bytes:
        """The retained public state: what the phone page's /api/state says, and the standing."""
        state = self.session.state
        return encode({"table": f"{self.box}/{self.session_id}", "box": self.box, "session": self.session_id,
                       "game": self.game.name, "title": self.game.title,
                       "status": self.game.status(state) if self.game.status else "",
                       "over": bool(self.game.is_over(state)), "state": self.game.view_of(state, None),
                       "seq": self.last_read, "last": self.seqs[-1] if self.seqs else 0,
                       "standing": self.standing})

    def rewind(self, after: int) -> None:
        """Send again every message after journal entry ``after``."""
        self.next_index = bisect.bisect_right(self.seqs, after)
        self.sent.clear()
        self.done.clear()

    def to_send(self) -> bool:
        return self.next_index < len(self.messages)

    def settled(self) -> bool:
        """Everything read is at the broker."""
        return not self.sent and not self.to_send()

    def acknowledged(self, seq: int) -> None:
        self.done.add(seq)
        while self.sent and self.sent[0] in self.done:
            self.done.discard(self.sent[0])
            self.acked = max(self.acked, self.sent.popleft())
        if self.settled():
            self.acked = max(self.acked, self.last_read)


class Publisher:
    """Publishes a box's stored sessions to an MQTT broker, from a thread of its own.

    :param broker: where and how (host.mqtt.broker.parse_broker_url).
    :param box: this box's name (``[box] name``): its topics are ``PREFIX/tables/BOX/...``.
    :param sessions_path: the sessions database the table loop writes (read here through
        host.session_store on a connection of this thread).
    :param outbox_path: the acknowledged marks (default: ``mqtt-outbox.db`` beside it).
    """

    def __init__(self, broker: Broker, box: str, sessions_path: Path | str, *, outbox_path: Path | str | None = None,
                 games: Callable = get_game, client_id: str | None = None):
        self.broker, self.box = broker, check_level(box, "box name")
        self.sessions_path = Path(sessions_path)
        self.outbox_path = Path(outbox_path) if outbox_path else self.sessions_path.parent / "mqtt-outbox.db"
        self.games, self.client_id = games, client_id or f"dicewatch-box-{box}"
        self._inbox: "queue.Queue[tuple]" = queue.Queue()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._flush_until = 0.0
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle_lock = threading.Lock()
        self.connected = False
        self.failure: str | None = None     # why the broker is out of reach now (None while it is not)

    # -- any thread -------------------------------------------------------------------------
    def start(self) -> "Publisher":
        self._thread = threading.Thread(target=self._run, name=f"dicewatch-mqtt-{self.box}", daemon=True)
        self._thread.start()
        return self

    def notify(self, session_id: str) -> None:
        """Session ``session_id`` has new stored entries (the loop's only part; never blocks)."""
        with self._idle_lock:
            self._idle.clear()
            self._inbox.put(("stored", session_id))
        self._wake.set()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until everything stored so far is acknowledged by the broker (tests, shutdown)."""
        return self._idle.wait(timeout)

    def stop(self, flush: float = FLUSH) -> None:
        """Send what is left for up to ``flush`` seconds, say the box is offline, disconnect.

        It does not wait while the broker is out of reach: the journal keeps what is left, and a
        warning says how many entries the next start sends."""
        self._flush_until = time.monotonic() + flush
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(flush + 5.0)

    # -- paho's network thread: only queue what happened ----------------------------------------
    def _on_connect(self, client, userdata, flags, reason, properties=None) -> None:
        self._inbox.put(("connected", reason))
        self._wake.set()

    def _on_disconnect(self, client, userdata, flags, reason, properties=None) -> None:
        self._inbox.put(("disconnected", reason))
        self._wake.set()

    def _on_connect_fail(self, client, userdata) -> None:
        self._inbox.put(("unreachable", None))
        self._wake.set()

    def _on_publish(self, client, userdata, mid, reason=None, properties=None) -> None:
        self._inbox.put(("acked", mid))
        self._wake.set()

    def _on_message(self, client, userdata, message) -> None:
        self._inbox.put(("resend", message.payload))
        self._wake.set()

    # -- the publisher's thread -----------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._publish()
        except Exception:  # noqa: BLE001 - publishing must never take the box down
            self.failure = "stopped"
            log.exception("the MQTT publisher stopped; the journal keeps every event for the next start")

    def _publish(self) -> None:
        from host.session_store import SessionStore
        with contextlib.ExitStack() as stack:
            store = SessionStore(self.sessions_path)
            stack.callback(store.close)
            outbox = Outbox(self.outbox_path)
            stack.callback(outbox.close)
            client = make_client(self.broker, self.client_id)
            client.max_inflight_messages_set(WINDOW)
            client.will_set(topic_online(self.broker.prefix, self.box), self._online(False), qos=1, retain=True)
            client.on_connect, client.on_disconnect = self._on_connect, self._on_disconnect
            client.on_publish, client.on_message = self._on_publish, self._on_message
            client.on_connect_fail = self._on_connect_fail
            work = _Work(self, store, outbox, client)
            stack.callback(work.keep_marks)
            work.resume()
            client.connect_async(self.broker.host, self.broker.port, keepalive=20)
            client.loop_start()
            stack.callback(client.loop_stop)
            stack.callback(client.disconnect)
            while True:
                self._wake.wait(0.5)
                self._wake.clear()
                work.take(self._inbox)
                work.keep_marks()
                if self.connected:
                    work.send()
                stopping = self._stopping.is_set()   # first: what was stored before stop() is in the inbox now
                with self._idle_lock:
                    idle = work.settled() and self._inbox.empty()
                    if idle:
                        self._idle.set()
                if stopping and (idle or time.monotonic() > self._flush_until
                                 or (not self.connected and self.failure is not None)):
                    break
            unsent = work.unsent()
            if unsent:
                log.warning("%d entries are not yet at %s; the journal keeps them and the box's next start "
                            "with --publish sends them", unsent, self.broker.shown())
            if self.connected:
                client.publish(topic_online(self.broker.prefix, self.box), self._online(False), qos=1,
                               retain=True).wait_for_publish(1.0)

    def _online(self, online: bool) -> bytes:
        return encode({"box": self.box, "online": online})


class _Work:
    """The publisher thread's state: the feeds, what is in flight, the connection."""

    def __init__(self, publisher: Publisher, store, outbox: Outbox, client):
        self.publisher, self.store, self.outbox, self.client = publisher, store, outbox, client
        self.prefix, self.box = publisher.broker.prefix, publisher.box
        self.feeds: dict[str, TableFeed] = {}
        self.marks = outbox.marks()
        self.saved = dict(self.marks)
        self.in_flight: dict[int, tuple[str, int]] = {}     # mid -> (session, seq)
        self.state_due: set[str] = set()
        self.outage_said = False
        self.current: str | None = None          # the session the loop plays now (Home Assistant's)
        self.announced: int | None = None        # seats announced to Home Assistant

    def resume(self) -> None:
        """Sessions published before whose journal goes on past the mark (played offline)."""
        stored = {info.id: info.entries for info in self.store.list()}
        for session_id, mark in self.marks.items():
            if stored.get(session_id, 0) > mark:
                self.refresh(session_id)

    def feed(self, session_id: str) -> TableFeed | None:
        if session_id not in self.feeds:
            from host.session_store import StoreError
            try:
                header = self.store.header(session_id)
                self.feeds[session_id] = TableFeed(self.box, session_id, header, self.publisher.games,
                                                   self.marks.get(session_id, 0))
            except (StoreError, LookupError, ValueError, RuleError) as exc:
                log.warning("session %s cannot be published: %s", session_id, exc)
                return None
            if session_id not in self.marks:
                self.marks[session_id] = 0
            self.state_due.add(session_id)   # a new table is seen at once, before its first event
        return self.feeds[session_id]

    def refresh(self, session_id: str) -> None:
        feed = self.feed(session_id)
        if feed is not None and feed.read(self.store.entries(session_id)):
            self.state_due.add(session_id)

    def take(self, inbox: queue.Queue) -> None:
        stored: set[str] = set()
        while True:
            try:
                what, value = inbox.get_nowait()
            except queue.Empty:
                break
            if what == "stored":
                stored.add(value)
            elif what == "acked":
                self.acked(value)
            elif what == "connected":
                self.connected(value)
            elif what == "disconnected":
                self.disconnected(value)
            elif what == "resend":
                self.resend(value)
            elif what == "unreachable":
                self.say_outage("cannot connect (no broker there, or TLS refused: check the host, the port "
                                "and ca=)")
        for session_id in stored:
            self.refresh(session_id)
            self.current = session_id

    def connected(self, reason) -> None:
        if reason.is_failure:
            self.say_outage(f"the broker refused the connection ({reason})")
            return
        log.info("publishing to %s as box %s", self.publisher.broker.shown(), self.box)
        self.outage_said = False
        self.publisher.connected, self.publisher.failure = True, None
        self.rewind_all()
        self.client.subscribe(topic_resend(self.prefix, self.box), qos=1)
        self.client.publish(topic_online(self.prefix, self.box), self.publisher._online(True), qos=1, retain=True)
        self.state_due.update(self.feeds)
        self.announced = None

    def disconnected(self, reason) -> None:
        self.publisher.connected = False
        self.rewind_all()
        if not self.publisher._stopping.is_set():
            self.say_outage(f"lost the broker ({reason})")

    def say_outage(self, why: str) -> None:
        self.publisher.failure = why
        if not self.outage_said:
            log.warning("%s at %s; every event stays in the journal and is sent when it is back",
                        why, self.publisher.broker.shown())
            self.outage_said = True

    def rewind_all(self) -> None:
        self.in_flight.clear()
        for feed in self.feeds.values():
            feed.rewind(feed.acked)

    def acked(self, mid: int) -> None:
        sent = self.in_flight.pop(mid, None)
        if sent is not None and sent[0] in self.feeds:
            feed = self.feeds[sent[0]]
            feed.acknowledged(sent[1])
            self.marks[feed.session_id] = feed.acked

    def resend(self, payload: bytes) -> None:
        """The league asks for a session's entries after ``after`` again."""
        try:
            request = decode(payload)
            session_id, after = request.get("session"), request.get("after")
            if not isinstance(session_id, str) or not isinstance(after, int) or isinstance(after, bool) or after < 0:
                raise BadMessage('expected {"session": ID, "after": SEQ}')
            check_level(session_id, "session id")
        except (BadMessage, ValueError) as exc:
            log.warning("a resend request that is not one was ignored: %s", exc)
            return
        if session_id not in self.feeds and session_id not in self.marks:
            log.warning("a resend request for session %s, which this box never published, was ignored", session_id)
            return
        self.refresh(session_id)
        feed = self.feeds.get(session_id)
        if feed is None or bisect.bisect_right(feed.seqs, after) >= feed.next_index:
            return   # not sent yet anyway
        for mid in [mid for mid, (sid, _) in self.in_flight.items() if sid == session_id]:
            del self.in_flight[mid]
        feed.rewind(after)
        self.state_due.add(session_id)

    def send(self) -> None:
        for feed in self.feeds.values():
            while feed.to_send() and len(self.in_flight) < WINDOW:
                seq, payload = feed.messages[feed.next_index]
                info = self.client.publish(topic_events(self.prefix, self.box, feed.session_id), payload, qos=1)
                if info.rc != 0:   # the connection went away meanwhile: sent again on reconnect
                    return
                self.in_flight[info.mid] = (feed.session_id, seq)
                feed.sent.append(seq)
                feed.next_index += 1
            if feed.session_id in self.state_due and not feed.to_send():
                state = feed.state_message()
                self.client.publish(topic_state(self.prefix, self.box, feed.session_id), state, qos=1, retain=True)
                self.state_due.discard(feed.session_id)
                if self.publisher.broker.discovery and feed.session_id == self.current:
                    self.home_assistant(feed, state)

    def home_assistant(self, feed: TableFeed, state: bytes) -> None:
        """The current table for Home Assistant, and its entities when the seats changed."""
        seats = len(feed.standing["players"])
        if seats != self.announced:
            for topic, payload in discovery_messages(self.publisher.broker.discovery, self.prefix, self.box, seats):
                self.client.publish(topic, payload, qos=1, retain=True)
            self.announced = seats
        self.client.publish(topic_current(self.prefix, self.box), state, qos=1, retain=True)

    def settled(self) -> bool:
        return all(feed.settled() for feed in self.feeds.values()) and not self.state_due

    def unsent(self) -> int:
        """Entries read and not yet acknowledged by the broker."""
        return sum(len(feed.seqs) - bisect.bisect_right(feed.seqs, feed.acked) for feed in self.feeds.values())

    def keep_marks(self) -> None:
        changed = {sid: seq for sid, seq in self.marks.items() if self.saved.get(sid) != seq}
        if changed:
            self.outbox.save(changed)
            self.saved.update(changed)


class MqttTable(Presenter):
    """The table loop's side of publishing: says "new entries" to a :class:`Publisher`.

    Give it to the loop like any presenter (``run --publish`` and ``demo --publish`` do). At
    ``attach`` it starts the publisher on the loop's sessions database; after each turn it
    notes whether the journal grew (or a new session began) and, if so, tells the publisher,
    which does the rest in its own thread. ``close`` sends what is left (``FLUSH`` seconds at most,
    none while the broker is out of reach: the rest goes at the next start) and marks the box offline.

    :param make_publisher: ``make_publisher(sessions_path) -> Publisher`` (not started).
    """

    def __init__(self, make_publisher: Callable[[Path], Publisher], *, flush: float = FLUSH):
        self.make_publisher, self.flush = make_publisher, flush
        self.publisher: Publisher | None = None
        self.loop = None
        self._seen: tuple[str, int] | None = None

    def attach(self, loop) -> None:
        self.loop = loop
        if self.publisher is None:
            self.publisher = self.make_publisher(Path(loop.table.store.path)).start()
        self._check()

    def _check(self) -> None:
        if self.loop is None or self.publisher is None:
            return
        table = self.loop.table
        seen = (table.id, len(table.entries))
        if seen != self._seen:
            self._seen = seen
            self.publisher.notify(table.id)

    def show(self, screen) -> None:
        self._check()

    def status(self, status) -> None:
        self._check()

    def tick(self, now: float) -> None:
        self._check()

    def close(self) -> None:
        self._check()
        if self.publisher is not None:
            self.publisher.stop(self.flush)
