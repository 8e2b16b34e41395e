"""Teach dicewatch a die set with custom faces, from photos or at the camera.

examples:
  dicewatch teach --dice my-dice --from photos/          # photos/MILK/*.jpg, photos/BELL/*.jpg, ...
  dicewatch teach --dice my-dice --add more/             # more pictures of some faces (more/BELL/*.jpg)
  dicewatch teach --dice jingle-bell-roll --from photos/ --replace
  dicewatch teach --dice my-dice --camera opencv:0 --faces SUN,MOON,STAR,TREE,CAT,DOG
  dicewatch teach --dice jingle-bell-roll --camera picamera --replace   # on the box
  dicewatch teach --dice jingle-bell-roll --camera synthetic --replace

From a folder: DIR/<FACE>/ holds photos with that face on top, one die in each: either
crops of the die or photos with the die somewhere on a plain background (it is found).
The folder names become the face names. At least 5 photos per face; 8 or more, turned
and moved around, under the light you play in, read best.

At the camera: clear the tray, then show each face in turn as asked; after each picture
move or turn the die (it takes a picture each time the die lies still again). At the end
roll all the dice together and check the read. `synthetic` films rendered dice.
On the box (a config file with [device] display and gpio, or --display) the questions
are also on the e-ink screen, the status light blinks while one waits, the buzzer ticks
for each picture, and the buttons answer: Score (or the knob's push) = ready / yes,
Undo = stop / no; on a terminal, Enter and q.

The set is stored in the data directory (`dicewatch dice list`) and read with
`dicewatch read --dice NAME`. The built-in jingle-bell-roll and christmas-romance sets come
taught from drawn stand-in icons: re-teach them with your real dice using --replace.
"""
from __future__ import annotations

import argparse
import signal
import sys
from dataclasses import replace
from pathlib import Path

from host import paths
from host.cli import UsageError
from host.config import ConfigError, DeviceConfig, load_config
from host.table_setup import RunFailed, display_flags
from host.teach_limits import DEFAULT_SHOTS, MAX_SHOTS, MIN_PHOTOS

NAME = "teach"
HELP = "teach a die set with custom faces (from photos or at the camera)"

# host.teaching and vision.dicesets / vision.sources load OpenCV, the dice models and
# gpiozero: they are imported where teaching runs, so that `dicewatch --help` (which
# imports every command module) stays fast.


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dice", required=True, metavar="NAME",
                        help="name of the die set (letters, digits, '-', '_')")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--from", dest="folder", type=Path, metavar="DIR",
                        help="folder with one sub-folder of photos per face (DIR/<FACE>/*.jpg)")
    source.add_argument("--camera", metavar="SOURCE",
                        help="teach at the camera: picamera | opencv:INDEX | video:FILE | "
                             "frames:DIR | synthetic[:SEED]")
    parser.add_argument("--faces", metavar="A,B,...",
                        help="face names, in order (camera only; default: the built-in set's faces)")
    parser.add_argument("--shots", type=int, default=None, metavar="N",
                        help=f"pictures per face at the camera (default {DEFAULT_SHOTS}, "
                             f"{MIN_PHOTOS} to {MAX_SHOTS})")
    parser.add_argument("--replace", action="store_true",
                        help="replace a die set of that name (taught or built-in)")
    parser.add_argument("--add", nargs="?", const=True, default=False, metavar="DIR",
                        help="add pictures to a taught set, keeping the ones it has and what it learned "
                             "at the table, and teach it again: from DIR (DIR/<FACE>/*.jpg, as --from), "
                             "or at the camera (of the faces in --faces, default every face)")
    box = parser.add_argument_group("the box's screen and buttons (camera only)")
    box.add_argument("--config", metavar="FILE",
                     help="config file whose [device] display, gpio and panel are used (default: "
                          "$DICEWATCH_HOME/config.toml, else /etc/dicewatch/config.toml; "
                          "with neither, the terminal only)")
    box.add_argument("--display", choices=("inky", "png", "none"),
                     help="also ask on this e-ink backend (default: the config's)")
    box.add_argument("--png-dir", metavar="DIR", help="where the png display writes (default: DATA/screens)")
    box.add_argument("--no-gpio", action="store_true", help="no status light, buzzer, buttons or knob")


