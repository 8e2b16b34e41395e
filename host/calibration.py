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


def recalibrate_hint(calibration: Calibration, source: str | None = None) -> str:
    """The command that makes a new calibration of this name with this camera."""
    camera = source or (calibration.camera or {}).get("source") or "SOURCE"
    return f"recalibrate: dicewatch calibrate --camera {camera} --name {calibration.name}"


def camera_record(source: str, backend: str, frame_size: tuple[int, int]) -> dict:
    """What a calibration records of the camera that made it."""
    return {"source": source, "backend": backend, "frame_size": [int(frame_size[0]), int(frame_size[1])]}


def view_problem(calibration: Calibration, image, source: str | None = None) -> str | None:
    """None when ``image`` (from the camera ``source``) shows the mat where ``calibration``
    saw it; else what is wrong (moved, another camera, no mat in view) and how to recalibrate."""
    from vision.calibrate import check_view
    check = check_view(calibration, image)
    if check.fits:
        return None
    made_with = (calibration.camera or {}).get("source")
    if source and made_with and made_with != source:
        who = f"; it was made with {made_with}, this is {source} (another camera?)"
    elif made_with:
        who = f"; it was made with {made_with}"
    else:
        who = ""
    return f"{check.message}{who}. {recalibrate_hint(calibration, source)}"
