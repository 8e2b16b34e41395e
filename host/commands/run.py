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
from dataclasses import replace
from pathlib import Path

from host.cli import UsageError
from host import games
from host.config import ConfigError, DeviceConfig, game_options, load_config
from host.keys import TerminalKeys
from host.paths import data_dir, default_config_file
from host.presenters import TerminalPresenter
from host.session_recovery import open_checked
from host.session_store import StoreError
from host.table_setup import (RunFailed, add_controls, display_flags, fail, lean_memory, learning_watcher,
                              load_calibration, make_display)
from rules import get_game
from rules.core import RuleError, Session

# Imported where they are used, so that `dicewatch --help` (which imports every command
# module) stays fast: the table loop (host.loop, host.watcher: gpiozero and the dice
# readers), host.teaching (OpenCV and the dice models), the camera sources (OpenCV) and
# host.panel (pyserial).

NAME = "run"
HELP = "run the box at the table: read the dice, keep the score, drive e-ink and LEDs"

log = logging.getLogger("dicewatch")



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
    parser.add_argument("--quiet", action="store_true", help="do not print the screens on the terminal")
    parser.add_argument("--web", metavar="[HOST:]PORT",
                        help="serve the phone page (PORT alone: this machine only, 127.0.0.1; another address "
                             "asks for the table PIN printed at start)")
    parser.add_argument("--publish", metavar="URL",
                        help="publish the table to an MQTT broker for a league: mqtt://[USER:PASS@]HOST[:PORT]/PREFIX "
                             "(mqtts:// for TLS; default: the config's [box] publish)")
    games.add_setup_arguments(parser, NAME)


def parse_players(text: str | None) -> list[str]:
    if text is None or not text.strip():
        return []  # not given (the service passes an empty list when only resuming)
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise UsageError(f"--players {text!r}: expected names separated by commas, e.g. \"Ann,Ben,Cy\"")
    return names


def settings(args) -> tuple[dict, DeviceConfig, Path | None]:
    path = Path(args.config) if args.config else default_config_file()
    doc, config = load_config(path)
    changes = display_flags(args)
    if args.camera:
        from vision.sources import SourceError, parse_spec  # (OpenCV: see above)
        try:
            parse_spec(args.camera)
        except SourceError as exc:
            raise UsageError(str(exc)) from None
        changes["camera"] = args.camera
    if args.panel:
        from host.panel import parse_panel_spec  # (pyserial: see above)
        try:
            parse_panel_spec(args.panel)
        except ValueError as exc:
            raise UsageError(f"--panel {args.panel}: {exc}") from None
        changes["panel"] = args.panel
    return doc, replace(config, **changes), path


def new_setup(args, game, doc: dict, config_path: Path | None, players: list[str]) -> dict:
    """The setup options of a new session: the game's config table, then its command-line
    arguments (host/games/<game>.py ``setup_options``)."""
    values = game_options(game, doc, config_path)
    module = games.module_for(game.name) if game.name in games.names() else None
    for dest in getattr(module, "SETUP_FLAGS", {}).values():   # a flag left out keeps the config's value
        if getattr(args, dest, None) is None and values.get(dest) is not None:
            setattr(args, dest, values[dest])
    given = module.setup_options(args, players) if module is not None and hasattr(module, "setup_options") \
        else {"players": players}
    return {**game.setup_options(values), **given}


def check_resumed_flags(args, table) -> None:
    """A resumed game keeps its own setup: a setup flag of another game, or one that contradicts
    the session's setup (--mode coop for a solo game), is refused, never silently ignored.
    (Box options such as --virtual-fate apply: the journal keeps them from then on.)"""
    try:
        games.check_setup_flags(args, table.game.name)
    except ValueError as exc:
        raise UsageError(f"{exc} (session {table.id} is a {table.game.title} game)") from None
    module = games.module_for(table.game.name) if table.game.name in games.names() else None
    setup = table.session.setup_options
    for flag, dest in getattr(module, "SETUP_FLAGS", {}).items():
        given = getattr(args, dest, None)
        if given not in (None, False) and dest in setup and setup[dest] != given:
            raise UsageError(f"{flag} {given}: session {table.id} was set up with {dest} {setup[dest]}; a resumed "
                             f"game keeps its setup (leave out {flag}, or start a new game with --players)")


def open_table(args, doc: dict, config_path: Path | None):
    """The stored session to play: ``(store, game, table, None)`` for one resumed, or ``(store,
    game, None, setup)`` for a new one, its setup checked by the rules but the session not yet
    made (:func:`make_table` makes it once the box has started: a box stopped while it starts
    leaves no half-made game behind). Raises RunFailed or UsageError."""
    try:
        game = get_game(args.game or "jingle-bell-roll")
    except LookupError as exc:
        raise UsageError(str(exc)) from None
    if not args.resume:  # (a resumed game is known once opened; it keeps its own setup)
        try:
            games.check_setup_flags(args, game.name)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    players = parse_players(args.players)
    try:  # checked against its logs first: a damaged database is rebuilt from them (host/session_recovery.py)
        store = open_checked(data_dir() / "sessions.db", lambda line: print(f"dicewatch run: {line}", file=sys.stderr))
    except StoreError as exc:
        fail(str(exc))
    if args.resume:
        if args.resume != "latest":
            session_id = args.resume
        elif args.game:
            session_id = store.latest(game.name)
        else:  # no --game: the last unfinished game, whichever the table plays
            session_id = next((info.id for info in store.list()
                               if info.closed is None and info.game in games.names()), None)
        if session_id is not None:
            try:
                table = store.open(session_id, get_game)
            except StoreError as exc:
                store.close()
                fail(str(exc))
            if players and list(table.session.setup_options.get("players", [])) != players:
                print(f"dicewatch run: resuming session {table.id} with its own players "
                      f"({', '.join(table.session.setup_options['players'])}); --players ignored", file=sys.stderr)
            try:
                check_resumed_flags(args, table)
            except UsageError:
                store.close()
                raise
            print(f"dicewatch run: resumed session {table.id} ({len(table.session.events)} events)", file=sys.stderr)
            return store, table.game, table, None
        if not players:
            store.close()
            kind = f"{game.name} " if args.game else ""
            fail(f"no unfinished {kind}game to resume; start one with --players \"Ann,Ben,Cy\"")
    try:
        setup = new_setup(args, game, doc, config_path, players)
    except ConfigError as exc:
        store.close()
        fail(str(exc))
    except ValueError as exc:  # the game's own setup arguments (host/games/)
        store.close()
        raise UsageError(str(exc)) from None
    try:
        Session(game, setup)   # the rules check the setup now; the session is made at make_table
    except RuleError as exc:
        store.close()
        where = f" (check the [{game.name}] table of {config_path})" if config_path and doc.get(game.name) else ""
        fail(f"cannot start {game.title}: {exc}{where}")
    return store, game, None, setup


def make_table(store, game, setup: dict):
    """The new session, made as the game starts (its setup was checked by :func:`open_table`)."""
    table = store.create(game, setup)
    print(f"dicewatch run: new session {table.id}", file=sys.stderr)
    return table


def run(args) -> int:
    # A stop asked for while the box is still starting (loading the dice models, checking the
    # stored games) is kept, not a traceback: the game then starts, is saved and stops at once.
    stop_asked: list[int] = []
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda signum, _frame: stop_asked.append(signum))
    try:
        return play(args, stop_asked)
    except RunFailed as exc:
        print(f"dicewatch run: {exc}", file=sys.stderr)
        return 1