def run(args: argparse.Namespace) -> int:
    from host import teaching  # (heavy: see above)
    from vision import dicesets  # (heavy: see above)

    data = paths.data_dir()
    from host.commands._writable import check_writable
    check_writable(dicesets.store_dir(data), "the taught die set")   # before the pictures, not after
    try:
        dicesets.check_set_name(args.dice)
    except dicesets.DiceSetError as exc:
        raise UsageError(f"--dice: {exc}") from None
    if args.dice == dicesets.PIPS:
        raise UsageError(f"--dice {dicesets.PIPS}: that name is the built-in pip reader and "
                         f"needs no teaching; choose another name for your dice")
    if args.add and args.replace:
        raise UsageError("--add keeps the set's pictures and --replace drops them: give one of them")
    if isinstance(args.add, str):   # --add DIR: the pictures to add are in DIR
        if args.folder is not None or args.camera:
            raise UsageError(f"--add {args.add}: the pictures are in {args.add}; give no --from or --camera with it")
        args.folder = Path(args.add)
    if args.folder is None and not args.camera:
        raise UsageError("say where the pictures are: --from DIR, --camera SOURCE, or --add DIR for a taught set")
    kept = None
    if args.add:
        try:
            kept = teaching.taught_examples(args.dice, data)
        except teaching.TeachInputError as exc:
            return exc.report()
    elif not args.replace and dicesets.exists(args.dice, data):
        kind = "built-in" if args.dice in dicesets.FACE_SETS else "taught"
        print(f"dicewatch teach: a {kind} die set named {args.dice!r} already exists; "
              f"add --replace to teach it again, or choose another name "
              f"(see 'dicewatch dice list')", file=sys.stderr)
        return 1
    if args.folder is not None:
        if args.faces:
            raise UsageError("--faces is for --camera; with --from the face names are the folder names")
        box_flags = [flag for flag, given in (("--config", args.config), ("--display", args.display),
                                               ("--png-dir", args.png_dir), ("--no-gpio", args.no_gpio),
                                               ("--shots", args.shots is not None)) if given]
        if box_flags:
            raise UsageError(f"{', '.join(box_flags)}: for teaching at the camera (--camera) only")
        try:
            examples = teaching.examples_from_folder(args.folder, adding=kept is not None,
                                                     flag="--add" if isinstance(args.add, str) else "--from")
            if kept is not None:
                examples = teaching.with_added(args.dice, kept, examples)
        except teaching.TeachInputError as exc:
            return exc.report()
        where = str(args.folder) if kept is None else f"its pictures and those in {args.folder}"
    else:
        args.shots = DEFAULT_SHOTS if args.shots is None else args.shots
        if not MIN_PHOTOS <= args.shots <= MAX_SHOTS:
            raise UsageError(f"--shots {args.shots}: expected {MIN_PHOTOS} to {MAX_SHOTS} pictures per face")
        faces = face_list(args) if kept is None else faces_to_add(args, list(kept))
        return teach_at_camera(args, faces, data, kept)
    stored = teaching.store(args.dice, examples, data, args.replace or kept is not None, where, adding=kept is not None)
    return 0 if stored is not None else 1


