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
from host.config import MAX_PANEL

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
    parser.add_argument("--web", metavar="[HOST:]PORT",
                        help="serve the phone page while the demo plays, and the finished game until Ctrl-C "
                             "(PORT alone: this machine only, 127.0.0.1)")
    parser.add_argument("--publish", metavar="URL",
                        help="publish the demo's table to an MQTT broker: mqtt://[USER:PASS@]HOST[:PORT]/PREFIX "
                             "(the box's name: the config's [box] name, else this machine's)")
    parser.add_argument("--pace", type=float, metavar="SECONDS",
                        help="with --web: seconds between stored events, so a person can watch (default 1; 0 for tests)")


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size: expected WIDTHxHEIGHT such as 250x122, got {text!r}") from None
    if not (200 <= w <= MAX_PANEL[0] and 100 <= h <= MAX_PANEL[1]):
        raise UsageError(f"--size: panels go from 200x100 to {MAX_PANEL[0]}x{MAX_PANEL[1]}, got {text!r}")
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
    web = web_address(args)
    publish = publish_presenter(args)
    out = prepare_out(args.out)
    if out is None:
        return 1
    from host import demo_table
    if publish is not None:   # the demo's loop tells it of each stored event, like the phone page
        demo_table.EXTRA_PRESENTERS.append(publish)
    try:
        if web is None:
            return games.demo_for(args.game)(args, size, out)
        return with_web(args, size, out, web)
    finally:
        if publish is not None:
            demo_table.EXTRA_PRESENTERS.remove(publish)


def publish_presenter(args):
    """--publish URL as the presenter that publishes the demo's table, or None (a usage error
    says what was expected)."""
    if not getattr(args, "publish", None):
        return None
    from host.config import ConfigError, load_config
    from host.mqtt.box import box_settings, broker_of, publishing
    from host.paths import default_config_file
    try:
        broker = broker_of(args.publish)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        path = default_config_file()
        name, _ = box_settings(load_config(path)[0], path)
    except ConfigError as exc:
        raise UsageError(f"--publish: the box's name: {exc}") from None
    return publishing(broker, name)


def web_address(args) -> tuple[str, int] | None:
    """--web as (host, port), or None; --pace checked (a usage error says what was expected)."""
    pace = getattr(args, "pace", None)
    if pace is not None and (pace < 0 or pace != pace or pace > 60):
        raise UsageError(f"--pace: expected seconds from 0 to 60, got {pace}")
    if not getattr(args, "web", None):
        if pace is not None:
            raise UsageError("--pace: only with --web [HOST:]PORT (the demo is paced for a person watching the page)")
        return None
    from host.web.server import parse_address
    try:
        return parse_address(args.web)
    except ValueError as exc:
        raise UsageError(f"--web: {exc}") from None


def with_web(args, size, out: Path, address: tuple[str, int]) -> int:
    """The demo with the phone page: served while it plays (at --pace), then the finished
    game until Ctrl-C or SIGTERM."""
    import signal
    import threading

    from host import demo_table
    from host.web.server import start
    from host.web.table import WebTable

    web = WebTable(pace=1.0 if args.pace is None else args.pace)
    try:
        served = start(web, *address, out)
    except OSError as exc:
        print(f"dicewatch demo: {exc}", file=sys.stderr)
        return 1
    def interrupt(*_):
        raise KeyboardInterrupt

    stop = threading.Event()
    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGINT)}
    demo_table.EXTRA_PRESENTERS.append(web)
    try:
        try:
            code = games.demo_for(args.game)(args, size, out)
        except KeyboardInterrupt:   # stopped while playing: the demo's loop has shut down
            print("dicewatch demo: stopped", file=sys.stderr)
            return 130
        for sig in previous:
            signal.signal(sig, lambda *_: stop.set())
        print("dicewatch demo: serving the finished game on the phone page; Ctrl-C to stop", flush=True)
        while not stop.wait(0.2):
            pass
        return code
    finally:
        demo_table.EXTRA_PRESENTERS.remove(web)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        served.stop()
