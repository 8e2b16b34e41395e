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

With --game christmas-romance (--mode solo|coop|..., --virtual-fate) it plays a game of Another
Christmas Romance Movie against fate instead, printing each fate roll and its snowflakes
(host/fate_demo.py). Each game's module in host/games/ names its scripted demo; a game
with none is played by host/generic_demo.py (random legal choices, the dice its rules ask for).
"""
from __future__ import annotations

import sys
from pathlib import Path

from host import games
from host.cli import UsageError

NAME = "demo"
HELP = "play a whole Jingle Bell Roll game on the synthetic camera (e-ink PNGs, LEDs printed)"


def add_arguments(parser) -> None:
    parser.add_argument("--out", default="demo-out", metavar="DIR",
                        help="folder for the e-ink screens as PNG files (default: ./demo-out)")
    parser.add_argument("--game", default="jingle-bell-roll", choices=games.names(),
                        help="the game to play (default: jingle-bell-roll; `dicewatch games` lists them)")
    games.add_setup_arguments(parser, NAME)
    parser.add_argument("--seed", type=int, default=2026, help="random seed of the dice and the players (default 2026)")
    parser.add_argument("--size", default="250x122", metavar="WxH",
                        help="e-ink panel size: 250x122, 400x300 or 800x480 (default 250x122)")
    parser.add_argument("--quiet", action="store_true", help="print only the progress and the result")


def parse_size(text: str) -> tuple[int, int]:
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
    try:
        games.check_setup_flags(args, args.game)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    size = parse_size(args.size)
    out = prepare_out(args.out)
    if out is None:
        return 1
    return games.demo_for(args.game)(args, size, out)
