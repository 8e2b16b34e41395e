"""Follow every table on an MQTT broker and keep the league's standings.

Each box run with --publish sends its table to the broker; this command, on any machine,
subscribes to them all, keeps every table's entries in its own store (DATA/league.db; each
entry once, however often it arrives) and shows the standings: per game and across the
tournament (games played, wins, points, and the tournament score by --scoring).

  dicewatch league --broker mqtt://league:PASS@broker.local/club --web 0.0.0.0:8090
  dicewatch league --broker mqtt://broker.local/club --json

--json prints a snapshot (what the store and the broker hold) and exits. Restarted, the league
reads its store, then the broker's retained states, and asks the boxes again for anything
missing. Ctrl-C or SIGTERM stops it.
"""
from __future__ import annotations

import json
import logging
import signal
import sys
import threading
import time
from pathlib import Path

from host.cli import UsageError
from host.league.standings import DEFAULT_SCORING, SCORING_EXPECTED, parse_scoring
from host.paths import data_dir

NAME = "league"
HELP = "follow every table on an MQTT broker: live standings per game and across a tournament"


def add_arguments(parser) -> None:
    parser.add_argument("--broker", required=True, metavar="URL",
                        help="mqtt://[USER:PASS@]HOST[:PORT]/PREFIX (mqtts:// for TLS), the boxes' --publish")
    parser.add_argument("--web", metavar="[HOST:]PORT", help="serve the standings page (PORT alone: this machine only)")
    parser.add_argument("--json", action="store_true", help="print a snapshot of the standings as JSON and exit")
    parser.add_argument("--scoring", default=DEFAULT_SCORING, metavar="RULE",
                        help=f"tournament score: {SCORING_EXPECTED} (default {DEFAULT_SCORING})")
    parser.add_argument("--store", metavar="FILE", help="the league's store (default: DATA/league.db)")
    parser.add_argument("--name", default="dicewatch-league", metavar="ID",
                        help="the league's MQTT client id (the broker keeps its messages under it while it is away)")
    parser.add_argument("--wait", type=float, default=3.0, metavar="SECONDS",
                        help="with --json: how long to listen for the broker before printing (default 3)")


def run(args) -> int:
    from host.league.follower import League
    from host.league.store import LeagueStoreError
    from host.mqtt.box import broker_of
    try:
        broker = broker_of(args.broker, "--broker")
        scoring = parse_scoring(args.scoring)
    except ValueError as exc:
        raise UsageError(str(exc if "--broker" in str(exc) else f"--scoring: {exc}")) from None
    if args.json and args.web:
        raise UsageError("--json prints a snapshot and exits; --web serves the page: one or the other")
    if not 0 <= args.wait <= 600 or args.wait != args.wait:
        raise UsageError(f"--wait: expected seconds from 0 to 600, got {args.wait}")
    address = None
    if args.web:
        from host.web.server import parse_address
        try:
            address = parse_address(args.web)
        except ValueError as exc:
            raise UsageError(f"--web: {exc}") from None
    logging.basicConfig(level=logging.INFO if not args.json else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    store = Path(args.store) if args.store else data_dir() / "league.db"
    try:
        if args.json:   # a look, not the league: its own client id, no session kept at the broker
            league = League(broker, store, scoring, client_id=f"{args.name}-look-{time.time_ns() % 10**9}",
                            persistent=False, ask_every=None).start()
        else:
            league = League(broker, store, scoring, client_id=args.name).start()
    except LeagueStoreError as exc:
        print(f"dicewatch league: {exc}", file=sys.stderr)
        return 1
    try:
        if args.json:
            return snapshot(league, args.wait)
        return follow(league, address)
    finally:
        league.stop()


def snapshot(league, wait: float) -> int:
    """Listen until the broker has been quiet for a second (at most ``wait`` s), then print."""
    deadline = time.monotonic() + wait
    league.connected.wait(wait)
    while time.monotonic() < deadline and time.monotonic() - league.last_message < 1.0:
        time.sleep(0.1)
    out = league.snapshot()
    if not league.connected.is_set():
        print(f"dicewatch league: could not reach {league.broker.shown()} in {wait:g} s; "
              "the standings are the store's", file=sys.stderr)
    print(json.dumps(out, indent=2, sort_keys=True))
    return 0


def follow(league, address) -> int:
    from host.league.web import make_app
    from host.web.server import is_loopback, serve
    served = None
    if address is not None:
        try:
            served = serve(make_app(league), *address)
        except OSError as exc:
            print(f"dicewatch league: {exc}", file=sys.stderr)
            return 1
        host = f"[{address[0]}]" if ":" in address[0] else address[0]
        print(f"dicewatch league: the standings page is at http://{host}:{served.port}/"
              + ("" if not is_loopback(address[0]) else "  (this machine only)"), file=sys.stderr, flush=True)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    print(f"dicewatch league: following {league.broker.shown()}; Ctrl-C to stop", file=sys.stderr, flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if served is not None:
            served.stop()
    print("dicewatch league: stopped", file=sys.stderr)
    return 0