def face_list(args: argparse.Namespace) -> list[str]:
    from vision import dicesets  # (heavy: see above)
    if args.faces:
        faces = [f.strip() for f in args.faces.split(",")]
        for face in faces:
            try:
                dicesets.check_face_name(face)
            except dicesets.DiceSetError as exc:
                raise UsageError(f"--faces: {exc}") from None
        if len(set(faces)) != len(faces):
            raise UsageError(f"--faces {args.faces}: a face is named twice")
        if len(faces) < 2:
            raise UsageError(f"--faces {args.faces}: a die set needs at least 2 faces")
        return faces
    if args.dice in dicesets.FACE_SETS:
        return list(dicesets.FACE_SETS[args.dice])
    raise UsageError(f"--faces: say the face names of {args.dice!r}, e.g. --faces SUN,MOON,STAR "
                     f"(only the built-in sets have known faces)")


def faces_to_add(args: argparse.Namespace, faces: list[str]) -> list[str]:
    """``--add`` at the camera: the faces named in --faces (each one of the set's), else all."""
    if not args.faces:
        return faces
    wanted = [f.strip() for f in args.faces.split(",") if f.strip()]
    strange = [face for face in wanted if face not in faces]
    if strange or not wanted:
        raise UsageError(f"--faces {args.faces}: with --add, name faces of {args.dice} ({', '.join(faces)})")
    return list(dict.fromkeys(wanted))


def box_config(args: argparse.Namespace) -> DeviceConfig:
    """The box's parts teaching at the camera talks through: the config file's [device]
    display, gpio and panel with --display, --png-dir and --no-gpio applied. Without a
    config file: only what the flags ask for (a laptop with a webcam: the terminal only).
    RunFailed for a broken config file."""
    path = Path(args.config) if args.config else paths.default_config_file()
    try:
        _, config = load_config(path)
    except ConfigError as exc:  # a file, as for dicewatch run: exit 1, FILE:LINE and what was expected
        raise RunFailed(str(exc)) from None
    if path is None:  # no box configured: only what the flags ask for
        config = replace(config, display="none", gpio=False, panel="")
    return replace(config, **display_flags(args))


def teach_at_camera(args: argparse.Namespace, faces: list[str], data, kept: dict | None = None) -> int:
    """Teach at the camera: pictures of ``faces``, added to ``kept`` (``--add``) if given."""
    from host import teaching  # (heavy: see above)
    from vision import sources  # (heavy: see above)
    try:
        spec = sources.parse_spec(args.camera)
    except sources.CameraSpecError as exc:
        raise UsageError(str(exc)) from None
    every_face = list(kept) if kept else faces
    render_set = teaching.synthetic_set(args.dice, every_face) if spec.kind == "synthetic" else None
    check_roll, script = teaching.synthetic_script(spec, faces, args.shots, every_face)
    try:
        console, devices = teaching.open_console(box_config(args), spec.kind == "synthetic", command=NAME)
    except RunFailed as exc:  # a broken config file or pin map, a display that cannot work
        print(f"dicewatch teach: {exc}", file=sys.stderr)
        return 1
    # SIGTERM (systemd, kill) ends teaching like Ctrl-C: the finally blocks put the display
    # to sleep, switch the lights off and release the camera
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        try:
            session = teaching.CameraSession(spec, render_set, script)
        except sources.SourceError as exc:
            console.finish("Camera not available", [str(exc)], terminal=False)
            print(f"dicewatch teach: {exc}", file=sys.stderr)
            if spec.kind in ("picamera", "opencv"):
                print("  if the box's service is running, it has the camera: teach from its knob "
                      "menu (Teach the dice), or 'sudo systemctl stop dicewatch' first", file=sys.stderr)
            return 1
        try:
            return teaching.teach_with(session, console, args, faces, data, check_roll, kept)
        except sources.SourceError as exc:
            console.finish("Camera lost", [str(exc)], terminal=False)
            print(f"dicewatch teach: {exc}", file=sys.stderr)
            return 1
        finally:
            session.close()
    except KeyboardInterrupt:
        console.finish("Stopped", ["nothing more was taught"])
        print("dicewatch teach: stopped", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        console.close()
        if devices is not None:
            devices.close()


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt

