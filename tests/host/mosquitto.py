"""A real Mosquitto broker for the tests, on a free loopback port, and a cuttable TCP link.

``Mosquitto(folder)`` writes a config (``listener PORT 127.0.0.1``, persistence in ``folder``,
anonymous logins unless a password file is given) and starts ``mosquitto -c``; ``kill()``
SIGKILLs it (nothing saved), ``start()`` starts it again on the same port. ``Link`` relays
TCP between a client and the broker; ``cut()`` drops every connection and refuses new ones
until ``mend()``: a box whose network is cut off.

When ``mosquitto`` is not installed the tests skip with the reason, except on CI (``$CI``
set), where they fail: .ci/run installs it.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)


def need_mosquitto() -> str:
    if MOSQUITTO is None:
        if os.environ.get("CI"):
            pytest.fail("mosquitto is not installed (.ci/run installs it with apt-get)")
        pytest.skip("mosquitto is not installed: apt-get install mosquitto mosquitto-clients")
    return MOSQUITTO


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


class Mosquitto:
    """One broker process. ``extra`` lines go into its config (password_file, acl_file...)."""

    def __init__(self, folder: Path, *, extra: str = "", anonymous: bool = True, port: int | None = None):
        self.binary = need_mosquitto()
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.conf = self.folder / "mosquitto.conf"
        self.conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous {'true' if anonymous else 'false'}\n"
                             f"persistence true\npersistence_location {self.folder}/\n"
                             f"max_queued_messages 100000\n{extra}\n"
                             + ("user root\n" if os.geteuid() == 0 else ""))   # (else it reads no file of ours)
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.log = open(self.folder / "mosquitto.log", "ab")
        self.process = subprocess.Popen([self.binary, "-c", str(self.conf)], stdout=self.log, stderr=self.log)
        wait_port(self.port)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.log.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.log.close()

    def url(self, prefix: str = "test", login: str = "") -> str:
        return f"mqtt://{login + '@' if login else ''}127.0.0.1:{self.port}/{prefix}"


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
