"""Where dicewatch keeps its data and looks for its config.

* Data (sessions, taught die sets, calibration): ``$DICEWATCH_HOME`` if set; on a Pi
  installed as a service, ``/var/lib/dicewatch`` (when it exists and is writable);
  otherwise ``$XDG_DATA_HOME/dicewatch`` (default ``~/.local/share/dicewatch``).
* Config: ``--config FILE`` if given, else ``$DICEWATCH_HOME/config.toml``, else
  ``/etc/dicewatch/config.toml``, else built-in defaults.
"""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SYSTEM_DATA = Path("/var/lib/dicewatch")
SYSTEM_CONFIG = Path("/etc/dicewatch/config.toml")


class DataDirError(Exception):
    """The data directory cannot be made or used; the message says which folder and why."""


def data_dir(create: bool = True) -> Path:
    """The data directory (created on first use); DataDirError when it cannot be created."""
    env = os.environ.get("DICEWATCH_HOME")
    if env:
        path = Path(env).expanduser()
    elif SYSTEM_DATA.is_dir() and os.access(SYSTEM_DATA, os.W_OK):
        path = SYSTEM_DATA
    else:
        xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        path = Path(xdg) / "dicewatch"
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            origin = " ($DICEWATCH_HOME)" if env else ""
            why = "it is a file, not a folder" if path.exists() and not path.is_dir() else exc.strerror or exc
            raise DataDirError(f"the data folder {path}{origin} cannot be used: {why}; "
                               "expected a folder you can write to") from None
    return path


def default_config_file() -> Path | None:
    """The config file to read when none is given on the command line, or None."""
    env = os.environ.get("DICEWATCH_HOME")
    if env and (Path(env).expanduser() / "config.toml").is_file():
        return Path(env).expanduser() / "config.toml"
    if SYSTEM_CONFIG.is_file():
        return SYSTEM_CONFIG
    return None


def pins_file() -> Path:
    """The pin map, hardware/pins.toml: the single source of truth for GPIO numbers."""
    return PROJECT_ROOT / "hardware" / "pins.toml"
