"""What the table loop shows, and the small interface every output and input plugs into.

The loop (host/loop.py) never draws or blinks anything itself. After every change it
builds one :class:`Screen` (what the e-ink panel should show) and one :class:`Status`
(status light, bar graph, a sound to play once) and hands them to each presenter.

**A presenter** is any object with these methods (duck-typed; subclass
:class:`Presenter` to get no-op defaults)::

    show(screen: Screen) -> None      # a new screen; may be coalesced (e-ink is slow)
    status(status: Status) -> None    # light colour, bar count, one-shot sound
    tick(now: float) -> None          # called every loop turn; flush coalesced updates
    close() -> None                   # shutdown: display to sleep, lights off

Presenters must be quick (well under 10 ms) and never raise for display trouble: log it
and carry on, the game must not stop because a panel is unplugged.

**An input** is anything that calls the loop's ``post(command)`` when a person does
something; ``post`` is thread-safe, so gpiozero callbacks and a serial reader thread
can call it directly. The commands are the names of :mod:`host.devices`' controls:

======== ===========================================================================
command  meaning
======== ===========================================================================
score    score the turn now (or confirm a flagged die / the highlighted menu item)
undo     take back the last event (or leave a menu)
next     next step: skip an optional choice, go on to the next player
left     knob one detent anticlockwise: previous menu item
right    knob one detent clockwise: next menu item
push     knob pressed: open the menu / choose the highlighted item
======== ===========================================================================

An input may also post ``"face:N:NAME"`` (die N, 1-based, is NAME) to confirm or correct
a die directly, e.g. from a panel with its own face picker, and ``"roll:F1,F2,..."`` to
type in a whole roll the camera cannot see (both are noted in the session's journal).
The phone page also posts ``"choose:{JSON event}"`` (one of the game's legal events),
``"new-game:{JSON setup}"``, ``"resume:SESSION"`` (go on with another unfinished game of
this game) and ``"dice:NAME"`` (read with another taught die set from now on).

The serial panel (host/panel.py) is both: a presenter that forwards screens and status
to the Pico, and an input that posts the panel's button presses.
"""
from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from typing import Callable, Sequence, TextIO

log = logging.getLogger(__name__)

ROLL, SCOREBOARD, PROMPT, ERROR, MENU, FAULT, SLEEP = "roll", "scoreboard", "prompt", "error", "menu", "fault", "sleep"
SCREEN_KINDS = (ROLL, SCOREBOARD, PROMPT, ERROR, MENU, FAULT, SLEEP)
COMMANDS = ("score", "undo", "next", "left", "right", "push")


@dataclass(frozen=True)
class DieView:
    """One die as shown: its face, how sure the camera was, and its marks."""

    face: str
    confidence: float = 1.0
    kept: bool = False       # set aside in the keep area (not re-rolled)
    flagged: bool = False    # low confidence: the player must confirm or correct it
    locked: bool = False     # may not be re-rolled (a Jingle Bell Roll BELL): drawn red, underlined
    red: bool = False        # the game's special face (a BELL, a SNOWFLAKE), drawn red


@dataclass(frozen=True)
class Screen:
    """One e-ink screen. ``kind`` picks the layout; unused fields stay empty.

    * ``roll``: ``title`` (whose roll, "Roll 2 of 3"), ``dice``, ``lines`` (the score
      breakdown), ``total`` ("13 points").
    * ``scoreboard``: ``title`` ("Round 3 of 5"), ``table`` (rows, first = header),
      ``highlight`` (leader row index in ``table``).
    * ``prompt``: ``title`` (big: "Check die 3", "Fate rolls 7 dice"), ``lines`` (hints);
      ``qr``, when given, is drawn beside them as a QR code (the phone page's address).
    * ``error``: ``title`` (what was refused), ``lines`` (why, what to do).
    * ``menu``: ``title``, ``lines`` (the items), ``highlight`` (the chosen item).
    * ``fault``: ``title`` ("Camera lost"), ``lines`` ("retrying in 4 s").
    * ``sleep``: shown on shutdown; e-ink keeps it without power.

    A screen with ``private`` set (a player's name) is for that player alone, the others
    looking away ("pass the box"): only the box's own panel shows it; the terminal, its
    log and the phone page show :meth:`in_public` instead.
    """

    kind: str
    title: str = ""
    lines: tuple[str, ...] = ()
    dice: tuple[DieView, ...] = ()
    dice_set: str = ""       # the dice drawn (rules.dice face set); the loop fills in the game's
    table: tuple[tuple[str, ...], ...] = ()
    highlight: int | None = None
    total: str = ""
    footer: str = ""
    qr: str = ""             # text shown as a QR code (prompt screens)
    private: str = ""        # for this player's eyes only: shown on the box's own panel, nowhere else

    def in_public(self) -> "Screen":
        """What a presenter that others can see (the terminal and its log, the phone page)
        shows for this screen: itself, or for a private screen a stand-in that says only
        whose turn it is to look."""
        if not self.private:
            return self
        return Screen(PROMPT, title=f"{self.private} is looking at the box",
                      lines=("a private screen: the others look away",))

    def __post_init__(self) -> None:
        if self.kind not in SCREEN_KINDS:
            raise ValueError(f"unknown screen kind {self.kind!r}; one of {', '.join(SCREEN_KINDS)}")

    def text(self) -> str:
        """A plain-text rendering, for the terminal and logs."""
        out = [f"[{self.kind}] {self.title}".rstrip()]
        if self.dice:
            marks = []
            for number, die in enumerate(self.dice, start=1):
                mark = "?" if die.flagged else ("*" if die.kept else "")
                marks.append(f"{number}:{die.face}{mark}")
            out.append("  dice " + " ".join(marks))
        for row in self.table:
            out.append("  " + "  ".join(f"{cell:<10}" for cell in row).rstrip())
        for number, line in enumerate(self.lines):
            pointer = "> " if self.kind == MENU and number == self.highlight else "  "
            out.append(pointer + line)
        if self.total:
            out.append(f"  = {self.total}")
        if self.footer:
            out.append(f"  ({self.footer})")
        return "\n".join(out)