def play(args, stop_asked: list | None = None) -> int:
    lean_memory()   # before the big arrays: see host.table_setup
    from host.loop import TableLoop  # (the table loop: see above)
    from host.watcher import dice_reader  # (the table loop: see above)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    web_address = None
    if args.web:
        from host.web.server import parse_address  # (the phone page: only with --web)
        try:
            web_address = parse_address(args.web)
        except ValueError as exc:
            raise UsageError(f"--web: {exc}") from None
    if args.publish:
        from host.mqtt.box import broker_of  # (MQTT: only with --publish)
        try:
            broker_of(args.publish)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    try:
        doc, config, config_path = settings(args)
        publish = box_publishing(args, doc, config_path)
    except ConfigError as exc:
        fail(str(exc))
    display = make_display(config)  # before the session: a display that cannot work starts no game
    store, game, table, setup = open_table(args, doc, config_path)

    def give_up(message: str):
        if setup is not None and table is not None:   # the game never started: leave no empty session
            store.discard(table.id)                    # behind for --resume and export latest
        store.close()
        fail(message)

    dice_set = config.dice_set or game.dice  # None: a game without dice, played with the knob alone
    calibration = reader = None
    if dice_set is not None:
        try:
            calibration = load_calibration(config.calibration)
        except RunFailed as exc:
            give_up(str(exc))
        try:
            reader = dice_reader(dice_set, data_dir(), calibration)
        except Exception as exc:  # noqa: BLE001 - any reason we cannot read these dice is fatal, said plainly
            give_up(f"cannot read the {dice_set} dice: {exc}")

    presenters = []
    if not args.quiet:
        presenters.append(TerminalPresenter())
    if display is not None:
        presenters.append(display)
    overlay_dir = data_dir() / "reads" if config.overlays else None
    try:
        box_options = {k: v for k, v in game_options(game, doc, config_path).items()
                       if not game.option(k).setup}
    except ConfigError as exc:
        give_up(str(exc))
    web = served = None
    if web_address is not None:
        from host.web.table import WebTable
        web = WebTable()   # its server starts once the table is there: the page it announces is ready
        presenters.append(web)
    if publish is not None:
        presenters.append(publish)
    watcher = learning_watcher(reader, dice_set, data_dir(), calibration, overlay_dir=overlay_dir) if reader else None
    if watcher is not None:
        watcher.camera_source = config.camera   # named when the mat is not where the calibration saw it
    if table is None:   # made only now, after the slow start-up: the table's first screen follows at once
        table = make_table(store, game, setup)
    loop = TableLoop(table, presenters=presenters, watcher=watcher,
                     confidence=config.confidence, retry_max=config.camera_retry_max,
                     **games.loop_arguments(game.name, args, box_options))
    if dice_set not in (None, "d6-pips"):  # custom dice can be taught again from the knob menu, between turns
        from host.teaching import box_teacher  # (OpenCV and the dice models: see above)
        loop.teach_dice = box_teacher(config.camera, dice_set, data_dir(), lambda: learning_watcher(
            dice_reader(dice_set, data_dir(), calibration), dice_set, data_dir(), calibration, overlay_dir=overlay_dir))
    if dice_set is not None:   # the phone page's "Dice to use": another taught set with these faces
        loop.dice_sets, loop.use_dice = dice_switch(dice_set, lambda name: learning_watcher(
            dice_reader(name, data_dir(), calibration), name, data_dir(), calibration, overlay_dir=overlay_dir))
        loop.dice_in_use = dice_set
    try:
        devices, _ = add_controls(config, loop.post, loop.presenters)
    except ConfigError as exc:
        give_up(str(exc))
    if web is not None:
        from host.web.server import start as start_web
        try:
            served = start_web(web, *web_address, data_dir(), out=sys.stderr)
        except OSError as exc:
            give_up(str(exc))

    def open_camera():
        from vision.sources import open_source  # (the camera sources: see above)
        if config.camera.startswith("synthetic"):  # its players throw the dice the game asks for
            return open_source(config.camera, realtime=True, dice_set=dice_set, dice_count=loop.dice_wanted)
        return open_source(config.camera)

    loop.open_camera = open_camera if dice_set is not None else None  # no dice: the camera is left alone
    if sys.stdin.isatty():  # keys typed on the terminal stand in for the buttons and knob (host/keys.py)
        TerminalKeys(loop.post).start()
    signal.signal(signal.SIGTERM, loop.request_stop)
    signal.signal(signal.SIGINT, loop.request_stop)
    if stop_asked:   # asked while starting: stop after the first screen
        loop.request_stop()
    try:
        loop.run(frame_interval=config.frame_interval)
    finally:
        loop.shutdown()
        if served is not None:
            served.stop()
        if devices is not None:
            devices.close()
        store.close()
    table = loop.table  # Next after a game's end starts a new session
    ended = game.is_over(table.state)
    closing = loop.plays.closing_words() if ended else ""
    if closing:
        print(f"\n{closing}")
    print(f"dicewatch run: stopped; session {table.id} saved "
          f"({'game over' if ended else 'resume with --resume'})", file=sys.stderr)
    return 0


def box_publishing(args, doc: dict, config_path):
    """The presenter publishing to --publish (else the config's [box] publish), or None."""
    from host.mqtt.box import box_settings, broker_of, publishing  # (MQTT: see above)
    name, url = box_settings(doc, config_path)
    url = args.publish or url
    if not url:
        return None
    try:
        return publishing(broker_of(url, "--publish" if args.publish else "[box] publish"), name)
    except ValueError as exc:
        raise ConfigError(config_path or "<config>", str(exc)) from None


def dice_switch(dice_set: str, make_watcher):
    """For the table loop (``dice_sets``, ``use_dice``): the die sets in this box with the same
    faces as ``dice_set``, and a watcher reading with one of them (RuleError for any other)."""
    from vision import dicesets   # (the die sets on disk: only when the game has dice)

    def fitting() -> list[str]:
        faces = sorted(dicesets.FACE_SETS.get(dice_set) or dicesets.load_set(dice_set, data_dir()).faces)
        return sorted({s.name for s in dicesets.list_sets(data_dir()) if sorted(s.faces) == faces} | {dice_set})

    def use(name: str):
        known = fitting()
        if name not in known:
            raise RuleError(f"no die set {name!r} with this game's faces in this box; "
                            f"expected one of {', '.join(known)}")
        try:
            return make_watcher(name)
        except Exception as exc:  # noqa: BLE001 - the game goes on with the dice it had
            raise RuleError(f"cannot read with the {name} dice: {exc}") from None

    return fitting, use
