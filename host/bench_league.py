"""Benchmark: many tables on one broker, and what following them costs the league.

    python -m host.bench_league                      # 100 tables, one event a second each, 60 s
    python -m host.bench_league --tables 20 --seconds 20

A Mosquitto of our own on loopback (host.mqtt.local_broker); the league as its own process
(``dicewatch league``, as an organiser runs it); and TABLES boxes: each its
own sessions database and :class:`~host.mqtt.publisher.Publisher`, playing Dream Factory
(three players, random legal moves, the dice its rules ask for) at one stored event a second,
the tables' starts spread over the first second. The boxes run in a few worker processes of
at most 20 tables (a real box has one table; a hundred in one process would pass the 1024 file
descriptors paho's select() can watch). Measured: for each entry, from the moment
its box stored it (the journal's time) to the moment the league kept it and its standings
moved (the league store's time), median, 95th percentile and worst, after a warm-up; the
league process's CPU (share of one core) and resident memory (VmRSS, and its peak VmHWM).
"""
from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

GAME = "dream-factory"
PLAYERS = ["Ann", "Ben", "Cy"]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def proc_status(pid: int, key: str) -> float:
    """A /proc/PID/status value in MiB (VmRSS, VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    import os
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def next_event(game, state, rng: random.Random) -> dict:
    """A random legal move, or the dice the rules ask for, thrown at random."""
    from rules.dice import faces_of
    chance = game.chance(state)
    choices = game.legal_events(state)
    if chance is not None and (not choices or rng.random() < 0.7):
        return chance.with_faces([rng.choice(faces_of(chance.face_set)) for _ in range(chance.total)])
    return rng.choice(choices)


def worker(numbers: list[int], work: Path, url: str, seconds: float) -> None:
    """One process's tables, each in its own thread, for ``seconds``."""
    stop = threading.Event()
    until = time.monotonic() + seconds
    boxes = [threading.Thread(target=table, args=(n, work / f"box{n:03d}", url, until, stop)) for n in numbers]
    for box in boxes:
        box.start()
    for box in boxes:
        box.join()


def stored_events(work: Path) -> int:
    import sqlite3
    total = 0
    for path in work.glob("box*/sessions.db"):
        with sqlite3.connect(path) as db:
            total += db.execute("SELECT COUNT(*) FROM journal WHERE kind = 'event'").fetchone()[0]
    return total


def table(number: int, folder: Path, url: str, until: float, stop: threading.Event) -> None:
    """One box: a game after another at one stored event a second, published as it goes."""
    from host.mqtt.broker import parse_broker_url
    from host.mqtt.publisher import Publisher
    from host.session_store import SessionStore
    from rules import get_game
    game, rng = get_game(GAME), random.Random(number)
    folder.mkdir(parents=True, exist_ok=True)
    with SessionStore(folder / "sessions.db") as store:
        publisher = Publisher(parse_broker_url(url), f"box{number:03d}", folder / "sessions.db").start()
        stop.wait(rng.random())
        beat = time.monotonic()
        session = None
        while time.monotonic() < until and not stop.is_set():
            if session is None or game.is_over(session.state):
                session = store.create(game, {"players": PLAYERS})
            session.play(next_event(game, session.state, rng))
            publisher.notify(session.id)
            beat += 1.0
            stop.wait(max(0.0, beat - time.monotonic()))
        publisher.wait_idle(10)
        publisher.stop(flush=2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m host.bench_league", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100, help="boxes, one table each (default 100)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long they play (default 60)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds left out at the start (default 5)")
    args = parser.parse_args(argv)
    if not 1 <= args.tables <= 1000 or not 5 <= args.seconds <= 3600 or not 0 <= args.warmup < args.seconds:
        parser.error("expected --tables 1..1000, --seconds 5..3600 and --warmup below --seconds")

    from host.league.store import LeagueStore
    from host.mqtt.local_broker import LocalMosquitto
    work = Path(tempfile.mkdtemp(prefix="dicewatch-bench-league-"))
    broker = LocalMosquitto(work / "broker", extra="max_inflight_messages 100")
    url = broker.url("bench")
    league = subprocess.Popen([sys.executable, "-m", "host.cli", "league", "--broker", url,
                               "--store", str(work / "league.db"), "--name", "bench-league"],
                              stdout=subprocess.DEVNULL, stderr=open(work / "league.log", "wb"))
    time.sleep(2.0)   # the league is subscribed
    import multiprocessing
    started = time.time()
    until = time.monotonic() + args.seconds
    numbers = list(range(args.tables))
    workers = [multiprocessing.get_context("fork").Process(target=worker, args=(numbers[i:i + 20], work, url,
                                                                                  args.seconds))
               for i in range(0, args.tables, 20)]
    for process in workers:
        process.start()
    time.sleep(args.warmup)
    cpu_from, wall_from = cpu_seconds(league.pid), time.monotonic()
    rss = []
    while time.monotonic() < until:
        rss.append(proc_status(league.pid, "VmRSS"))
        time.sleep(1.0)
    cpu = (cpu_seconds(league.pid) - cpu_from) / (time.monotonic() - wall_from)
    for process in workers:
        process.join(60)
    time.sleep(2.0)
    peak = proc_status(league.pid, "VmHWM")
    league.terminate()
    league.wait(10)
    broker.stop()
    store = LeagueStore(work / "league.db")
    rows = list(store._db.execute("SELECT received - at FROM entries WHERE at >= ?", (started + args.warmup,)))
    kept = store._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    store.close()
    latencies = [row[0] * 1000 for row in rows]
    stored = stored_events(work)
    print(f"{args.tables} tables, {GAME}, one event a second each, {args.seconds:g} s "
          f"({stored} events stored, {kept} kept by the league)")
    if latencies:
        print(f"stored at the box -> in the league's standings, after {args.warmup:g} s: median "
              f"{statistics.median(latencies):.1f} ms, p95 {percentile(latencies, 0.95):.1f} ms, "
              f"worst {max(latencies):.1f} ms over {len(latencies)} entries")
    print(f"league process: CPU {100 * cpu:.1f}% of one core, RSS median {statistics.median(rss):.1f} MiB, "
          f"peak {peak:.1f} MiB")
    print(f"(work folder {work})")
    return 0 if kept == stored else 1


if __name__ == "__main__":
    sys.exit(main())
