"""The table as the phone page sees it: a presenter of the loop, read by the server thread.

:class:`WebTable` is given to the loop like any presenter (host.presenters): the loop calls
``attach(loop)`` once, then ``show``/``status``/``tick``/``close`` from its one thread. In
those calls, and only there, it reads the loop's game (the stored session's in-memory
journal, never SQLite) and keeps under a lock what the server thread may read:

* ``seq``: a number that grows with each event stored or undone (every change is made "on"
  one, and refused when the table has moved on since);
* the public snapshot ``{"game", "status", "state", "seq"}`` (``state`` is the game's
  ``view_of(state, None)``), the current screen, the last dice shown, the public choices;
* the state itself (the game's states are immutable), from which each player's own view
  is computed on demand.

What the server asks the loop to do goes through :meth:`WebTable.submit`: queued, and taken
in the loop's thread at its next ``tick``, where the sequence number is checked against the
table as it is then, so that two phones (or a phone and the knob) never apply one choice twice.
"""
from __future__ import annotations

import concurrent.futures
import json
import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from host.presenters import ERROR, SLEEP, DieView, Presenter, Screen, Status
from host.session_store import EVENT, UNDO
from host.web.seats import Refused, SeatBook, seats_file

log = logging.getLogger(__name__)

BUTTONS = ("score", "undo", "next", "push", "left", "right")
ELSEWHERE_SECONDS = 2.0   # the other games and the die sets are looked up again at most this often


@dataclass(frozen=True)
class Seen:
    """What the server thread reads of the table, all of one moment (immutable)."""

    seq: int
    snapshot: dict
    screen: Screen | None
    dice: tuple[DieView, ...]
    choices: tuple[tuple[str, dict], ...]      # the public legal events: (label, event)
    faces: tuple[str, ...]
    entries: tuple                               # the journal (host.session_store.Entry), in order
    header: dict
    running: bool
    scoreboard: tuple = ()
    game: Any = None
    resumable: tuple = ()                        # other unfinished games of this game: (id, label)
    dice_sets: tuple[str, ...] = ()              # the die sets this table may read with
    dice_in_use: str | None = None


def names_player(event: dict, player: str) -> bool:
    """Does ``event`` name ``player`` (as who does it, or to whom)?"""
    return any(event.get(key) == player for key in ("player", "by", "to", "who", "seat"))


