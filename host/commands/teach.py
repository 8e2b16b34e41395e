"""Teach dicewatch a die set with custom faces, from photos or at the camera.

examples:
  dicewatch teach --dice my-dice --from photos/          # photos/MILK/*.jpg, photos/BELL/*.jpg, ...
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
import math
import signal
import sys
from pathlib import Path

from host.cli import UsageError
from host.presenters import how_many_dice

NAME = "teach"
HELP = "teach a die set with custom faces (from photos or at the camera)"
MIN_PHOTOS = 5  # per face
DEFAULT_SHOTS = 8
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
LOOSE_CROP_PX = 200  # images this small (longer side) are taken as crops of one die


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dice", required=True, metavar="NAME",
                        help="name of the die set (letters, digits, '-', '_')")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="folder", type=Path, metavar="DIR",
                        help="folder with one sub-folder of photos per face (DIR/<FACE>/*.jpg)")
    source.add_argument("--camera", metavar="SOURCE",
                        help="teach at the camera: picamera | opencv:INDEX | video:FILE | "
                             "frames:DIR | synthetic[:SEED]")
    parser.add_argument("--faces", metavar="A,B,...",
                        help="face names, in order (camera only; default: the built-in set's faces)")
    parser.add_argument("--shots", type=int, default=DEFAULT_SHOTS, metavar="N",
                        help=f"pictures per face at the camera (default {DEFAULT_SHOTS}, "
                             f"at least {MIN_PHOTOS})")
    parser.add_argument("--replace", action="store_true",
                        help="replace a die set of that name (taught or built-in)")
    parser.add_argument("--add", action="store_true",
                        help="add pictures to a taught set, keeping the ones it has, and teach it again "
                             "(at the camera: of the faces in --faces, default every face)")
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
    from host import paths
    from vision import dicesets

    data = paths.data_dir()
    try:
        dicesets.check_set_name(args.dice)
    except dicesets.DiceSetError as exc:
        raise UsageError(f"--dice: {exc}") from None
    if args.dice == dicesets.PIPS:
        raise UsageError(f"--dice {dicesets.PIPS}: that name is the built-in pip reader and "
                         f"needs no teaching; choose another name for your dice")
    if args.add and args.replace:
        raise UsageError("--add keeps the set's pictures and --replace drops them: give one of them")
    kept = None
    if args.add:
        try:
            kept = taught_examples(args.dice, data)
        except TeachInputError as exc:
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
                                               ("--png-dir", args.png_dir), ("--no-gpio", args.no_gpio)) if given]
        if box_flags:
            raise UsageError(f"{', '.join(box_flags)}: for teaching at the camera (--camera) only")
        try:
            examples = examples_from_folder(args.folder, adding=kept is not None)
            if kept is not None:
                examples = with_added(args.dice, kept, examples)
        except TeachInputError as exc:
            return exc.report()
        where = str(args.folder) if kept is None else f"its pictures and those in {args.folder}"
    else:
        if args.shots < MIN_PHOTOS:
            raise UsageError(f"--shots {args.shots}: at least {MIN_PHOTOS} pictures per face are needed")
        faces = face_list(args) if kept is None else faces_to_add(args, list(kept))
        return teach_at_camera(args, faces, data, kept)
    return 0 if store(args.dice, examples, data, args.replace or kept is not None, where) is not None else 1


class TeachInputError(ValueError):
    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems

    def report(self) -> int:
        """Print every problem, one line each, and give the exit status (1)."""
        for line in self.problems:
            print(f"dicewatch teach: {line}", file=sys.stderr)
        return 1


def face_list(args: argparse.Namespace) -> list[str]:
    from vision import dicesets
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


# --------------------------------------------------------------------------- adding pictures

def taught_examples(name: str, data) -> dict[str, list]:
    """The pictures of the taught set ``name``, to add to (``--add``)."""
    from vision import dicesets
    stored = dicesets.load_set(name, data) if dicesets.exists(name, data) else None
    if stored is None or stored.origin != "taught":
        what = ("holds the built-in rendered stand-ins, not pictures of your dice"
                if name in dicesets.FACE_SETS else "is not a taught die set")
        raise TeachInputError([f"--add: {name!r} {what}; teach your dice first (without --add"
                               f"{', with --replace' if name in dicesets.FACE_SETS else ''}), "
                               f"then add pictures to them"])
    return dicesets.example_crops(stored)


def with_added(name: str, kept: dict[str, list], added: dict[str, list]) -> dict[str, list]:
    """The set's pictures with ``added`` ones, face by face, in the set's face order."""
    strange = [face for face in added if face not in kept]
    if strange:
        raise TeachInputError([f"--add: {', '.join(strange)} {'is not a face' if len(strange) == 1 else 'are not faces'}"
                               f" of {name} ({', '.join(kept)}); name the folders after its faces, "
                               f"or teach a new set with --replace"])
    return {face: list(kept[face]) + list(added.get(face, [])) for face in kept}


def faces_to_add(args: argparse.Namespace, faces: list[str]) -> list[str]:
    """``--add`` at the camera: the faces named in --faces (each one of the set's), else all."""
    if not args.faces:
        return faces
    wanted = [f.strip() for f in args.faces.split(",") if f.strip()]
    strange = [face for face in wanted if face not in faces]
    if strange or not wanted:
        raise UsageError(f"--faces {args.faces}: with --add, name faces of {args.dice} ({', '.join(faces)})")
    return list(dict.fromkeys(wanted))


def look_alike(model) -> list[tuple[str, int, int]]:
    """(face, its pictures read wrong when left out, its pictures): the faces the self-check
    confused."""
    example_face = model.example_faces()
    if len(example_face) != len(model.loo_right):
        return []
    out = []
    for index, face in enumerate(model.faces):
        mine = example_face == index
        missed = int((~model.loo_right[mine]).sum())
        if missed:
            out.append((face, missed, int(mine.sum())))
    return out


# --------------------------------------------------------------------------- from a folder

def examples_from_folder(folder: Path, adding: bool = False) -> dict[str, list]:
    """Example crops per face from DIR/<FACE>/ photos; TeachInputError lists every problem.
    ``adding`` (--add): any number of photos of any of the set's faces will do; the set
    they join has the rest."""
    from vision import dicesets
    if not folder.exists():
        raise TeachInputError([f"--from {folder}: no such folder"])
    if not folder.is_dir():
        raise TeachInputError([f"--from {folder}: not a folder; expected a folder with one "
                               f"sub-folder of photos per face ({folder}/<FACE>/*.jpg)"])
    face_dirs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not face_dirs:
        loose = [p.name for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES]
        hint = (f" (it holds {len(loose)} photo(s) directly: put each face's photos in a "
                f"sub-folder named after the face)" if loose else "")
        raise TeachInputError([f"--from {folder}: no face folders{hint}; expected "
                               f"{folder}/<FACE>/ with photos of that face on top, e.g. "
                               f"{folder}/BELL/1.jpg"])
    problems, examples = [], {}
    finder = _finder()
    for face_dir in face_dirs:
        try:
            dicesets.check_face_name(face_dir.name)
        except dicesets.DiceSetError as exc:
            problems.append(f"{face_dir}: {exc}")
            continue
        photos = sorted(p for p in face_dir.iterdir()
                        if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
        if not photos:
            problems.append(f"{face_dir}: no photos (expected .jpg, .png, .bmp, .tif or .webp "
                            f"files of the {face_dir.name} face)")
            continue
        crops = []
        for photo in photos:
            try:
                crops.append(die_crop_from_photo(photo, finder))
            except ValueError as exc:
                problems.append(str(exc))
        if len(photos) < (1 if adding else MIN_PHOTOS):
            problems.append(f"{face_dir}: {len(photos)} photo(s) of {face_dir.name}; at least "
                            f"{MIN_PHOTOS} needed (8 or more read best)")
        examples[face_dir.name] = crops
    if len(face_dirs) == 1 and not problems and not adding:
        problems.append(f"--from {folder}: only one face folder ({face_dirs[0].name}); "
                        f"a die set needs at least 2 faces")
    if problems:
        raise TeachInputError(problems)
    return examples


def _finder(one_die: bool = True):
    """The pip reader's die finder if its model is installed, else None: for one-die teaching
    photos (``dicesets.pip_finder(one_die=True)``), or with ``one_die=False`` for a roll."""
    try:
        from vision import dicesets
        return dicesets.pip_finder(one_die=one_die)
    except Exception:  # no model file yet: teaching photos fall back to the plain-background finder
        return None


# A tilted die can show a finder a second "die" on its side face, nearer the first than two
# dice lying side by side usually are: their centres are a die's edge apart or more, and a
# finder's box of a die is about an edge across (up to 1.4 edges for a die turned 45
# degrees). Under SAME_DIE_SHARE of the box's side it is taken for the same die; only two
# dice both turned near 45 degrees and touching could come that close, and a teaching
# photo shows one die.
SAME_DIE_SHARE = 0.75


def one_die_seen_twice(boxes) -> bool:
    """Whether a teaching photo's finds (surest first) are all the first one's die: each
    centre within SAME_DIE_SHARE of the first box's side."""
    x, y, w, h = boxes[0]
    return all(math.hypot(bx - x, by - y) < SAME_DIE_SHARE * max(w, h) for bx, by, _, _ in boxes[1:])


def die_crop_from_photo(photo: Path, finder=None):
    """The one die in a teaching photo, as a crop; ValueError naming the file if not."""
    from vision import taught
    from vision.reader import ImageError, load_image
    try:
        image = load_image(photo)
    except ImageError as exc:
        raise ValueError(f"{photo}: {exc.reason}") from None
    h, w = image.shape[:2]
    if min(h, w) < taught.MIN_CROP_PX:
        raise ValueError(f"{photo}: {w}x{h} pixels; expected a photo or a crop of one die at least "
                         f"{taught.MIN_CROP_PX} pixels each way")
    if max(h, w) <= LOOSE_CROP_PX:
        return taught.tighten_crop(image)
    boxes = list(finder(image)) if finder is not None else []
    if len(boxes) > 1 and one_die_seen_twice(boxes):
        boxes = boxes[:1]
    if len(boxes) > 1:
        raise ValueError(f"{photo}: {len(boxes)} dice found; each photo should show one die "
                         f"(or be a crop of one die)")
    if not boxes:
        box = taught.locate_single_die(image)
        if box is None:
            raise ValueError(f"{photo}: no die found; photograph one die on a plain background "
                             f"or crop the photo to the die")
        boxes = [box]
    x, y, bw, bh = boxes[0]
    return taught.face_crop(image, x, y, bw, bh)


def store(name: str, examples: dict, data, replace: bool, where: str):
    """Save the set and report its self-check; the taught FaceModel, or None (said why)."""
    from vision import dicesets, taught
    if name in dicesets.FACE_SETS:
        expected = set(dicesets.FACE_SETS[name])
        missing = sorted(expected - set(examples))
        if missing:
            print(f"dicewatch teach: note: the rules of {name} use the faces "
                  f"{', '.join(dicesets.FACE_SETS[name])}; this set has no "
                  f"{', '.join(missing)} (rename faces with 'dicewatch dice rename')", file=sys.stderr)
    try:
        stored = dicesets.save_set(name, examples, data, replace=replace, min_examples=MIN_PHOTOS)
    except (dicesets.DiceSetError, taught.TeachError) as exc:
        print(f"dicewatch teach: {exc}", file=sys.stderr)
        return None
    model = dicesets.load_model(name, data)
    right, total = model.self_check
    counts = ", ".join(f"{f} {len(stored.examples[f])}" for f in stored.faces)
    print(f"taught {name} from {where}: {len(stored.faces)} faces ({counts})")
    print(f"self-check: {right} of {total} examples read right when left out of the teaching")
    if right < total:
        confused = look_alike(model)
        if confused:
            which = ", ".join(f"{face} ({missed} of {count})" for face, missed, count in confused)
            names = ",".join(face for face, _, _ in confused)
            print(f"  read wrong when left out: {which}: those faces look alike in these pictures. More "
                  f"of them (turned, moved, in the light you play in) can be added, keeping these: "
                  f"dicewatch teach --dice {name} --add --faces {names} --camera ... (or --from DIR)")
        else:
            print("  some faces look alike in these photos: add more (turned, moved, in your light) "
                  f"with --add")
    print(f"stored in {stored.folder}; read with: dicewatch read --dice {name} PHOTO")
    return model


# --------------------------------------------------------------------------- at the camera

def _synthetic_set(name: str, faces: list[str]) -> str:
    """The built-in set the synthetic camera draws for these faces."""
    from vision import dicesets
    if name in dicesets.FACE_SETS and set(faces) <= set(dicesets.FACE_SETS[name]):
        return name
    for candidate, known in dicesets.FACE_SETS.items():
        if set(faces) <= set(known):
            return candidate
    raise UsageError(f"--camera synthetic draws only the built-in faces "
                     f"({'; '.join(', '.join(v) for v in dicesets.FACE_SETS.values())}); "
                     f"--faces {','.join(faces)} are not all of one set")


class CameraSession:
    """The camera side of interactive teaching: the empty tray, then settled frames.

    ``settled()`` is one stream for the whole session (each call continues it). The synthetic
    camera plays ``script``: the throws the user would make (one die per face, ``shots``
    times each, then the mixed roll).
    """

    def __init__(self, spec, render_set: str | None = None, script=None):
        from vision import sources
        self.spec = spec
        self.synthetic = spec.kind == "synthetic"
        self.seed = int(spec.target or 0) if self.synthetic else 0
        if self.synthetic:
            self.camera = sources.SyntheticCamera(self.seed, script=script, dice_set=render_set,
                                                  fps=10.0, hold=0.8, lead_in=0.3)
        else:
            self.camera = sources.open_source(spec)
        self.background = None
        self.tray_finder = None
        self._stream = None
        self._put_back: list = []
        self.stop = None  # an Event: once set, the settled frames end (the table loop's SIGTERM)

    def learn_background(self) -> None:
        import numpy as np
        from vision.sources import SourceError
        frames = [frame.image for _, frame in zip(range(1 if self.synthetic else 5), self.camera)]
        if not frames:
            raise SourceError(f"{self.spec}: no frames to learn the empty tray from")
        self.background = np.median(np.stack(frames), axis=0).astype(frames[0].dtype)
        self.tray_finder = tray_finder_for(frames)

    def boxes(self, frame) -> list:
        """The dice in a frame: cut as reads on this tray will cut them (the calibrated
        tray's finder when the mat is in view), else what differs from the empty tray."""
        from vision import taught
        if self.tray_finder is not None:
            return self.tray_finder(frame)
        return taught.find_by_background(frame, self.background)

    def off_the_mat(self, frame) -> bool:
        """For a frame where the calibrated tray's finder found no die: does anything still
        differ from the empty tray (a die off the mat's areas, where it does not look)?
        Always False without a calibrated mat."""
        from vision import taught
        return self.tray_finder is not None and bool(taught.find_by_background(frame, self.background))

    def settled(self):
        """The frames where the tray lies still again, one per settle; a frame ``put_back``
        comes again first."""
        if self._stream is None:
            self._stream = self._settles()
        return self._continued()

    def _continued(self):
        while True:
            if self._put_back:
                yield self._put_back.pop()
                continue
            frame = next(self._stream, None)
            if frame is None:
                return
            yield frame

    def put_back(self, frame) -> None:
        """The next ``settled()`` starts with ``frame`` again (it was for the next question)."""
        self._put_back.append(frame)

    def throw_index(self) -> int | None:
        """The synthetic camera's throw (index in its script) the last frame shows; None for
        a real camera, which does not know."""
        truth = getattr(self.camera, "truth", None) if self.synthetic else None
        return None if truth is None else truth.roll

    def _settles(self):
        from vision.settle import SettleGate
        gate = SettleGate(background=self.background, report_first=True)
        for image, t in self.camera:
            if self.stop is not None and self.stop.is_set():
                return
            settle = gate.update(image, t)
            if settle is not None:
                yield settle.image

    def close(self) -> None:
        self.camera.close()


def tray_finder_for(empty_frames):
    """The calibrated tray's die finder when the printed mat is in view of these empty-tray
    frames (so teaching crops sit on the dice as the device's reads will), else None."""
    from vision.calibrate import CalibrationError, calibrate
    from vision.tray_finder import TrayFinder
    try:
        return TrayFinder(calibrate(empty_frames, name="teaching"))
    except (CalibrationError, ValueError):
        return None


class CaptureError(Exception):
    """The camera stopped before it had enough pictures of a face."""


def capture_examples(session: CameraSession, faces: list[str], shots: int, console) -> dict[str, list] | None:
    """Each face in turn: ask for one die showing it, take ``shots`` pictures of it, one each
    time it lies still again (the die found by ``session.boxes``).
    Returns the crops per face, or None if the player stopped; ``console`` (a
    host.teach_console.TeachConsole) asks and reports progress."""
    from vision import taught
    examples: dict[str, list] = {}
    for n, face in enumerate(faces, 1):
        if not console.ask(f"Face {n} of {len(faces)}: {face}",
                           [f"Put ONE die in the tray with {face} on top.",
                            f"I take {shots} pictures; after each, move or turn the die."]):
            return None
        crops = []
        for frame in session.settled():
            if console.stopping:
                return None
            thrown = session.throw_index()
            if thrown is not None and thrown >= n * shots:
                # the synthetic player's script has gone on to the next face (or the mixed
                # roll): a throw of this face went unseen; that frame is the next question's
                session.put_back(frame)
                break
            boxes = session.boxes(frame)
            if not boxes:
                if session.off_the_mat(frame):
                    console.say("I see something outside the mat's rolling and keep areas; "
                                "put the die on the mat's rolling area")
                continue  # else the empty tray lying still
            if len(boxes) != 1:
                console.say(f"I see {len(boxes)} dice; leave exactly one die in the tray")
                continue
            x, y, w, h = boxes[0]
            # the camera over the tray: a box's extra height is shadow, not a slanted view
            crops.append(taught.face_crop(frame, x, y, w, h, shift=0.0))
            console.say(f"{face}: picture {len(crops)} of {shots}", picture=True)
            if len(crops) >= shots:
                break
        if console.stopping:  # the box is shutting down (the camera's frames ended for that)
            return None
        if len(crops) < MIN_PHOTOS:
            raise CaptureError(f"the camera stopped after {len(crops)} picture(s) of {face}; "
                               f"at least {MIN_PHOTOS} needed")
        examples[face] = crops
    return examples


def teach_console(args: argparse.Namespace, synthetic: bool):
    """The console teaching at the camera talks through: the terminal, plus the box's e-ink
    screen, lights, buzzer and buttons as the config file (or the flags) set them up. Without
    a config file and flags: the terminal only (a laptop with a webcam)."""
    from dataclasses import replace
    from host.commands.run import RunFailed, add_controls, display_flags, make_display
    from host.config import ConfigError, load_config
    from host.paths import default_config_file
    from host.teach_console import TeachConsole

    path = Path(args.config) if args.config else default_config_file()
    try:
        _, config = load_config(path)
    except ConfigError as exc:  # a file, as for dicewatch run: exit 1, FILE:LINE and what was expected
        raise RunFailed(str(exc)) from None
    if path is None:  # no box configured: only what the flags ask for
        config = replace(config, display="none", gpio=False, panel="")
    config = replace(config, **display_flags(args))
    terminal = not synthetic and sys.stdin.isatty()
    console = TeachConsole(read_terminal=terminal)
    display = make_display(config, command=NAME)
    if display is not None:
        console.presenters.append(display)
    try:
        devices, panel = add_controls(config, console.post, console.presenters, command=NAME)
    except ConfigError as exc:  # the pin map is broken
        console.close()
        raise RunFailed(str(exc)) from None
    # the synthetic camera plays its script whatever is pressed: nothing to wait for
    console.wait = not synthetic and (terminal or devices is not None or panel is not None)
    return console, devices


def synthetic_script(spec, faces: list[str], shots: int,
                     every_face: list[str] | None = None) -> tuple[list[str], list | None]:
    """For the synthetic camera, what a player would do: each face ``shots`` times, then a
    mixed roll of ``every_face`` (default ``faces``: its faces, for the self-check, and the
    camera's script); else ([], None)."""
    import numpy as np
    if spec.kind != "synthetic":
        return [], None
    check_roll = list(np.random.default_rng(int(spec.target or 0)).permutation(every_face or faces))
    return check_roll, [(face,) for face in faces for _ in range(shots)] + [tuple(check_roll)]


def teach_at_camera(args: argparse.Namespace, faces: list[str], data, kept: dict | None = None) -> int:
    """Teach at the camera: pictures of ``faces``, added to ``kept`` (``--add``) if given."""
    from vision import sources
    try:
        spec = sources.parse_spec(args.camera)
    except sources.CameraSpecError as exc:
        raise UsageError(str(exc)) from None
    every_face = list(kept) if kept else faces
    render_set = _synthetic_set(args.dice, every_face) if spec.kind == "synthetic" else None
    check_roll, script = synthetic_script(spec, faces, args.shots, every_face)
    from host.commands.run import RunFailed
    try:
        console, devices = teach_console(args, spec.kind == "synthetic")
    except RunFailed as exc:  # a broken config file or pin map, a display that cannot work
        print(f"dicewatch teach: {exc}", file=sys.stderr)
        return 1
    # SIGTERM (systemd, kill) ends teaching like Ctrl-C: the finally blocks put the display
    # to sleep, switch the lights off and release the camera
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        try:
            session = CameraSession(spec, render_set, script)
        except sources.SourceError as exc:
            console.finish("Camera not available", [str(exc)], terminal=False)
            print(f"dicewatch teach: {exc}", file=sys.stderr)
            if spec.kind in ("picamera", "opencv"):
                print("  if the box's service is running, it has the camera: teach from its knob "
                      "menu (Teach the dice), or 'sudo systemctl stop dicewatch' first", file=sys.stderr)
            return 1
        try:
            return teach_with(session, console, args, faces, data, check_roll, kept)
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


def teach_with(session: CameraSession, console, args: argparse.Namespace, faces: list[str], data,
               check_roll: list[str], kept: dict | None = None) -> int:
    """Teaching at the camera, once the camera and the console are open: the empty tray, each
    face's pictures (added to ``kept``, the set's, with --add), storing the set, and the
    self-check roll."""
    from vision import taught
    if not console.ask("Clear the tray", ["No dice, no hands: the empty tray is the background."]):
        console.finish("Stopped", ["nothing was taught"])
        return 1
    session.learn_background()
    try:
        examples = capture_examples(session, faces, args.shots, console)
    except CaptureError as exc:
        console.finish("Not taught", [str(exc)], terminal=False)
        print(f"dicewatch teach: {exc}", file=sys.stderr)
        return 1
    if examples is None:
        console.finish("Stopped", ["nothing was taught"])
        return 1
    where = f"camera {args.camera}"
    if kept:
        examples, where = with_added(args.dice, kept, examples), f"its pictures and more from camera {args.camera}"
    model = store(args.dice, examples, data, args.replace or bool(kept), where)
    if model is None:
        console.finish("Not taught", ["see the terminal for why"], terminal=False)
        return 1
    right, total = model.self_check
    # the self-check: a mixed roll, read with the new set
    finder = session.tray_finder or _finder(one_die=False) or (lambda f: taught.find_by_background(f, session.background))
    reader = taught.TaughtReader(model, args.dice, finder)
    if not console.ask("Self-check: roll all the dice", ["Roll them together (a mixed roll) and let them settle."]):
        console.finish(f"Taught {args.dice}", [f"{right} of {total} pictures read right when left out"],
                       terminal=False)
        return 0
    verdict, read_any = None, False
    for frame in session.settled():
        roll = reader(frame)
        if not roll.dice:
            continue
        read_any = True
        verdict = console.confirm("Self-check: is this right?", roll.faces,
                                  [d.confidence for d in roll.dice], args.dice)
        if session.synthetic:
            right_dice = sum(min(roll.faces.count(f), check_roll.count(f)) for f in set(check_roll))
            print(f"self-check: {right_dice} of {how_many_dice(len(check_roll))} read right "
                  f"(rolled {' '.join(sorted(check_roll))})")
        break
    if not read_any:
        print("self-check: no roll was read before the camera stopped")
    if verdict is False:
        advice = "teach again with --replace: more pictures, turned and moved, under the light you play in"
        print(f"  {advice}")
        console.finish(f"Taught {args.dice}, but misread", [advice], terminal=False)
    else:
        console.finish(f"Taught {args.dice}", [f"{right} of {total} pictures read right when left out",
                                               "the game reads with them now" if console.at_table
                                               else f"read with --dice {args.dice}"], terminal=False)
    return 0


# --------------------------------------------------------------------------- from the table loop

def box_teacher(camera: str, dice_set: str, data, make_watcher, shots: int = DEFAULT_SHOTS):
    """The table loop's "Teach the dice" (``TableLoop.teach_dice``): teach ``dice_set`` again
    at ``camera`` (a --camera spec) with the loop's screen and buttons, store it in ``data``
    (replacing the set), and return ``make_watcher()``, which reads with the new set.
    Stopped or failed teaching leaves the old set, and returns None (the loop keeps its own)."""
    from types import SimpleNamespace

    from vision import dicesets, sources
    from host.teach_console import TeachConsole

    def teach_dice(loop):
        spec = sources.parse_spec(camera)
        synthetic = spec.kind == "synthetic"
        faces = list(dicesets.load_set(dice_set, data).faces)
        check_roll, script = synthetic_script(spec, faces, shots)
        # the loop's presenters already print every screen on the terminal
        # the buttons, knob and panel post to the loop's queue: the console reads it
        console = TeachConsole(loop.presenters, wait=not synthetic, out=False, clock=loop.clock,
                               stop=loop.stop_requested, at_table=True, commands=loop.commands)
        session = CameraSession(spec, _synthetic_set(dice_set, faces) if synthetic else None, script)
        session.stop = loop.stop_requested
        try:
            args = SimpleNamespace(dice=dice_set, shots=shots, replace=True, camera=camera)
            status = teach_with(session, console, args, faces, data, check_roll)
        finally:
            session.close()
        return make_watcher() if status == 0 else None

    return teach_dice
