"""Run the box at the table: camera -> dice -> rules -> e-ink, LEDs and buzzer.

Starts a new game for --players, or with --resume continues the last unfinished one
exactly where it stopped (every event is on disk before it is shown). Roll the dice in
the tray; when they stop, the box reads them, scores them and shows the result.

Buttons: Score (end the turn; confirm), Undo (take back; leave a menu), Next (skip a
question; count a roll that came out the same). The knob: turn to choose, push to open
the menu (score, correct a die, re-roll one die with an ability, scoreboard, undo).

Settings come from the config file ([device] table: camera, display, gpio, panel,
confidence...; --config FILE, else $DICEWATCH_HOME/config.toml, else
/etc/dicewatch/config.toml). Flags given here win over the file. SIGTERM or Ctrl-C:
the display goes to sleep, the LEDs go off, the session is saved.
"""
from __future__ import annotations

import logging
import signal
import sys
import warnings
from dataclasses import replace
from pathlib import Path

from host.cli import UsageError
from host.config import ConfigError, DeviceConfig, load_config
from host.paths import data_dir, default_config_file

NAME = "run"
HELP = "run the box at the table: read the dice, keep the score, drive e-ink and LEDs"

log = logging.getLogger("dicewatch")

#: games the table loop (host/loop.py) knows how to prompt for
TABLE_GAMES = ("jingle-bell-roll", "christmas-romance")


def add_arguments(parser) -> None:
    parser.add_argument("--game", help="the game (default: jingle-bell-roll; with --resume, the last unfinished "
                                        "game of any kind)")
    parser.add_argument("--players", metavar="NAMES", help='players in seat order, e.g. "Ann,Ben,Cy"')
    parser.add_argument("--camera", metavar="SOURCE",
                        help="picamera | opencv:INDEX | opencv:URL | video:FILE | frames:DIR | synthetic[:SEED] "
                             "(default: the config's camera, else picamera)")
    parser.add_argument("--config", metavar="FILE", help="config file (default: see above)")
    parser.add_argument("--resume", nargs="?", const="latest", metavar="SESSION",
                        help="continue the last unfinished game (or SESSION); starts a new one for --players "
                             "when there is none")
    parser.add_argument("--panel", metavar="PORT",
                        help="the Pico table panel: auto (found by USB id 2E8A:0005), serial:/dev/ttyACM0, "
                             "or a port path")
    parser.add_argument("--display", choices=("inky", "png", "none"), help="e-ink backend (default: config, else inky)")
    parser.add_argument("--png-dir", metavar="DIR", help="where the png display writes (default: DATA/screens)")
    parser.add_argument("--no-gpio", action="store_true", help="no status light, bar, buzzer, buttons or knob")
    parser.add_argument("--no-characters", action="store_true", help="do not ask for character cards at the start")
    parser.add_argument("--quiet", action="store_true", help="do not print the screens on the terminal")
    parser.add_argument("--mode", choices=("solo", "coop"),
                        help="christmas-romance: the single-player or 2-player co-op game against fate (default solo)")
    parser.add_argument("--virtual-fate", action="store_true",
                        help="christmas-romance: the box rolls fate's dice itself (seeded; the seed is logged)")


def parse_players(text: str | None) -> list[str]:
    if text is None or not text.strip():
        return []  # not given (the service passes an empty list when only resuming)
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise UsageError(f"--players {text!r}: expected names separated by commas, e.g. \"Ann,Ben,Cy\"")
    return names


def display_flags(args) -> dict:
    """The config changes --display, --png-dir and --no-gpio ask for (run and teach)."""
    changes = {key: value for key, value in (("display", args.display), ("png_dir", args.png_dir)) if value}
    if args.no_gpio:
        changes["gpio"] = False
    return changes


def settings(args) -> tuple[dict, DeviceConfig, Path | None]:
    path = Path(args.config) if args.config else default_config_file()
    doc, config = load_config(path)
    changes = display_flags(args)
    if args.camera:
        from vision.sources import SourceError, parse_spec
        try:
            parse_spec(args.camera)
        except SourceError as exc:
            raise UsageError(str(exc)) from None
        changes["camera"] = args.camera
    if args.panel:
        from host.panel import parse_panel_spec
        try:
            parse_panel_spec(args.panel)
        except ValueError as exc:
            raise UsageError(f"--panel {args.panel}: {exc}") from None
        changes["panel"] = args.panel
    return doc, replace(config, **changes), path


