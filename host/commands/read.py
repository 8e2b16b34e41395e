"""Read the dice in photos: every die's top face, how sure the reader is, and where it lies.

examples:
  dicewatch read tray.jpg
  dicewatch read photos/*.jpg --json
  dicewatch read tray.jpg --overlay out/      # out/tray.overlay.png shows what was read
  dicewatch read --video roll.mp4             # one read per roll, once the dice lie still

Without --json: one line per image with the faces (reading order: top to bottom, left to
right), the total, and how many dice read below confidence 0.9 (marked '?').
With --json: one JSON object per image on its own line:
  {"image": PATH, "dice": [{"face": "4", "confidence": 0.97, "x": CX, "y": CY, "w": W, "h": H}, ...]}
x, y are the die's centre in pixels of the input image. An image that cannot be read gives
{"image": PATH, "error": "..."}; the other images are still read and the exit status is 1.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from host.cli import UsageError
from host.presenters import how_many_dice

NAME = "read"
HELP = "read the dice in photos (faces, confidence, positions)"
DEFAULT_DICE = "d6-pips"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="*", metavar="IMAGE", help="photo files (JPEG, PNG, ...)")
    parser.add_argument("--dice", default=DEFAULT_DICE, metavar="NAME",
                        help=f"which dice are in the photos (default: {DEFAULT_DICE}, standard pip d6)")
    parser.add_argument("--json", action="store_true", help="one JSON object per image, for machines")
    parser.add_argument("--overlay", metavar="DIR", type=Path,
                        help="write each image with every die outlined and labelled into DIR")
    from host.commands._stream import add_stream_arguments  # --video, --frames, --calibration
    add_stream_arguments(parser)


def resolve_reader(dice_set: str):
    """The one place a --dice name becomes a reader; unknown names are usage errors."""
    from vision.reader import UnknownDiceSet, reader_for
    if dice_set != DEFAULT_DICE:  # built-in custom sets and the user's taught sets
        from host.paths import data_dir
        from vision import dicesets
        if not dicesets.exists(dice_set, data_dir()):
            known = ", ".join(s.name for s in dicesets.list_sets(data_dir()))
            raise UsageError(f"--dice: no die set named {dice_set!r}; known: {known} "
                             f"(teach one with 'dicewatch teach')")
        try:
            return dicesets.load_reader(dice_set, data_dir())
        except (dicesets.DiceSetError, ValueError, OSError) as exc:
            raise UsageError(f"--dice {dice_set}: {exc}") from None
    try:
        return reader_for(dice_set)
    except UnknownDiceSet as exc:
        raise UsageError(f"--dice: {exc}") from None


def as_learned_at_the_table(reader, dice_set: str):
    """A taught set's reader reading with what the set learned at the table, as the box does
    (vision.learning.as_learned); other readers unchanged."""
    from vision import taught
    if not isinstance(reader, taught.TaughtReader):
        return reader
    from host.paths import data_dir
    from vision import learning
    try:
        return learning.as_learned(reader, dice_set, data_dir())
    except learning.LearningError as exc:
        raise UsageError(f"--dice {dice_set}: {exc}") from None


def frames_to_read(args: argparse.Namespace):
    """(label, loader) pairs: each loader returns a BGR frame or raises ImageError."""
    from vision.reader import load_image
    for image in args.images:
        yield image, (lambda path=image: load_image(path))


def run(args: argparse.Namespace) -> int:
    from host.commands._stream import annotate, check_inputs, frames_for, on_the_tray
    check_inputs(args)
    if args.overlay is not None:
        if args.overlay.exists() and not args.overlay.is_dir():
            raise UsageError(f"--overlay {args.overlay}: exists and is not a directory")
        if args.frames is not None and args.overlay.resolve() == args.frames.resolve():
            raise UsageError(f"--overlay {args.overlay}: is the --frames folder being read; write the overlays "
                             "elsewhere (they would be read as frames next time)")
    reader = as_learned_at_the_table(on_the_tray(args, resolve_reader(args.dice)), args.dice)
    from vision import overlay
    from vision.reader import ImageError

    status = 0
    used_names: set[str] = set()
    for label, load in frames_for(args, frames_to_read(args)):
        try:
            frame = load()
        except ImageError as exc:
            status = 1
            report_error(label, exc.reason, args.json)
            continue
        roll = annotate(args, reader(frame))  # areas with --calibration
        if roll is None:  # a settled video frame with no dice: the empty tray between rolls
            continue
        if args.overlay is not None:
            try:
                write_overlay(args.overlay, label, overlay.draw(frame, roll, Path(label).name), used_names)
            except OSError as exc:
                status = 1
                report_error(label, f"cannot write overlay: {exc.strerror or exc}", args.json)
                continue
        print(format_json(label, roll) if args.json else format_line(label, roll), flush=True)
    return status


def report_error(label: str, reason: str, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"image": label, "error": reason}), flush=True)
    else:
        print(f"dicewatch read: {label}: {reason}", file=sys.stderr, flush=True)


def format_json(label: str, roll) -> str:
    dice = []
    for die in roll.dice:
        d = die.to_json()
        d.pop("outline", None)
        dice.append(d)
    return json.dumps({"image": label, "dice": dice})


def format_line(label: str, roll) -> str:
    if not roll.dice:
        return f"{label}: no dice found"
    faces = " ".join(d.face + ("?" if d.confidence < 0.9 else "") for d in roll.dice)
    line = f"{label}: {faces}"
    if all(d.face.isdigit() for d in roll.dice):
        line += f"  total {sum(int(d.face) for d in roll.dice)}"
    unsure = len(roll.uncertain())
    line += f"  ({how_many_dice(len(roll.dice))}" + (f", {unsure} unsure" if unsure else "") + ")"
    return line


def write_overlay(folder: Path, label: str, image, used_names: set[str]) -> Path:
    import cv2
    folder.mkdir(parents=True, exist_ok=True)
    stem = Path(label).stem or "frame"
    name = f"{stem}.overlay.png"
    n = 2
    while name in used_names:  # two inputs with the same file name
        name = f"{stem}-{n}.overlay.png"
        n += 1
    used_names.add(name)
    target = folder / name
    if not cv2.imwrite(str(target), image):
        raise OSError(f"could not write {target}")
    return target
