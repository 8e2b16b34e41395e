"""The Pico table panel on USB serial: one more presenter, and one more input, for the loop.

The panel (firmware/, a Raspberry Pi Pico with NeoPixels, three buttons, an optional knob
and a 2.13" e-ink) sits within the players' reach while the Pi and camera are up on their
arm. The host talks to it with the line protocol in firmware/dwpanel/protocol.py
(``DW1 <seq> <kind> <json>*<crc>``): the same code runs on the Pico and here.

Plugging in: a Pico running MicroPython shows up as ``/dev/ttyACM0`` (USB 2E8A:0005).
``--panel auto`` finds it by that VID:PID; ``--panel serial:/dev/ttyACM0`` (or just the
path) names the port. Unplug it whenever you like: the game goes on, and the panel gets
the current screen and lights back when it is plugged in again (reconnects with backoff,
0.5 s doubling to 8 s).

>>> panel = open_panel("auto", on_command=loop.post)     # doctest: +SKIP
>>> loop.presenters.append(panel)                         # doctest: +SKIP

What goes over the wire:

* ``status`` for every :class:`host.presenters.Status` (light, bar, one-shot sound);
* ``screen`` for every :class:`host.presenters.Screen`, trimmed to fit a 512-byte line;
* ``ping`` when idle for a second; the panel pings back, so each side knows the other is there.

What comes back: ``button`` (score, undo, next, push; a long press of Next is ``push``,
the menu, for panels without a knob) and ``knob`` (+1 is ``right``, -1 ``left``), posted
to the loop as commands.
"""
from __future__ import annotations

import importlib.util
import logging
import sys
import time
from dataclasses import dataclass
from typing import Callable

import serial
from serial.tools import list_ports

from host.paths import PROJECT_ROOT
from host.presenters import Presenter, Screen, Status

log = logging.getLogger("dicewatch.panel")

PICO_VID, MICROPYTHON_PID = 0x2E8A, 0x0005
BAUDRATE = 115200            # ignored by USB CDC, used by real UART adapters
BACKOFF_START, BACKOFF_MAX = 0.5, 8.0


def _load_protocol():
    """firmware/dwpanel/protocol.py, the one implementation of the wire format."""
    name = "dicewatch_panel_protocol"
    if name in sys.modules:
        return sys.modules[name]
    path = PROJECT_ROOT / "firmware" / "dwpanel" / "protocol.py"
    if not path.is_file():   # an install without the source tree: no panel support
        raise ImportError(f"the panel protocol {path} is missing; install dicewatch from its source folder")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


protocol = _load_protocol()


@dataclass(frozen=True)
class PanelSpec:
    """Where the panel is: a port/URL, or a USB VID (and PID) to look for."""

    port: str | None = None
    vid: int | None = None
    pid: int | None = None

    def describe(self) -> str:
        if self.port:
            return self.port
        return f"USB {self.vid:04X}:{self.pid:04X}" if self.pid is not None else f"USB {self.vid:04X}:*"


def parse_panel_spec(text: str) -> PanelSpec:
    """``auto`` | ``usb:VID[:PID]`` (hex) | ``serial:PORT`` | a port path or pyserial URL.

    ValueError with what was expected for anything else.
    """
    text = (text or "").strip()
    expected = ('expected "auto", "usb:2E8A:0005", "serial:/dev/ttyACM0" or a port path')
    if not text:
        raise ValueError(f"empty panel; {expected}")
    if text == "auto":
        return PanelSpec(vid=PICO_VID, pid=MICROPYTHON_PID)
    if text.startswith("usb:"):
        parts = text[4:].split(":")
        try:
            numbers = [int(part, 16) for part in parts]
        except ValueError:
            numbers = []
        if not 1 <= len(numbers) <= 2 or not all(0 <= n <= 0xFFFF for n in numbers):
            raise ValueError(f"panel {text!r}: expected usb:VID or usb:VID:PID in hex, e.g. usb:2E8A:0005")
        return PanelSpec(vid=numbers[0], pid=numbers[1] if len(numbers) == 2 else None)
    if text.startswith("serial:"):
        port = text[len("serial:"):]
        if not port:
            raise ValueError(f"panel {text!r}: expected a port after serial:, e.g. serial:/dev/ttyACM0")
        return PanelSpec(port=port)
    if text.startswith("/") or "://" in text or text.upper().startswith("COM"):
        return PanelSpec(port=text)
    raise ValueError(f"panel {text!r}: {expected}")


def find_port(spec: PanelSpec) -> str | None:
    """The device of the first USB serial port matching ``spec``'s VID:PID, or None."""
    if spec.port:
        return spec.port
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        if port.vid == spec.vid and (spec.pid is None or port.pid == spec.pid):
            return port.device
    return None


