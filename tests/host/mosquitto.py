"""A real Mosquitto broker for the tests, on a free loopback port, and a cuttable TCP link.

``Mosquitto(folder)`` is host.mqtt.local_broker's ``LocalMosquitto`` (a config of its own, killed
and started again on the same port), skipped when mosquitto is missing. ``Link`` relays
TCP between a client and the broker; ``cut()`` drops every connection and refuses new ones
until ``mend()``: a box whose network is cut off.

When ``mosquitto`` is not installed the tests skip with the reason, except on CI (``$CI``
set), where they fail: .ci/run installs it.
"""
from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from host.mqtt.local_broker import MOSQUITTO, LocalMosquitto, free_port  # noqa: F401 - free_port: for the tests


def need_mosquitto() -> str:
    if MOSQUITTO is None:
        missing("mosquitto")
    return MOSQUITTO


def need_tool(name: str) -> None:
    """A command the test runs (openssl) must be there: skipped without it, failed on CI."""
    if shutil.which(name) is None:
        missing(name)


def missing(name: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed (.ci/run installs it with apt-get)")
    pytest.skip(f"{name} is not installed: apt-get install mosquitto mosquitto-clients openssl")


class Mosquitto(LocalMosquitto):
    """The tests' broker: skipped (failed on CI) when mosquitto is not installed."""

    def __init__(self, folder: Path, **options):
        super().__init__(folder, binary=need_mosquitto(), **options)


class Link:
    """A TCP relay from a local port to the broker's, which can be cut and mended."""

    def __init__(self, target_port: int):
        self.target = target_port
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.open = True
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=2)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        self.open = False
        with self.lock:
            for end in self.sockets:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()
            self.sockets.clear()

    def mend(self) -> None:
        self.open = True

    def close(self) -> None:
        self.cut()
        self.server.close()


def eventually(check, timeout: float = 15.0, every: float = 0.05) -> bool:
    """Whether ``check()`` holds within ``timeout`` seconds (what a broker delivers arrives when
    it arrives: a test waits for it, never for a fixed time)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True


#: a whole game of Secret Pig (target 10): Ann's lucky 5 doubled, held; Ben never rolls
SHORT_GAME = ({"type": "lucky", "player": "Ann", "face": "5"}, {"type": "lucky", "player": "Ben", "face": "2"},
              {"type": "roll", "faces": ["5"]}, {"type": "hold"})


def play_published(table, events, *publishers) -> None:
    """Store each event, then tell each publisher (as the table loop's presenter does)."""
    for event in events:
        table.play(event)
        for publisher in publishers:
            publisher.notify(table.id)
