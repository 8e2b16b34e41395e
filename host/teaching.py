"""Teaching dicewatch a die set with custom faces: from a folder of photos, or at the camera
(the empty tray, then pictures of each face, then a self-check roll), and from the table
loop's knob menu ("Teach the dice").

``dicewatch teach`` (host/commands/teach.py) checks its arguments and calls this; the
table loop gets its teacher from ``box_teacher``. The set is stored in the data directory
(vision/dicesets.py). Problems with the photos given are ``TeachInputError`` (one line per
problem); progress and results are printed as ``dicewatch teach`` reports them.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from host.config import ConfigError, DeviceConfig
from host.errors import UsageError
from host.presenters import how_many_dice
from host.table_setup import RunFailed, add_controls, make_display
from host.teach_console import TeachConsole
from host.teach_limits import DEFAULT_SHOTS, MIN_PHOTOS
from vision import dicesets, learning, sources, taught
from vision.calibrate import CalibrationError, calibrate
from vision.reader import ImageError, load_image
from vision.settle import SettleGate
from vision.tray_finder import TrayFinder

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
LOOSE_CROP_PX = 200  # images this small (longer side) are taken as crops of one die


class TeachInputError(ValueError):
    """The photos given cannot be taught from; ``problems`` says each thing wrong."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems

    def report(self) -> int:
        """Print every problem, one line each, and give the exit status (1)."""
        for line in self.problems:
            print(f"dicewatch teach: {line}", file=sys.stderr)
        return 1


# --------------------------------------------------------------------------- adding pictures

def taught_examples(name: str, data) -> dict[str, list]:
    """The pictures of the taught set ``name``, to add to (``--add``)."""
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

