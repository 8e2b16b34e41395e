"""Reading TOML files (config, pin map, overrides) with errors a person can act on.

Every problem is reported as ``ConfigError``: the file, the line when known, and what
was expected, e.g. ``config.toml:12: [jingle-bell-roll] stocking_points: expected a
list of whole numbers, got "three"``.
"""
from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from host.errors import InputFileError, read_text
from rules import game_names
from rules.core import OptionError


class ConfigError(Exception):
    """A config file that cannot be used. ``str()`` names file, line and expectation."""

    def __init__(self, path: Path | str, message: str, line: int | None = None):
        self.path, self.line, self.message = Path(path), line, message
        where = f"{path}:{line}" if line else f"{path}"
        super().__init__(f"{where}: {message}")


_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_toml(path: Path | str) -> dict[str, Any]:
    """Parse a TOML file; ConfigError with the line for a syntax error or a missing file."""
    path = Path(path)
    try:
        text = read_text(path)
    except InputFileError as exc:
        raise ConfigError(path, exc.reason) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        message = _TOML_LINE.sub("", str(exc)).strip()
        line = int(found.group(1)) if found else None
        raise ConfigError(path, f"not valid TOML: {message}", line) from None


def line_of_key(path: Path | str, key: str, table: str | None = None) -> int | None:
    """Best-effort line number of ``key`` (inside ``[table]`` if given), for error messages."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    current = None
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        header = re.match(r"^\[+\s*([^\]]+?)\s*\]+", stripped)
        if header:
            current = header.group(1).strip().strip('"')
            continue
        if re.match(rf'^"?{re.escape(key)}"?\s*=', stripped) and (table is None or current == table):
            return number
    return None


def expect(path: Path | str, table: str | None, key: str, value: Any, kind: type | tuple,
           description: str) -> Any:
    """Return ``value`` if it is of ``kind``; otherwise ConfigError naming the line."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # bool is an int in Python, but `true` is never a valid count in a config file.
    if isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds):
        return value
    where = f"[{table}] {key}" if table else key
    raise ConfigError(path, f"{where}: expected {description}, got {value!r}", line_of_key(path, key, table))


# -- the device config ------------------------------------------------------------------------
#
# One file, [device] table, every key optional. Defaults suit a Pi with a camera module and
# an Inky HAT; `dicewatch demo` and tests override them. Other tables ([jingle-bell-roll],
# [dice.NAME], ...) belong to the rules and vision and are passed through untouched.

CAMERAS_HELP = "picamera, opencv:INDEX, opencv:URL, video:FILE, frames:DIR or synthetic[:SEED]"
#: the name of a saved tray calibration (``dicewatch calibrate --name``, [device] calibration)
CALIBRATION_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


MAX_PANEL = (1600, 1200)   # px: the largest e-ink panels are 1600x1200 (13.3"); beyond is a typo


@dataclass(frozen=True)
class DeviceConfig:
    """Settings of the box. Each field is a key of the config file's ``[device]`` table."""

    camera: str = "picamera"            # picamera | opencv:INDEX | opencv:URL | video:FILE | frames:DIR | synthetic
    dice_set: str = ""                  # taught dice set to read with ("" = the game's built-in)
    calibration: str = ""               # saved tray calibration ("" = "default" when it exists)
    confidence: float = 0.9             # a die read below this must be confirmed by a player
    display: str = "inky"               # inky | png | none
    display_size: tuple[int, int] = (250, 122)   # png panel size (inky reports its own)
    png_dir: str = ""                   # where the png display writes ("" = DATA/screens)
    eink_min_interval: float = 5.0      # seconds between full e-ink refreshes
    gpio: bool = True                   # drive the status light, bar, buzzer, buttons, knob
    panel: str = ""                     # serial port of the Pico table panel ("" = none)
    camera_retry_max: float = 30.0      # longest wait between camera reconnect attempts
    frame_interval: float = 0.0         # extra pause between frames (0: as fast as the camera delivers)
    overlays: bool = False              # save each read's overlay (found dice, confidence) in DATA/reads


