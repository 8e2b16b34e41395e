"""A Mosquitto broker of our own on a free loopback port: for the tests and the benchmark.

``LocalMosquitto(folder)`` writes a config (``listener PORT 127.0.0.1``, persistence in
``folder``, anonymous logins unless told otherwise, ``extra`` lines such as a password file
and an ACL) and starts ``mosquitto -c`` on it; ``kill()`` SIGKILLs it (nothing saved),
``start()`` starts it again on the same port, ``stop()`` ends it.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)


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


class LocalMosquitto:
    """One broker process. ``extra`` lines go into its config (password_file, acl_file...)."""

    def __init__(self, folder: Path, *, extra: str = "", anonymous: bool = True, port: int | None = None,
                 binary: str | None = None):
        self.binary = binary or MOSQUITTO
        if self.binary is None:
            raise FileNotFoundError("mosquitto is not installed: apt-get install mosquitto mosquitto-clients")
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