#: What the status light shows (host.devices.StatusLight: colour and blink for each).
WAITING, MOVING, READ_OK, ATTENTION, FAULT, OFF = "waiting", "moving", "read-ok", "attention", "fault", "off"


@dataclass(frozen=True)
class Status:
    """The lights and the sound: status light state, lit bar segments, a sound to play once."""

    light: str = "waiting"
    bar: int = 0
    sound: str | None = None


def counted(count: int, one: str, many: str) -> str:
    """``1 roll entered``, ``2 rolls entered``: a count with the words that go with it."""
    return f"{count} {one if count == 1 else many}"


def how_many_dice(count: int) -> str:
    """``1 die``, ``3 dice``: a number of dice as the screens and the terminal say it."""
    return counted(count, "die", "dice")


def tell(presenters: Sequence, method: str, *args) -> None:
    """Call ``method`` on every presenter; one that fails is logged and the others still get
    it (an unplugged panel must stop neither the game nor teaching)."""
    for presenter in presenters:
        try:
            getattr(presenter, method)(*args)
        except Exception as exc:  # noqa: BLE001 - an output fault must not stop the caller
            log.warning("presenter %s failed in %s: %s", type(presenter).__name__, method, exc)


class Presenter:
    """Base class with do-nothing methods; override what your output needs."""

    def show(self, screen: Screen) -> None:
        pass

    def status(self, status: Status) -> None:
        pass

    def tick(self, now: float) -> None:
        pass

    def close(self) -> None:
        pass


class TerminalPresenter(Presenter):
    """Prints each new screen and every light/bar/sound change (the demo's and a laptop's view)."""

    def __init__(self, out: TextIO | None = None, *, screens: bool = True, prefix: str = ""):
        self.out = out or sys.stdout
        self.screens, self.prefix = screens, prefix
        self._last: Status | None = None

    def show(self, screen: Screen) -> None:
        if self.screens:
            text = screen.in_public().text()   # the terminal and its log are public
            print(self.prefix + text.replace("\n", "\n" + self.prefix), file=self.out, flush=True)

    def status(self, status: Status) -> None:
        last = self._last or Status(light="", bar=-1)
        changes = []
        if status.light != last.light:
            changes.append(f"status light -> {status.light}")
        if status.bar != last.bar:
            changes.append(f"bar -> {status.bar}/10")
        if status.sound:
            changes.append(f"buzzer: {status.sound}")
        if changes:
            print(self.prefix + "LED " + "; ".join(changes), file=self.out, flush=True)
        self._last = Status(status.light, status.bar, None)


class DevicePresenter(Presenter):
    """Drives the GPIO status light, roll bar and buzzer of :class:`host.devices.TableDevices`."""

    def __init__(self, devices) -> None:
        self.devices = devices

    def status(self, status: Status) -> None:
        self.devices.light.show(status.light)
        self.devices.bar.show_count(status.bar)
        if status.sound:
            self.devices.buzzer.play(status.sound)

    def close(self) -> None:
        self.devices.off()


@dataclass
class RecordingPresenter(Presenter):
    """Keeps everything it was given (tests, the demo's misread report)."""

    screens: list[Screen] = field(default_factory=list)
    statuses: list[Status] = field(default_factory=list)
    closed: bool = False

    def show(self, screen: Screen) -> None:
        self.screens.append(screen)

    def status(self, status: Status) -> None:
        self.statuses.append(status)

    def close(self) -> None:
        self.closed = True


CommandSink = Callable[[str], None]