_DEVICE_TYPES: dict[str, tuple[type | tuple, str]] = {
    "camera": (str, f"a camera: {CAMERAS_HELP}"),
    "dice_set": (str, "the name of a taught dice set"),
    "calibration": (str, "the name of a saved tray calibration (dicewatch calibrate --name)"),
    "confidence": ((int, float), "a number between 0 and 1"),
    "display": (str, 'one of "inky", "png", "none"'),
    "display_size": (list, "[width, height] in pixels, e.g. [250, 122], [400, 300] or [800, 480]"),
    "png_dir": (str, "a folder path"),
    "eink_min_interval": ((int, float), "seconds (a number >= 0)"),
    "gpio": (bool, "true or false"),
    "panel": (str, '"auto", "usb:VID:PID", "serial:/dev/ttyACM0", a port path, or "" for none'),
    "camera_retry_max": ((int, float), "seconds (a number >= 1)"),
    "frame_interval": ((int, float), "seconds (a number >= 0)"),
    "overlays": (bool, "true or false"),
}


def device_config(doc: dict[str, Any], path: Path | str = "<config>") -> DeviceConfig:
    """The ``[device]`` table of a parsed config file, checked key by key."""
    table = doc.get("device", {})
    if not isinstance(table, dict):
        raise ConfigError(path, "device: expected a table [device]", line_of_key(path, "device"))
    known = {f.name for f in fields(DeviceConfig)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(path, f"[device] unknown key {key!r}; expected one of {', '.join(sorted(known))}",
                              line_of_key(path, key, "device"))
        kind, description = _DEVICE_TYPES[key]
        expect(path, "device", key, value, kind, description)
        values[key] = value
    line = lambda key: line_of_key(path, key, "device")  # noqa: E731
    if "confidence" in values and not 0 <= values["confidence"] <= 1:
        raise ConfigError(path, f"[device] confidence: expected a number between 0 and 1, got {values['confidence']!r}",
                          line("confidence"))
    if "display" in values and values["display"] not in ("inky", "png", "none"):
        raise ConfigError(path, f"[device] display: expected one of \"inky\", \"png\", \"none\", got "
                          f"{values['display']!r}", line("display"))
    if "display_size" in values:
        size = values["display_size"]
        if (len(size) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in size)
                or not (200 <= size[0] <= MAX_PANEL[0] and 100 <= size[1] <= MAX_PANEL[1])):
            raise ConfigError(path, f"[device] display_size: expected [width, height] from [200, 100] to "
                              f"[{MAX_PANEL[0]}, {MAX_PANEL[1]}], got {size!r}", line("display_size"))
        values["display_size"] = (size[0], size[1])
    for key, low in (("eink_min_interval", 0), ("camera_retry_max", 1), ("frame_interval", 0)):
        if key in values and values[key] < low:
            raise ConfigError(path, f"[device] {key}: expected seconds >= {low}, got {values[key]!r}", line(key))
    if "calibration" in values:
        if not CALIBRATION_NAME_PATTERN.fullmatch(values["calibration"]):
            raise ConfigError(path, f"[device] calibration: {values['calibration']!r}: expected the name of a saved "
                              "tray calibration: letters, digits, '-' and '_' (up to 64)", line("calibration"))
    if values.get("panel"):  # "" is no panel
        from host.panel import parse_panel_spec  # (loads pyserial: only for a config that names a panel)
        try:
            parse_panel_spec(values["panel"])
        except ValueError as exc:
            raise ConfigError(path, f"[device] {exc}", line("panel")) from None
    if "camera" in values:
        from vision.sources import SourceError, parse_spec  # (loads OpenCV: only for a config that names a camera)
        try:
            parse_spec(values["camera"])
        except SourceError as exc:
            raise ConfigError(path, f"[device] camera: expected {CAMERAS_HELP} ({exc})", line("camera")) from None
    return replace(DeviceConfig(), **values)


def load_config(path: Path | str | None) -> tuple[dict[str, Any], DeviceConfig]:
    """Read the config file (or nothing when ``path`` is None): the whole document and its [device]."""
    if path is None:
        return {}, DeviceConfig()
    doc = load_toml(path)
    check_tables(doc, path)
    return doc, device_config(doc, path)