def open_table(args, doc: dict, config_path: Path | None):
    """The stored session to play: resumed or new. Returns (store, table, made now) or raises RunFailed."""
    from host.session_store import SessionStore, StoreError
    from rules import get_game
    from rules.core import RuleError

    try:
        game = get_game(args.game or "jingle-bell-roll")
    except LookupError as exc:
        raise UsageError(str(exc)) from None
    if game.name not in TABLE_GAMES:
        raise UsageError(f"the table loop plays {', '.join(TABLE_GAMES)} so far; for {game.title} use "
                         "dicewatch place, score and replay")
    if not args.resume:  # (a resumed game is known once opened; it keeps its own mode)
        for flag, given, own_game in (("--mode", args.mode, "christmas-romance"),
                                      ("--virtual-fate", args.virtual_fate, "christmas-romance"),
                                      ("--no-characters", args.no_characters, "jingle-bell-roll")):
            if given and game.name != own_game:
                raise UsageError(f"{flag}: only for --game {own_game}, not {game.name}")
    players = parse_players(args.players)
    try:
        store = SessionStore(data_dir() / "sessions.db")
    except StoreError as exc:
        fail(str(exc))
    if args.resume:
        if args.resume != "latest":
            session_id = args.resume
        elif args.game:
            session_id = store.latest(game.name)
        else:  # no --game: the last unfinished game, whichever the table plays
            session_id = next((info.id for info in store.list()
                               if info.closed is None and info.game in TABLE_GAMES), None)
        if session_id is not None:
            try:
                table = store.open(session_id, get_game)
            except StoreError as exc:
                store.close()
                fail(str(exc))
            if players and list(table.session.setup_options.get("players", [])) != players:
                print(f"dicewatch run: resuming session {table.id} with its own players "
                      f"({', '.join(table.session.setup_options['players'])}); --players ignored", file=sys.stderr)
            print(f"dicewatch run: resumed session {table.id} ({len(table.session.events)} events)", file=sys.stderr)
            return store, table, False
        if not players:
            store.close()
            kind = f"{game.name} " if args.game else ""
            fail(f"no unfinished {kind}game to resume; start one with --players \"Ann,Ben,Cy\"")
    if not players and game.name != "christmas-romance":  # christmas-romance: the rules' default players
        store.close()
        raise UsageError('give the players in seat order, e.g. --players "Ann,Ben,Cy" (or --resume)')
    options = dict(doc.get(game.name, {})) if isinstance(doc.get(game.name, {}), dict) else {}
    options["players"] = players
    if game.name == "christmas-romance":
        from host.fate_table import table_options
        options = table_options(args, options, players)
        if "faces" not in options and config_path is not None:
            # the face names given to the dice (`dicewatch dice rename`), as the README and `place` read them
            from host.commands.place import configured_faces
            from rules.dice import FACE_SETS
            try:
                faces = configured_faces(config_path, doc)
            except ConfigError as exc:
                store.close()
                fail(str(exc))
            if faces != FACE_SETS[game.name]:
                options["faces"] = list(faces)
    try:
        table = store.create(game, options)
    except RuleError as exc:
        store.close()
        where = f" (check the [{game.name}] table of {config_path})" if config_path and doc.get(game.name) else ""
        fail(f"cannot start {game.title}: {exc}{where}")
    print(f"dicewatch run: new session {table.id}", file=sys.stderr)
    return store, table, True


class RunFailed(Exception):
    """Something given to `dicewatch run` cannot be used; the message says what (exit 1)."""


def fail(message: str):
    raise RunFailed(message)


def load_calibration(name: str):
    """The tray calibration: the one named in the config (must exist), else "default" if saved, else None."""
    from host.commands.calibrate import calibration_path, load_named
    from vision.calibrate import CalibrationError, view_advice
    calibration = None
    try:
        if name:
            calibration = load_named(name)
        elif calibration_path("default").is_file():
            calibration = load_named("default")
    except (CalibrationError, UsageError) as exc:
        fail(f"tray calibration: {exc}")
    if calibration is not None:
        for advice in view_advice(calibration):
            print(f"dicewatch run: tray calibration {calibration.name!r}: {advice}", file=sys.stderr)
        return calibration
    print("dicewatch run: no tray calibration saved; reading dice on the whole picture "
          "(run 'dicewatch calibrate' with the mat under the camera for better reads)", file=sys.stderr)
    return None


def make_display(config: DeviceConfig, *, command: str = NAME):
    """The e-ink presenter, or None. A missing HAT is reported (as ``dicewatch COMMAND``) and
    falls back to PNG files."""
    from host.eink import EinkScreen, InkyPanel, PngPanel
    if config.display == "none":
        return None
    folder = Path(config.png_dir) if config.png_dir else data_dir() / "screens"
    if config.display == "inky":
        try:
            return EinkScreen(InkyPanel(), min_interval=config.eink_min_interval, background=True)
        except RuntimeError as exc:
            print(f"dicewatch {command}: {exc}; writing the screens as PNG files to {folder} instead", file=sys.stderr)
    try:
        return EinkScreen(PngPanel(folder, config.display_size), min_interval=config.eink_min_interval)
    except OSError as exc:
        fail(f"cannot write the screens as PNG files to {folder} ({exc.strerror or exc}); "
             f"give a folder you can write to (--png-dir, or png_dir in the config's [device] table)")