def open_serial(port: str):
    """Open ``port`` (a path or any pyserial URL) for non-blocking reads."""
    return serial.serial_for_url(port, baudrate=BAUDRATE, timeout=0, write_timeout=0.5)


def screen_body(screen: Screen, limit: int = protocol.MAX_LINE) -> dict:
    """A ``screen`` message body for ``screen``, trimmed until its line fits ``limit`` bytes."""
    lines = list(screen.lines) + ([f"({screen.footer})"] if screen.footer else [])
    body = {"kind": screen.kind, "title": screen.title[:60]}
    if screen.dice:
        body["dice"] = [[die.face, ("k" if die.kept else "") + ("f" if die.flagged else "") + ("l" if die.locked else "")]
                        for die in screen.dice[:12]]
    if screen.table:
        body["rows"] = [[str(cell)[:14] for cell in row[:4]] for row in screen.table[:9]]
    if screen.total:
        body["total"] = screen.total[:30]
    if screen.highlight is not None:
        body["highlight"] = screen.highlight
    body["lines"] = [line[:60] for line in lines[:10]]
    while True:
        try:
            protocol.encode(0, "screen", body)
            return body
        except protocol.ProtocolError:
            pass
        if body["lines"]:
            body["lines"] = body["lines"][:-1]
        elif body.get("rows") and len(body["rows"]) > 1:
            body["rows"] = body["rows"][:-1]
        elif body.get("dice") and len(body["dice"]) > 1:
            body["dice"] = body["dice"][:-1]
        else:
            body = {"kind": screen.kind, "title": screen.title[:30]}
            return body


#: panel button/knob -> loop command
BUTTON_COMMANDS = {"score": "score", "undo": "undo", "next": "next", "push": "push"}
LONG_COMMANDS = {"score": "score", "undo": "undo", "next": "push", "push": "push"}