def known_tables() -> list[str]:
    """The config file's tables: [device], [dice.<set>], and one per game the box knows."""
    return ["device", "dice", "box", *game_names()]   # [box]: host/mqtt/box.py


def check_tables(doc: dict[str, Any], path: Path | str) -> None:
    """A misspelt table ([devcie], [jingle-bell-rol]) is an error, not silently ignored."""
    known = known_tables()
    for name in doc:
        if name in known:
            continue
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean [{close[0]}]?" if close else ""
        raise ConfigError(path, f"unknown table [{name}]{hint} (expected one of "
                          f"{', '.join(f'[{t}]' for t in known)})", line_of_key(path, name) or _table_line(path, name))
    _check_dice_tables(doc.get("dice"), path)
    _check_game_tables(doc, path)


def _check_game_tables(doc: dict[str, Any], path: Path | str) -> None:
    """Every game's table is read by its game (each key and value checked), not only the table
    of the game being played: a wrong value for another game is said now, not when it is played."""
    from rules import get_game
    for name in game_names():
        if name in doc:
            game_options(get_game(name), doc, path)


def _check_dice_tables(named: Any, path: Path | str) -> None:
    """[dice.<set>] tables name the faces of a game's dice, for the games that let them be
    renamed (a ``faces`` option); any other set or key would be read by nothing."""
    if not isinstance(named, dict):
        return  # (not a table: game_options says so with its line)
    from rules import get_game
    renamable = sorted({game.dice for game in map(get_game, game_names())
                        if game.dice and "faces" in {option.name for option in game.options}})
    for dice_set, table in named.items():
        if dice_set not in renamable:
            close = difflib.get_close_matches(dice_set, renamable, n=1)
            hint = f"did you mean [dice.{close[0]}]? " if close else ""
            raise ConfigError(path, f"[dice.{dice_set}]: {hint}only the faces of "
                              f"{', '.join(f'[dice.{d}]' for d in renamable)} can be renamed here",
                              _table_line(path, "dice"))
        for key in table if isinstance(table, dict) else ():
            if key != "faces":
                raise ConfigError(path, f"[dice.{dice_set}] unknown key {key!r}; expected faces = [...]",
                                  line_of_key(path, key, f"dice.{dice_set}"))


def _table_line(path: Path | str, name: str) -> int | None:
    """The line of the header ``[name]`` (or ``[name.xxx]``) in the config file."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for number, raw in enumerate(lines, start=1):
        if re.match(rf"^\[+\s*{re.escape(name)}\s*[\].]", raw.strip()):
            return number
    return None


def game_options(game, doc: dict[str, Any], path: Path | str | None) -> dict[str, Any]:
    """The game's options from the config file: its ``[<game-name>]`` table read by the game
    itself (``Game.read_options``: each key checked, the defaults filled in). For a game with a
    ``faces`` option not set there, the names given to its dice (``[dice.<dice set>] faces``,
    as ``dicewatch dice rename`` says to write them) are used. ConfigError names the file, the
    line and what was expected."""
    where = path if path is not None else "<config>"
    table = doc.get(game.name)
    try:
        values = game.read_options(table)
    except OptionError as exc:
        raise ConfigError(where, str(exc), line_of_key(where, exc.key, game.name)) from None
    if "faces" not in values or (isinstance(table, dict) and "faces" in table):
        return values
    named = doc.get("dice", {})
    if not isinstance(named, dict):
        raise ConfigError(where, f"dice: expected tables such as [dice.{game.dice}], got {named!r}",
                          line_of_key(where, "dice"))
    renamed = named.get(game.dice, {})
    if not isinstance(renamed, dict):
        raise ConfigError(where, f"[dice] {game.dice}: expected a table [dice.{game.dice}] with faces = [...], "
                          f"got {renamed!r}", line_of_key(where, game.dice, "dice"))
    if renamed.get("faces") is not None:
        try:
            values["faces"] = game.option("faces").check(renamed["faces"])
        except (ValueError, TypeError) as exc:
            raise ConfigError(where, f"[dice.{game.dice}] faces: {exc}",
                              line_of_key(where, "faces", f"dice.{game.dice}")) from None
    return values
