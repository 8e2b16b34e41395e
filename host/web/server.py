"""The phone page's server: uvicorn in a daemon thread of the box's own process.

``--web [HOST:]PORT`` (:func:`parse_address`): loopback when only PORT is given. On any other
address a table PIN (:func:`new_pin`, from ``secrets``) is asked. :func:`start` serves a
:class:`~host.web.table.WebTable`, prints the address, the PIN and a QR code of the address
(saved as a PNG), and, once the loop is attached, each player's private link. The loop is
never stalled by the server: it only reads what the WebTable keeps under its lock.
"""
from __future__ import annotations

import ipaddress
import secrets
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

EXPECTED = "[HOST:]PORT such as 8080, 127.0.0.1:8080 or 0.0.0.0:8080"


def parse_address(text: str) -> tuple[str, int]:
    """``8080`` -> ("127.0.0.1", 8080); ``HOST:PORT``; ``[::1]:8080``. ValueError names what was expected."""
    text = text.strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host = "127.0.0.1"
    host = host.strip("[]") if host.startswith("[") else host
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"expected {EXPECTED}, got {text!r}") from None
    if not 0 <= port <= 65535 or not host or (":" in host and not sep):
        raise ValueError(f"expected {EXPECTED} (a port from 0 to 65535), got {text!r}")
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"expected {EXPECTED}, got {text!r}") from None
    return host, port


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def new_pin(digits: int = 4) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def lan_address() -> str:
    """This box's address on the local network (no packet is sent), else its name."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            return probe.getsockname()[0]
    except OSError:
        return socket.gethostname()


@dataclass
class Served:
    """A running server: its address and how to stop it."""

    server: object
    thread: threading.Thread
    host: str
    port: int
    app: object

    def stop(self, timeout: float = 5.0) -> None:
        self.app.state.stopping = True
        self.server.should_exit = True
        self.thread.join(timeout)


def serve(app, host: str, port: int, *, timeout: float = 10.0) -> Served:
    """Run ``app`` with uvicorn in a daemon thread; returns once it listens (OSError if it cannot)."""
    import uvicorn
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=1, server_header=False)
    server = uvicorn.Server(config)
    failure: list[BaseException] = []

    def run() -> None:
        try:
            server.run()
        except BaseException as exc:  # noqa: BLE001 - said to the starting thread
            failure.append(exc)

    thread = threading.Thread(target=run, name="dicewatch-web", daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        thread.join(0.02)
    if not server.started:   # uvicorn says why in its log line and exits (SystemExit) when it cannot listen
        why = f": {failure[0]}" if failure and not isinstance(failure[0], SystemExit) else \
            ": the port is in use, or the address is not one of this machine's (try another, e.g. --web 8081)"
        raise OSError(f"cannot serve the phone page on {host}:{port}{why}")
    bound = port
    for listening in getattr(server, "servers", []):
        for sock in listening.sockets:
            bound = sock.getsockname()[1]
            break
    return Served(server, thread, host, bound, app)


def start(web_table, host: str, port: int, folder: Path, *, out: TextIO | None = None) -> Served:
    """Serve the phone page for ``web_table`` on ``host:port``: a PIN when not on loopback,
    the address (and a QR code PNG in ``folder``) printed, and where the players take their
    seats (each private link is given only to the phone that takes that seat, never printed)."""
    from host.web.app import make_app
    out = out or sys.stdout
    loopback = is_loopback(host)
    pin = None if loopback else new_pin()
    app = make_app(web_table, loopback=loopback, pin=pin)
    served = serve(app, host, port)
    shown_host = lan_address() if host in ("0.0.0.0", "::") else host
    shown_host = f"[{shown_host}]" if ":" in shown_host else shown_host
    url = f"http://{shown_host}:{served.port}/"
    print(f"dicewatch: the phone page is at {url}" + (f"  (table PIN {pin})" if pin else "  (this machine only)"),
          file=out, flush=True)
    try:
        import segno
        folder.mkdir(parents=True, exist_ok=True)
        qr = folder / "phone-page-qr.png"
        segno.make(url, error="m").save(str(qr), scale=8, border=2)
        print(f"dicewatch: its QR code: {qr}", file=out, flush=True)
    except Exception as exc:  # noqa: BLE001 - the address printed is enough
        print(f"dicewatch: no QR code ({type(exc).__name__}: {exc})", file=out, flush=True)

    print(f"dicewatch: each player takes their own seat (their private page) at {url}join", file=out, flush=True)
    if pin:   # the box's own screen says where the page is and its PIN, once (shown in the loop's thread)
        web_table.greet(url, pin)
    return served