class SerialPanel(Presenter):
    """The Pico table panel on a USB serial port: shows screens and lights, sends buttons.

    Plug the Pico (flashed from firmware/README.md) into any USB port of the Pi. Give it to
    the loop as a presenter; its button presses come back as loop commands through
    ``on_command``. Everything happens in :meth:`tick`, which the loop calls every turn:
    reading, heartbeats and reconnecting; nothing blocks and nothing raises.

    >>> panel = SerialPanel(parse_panel_spec("auto"), on_command=loop.post)   # doctest: +SKIP
    >>> panel.status(Status(light="moving", bar=2))                            # doctest: +SKIP

    :param spec: where the panel is (:func:`parse_panel_spec`).
    :param on_command: called with "score", "undo", "next", "push", "left" or "right".
    :param opener: opens a port name (default: pyserial's ``serial_for_url``).
    :param finder: finds the port for ``spec`` (default: VID:PID search of USB ports).
    :param clock: seconds, monotonic (tests pass their own).
    """

    def __init__(self, spec: PanelSpec, *, on_command: Callable[[str], None],
                 opener: Callable[[str], object] = open_serial, finder: Callable[[PanelSpec], str | None] = find_port,
                 clock: Callable[[], float] = time.monotonic):
        self.spec, self.on_command = spec, on_command
        self.opener, self.finder, self.clock = opener, finder, clock
        self.port = None            # the open serial object, or None
        self.port_name: str | None = None
        self.link = None
        self.backoff = BACKOFF_START
        self.next_attempt = 0.0
        self.last_screen: Screen | None = None
        self.last_status: Status | None = None
        self.panel_info: dict = {}
        self.errors_from_panel: list[str] = []
        self.connects = 0
        self.losses = 0
        self.connected_at = 0.0
        self._said_missing = False
        self._said_echo = False

    # -- the presenter side ------------------------------------------------------------------
    def show(self, screen: Screen) -> None:
        self.last_screen = screen
        self._send("screen", screen_body(screen))

    def status(self, status: Status) -> None:
        self.last_status = status
        self._send("status", self._status_body(status))

    def tick(self, now: float | None = None) -> None:
        """Connect if needed, read what the panel sent, keep the heartbeat."""
        now = self.clock()
        if self.port is None:
            if now >= self.next_attempt:
                self._connect(now)
            return
        try:
            waiting = self.port.in_waiting
            data = self.port.read(waiting or 1)
        except (serial.SerialException, OSError, ValueError) as exc:
            self._lost(f"read failed: {exc}", now)
            return
        if data:
            self._receive(data, now)
        if self.port is None:
            return
        line = self.link.heartbeat(self._ms(now))
        if line:
            self._write(line)
        if self.link.last_heard is not None and not self.link.peer_alive(self._ms(now)):
            self._lost("no heartbeat from the panel", now)
        elif self.link.last_heard is None and now - self.connected_at > protocol.PEER_TIMEOUT_MS / 1000:
            self._lost("no answer to hello: is the dicewatch firmware on it?", now)

    def close(self) -> None:
        if self.port is not None:
            try:
                self.port.close()
            except Exception:   # noqa: BLE001 - closing a vanished port
                pass
        self.port = None

    @property
    def connected(self) -> bool:
        return self.port is not None

    # -- internals -------------------------------------------------------------------------
    @staticmethod
    def _ms(now: float) -> int:
        return int(now * 1000) % protocol.TICKS_PERIOD

    @staticmethod
    def _status_body(status: Status) -> dict:
        light = status.light if status.light in protocol.LIGHTS else "fault"
        sound = status.sound if status.sound in protocol.SOUNDS else None
        return {"light": light, "bar": max(0, int(status.bar)), "sound": sound}

    def _connect(self, now: float) -> None:
        try:
            name = self.finder(self.spec)
            if name is None:
                raise serial.SerialException(f"no panel at {self.spec.describe()}")
            port = self.opener(name)
        except (serial.SerialException, OSError, ValueError) as exc:
            if not self._said_missing:
                log.warning("table panel not connected (%s); retrying in the background", exc)
                self._said_missing = True
            self.next_attempt = now + self.backoff
            self.backoff = min(self.backoff * 2, BACKOFF_MAX)
            return
        self.port, self.port_name = port, name
        self.link = protocol.Endpoint(self._ms(now), side="host")
        self.backoff = BACKOFF_START
        self._said_missing = False
        self.connects += 1
        self.connected_at = now
        log.info("table panel connected on %s", name)
        self._write(self.link.send("hello", {"host": "dicewatch"}, self._ms(now)))
        # a panel plugged in (again) gets the current picture
        if self.last_status is not None:   # the lights, not a sound that already played
            self._send("status", dict(self._status_body(self.last_status), sound=None))
        if self.last_screen is not None:
            self._send("screen", screen_body(self.last_screen))

    def _lost(self, why: str, now: float) -> None:
        log.warning("table panel on %s lost (%s); reconnecting", self.port_name, why)
        self.losses += 1
        self.close()
        self.next_attempt = now + self.backoff
        self.backoff = min(self.backoff * 2, BACKOFF_MAX)

    def _send(self, kind: str, body: dict) -> None:
        if self.port is None:
            return
        try:
            line = self.link.send(kind, body, self._ms(self.clock()))
        except protocol.ProtocolError as exc:   # cannot happen for trimmed bodies; never crash the loop
            log.error("table panel: could not encode %s: %s", kind, exc)
            return
        self._write(line)

    def _write(self, line: bytes) -> None:
        try:
            self.port.write(line)
        except (serial.SerialException, OSError, ValueError) as exc:
            self._lost(f"write failed: {exc}", self.clock())

    def _receive(self, data: bytes, now: float) -> None:
        messages, replies = self.link.receive(data, self._ms(now))
        for seq, kind, body in messages:
            if kind == "button":
                command = (LONG_COMMANDS if body.get("long") else BUTTON_COMMANDS)[body["name"]]
                self.on_command(command)
            elif kind == "knob":
                self.on_command("right" if body["step"] > 0 else "left")
            elif kind == "hello" and "host" in body and "panel" not in body:
                # a host's hello: our own, sent back by a port that echoes (not the panel)
                if not self._said_echo:
                    log.warning("table panel on %s: the port sends back what dicewatch writes; "
                                "is it the panel's port?", self.port_name)
                    self._said_echo = True
            elif kind == "hello":
                self.panel_info = body
                log.info("table panel: firmware %s, %s pixels, screen %s", body.get("firmware"),
                         body.get("pixels"), body.get("screen"))
                if body.get("protocol", protocol.PROTOCOL) != protocol.PROTOCOL:
                    log.warning("table panel speaks protocol %s, this dicewatch %s: update the firmware "
                                "(firmware/README.md)", body.get("protocol"), protocol.PROTOCOL)
            elif kind == "error":
                self.errors_from_panel.append(body["reason"])
                log.warning("table panel refused line %s: %s", body.get("seq"), body["reason"])
        for line in replies:   # the host answers a garbled line from the panel with an error
            if self.port is None:
                break
            self._write(line)


def open_panel(text: str, *, on_command: Callable[[str], None]) -> SerialPanel:
    """The panel for a --panel / config value; ValueError for a spec that makes no sense.

    A panel that is not plugged in yet is not an error: it connects when it appears.
    """
    panel = SerialPanel(parse_panel_spec(text), on_command=on_command)
    panel.tick()
    return panel
