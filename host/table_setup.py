"""Setting up the box's parts for a command that runs at the table (``dicewatch run``,
``dicewatch teach --camera``): the e-ink display, the GPIO lights, buzzer, buttons and
knob, the Pico table panel, and the tray calibration.

Something that cannot be used is reported as ``RunFailed`` (the command says it and
exits 1). A part that is merely absent (no e-ink HAT, no GPIO, no panel) is said on
stderr, as ``dicewatch COMMAND``, and the box goes on without it.

The device backends load only when their part is switched on: the e-ink panel (PIL and
the inky driver), gpiozero and pyserial are not needed to show ``--help`` or to run
without that part.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

from host.calibration import calibration_path, load_named, recalibrate_hint
from host.config import DeviceConfig
from host.errors import UsageError
from host.paths import data_dir
from host.presenters import DevicePresenter
from vision.calibrate import CalibrationError, record_advice, view_advice


class RunFailed(Exception):
    """Something given to `dicewatch run` cannot be used; the message says what (exit 1)."""


def fail(message: str):
    raise RunFailed(message)


def display_flags(args) -> dict:
    """The config changes --display, --png-dir and --no-gpio ask for (run and teach)."""
    changes = {key: value for key, value in (("display", args.display), ("png_dir", args.png_dir)) if value}
    if args.no_gpio:
        changes["gpio"] = False
    return changes


def load_calibration(name: str, *, command: str = "run"):
    """The tray calibration: the one named in the config (must exist), else "default" if saved, else None."""
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
            print(f"dicewatch {command}: tray calibration {calibration.name!r}: {advice}", file=sys.stderr)
        if record_advice(calibration):
            print(f"dicewatch {command}: {record_advice(calibration)}: {recalibrate_hint(calibration)}", file=sys.stderr)
        return calibration
    print(f"dicewatch {command}: no tray calibration saved; reading dice on the whole picture "
          "(run 'dicewatch calibrate' with the mat under the camera for better reads)", file=sys.stderr)
    return None


def make_display(config: DeviceConfig, *, command: str = "run"):
    """The e-ink presenter, or None. A missing HAT is reported (as ``dicewatch COMMAND``) and
    falls back to PNG files."""
    if config.display == "none":
        return None
    from host.eink import EinkScreen, InkyPanel, PngPanel  # (PIL and the panel driver: only with a display)
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


def make_devices(config: DeviceConfig, post, *, command: str = "run"):
    """The GPIO parts, or None when switched off or when this machine has no GPIO."""
    if not config.gpio:
        return None
    from host.devices import TableDevices, pins_for  # (gpiozero: only when GPIO is switched on)
    pins = pins_for()  # ConfigError for a broken pin map: fatal, it is the box's wiring
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # gpiozero warns once per pin library it cannot load
            return TableDevices(pins, on_command=post)
    except Exception as exc:  # noqa: BLE001 - gpiozero raises several kinds when no GPIO is found
        print(f"dicewatch {command}: no GPIO here ({type(exc).__name__}: {exc}); running without the status light, "
              "bar, buzzer, buttons and knob (use --no-gpio to silence this)", file=sys.stderr)
        return None


def make_panel(config: DeviceConfig, post, *, command: str = "run"):
    """The Pico table panel on a serial port (host/panel.py), or None."""
    if not config.panel:
        return None
    try:
        from host import panel  # (pyserial: only when a panel is configured)
    except ImportError:
        fail("this dicewatch has no serial panel support (host/panel.py is missing)")
    try:
        return panel.open_panel(config.panel, on_command=post)
    except Exception as exc:  # noqa: BLE001 - a missing panel must not stop the game
        print(f"dicewatch {command}: table panel on {config.panel} not available ({exc}); going on without it",
              file=sys.stderr)
        return None


def add_controls(config: DeviceConfig, post, presenters: list, *, command: str = "run"):
    """The GPIO lights, buzzer, buttons and knob and the Pico panel, as configured: each posts
    its commands to ``post`` and shows through ``presenters`` (appended to). Returns
    (GPIO devices, panel), either None when absent; ConfigError for a broken pin map."""
    devices = make_devices(config, post, command=command)
    if devices is not None:
        presenters.append(DevicePresenter(devices))
    panel = make_panel(config, post, command=command)
    if panel is not None:
        presenters.append(panel)
    return devices, panel


# glibc's malloc, tuned for a box that holds a few large numpy arrays and frees them again:
# blocks from this size up get their own pages and go back to the system when freed (by
# default that size grows with the largest block freed, so after a 23 MB model copy every
# array under 23 MB stays in the heap for good), and at most this many malloc arenas for the
# loop's, the read worker's and the learner's threads. On `dicewatch run`'s whole game on the
# synthetic camera (host.bench): peak RSS 249 -> 218 MB (1 MB instead of 128 KB: 226 MB).
MMAP_FROM = 128 * 1024
MALLOC_ARENAS = 2


def lean_memory() -> bool:
    """Set MMAP_FROM and MALLOC_ARENAS for this process (``dicewatch run`` does, first);
    False where the C library is not glibc (nothing changed)."""
    import ctypes
    import ctypes.util
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    m_mmap_threshold, m_arena_max = -3, -8   # glibc's malloc.h
    return bool(mallopt(m_mmap_threshold, MMAP_FROM)) and bool(mallopt(m_arena_max, MALLOC_ARENAS))


def learning_watcher(reader, dice_set: str, data, calibration=None, *, overlay_dir=None,
                     background: bool = True):
    """The watcher of ``reader`` (host.watcher.dice_reader of ``dice_set``), learning the dice
    from each roll the table stores when they are a taught set: its ``learner``
    (vision.learning.TableLearner), which the table loop tells of every roll stored, corrected
    or undone; pip dice need no teaching and learn nothing. ``background=False``: the learning
    is done in the loop's thread (benchmarks that must be repeatable)."""
    from host.watcher import FrameWatcher  # (OpenCV and the dice models: only with dice)
    from vision import taught
    learner = None
    if isinstance(reader, taught.TaughtReader):
        from vision.learning import TableLearner
        learner = TableLearner(dice_set, data, reader, background=background)
    watcher = FrameWatcher(learner.reading() if learner else reader, calibration=calibration,
                           overlay_dir=overlay_dir)
    watcher.learner = learner
    return watcher