class WebTable(Presenter):
    """The phone page's view of the loop (see the module docstring).

    :param pace: seconds to sleep in the loop's thread once each stored event has been shown
        (the demo played at a pace a person can watch; 0: not at all).

    Each player's private link (``/me/TOKEN``) is made for the first phone that takes that
    player's seat on the Join page (:meth:`claim`); it is never printed, logged or shown
    anywhere else. The phone that holds a seat may give it up (:meth:`leave`), which kills the
    link; a player whose phone is lost takes the seat over from another phone (:meth:`take_over`:
    the old link stops working, and the box's own screen says so to the whole table, so a seat
    cannot change hands unnoticed); a new game with other players makes new seats. The seats
    are kept on disk (host/web/seats.py): a box that restarts on the same game keeps them.
    """

    def __init__(self, *, pace: float = 0.0, sleep: Callable[[float], None] = time.sleep):
        self.pace, self.sleep = pace, sleep
        self._lock = threading.Lock()
        self.loop = None
        self._seq = 0
        self._counted: tuple[str, int] | None = None   # (session id, journal length) last counted
        self._changes: tuple[str, int] | None = None    # (session id, events stored or undone)
        self._paced = 0
        self._seen: Seen | None = None
        self._screen: Screen | None = None
        self._state = None
        self._game = None
        self.book = SeatBook(None)                      # the seats (host/web/seats.py), at attach kept on disk
        self._said: list[Screen] = []                   # screens for the box, from the server's thread
        self._actions: "queue.Queue[tuple[int, str, concurrent.futures.Future]]" = queue.Queue()
        self._subscribers: set = set()
        self.running = False
        self.sessions_path = None                       # the sessions database (set at attach)

    # -- the loop's side (its one thread) ------------------------------------------------------
    def attach(self, loop) -> None:
        self.loop = loop
        self.sessions_path = getattr(getattr(loop.table, "store", None), "path", None)  # the Dice page reads it
        with self._lock:
            self.book = SeatBook(seats_file(self.sessions_path) if self.sessions_path is not None else None)
            self.book.sit(loop.table.id, self._players(loop))
        self.running = True
        self._refresh()

    def show(self, screen: Screen) -> None:
        screen = screen.in_public()   # a screen for one player's eyes never reaches the page
        if screen.kind != SLEEP:
            self._screen = screen
            if self._taking is not None and screen.kind == ERROR:
                self._taking.append(screen)
        self._refresh(screen_changed=True)
        if self.pace and self._seq != self._paced:   # the demo at a pace a person can watch
            self._paced = self._seq
            self.sleep(self.pace)

    _taking: list | None = None   # the error screens shown while an action from the page is taken

    def status(self, status: Status) -> None:
        pass

    def greet(self, url: str, pin: str) -> None:
        """Have the box's screens say, once, where the phone page is and its PIN: shown by the
        loop (to all its presenters, the e-ink panel too) at its next tick, in its own thread."""
        self._greeting = Screen("prompt", title="Phone page", lines=(url, f"PIN {pin}"),
                                footer="the game goes on: roll or press a button", qr=url)

    _greeting: Screen | None = None

    def tick(self, now: float) -> None:
        greeting, self._greeting = self._greeting, None
        if greeting is not None and self.loop is not None and self.running:
            self.loop.show(greeting)
        with self._lock:
            said, self._said = self._said, []
        for screen in said:   # what the phones did that the whole table must know (a seat taken over)
            if self.loop is not None and self.running:
                self.loop.show(screen, notice=True)
        while True:
            try:
                seq, command, reply = self._actions.get_nowait()
            except queue.Empty:
                break
            self._take(seq, command, reply)

    def close(self) -> None:
        self.running = False
        self._refresh(screen_changed=True)
        while True:   # nothing more will be taken
            try:
                _, _, reply = self._actions.get_nowait()
            except queue.Empty:
                break
            reply.set_exception(Refused("the box is not playing any more: nothing was done"))

    def _take(self, seq: int, command: str, reply: concurrent.futures.Future) -> None:
        self._refresh()
        if seq != self._seq:
            reply.set_exception(Refused(stale(seq, self._seq)))
            return
        self._taking = []
        try:
            self.loop.handle(command)
        except Exception as exc:  # noqa: BLE001 - a page's action must not stop the game
            log.exception("an action from the phone page failed")
            reply.set_exception(Refused(f"that did not work ({type(exc).__name__})"))
            return
        finally:
            shown, self._taking = self._taking, None
        if shown:
            said = " ".join((shown[-1].title,) + tuple(shown[-1].lines))
            reply.set_exception(Refused(f"the box said: {said}"))
        else:
            reply.set_result(self._seq)

    def _refresh(self, screen_changed: bool = False) -> None:
        """Take what the page needs from the loop (in its thread); tell the event streams."""
        loop = self.loop
        if loop is None:
            return
        table = loop.table
        key = (table.id, len(table.entries))
        moved = False
        if self._counted is not None and key[0] != self._counted[0]:
            self._new_session(loop)
        if key != self._counted:
            self._counted = key
            changes = (table.id, sum(1 for e in table.entries if e.kind in (EVENT, UNDO)))
            if self._changes is None or changes != self._changes:
                if self._changes is not None:
                    same = changes[0] == self._changes[0]
                    self._seq += max(1, changes[1] - self._changes[1]) if same else max(1, changes[1])
                self._changes = changes
                moved = True
        if not (moved or screen_changed or self._seen is None):
            return
        game, state = loop.game, loop.state
        if moved or self._seen is None or self._state is not state:
            snapshot = {"game": game.name, "title": game.title, "seq": self._seq,
                        "status": loop.plays.public_status(), "over": bool(game.is_over(state)),
                        "state": game.view_of(state, None)}
            choices = tuple((loop.plays.label(e), e) for e in loop.plays.public_choices())   # as on the knob
            header = {"game": game.name, "setup": dict(table.session.setup_options)}
            scoreboard = tuple(tuple(str(cell) for cell in row) for row in game.scoreboard(state))
            entries = tuple(table.entries)
            if moved:
                self._last_throw = self._public_throw(loop, game)
            try:
                faces = tuple(loop.plays.face_names())
            except Exception:  # noqa: BLE001 - a game without dice has no faces
                faces = ()
        else:
            old = self._seen
            snapshot, choices, header, entries = old.snapshot, old.choices, old.header, old.entries
            faces, scoreboard = old.faces, old.scoreboard
        resumable, dice_sets = self._lists(loop)
        dice = self._screen.dice if self._screen is not None and self._screen.dice else self._last_throw
        seen = Seen(self._seq, snapshot, self._screen, dice, choices, faces, entries, header, self.running,
                    scoreboard, game, resumable, dice_sets, getattr(loop, "dice_in_use", None))
        with self._lock:
            self._seen, self._state, self._game = seen, state, game
            subscribers = list(self._subscribers)
        message = {"kind": "stored" if moved else "screen", "seq": self._seq, "snapshot": snapshot,
                   "screen": self._screen.text() if self._screen else ""}
        for aloop, box in subscribers:
            try:
                aloop.call_soon_threadsafe(box.put_nowait, message)
            except RuntimeError:   # that page's server loop is gone
                with self._lock:
                    self._subscribers.discard((aloop, box))

    _last_throw: tuple[DieView, ...] = ()
    _elsewhere_at = 0.0
    _elsewhere_key: str | None = None
    _elsewhere_found: tuple = ((), ())

    def _lists(self, loop) -> tuple[tuple, tuple[str, ...]]:
        """The other unfinished games and the die sets, looked up again (SQLite, the die sets'
        folder) only when the session changes or they are :data:`ELSEWHERE_SECONDS` old: a
        roll stored changes neither, so storing one costs no lookup."""
        now = time.monotonic()
        if loop.table.id != self._elsewhere_key or now - self._elsewhere_at > ELSEWHERE_SECONDS:
            self._elsewhere_found = self._elsewhere(loop)
            self._elsewhere_key, self._elsewhere_at = loop.table.id, now
        return self._elsewhere_found

    def _new_session(self, loop) -> None:
        """Another game at the table (a new or resumed session): its own seats if the box kept
        them, else the seats held now when the players are the same, else new seats."""
        with self._lock:
            self.book.sit(loop.table.id, self._players(loop), keep=True)

    @staticmethod
    def _players(loop) -> list[str]:
        return [str(p) for p in loop.table.session.setup_options.get("players", [])]

    @staticmethod
    def _elsewhere(loop) -> tuple[tuple, tuple[str, ...]]:
        """The other unfinished games of this game (id, a label) and the die sets to choose from."""
        try:
            resumable = tuple((info.id, f"{', '.join(info.players) or 'no players'}: "
                               f"{time.strftime('%d %b %H:%M', time.localtime(info.created))}, "
                               f"{info.entries} entries") for info in loop.resumable() if info.entries)
        except Exception:  # noqa: BLE001 - a table without a store (tests) has none
            resumable = ()
        try:
            dice_sets = tuple(loop.dice_sets()) if loop.dice_sets is not None else ()
        except Exception:  # noqa: BLE001 - a die set folder that cannot be listed: none offered
            log.warning("the die sets cannot be listed for the phone page", exc_info=True)
            dice_sets = ()
        return resumable, dice_sets

    @staticmethod
    def _public_throw(loop, game) -> tuple[DieView, ...]:
        """The last throw stored, as the public sees it, with how sure the camera was of each die."""
        last = loop.last_dice_event()
        shown = game.event_view(last, None) if last is not None else None
        faces = (shown or {}).get("faces")
        if not isinstance(faces, list):
            return ()
        sure = list(loop.last_confidences) + [1.0] * len(faces)
        return tuple(DieView(str(face), float(sure[i])) for i, face in enumerate(faces))

    # -- the server's side (any thread) ----------------------------------------------------------
    def seen(self) -> Seen | None:
        with self._lock:
            return self._seen

    def player_of(self, token: str) -> str | None:
        """The player whose private link carries ``token`` (compared in constant time), or None."""
        with self._lock:
            return self.book.holder(token)

    def seats(self) -> list[tuple[str, bool]]:
        """Each player, and whether a phone has taken their seat (public: says no secret)."""
        with self._lock:
            return self.book.seats()

    def claim(self, player: str) -> str:
        """Give ``player``'s seat to the phone asking, if no phone holds it yet: the token of its
        private link (Refused otherwise)."""
        with self._lock:
            return self.book.claim(player)

    def take_over(self, player: str) -> str:
        """Move ``player``'s taken seat to the phone asking (a lost or dead phone): a new link,
        the old one dead, and the box's screen telling the table. Returns the new token."""
        with self._lock:
            fresh = self.book.take_over(player)
            self._said.append(Screen("prompt", title=f"{player}'s seat moved to another phone",
                                     lines=(f"{player}'s old phone page no longer works",
                                            f"if {player} did not ask for it, say so now"),
                                     footer="any button: carry on"))
        return fresh

    def leave(self, token: str) -> str:
        """The phone holding ``token`` gives up its seat: that link stops working, and the seat
        can be taken again (with a new link). Returns the player."""
        with self._lock:
            return self.book.leave(token)

    def private(self, player: str) -> tuple[Any, tuple[tuple[str, dict], ...], int]:
        """What ``player`` alone may see now, the choices only they may make, and the sequence
        number they belong to."""
        with self._lock:
            game, state, seen = self._game, self._state, self._seen
        view = game.view_of(state, player)
        mine = tuple((self.loop.plays.private_label(e), dict(e))
                     for e in game.legal_events(state)
                     if game.event_view(e, None) != e and names_player(dict(e), player))
        return view, mine, seen.seq

    def private_lines(self, view: Any, player: str) -> list[str] | None:
        """The game's words for ``player``'s own view (None: show it as JSON)."""
        try:
            return self.loop.plays.private_lines(view, player)
        except Exception:  # noqa: BLE001 - the view as it is is still right
            log.warning("the game's words for a player's own view failed", exc_info=True)
            return None

    def submit(self, seq: int, command: str, timeout: float = 5.0) -> int:
        """Have the loop take ``command`` if the table is still at ``seq``: returns the new
        sequence number, or raises :class:`Refused` saying why not."""
        if not self.running:
            raise Refused("the box is not playing any more: nothing was done")
        reply: concurrent.futures.Future = concurrent.futures.Future()
        self._actions.put((seq, command, reply))
        try:
            return reply.result(timeout)
        except concurrent.futures.TimeoutError:
            raise Refused("the box did not answer in time; look at the table and try again") from None

    def subscribe(self, aloop, box) -> None:
        with self._lock:
            self._subscribers.add((aloop, box))

    def unsubscribe(self, aloop, box) -> None:
        with self._lock:
            self._subscribers.discard((aloop, box))


def stale(made_on: int, now: int) -> str:
    return (f"the table has changed since your page was loaded (you acted on move {made_on}, it is now "
            f"at move {now}): nothing was done; look again and choose")


def command_json(event: dict) -> str:
    return "choose:" + json.dumps(event, sort_keys=True)
