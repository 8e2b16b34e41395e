"""Test helpers: a fake clock and the firmware's PanelApp behind a real pty (a Pico on a cable)."""
from __future__ import annotations

import os
import select
import time
import tty

from dwpanel import protocol
from dwpanel.app import PanelApp


class Clock:
    def __init__(self, now=100.0):
        self.now = now

    def __call__(self):
        return self.now

    def ms(self):
        return int(self.now * 1000) % protocol.TICKS_PERIOD


class PtyPanel:
    """The firmware's PanelApp behind the master side of a pty (a Pico on a USB cable)."""

    def __init__(self, clock):
        self.clock = clock
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        os.close(slave)          # pyserial opens it by name
        os.set_blocking(self.master, False)
        self.app = PanelApp(clock.ms(), pixels=12)
        self.app.take_screen()   # the waiting screen

    def pump(self, wait=0.005):
        """Read what the host sent (waiting up to ``wait`` s for it), answer it, send the heartbeat."""
        select.select([self.master], [], [], wait)
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            data = b""
        out = self.app.receive(data, self.clock.ms()) if data else []
        out += self.app.tick(self.clock.ms())
        self.write(b"".join(out))

    def write(self, data):
        if data:
            os.write(self.master, data)

    def press(self, name, held_ms=60):
        start = self.clock.ms()
        lines = []
        for t in range(0, held_ms + 40, 5):
            lines += self.app.sample({name: t < held_ms}, None, start + t)
        self.write(b"".join(lines))

    def turn(self, steps):
        cycle = [(1, 0), (0, 0), (0, 1), (1, 1)] if steps > 0 else [(0, 1), (0, 0), (1, 0), (1, 1)]
        lines = []
        for _ in range(abs(steps)):
            for a, b in cycle:
                lines += self.app.sample({}, (a, b), self.clock.ms())
        self.write(b"".join(lines))

    def unplug(self):
        os.close(self.master)

    def pump_until(self, condition, timeout=5.0):
        """Pump (real time) until ``condition()`` holds; a loaded machine can be slow to pass bytes."""
        deadline = time.monotonic() + timeout
        while not condition() and time.monotonic() < deadline:
            self.pump(wait=0.02)
        return condition()
