"""`dicewatch read --video FILE | --frames DIR [--calibration NAME]`: the settled-roll and
calibration options of the read command (kept here so read.py stays about photos).

A video or a folder of numbered frames goes through the settle gate; each settled roll is
one "image" for read: labelled ``FILE@12.40s``, read, printed (and overlaid) like a photo.

The vision modules (and host.calibration, which loads one) are imported where they are
used: read.py loads this module for `dicewatch --help`, which must stay fast.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from host.cli import UsageError

DEFAULT_FPS = 30.0


def add_stream_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("settled rolls from a video or frames, and the calibrated tray")
    group.add_argument("--video", type=Path, metavar="FILE",
                       help="read a video instead of photos: one read per roll, once the dice lie still")
    group.add_argument("--frames", type=Path, metavar="DIR",
                       help="the same for a folder of numbered frames (frame-1.png, frame-2.png, ...)")
    group.add_argument("--fps", type=float,
                       help=f"frames per second of --frames (default {DEFAULT_FPS:g})")
    group.add_argument("--calibration", metavar="NAME",
                       help="a saved tray calibration (dicewatch calibrate): each die gets its area "
                            "(rolling / keep / outside); frames must come from the calibrated camera")


def check_inputs(args: argparse.Namespace) -> None:
    """Exactly one of: photos, --video, --frames."""
    given = [name for name, value in (("IMAGE", args.images), ("--video", args.video), ("--frames", args.frames))
             if value]
    if len(given) != 1:
        raise UsageError("photos (IMAGE ...) are required, or --video FILE, or --frames DIR" +
                         (f" (not {' and '.join(given)} together)" if given else ""))
    if args.fps is not None and args.frames is None:
        raise UsageError(f"--fps {args.fps:g}: only for --frames (a video carries its own frame rate, "
                         "photos have none)")
    if args.frames is not None and args.fps is None:
        args.fps = DEFAULT_FPS
    if args.frames is not None and not 0 < args.fps < math.inf:  # not nan or inf either
        raise UsageError(f"--fps {args.fps}: expected a number of frames per second above 0")


def streaming(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "video", None) or getattr(args, "frames", None))


def settled_frames(args: argparse.Namespace):
    """(label, loader) pairs, one per settled roll; a source that cannot be read becomes one
    loader that raises ImageError (so read reports it like a bad photo)."""
    from vision.calibrate import CalibrationError
    from vision.reader import ImageError
    from vision.settle import SettleGate
    from vision.sources import FrameFolder, SourceError, VideoFile

    name = str(args.video or args.frames)
    calibration = load_calibration(args)
    background = None
    try:
        source = VideoFile(args.video) if args.video else FrameFolder(args.frames, fps=args.fps)
    except SourceError as exc:
        yield name, _failing(ImageError(name, _reason(exc, name)))
        return
    frames = settles = 0
    view = ViewWatch(calibration)
    with source:
        gate = None
        try:
            for image, timestamp in source:
                frames += 1
                problem = view.problem(image)
                if problem:
                    yield name, _failing(ImageError(name, problem))
                    return
                if gate is None:
                    if calibration is not None and calibration.background is not None:
                        h, w = image.shape[:2]
                        try:
                            background = calibration.for_frame_size(w, h).background
                        except CalibrationError as exc:
                            yield name, _failing(ImageError(name, str(exc)))
                            return
                    gate = SettleGate(background=background)
                settle = gate.update(image, timestamp)
                if settle is not None:
                    settles += 1
                    yield f"{name}@{settle.timestamp:.2f}s", (lambda frame=settle.image: frame)
        except SourceError as exc:
            yield name, _failing(ImageError(name, _reason(exc, name)))
            return
    if not settles:  # not an error (nothing was rolled), but never silence
        print(f"dicewatch read: {name}: no roll settled in its {frames} frames (dice are read once they "
              f"have lain still for {SettleGate().window:g} s with no hand in view)", file=sys.stderr)


VIEW_FRAMES = 30   # frames of a video looked at for the mat's markers before giving up


class ViewWatch:
    """The first frames of a video against the calibration: ``problem(image)`` is what is
    wrong once a frame shows it (markers moved, another camera, no mat in the first
    VIEW_FRAMES frames), else None. Frames after a verdict are not looked at."""

    def __init__(self, calibration):
        self.calibration, self.looked, self.done = calibration, 0, calibration is None

    def problem(self, image) -> str | None:
        if self.done:
            return None
        from vision.calibrate import check_view
        from host.calibration import recalibrate_hint
        self.looked += 1
        check = check_view(self.calibration, image)
        if check.verdict == "no-markers" and self.looked < VIEW_FRAMES:
            return None
        self.done = True
        if check.fits:
            return None
        return (f"the calibration does not fit these frames: {check.message}. "
                f"{recalibrate_hint(self.calibration)}")


def _reason(exc: Exception, name: str) -> str:
    text = str(exc)
    return text[len(name) + 2:] if text.startswith(f"{name}: ") else text


def _failing(error: Exception):
    def load():
        raise error
    return load


_UNLOADED = object()


def load_calibration(args: argparse.Namespace):
    """The --calibration named (loaded once per run); None without the flag. A name that
    does not exist or a broken file is a usage error."""
    name = getattr(args, "calibration", None)
    if not name:
        return None
    loaded = getattr(args, "_loaded_calibration", _UNLOADED)
    if loaded is _UNLOADED:
        from host.calibration import load_named, recalibrate_hint
        from vision.calibrate import CalibrationError
        from vision.calibrate import record_advice
        try:
            loaded = load_named(name)
        except CalibrationError as exc:
            raise UsageError(f"--calibration: {exc}") from None
        args._loaded_calibration = loaded
        advice = record_advice(loaded)
        if advice:
            print(f"dicewatch read: {advice}: {recalibrate_hint(loaded)}", file=sys.stderr)
    return loaded


def frames_for(args: argparse.Namespace, photos):
    """The (label, loader) pairs read should read: the settled rolls of --video / --frames,
    else ``photos``; with --calibration each loader also refuses a frame of another shape."""
    pairs = settled_frames(args) if streaming(args) else photos
    calibration = load_calibration(args)
    for label, load in pairs:
        yield label, (load if calibration is None else _checked(label, load, calibration, photo=not streaming(args)))


def _checked(label: str, load, calibration, photo: bool):
    """``load`` refusing a frame of another shape, and a photo whose mat is not where the
    calibration saw it (a video's first frames are looked at in ``settled_frames``)."""
    def checked_load():
        from vision.calibrate import CalibrationError
        from vision.reader import ImageError
        frame = load()
        try:
            calibration.for_frame_size(frame.shape[1], frame.shape[0])
        except CalibrationError as exc:
            raise ImageError(label, str(exc)) from None
        if photo:
            problem = ViewWatch(calibration).problem(frame)
            if problem:
                raise ImageError(label, problem.replace("these frames", "this photo"))
        return frame
    return checked_load


def on_the_tray(args: argparse.Namespace, reader):
    """With --calibration (and its empty-tray picture) the reader finds its dice as the
    device does on that tray: by comparing with the empty mat (vision.tray_finder), so
    touching custom dice are found and crops sit as they did when the set was taught at the
    camera; else the reader unchanged."""
    from vision.tray_finder import on_tray
    return on_tray(reader, load_calibration(args))


def annotate(args: argparse.Namespace, roll):
    """The roll with each die's area when --calibration is given (else unchanged); None for
    a settled video frame with no dice (the empty tray between rolls is not a read)."""
    if streaming(args) and not roll.dice:
        return None
    calibration = load_calibration(args)
    if calibration is None:
        return roll
    from vision.calibrate import annotate_roll
    return annotate_roll(roll, calibration)
