"""Benchmark: how soon the phone page hears of an event stored, and what the server costs.

    python -m host.bench_web                 # 50 events, Dream Factory, a real uvicorn on loopback
    python -m host.bench_web --events 200

A table loop runs in its own thread (as on the box) with the phone page's presenter; the
page is served by uvicorn in its daemon thread (host.web.server.serve) on a free loopback
port, and a client reads ``/api/events`` over HTTP. The loop's thread plays one of the
game's public legal events through the ``choose:`` command, then takes it back with
``undo``, and so on: each is a journal entry stored (SQLite, committed) and then shown.
Measured for each: from the moment the store returned (the event is on disk) to the moment
the client has read its server-sent event. Printed: the median, the 95th percentile and the
worst; and the resident memory (VmRSS) before the web stack was imported, after the server
started, and after the run.
"""
from __future__ import annotations

import argparse
import json
import queue
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path


def rss_mib() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m host.bench_web", description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=50, help="events stored and heard (default 50)")
    parser.add_argument("--game", default="dream-factory", help="a game whose start offers public choices")
    args = parser.parse_args(argv)

    from host.loop import TableLoop
    from host.session_store import SessionStore
    from rules import get_game

    before = rss_mib()
    from host.web.app import make_app
    from host.web.server import serve
    from host.web.table import WebTable, command_json

    web = WebTable()
    calls: "queue.Queue" = queue.Queue()
    stored: dict[int, float] = {}
    ready, stop = threading.Event(), threading.Event()
    folder = Path(tempfile.mkdtemp(prefix="bench-web-"))

    def loop_thread() -> None:
        with SessionStore(folder / "sessions.db") as store:
            game = get_game(args.game)
            table = store.create(game, {"players": ["Ann", "Ben"]})
            loop = TableLoop(table, presenters=[web])
            for name in ("play", "undo"):   # the time each journal entry is on disk
                original = getattr(table, name)

                def timed(*a, _original=original, **k):
                    result = _original(*a, **k)
                    stored[len(table.entries)] = time.perf_counter()
                    return result
                setattr(table, name, timed)
            loop.start()
            ready.set()
            while not stop.is_set():
                try:
                    calls.get(timeout=0.005)(loop)
                except queue.Empty:
                    pass
                loop.step(look=False)

    threading.Thread(target=loop_thread, daemon=True).start()
    ready.wait(30)
    served = serve(make_app(web, loopback=True, pin=None), "127.0.0.1", 0)
    started = rss_mib()
    import httpx  # the client, measured apart from the server
    url = f"http://127.0.0.1:{served.port}"
    heard: "queue.Queue[tuple[int, float]]" = queue.Queue()

    def listen() -> None:
        with httpx.stream("GET", url + "/api/events", timeout=30) as answer:
            kind = None
            for line in answer.iter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: ") and kind == "stored":
                    heard.put((json.loads(line[6:])["seq"], time.perf_counter()))

    threading.Thread(target=listen, daemon=True).start()
    heard.get(timeout=10)   # the snapshot on connecting
    latencies: list[float] = []
    forward = True
    for _ in range(args.events):
        entries_before = len(stored)

        def act(loop, forward=forward) -> None:
            if forward:
                choice = next(e for e in loop.game.legal_events(loop.state)
                              if loop.game.event_view(e, None) == e)
                loop.handle(command_json(dict(choice)))
            else:
                loop.handle("undo")
        calls.put(act)
        seq, received = heard.get(timeout=10)
        if len(stored) == entries_before:
            print(f"bench_web: nothing was stored for move {seq}", file=sys.stderr)
            return 1
        latencies.append((received - stored[max(stored)]) * 1000)
        forward = not forward
        time.sleep(0.02)
    stop.set()
    served.stop()
    after = rss_mib()
    print(f"phone page: {len(latencies)} events of {args.game}, stored -> server-sent event read by a client "
          f"on loopback: median {statistics.median(latencies):.1f} ms, 95th percentile "
          f"{percentile(latencies, 0.95):.1f} ms, worst {max(latencies):.1f} ms")
    print(f"memory (VmRSS): {before:.1f} MiB before the web stack, {started:.1f} MiB with the server started "
          f"(+{started - before:.1f} MiB), {after:.1f} MiB after the run (+{after - before:.1f} MiB, with the "
          f"client's httpx, which is in this process too)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