def examples_from_folder(folder: Path, adding: bool = False, flag: str = "--from") -> dict[str, list]:
    """Example crops per face from DIR/<FACE>/ photos; TeachInputError lists every problem.
    ``adding`` (--add): any number of photos of any of the set's faces will do; the set
    they join has the rest. ``flag``: the option that named the folder, for the messages."""
    if not folder.exists():
        raise TeachInputError([f"{flag} {folder}: no such folder"])
    if not folder.is_dir():
        raise TeachInputError([f"{flag} {folder}: not a folder; expected a folder with one "
                               f"sub-folder of photos per face ({folder}/<FACE>/*.jpg)"])
    face_dirs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not face_dirs:
        loose = [p.name for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES]
        hint = (f" (it holds {len(loose)} photo(s) directly: put each face's photos in a "
                f"sub-folder named after the face)" if loose else "")
        raise TeachInputError([f"{flag} {folder}: no face folders{hint}; expected "
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
        problems.append(f"{flag} {folder}: only one face folder ({face_dirs[0].name}); "
                        f"a die set needs at least 2 faces")
    if problems:
        raise TeachInputError(problems)
    return examples


def _finder(one_die: bool = True):
    """The pip reader's die finder if its model is installed, else None: for one-die teaching
    photos (``dicesets.pip_finder(one_die=True)``), or with ``one_die=False`` for a roll."""
    try:
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


def store(name: str, examples: dict, data, replace: bool, where: str, adding: bool = False):
    """Save the set and report its self-check; the taught FaceModel, or None (said why).
    ``adding`` (--add): what the set learned at the table is kept (vision/learning.py)."""
    if name in dicesets.FACE_SETS:
        expected = set(dicesets.FACE_SETS[name])
        missing = sorted(expected - set(examples))
        if missing:
            print(f"dicewatch teach: note: the rules of {name} use the faces "
                  f"{', '.join(dicesets.FACE_SETS[name])}; this set has no "
                  f"{', '.join(missing)} (rename faces with 'dicewatch dice rename')", file=sys.stderr)
    try:
        def save():
            return dicesets.save_set(name, examples, data, replace=replace, min_examples=MIN_PHOTOS)
        stored = learning.kept_through(dicesets.store_dir(data) / name, save) if adding else save()
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
                  f"dicewatch teach --dice {name} --add --faces {names} --camera ... (or --add DIR)")
        else:
            print("  some faces look alike in these photos: add more (turned, moved, in your light) "
                  "with --add")
    print(f"stored in {stored.folder}; read with: dicewatch read --dice {name} PHOTO")
    return model


# --------------------------------------------------------------------------- at the camera

def synthetic_set(name: str, faces: list[str]) -> str:
    """The built-in set the synthetic camera draws for these faces."""
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
        self.spec = spec
        self.synthetic = spec.kind == "synthetic"
        self.seed = int(spec.target or 0) if self.synthetic else 0
        if self.synthetic:
            from vision.synthetic_camera import SyntheticCamera  # the renderer: only for a synthetic camera
            self.camera = SyntheticCamera(self.seed, script=script, dice_set=render_set,
                                          fps=10.0, hold=0.8, lead_in=0.3)
        else:
            self.camera = sources.open_source(spec)
        self.background = None
        self.tray_finder = None
        self._stream = None
        self._put_back: list = []
        self.stop = None  # an Event: once set, the settled frames end (the table loop's SIGTERM)

    def learn_background(self) -> None:
        frames = [frame.image for _, frame in zip(range(1 if self.synthetic else 5), self.camera)]
        if not frames:
            raise sources.SourceError(f"{self.spec}: no frames to learn the empty tray from")
        self.background = np.median(np.stack(frames), axis=0).astype(frames[0].dtype)
        self.tray_finder = tray_finder_for(frames)

    def boxes(self, frame) -> list:
        """The dice in a frame: cut as reads on this tray will cut them (the calibrated
        tray's finder when the mat is in view), else what differs from the empty tray."""
        if self.tray_finder is not None:
            return self.tray_finder(frame)
        return taught.find_by_background(frame, self.background)

    def off_the_mat(self, frame) -> bool:
        """For a frame where the calibrated tray's finder found no die: does anything still
        differ from the empty tray (a die off the mat's areas, where it does not look)?
        Always False without a calibrated mat."""
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


def open_console(config: DeviceConfig, synthetic: bool, *, command: str = "teach"):
    """The console teaching at the camera talks through: the terminal, plus the box's e-ink
    screen, lights, buzzer and buttons as ``config`` sets them up. Returns (console, GPIO
    devices or None); RunFailed for a display that cannot work or a broken pin map."""
    terminal = not synthetic and sys.stdin.isatty()
    console = TeachConsole(read_terminal=terminal)
    display = make_display(config, command=command)
    if display is not None:
        console.presenters.append(display)
    try:
        devices, panel = add_controls(config, console.post, console.presenters, command=command)
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
    if spec.kind != "synthetic":
        return [], None
    check_roll = list(np.random.default_rng(int(spec.target or 0)).permutation(every_face or faces))
    return check_roll, [(face,) for face in faces for _ in range(shots)] + [tuple(check_roll)]


def teach_with(session: CameraSession, console, args, faces: list[str], data,
               check_roll: list[str], kept: dict | None = None) -> int:
    """Teaching at the camera, once the camera and the console are open: the empty tray, each
    face's pictures (added to ``kept``, the set's, with --add), storing the set, and the
    self-check roll. ``args``: the teach command's dice, shots, replace and camera. Returns
    the exit status."""
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
    model = store(args.dice, examples, data, args.replace or bool(kept), where, adding=bool(kept))
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


    def teach_dice(loop):
        spec = sources.parse_spec(camera)
        synthetic = spec.kind == "synthetic"
        faces = list(dicesets.load_set(dice_set, data).faces)
        check_roll, script = synthetic_script(spec, faces, shots)
        # the loop's presenters already print every screen on the terminal
        # the buttons, knob and panel post to the loop's queue: the console reads it
        console = TeachConsole(loop.presenters, wait=not synthetic, out=False, clock=loop.clock,
                               stop=loop.stop_requested, at_table=True, commands=loop.commands)
        session = CameraSession(spec, synthetic_set(dice_set, faces) if synthetic else None, script)
        session.stop = loop.stop_requested
        try:
            args = SimpleNamespace(dice=dice_set, shots=shots, replace=True, camera=camera)
            status = teach_with(session, console, args, faces, data, check_roll)
        finally:
            session.close()
        return make_watcher() if status == 0 else None

    return teach_dice