def make_devices(config: DeviceConfig, post, *, command: str = NAME):
    """The GPIO parts, or None when switched off or when this machine has no GPIO."""
    if not config.gpio:
        return None
    from host.devices import TableDevices, pins_for
    pins = pins_for()  # ConfigError for a broken pin map: fatal, it is the box's wiring
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # gpiozero warns once per pin library it cannot load
            return TableDevices(pins, on_command=post)
    except Exception as exc:  # noqa: BLE001 - gpiozero raises several kinds when no GPIO is found
        print(f"dicewatch {command}: no GPIO here ({type(exc).__name__}: {exc}); running without the status light, "
              "bar, buzzer, buttons and knob (use --no-gpio to silence this)", file=sys.stderr)
        return None


def make_panel(config: DeviceConfig, post, *, command: str = NAME):
    """The Pico table panel on a serial port (host/panel.py), or None."""
    if not config.panel:
        return None
    try:
        from host import panel
    except ImportError:
        fail("this dicewatch has no serial panel support (host/panel.py is missing)")
    try:
        return panel.open_panel(config.panel, on_command=post)
    except Exception as exc:  # noqa: BLE001 - a missing panel must not stop the game
        print(f"dicewatch {command}: table panel on {config.panel} not available ({exc}); going on without it",
              file=sys.stderr)
        return None


def add_controls(config: DeviceConfig, post, presenters: list, *, command: str = NAME):
    """The GPIO lights, buzzer, buttons and knob and the Pico panel, as configured: each posts
    its commands to ``post`` and shows through ``presenters`` (appended to). Returns
    (GPIO devices, panel), either None when absent; ConfigError for a broken pin map."""
    from host.presenters import DevicePresenter
    devices = make_devices(config, post, command=command)
    if devices is not None:
        presenters.append(DevicePresenter(devices))
    panel = make_panel(config, post, command=command)
    if panel is not None:
        presenters.append(panel)
    return devices, panel


def run(args) -> int:
    try:
        return play(args)
    except RunFailed as exc:
        print(f"dicewatch run: {exc}", file=sys.stderr)
        return 1


def play(args) -> int:
    from host.loop import FrameWatcher, TableLoop
    from host.presenters import TerminalPresenter

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        doc, config, config_path = settings(args)
    except ConfigError as exc:
        fail(str(exc))
    display = make_display(config)  # before the session: a display that cannot work starts no game
    store, table, new = open_table(args, doc, config_path)

    def give_up(message: str):
        if new:  # the game never started: leave no empty session behind for --resume and export latest
            store.discard(table.id)
        store.close()
        fail(message)

    game = table.game
    dice_set = config.dice_set or game.dice or "d6-pips"
    try:
        calibration = load_calibration(config.calibration)
    except RunFailed as exc:
        give_up(str(exc))
    try:
        from host.loop import dice_reader
        reader = dice_reader(dice_set, data_dir(), calibration)
    except Exception as exc:  # noqa: BLE001 - any reason we cannot read these dice is fatal, said plainly
        give_up(f"cannot read the {dice_set} dice: {exc}")

    presenters = []
    if not args.quiet:
        presenters.append(TerminalPresenter())
    if display is not None:
        presenters.append(display)
    overlay_dir = data_dir() / "reads" if config.overlays else None
    if game.name == "christmas-romance":
        from host.fate_table import FateLoop
        loop_class, extra = FateLoop, {"virtual_fate": args.virtual_fate}
    else:
        loop_class, extra = TableLoop, {"choose_characters": not args.no_characters}
    loop = loop_class(table, presenters=presenters,
                      watcher=FrameWatcher(reader, calibration=calibration, overlay_dir=overlay_dir),
                      confidence=config.confidence, retry_max=config.camera_retry_max, **extra)
    if dice_set != "d6-pips":  # custom dice can be taught again from the knob menu, between turns
        from host.commands.teach import box_teacher
        loop.teach_dice = box_teacher(config.camera, dice_set, data_dir(), lambda: FrameWatcher(
            dice_reader(dice_set, data_dir(), calibration), calibration=calibration, overlay_dir=overlay_dir))
    try:
        devices, _ = add_controls(config, loop.post, loop.presenters)
    except ConfigError as exc:
        give_up(str(exc))

    def open_camera():
        from vision.sources import open_source
        if config.camera.startswith("synthetic"):  # its players throw the dice the game asks for
            return open_source(config.camera, realtime=True, dice_set=dice_set, dice_count=loop.dice_wanted)
        return open_source(config.camera)

    loop.open_camera = open_camera
    if sys.stdin.isatty():  # keys typed on the terminal stand in for the buttons and knob (host/keys.py)
        from host.keys import TerminalKeys
        TerminalKeys(loop.post).start()
    signal.signal(signal.SIGTERM, loop.request_stop)
    signal.signal(signal.SIGINT, loop.request_stop)
    try:
        loop.run(frame_interval=config.frame_interval)
    finally:
        loop.shutdown()
        if devices is not None:
            devices.close()
        store.close()
    table = loop.table  # Next after a game's end starts a new session
    if game.name == "christmas-romance" and table.state.phase == "over":
        from host.fate_table import story_text
        print(f"\nThe movie:\n{story_text(table.state)}")
    print(f"dicewatch run: stopped; session {table.id} saved "
          f"({'game over' if getattr(table.state, 'is_over', False) else 'resume with --resume'})", file=sys.stderr)
    return 0
