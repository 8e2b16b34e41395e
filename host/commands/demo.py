"""Play a whole game on the built-in synthetic camera and show what the device would do.

Three players (Ann, Ben, Cy) play five rounds of Jingle Bell Roll. Each roll is drawn by the
synthetic camera: the dice tumble and settle in the tray, kept dice wait in the keep area,
and now and then a hand passes over. The frames go through the real vision pipeline
(settle gate, dice reader) and the table loop, the rules score them, every e-ink screen is
written as a PNG into --out (and what the camera read, as overlays, into --out/reads),
and every LED and buzzer change is printed.

The demo knows the true faces it rendered, so every misread is reported, never hidden: a
die the reader flags is confirmed or corrected with the knob, as a player would; a
confident misread is corrected from the menu afterwards, and counted.

With --game christmas-romance (--mode solo|coop, --virtual-fate) it plays a game of Another
Christmas Romance Movie against fate instead, printing each fate roll and its snowflakes
(host/fate_demo.py).
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from host.session_store import SessionStore
from rules import get_game

NAME = "demo"
HELP = "play a whole Jingle Bell Roll game on the synthetic camera (e-ink PNGs, LEDs printed)"

PLAYERS = ["Ann", "Ben", "Cy"]


def add_arguments(parser) -> None:
    parser.add_argument("--out", default="demo-out", metavar="DIR",
                        help="folder for the e-ink screens as PNG files (default: ./demo-out)")
    parser.add_argument("--game", default="jingle-bell-roll", choices=["jingle-bell-roll", "christmas-romance"],
                        help="the game to play (default: jingle-bell-roll)")
    parser.add_argument("--mode", choices=("solo", "coop"), default="solo",
                        help="christmas-romance: a solo or 2-player co-op game against fate (default solo)")
    parser.add_argument("--virtual-fate", action="store_true",
                        help="christmas-romance: the box rolls fate's dice itself instead of the camera reading them")
    parser.add_argument("--seed", type=int, default=2026, help="random seed of the dice and the players (default 2026)")
    parser.add_argument("--size", default="250x122", metavar="WxH",
                        help="e-ink panel size: 250x122, 400x300 or 800x480 (default 250x122)")
    parser.add_argument("--quiet", action="store_true", help="print only the progress and the result")


def parse_size(text: str) -> tuple[int, int]:
    from host.cli import UsageError
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size: expected WIDTHxHEIGHT such as 250x122, got {text!r}") from None
    if w < 200 or h < 100:
        raise UsageError(f"--size: the smallest panel is 200x100, got {text!r}")
    return w, h


def prepare_out(folder: str) -> Path | None:
    """Make --out ready: created, last run's screens and overlays removed. None (said why) if not."""
    out = Path(folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for old in list(out.glob("screen-*.png")) + list(out.glob("reads/read-*.png")):
            old.unlink()
    except OSError as exc:
        print(f"dicewatch demo: cannot use --out {out}: {exc.strerror}", file=sys.stderr)
        return None
    return out


def run(args) -> int:
    if args.game == "christmas-romance":
        from host.fate_demo import run as fate_demo
        return fate_demo(args)
    from host.demo_table import DemoTable

    size = parse_size(args.size)
    out = prepare_out(args.out)
    if out is None:
        return 1
    started = time.perf_counter()
    game = get_game(args.game)
    store = SessionStore(out / "demo-sessions.db")
    table = store.create(game, {"players": PLAYERS})
    print(f"dicewatch demo: {game.title}, {', '.join(PLAYERS)}, {table.state.rules.rounds} rounds, on the "
          f"synthetic camera; e-ink screens ({size[0]}x{size[1]}) go to {out}/", flush=True)
    demo = DemoTable(table, out=out, size=size, rng=random.Random(args.seed), quiet=args.quiet)
    if demo.vision_note:
        print(demo.vision_note, flush=True)
    if getattr(demo.camera, "teaching", ""):
        print(demo.camera.teaching, flush=True)
    if not args.quiet:
        print("    (lines starting with LED: the status light, the roll bar and the buzzer, as they change)",
              flush=True)
    try:
        demo.play()
    finally:
        demo.loop.shutdown()
        store.close()
    elapsed = time.perf_counter() - started
    print()
    print(demo.report(elapsed))
    return 0
