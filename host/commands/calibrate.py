"""Calibrate the tray: find the printed mat's four ArUco markers, compute the top-down view
and the millimetres per pixel, learn the empty tray's picture, and save it all.

Lay the printed mat (see 'dicewatch mat') flat under the camera, all four corner squares in
view, nothing on it. The calibration is saved in the data directory under calibration/NAME.json
(with the NAME-background-HASH.png it names); 'dicewatch read --calibration NAME' then says for each die
whether it lies in the rolling or the keep area. Calibrate again whenever the camera or the
mat moves.

--camera: picamera | opencv:INDEX | opencv:URL | video:FILE | frames:DIR | synthetic[:SEED]

examples:
  dicewatch calibrate --camera picamera
  dicewatch calibrate --camera opencv:0 --name kitchen --preview topdown.png
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from itertools import islice
from pathlib import Path

import cv2

from host.calibration import calibration_path, camera_record, check_name
from host.cli import UsageError
from vision.calibrate import DIE_MM, Calibration, CalibrationError, calibrate, marker_offset, moved_tolerance, view_advice

NAME = "calibrate"
HELP = "find the tray mat's markers and save the calibration (top-down view, scale, background)"
SKIP_FRAMES = {"opencv": 10, "picamera": 0, "video": 0, "frames": 0, "synthetic": 0}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--camera", required=True, metavar="SOURCE",
                        help="picamera | opencv:INDEX | opencv:URL | video:FILE | frames:DIR | synthetic[:SEED]")
    parser.add_argument("--name", default="default", help="name to save it under (default: default)")
    parser.add_argument("--frames", type=int, default=8, metavar="N",
                        help="frames to learn the empty tray from (default 8)")
    parser.add_argument("--preview", type=Path, metavar="FILE", help="also write the top-down view to this image")


def run(args: argparse.Namespace) -> int:
    # the camera sources and the tray finder load only to calibrate: `dicewatch --help`
    # imports every command module and needs neither
    from vision.sources import CameraSpecError, SourceError, open_source, parse_spec
    from vision.tray_finder import TrayFinder

    name = check_name(args.name)
    if not 1 <= args.frames <= 200:
        raise UsageError(f"--frames {args.frames}: expected 1 to 200")
    if args.preview is not None and not cv2.haveImageWriter(str(args.preview)):
        raise UsageError(f"--preview {args.preview}: expected an image file name (.png, .jpg, ...)")
    try:
        spec = parse_spec(args.camera)
    except CameraSpecError as exc:
        raise UsageError(str(exc)) from None
    if args.preview is not None and spec.kind in ("video", "frames") and _is_within(args.preview, Path(spec.target)):
        raise UsageError(f"--preview {args.preview}: is or lies among the camera's own pictures ({spec}); write it elsewhere")
    try:
        with open_source(spec, realtime=False) as source:
            print(f"looking for the mat's markers with {spec} ...", file=sys.stderr, flush=True)
            frames = (frame.image for frame in islice(source, SKIP_FRAMES[spec.kind], None))
            calibration = calibrate(frames, name=name, background_frames=args.frames)
    except (SourceError, CalibrationError) as exc:
        print(f"dicewatch calibrate: {exc}", file=sys.stderr)
        return 1
    calibration = replace(calibration, camera=camera_record(str(spec), spec.kind, calibration.frame_size))
    print(compared_with_saved(calibration, calibration_path(name)), file=sys.stderr)
    try:
        path = calibration.save(calibration_path(name))
    except CalibrationError as exc:
        print(f"dicewatch calibrate: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"dicewatch calibrate: cannot save the calibration to {calibration_path(name)}: "
              f"{exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}; expected a folder "
              f"you can write to", file=sys.stderr)
        return 1
    if args.preview:
        if not cv2.imwrite(str(args.preview), calibration.warp(calibration.background)):
            print(f"{args.preview}: cannot write the preview (folder missing or not .png/.jpg?)", file=sys.stderr)
            return 1
    w, h = calibration.frame_size
    smallest, largest = calibration.die_px_range()
    print(f"calibration {name!r} saved to {path}: {calibration.paper} mat in {w}x{h} frames, "
          f"{calibration.mm_per_pixel:.3f} mm per pixel at the mat's centre, "
          f"markers fit to {calibration.reprojection_px:.2f} px; the camera looks "
          f"{calibration.slant_deg():.0f} degrees from straight down, a {DIE_MM:.0f} mm die is "
          f"{smallest:.0f}-{largest:.0f} px across in the rolling area")
    for advice in view_advice(calibration):
        print(advice, file=sys.stderr)
    if TrayFinder(calibration).out_of_focus(w, h):
        print(f"the picture is soft (the markers' edges are blurred by about {calibration.edge_blur_px():.1f} px): "
              "dice will be found, but focus the lens on the mat for the surest reads", file=sys.stderr)
    return 0


def _is_within(path: Path, source: Path) -> bool:
    """Whether ``path`` is the file ``source`` or lies in the folder ``source``."""
    path, source = path.resolve(), source.resolve()
    return path == source or source in path.parents


def compared_with_saved(calibration: Calibration, path: Path) -> str:
    """One line on what changed since the calibration saved under this name (the camera moved,
    another camera, or the same view), so a recalibration says why it was needed."""
    if not path.is_file():
        return f"no calibration {calibration.name!r} saved before: a new one"
    try:
        old = Calibration.load(path)
    except CalibrationError as exc:
        return f"the calibration saved before could not be read ({exc}); replacing it"
    before, now = (old.camera or {}).get("source"), (calibration.camera or {}).get("source")
    camera = f" (it was made with {before}, this is {now})" if before and before != now else ""
    if old.markers is None:
        return f"replacing calibration {old.name!r} of {old.created or 'an older dicewatch'}, which had no record " \
               f"of its camera and markers{camera}"
    if tuple(old.frame_size) != tuple(calibration.frame_size):
        return (f"replacing calibration {old.name!r}: it was made with {old.frame_size[0]}x{old.frame_size[1]} frames, "
                f"these are {calibration.frame_size[0]}x{calibration.frame_size[1]}{camera}")
    offset = marker_offset(old.markers, calibration.markers or {})
    if offset is not None and offset > moved_tolerance(calibration.frame_size):
        return f"replacing calibration {old.name!r}: the mat's markers lie {offset:.0f} px from where they were " \
               f"(the camera or the mat has moved){camera}"
    return f"replacing calibration {old.name!r}: the camera sees the mat as before ({offset or 0:.1f} px off){camera}"
