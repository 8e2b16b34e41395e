"""The saved tray calibrations: where they live in the data directory and loading one by name.

``dicewatch calibrate`` saves them (host/commands/calibrate.py); ``dicewatch run`` and
``dicewatch read --calibration NAME`` load them.
"""
from __future__ import annotations

from pathlib import Path

from host import paths
from host.config import CALIBRATION_NAME_PATTERN
from host.errors import UsageError
from vision.calibrate import Calibration, CalibrationError

NAME_PATTERN = CALIBRATION_NAME_PATTERN


def calibration_dir() -> Path:
    return paths.data_dir() / "calibration"


def check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name or ""):
        raise UsageError(f"--name {name!r}: use letters, digits, '-' and '_' (up to 64)")
    return name


def calibration_path(name: str) -> Path:
    return calibration_dir() / f"{check_name(name)}.json"


def load_named(name: str) -> Calibration:
    """The saved calibration NAME; CalibrationError (with what exists) if there is none."""
    path = calibration_path(name)
    if not path.is_file():
        saved = sorted(p.stem for p in calibration_dir().glob("*.json")) if calibration_dir().is_dir() else []
        hint = f"saved: {', '.join(saved)}" if saved else "none saved yet; run 'dicewatch calibrate --camera ...'"
        raise CalibrationError(f"no calibration named {name!r} ({hint})")
    return Calibration.load(path)
