"""python -m vision.bench tray_finder [--scenes 120] [--frames 6] [--pip-scenes 25] [--seed 0] [--no-before]

How well the calibrated-tray die finder (vision/tray_finder.py) finds dice, against the finders
used before it (the learned pip-dice finder; taught.find_by_background):

* rendered mat scenes like the demo's (vision.synth.render_scene, background "mat", 7 custom
  dice, half the scenes with many touching dice), calibrated from rendered empty-mat frames;
  each scene once as rendered and once with the light changed after calibration (brighter or
  darker by up to 30%, a gradient across the mat, a slight colour cast), once more so after
  the device's exposure keeper has brought the mat back to its calibrated brightness
  (vision.exposure; the camera's exposure scaled, the gradient and cast left), once in a dim
  room with a noisy sensor (light at 15 %, noise of sigma 3 grey levels, calibrated there)
  and once out of focus (blurred by sigma 1.5 px, noise of sigma 2, calibrated so);
* settled frames of the synthetic camera (throws with dice kept in the keep area), as the
  demo films them;
* pip dice on the mat, read by the pip reader with its own finder and with the tray finder.

A die is found when a found centre lies within half a die of its true centre (one to one).
Prints recall, precision, the share of scenes with every die and nothing else, the box IoU and
the time per 1280x720 frame.
"""
from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from vision import synth
from vision.bench.light import lit
from vision.calibrate import calibrate
from vision.exposure import ExposureKeeper
from vision.roll import FACE_SETS
from vision.tray_finder import TrayFinder

DICE_SET = "jingle-bell-roll"


def empty_frames(seed: int, size=(640, 480), count: int = 5) -> list[np.ndarray]:
    """Frames of the empty mat, as the camera would give them before play (noise differs)."""
    table = synth.Table(size, seed, background="mat")
    return [table.draw([], DICE_SET, np.random.default_rng([seed, 99, k]))[0] for k in range(count)]


def mat_scene(seed: int, count: int = 7, size=(640, 480), touching: float = 0.25):
    """A rendered scene of ``count`` custom dice on the mat: (image, truth)."""
    rng = np.random.default_rng([seed, 5])
    faces = [FACE_SETS[DICE_SET][i] for i in rng.integers(0, 6, count)]
    return synth.render_scene(faces, DICE_SET, seed=seed, size=size, background="mat", touching=touching)


def relight(image: np.ndarray, rng: np.random.Generator, exposure: float = 1.0) -> np.ndarray:
    """The same scene under changed light: overall level, a gradient, a slight colour cast;
    taken with the camera's exposure scaled by ``exposure`` (burnt out at 255)."""
    h, w = image.shape[:2]
    level = float(rng.choice([-1, 1]) * rng.uniform(0.12, 0.3))
    gx, gy = rng.uniform(-0.15, 0.15, 2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    field = 1.0 + level + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    cast = 1.0 + rng.uniform(-0.05, 0.05, 3)
    out = image.astype(np.float32) * field[..., None] * (cast * exposure).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


EXPOSURE_KEPT = "light changed, exposure kept"


def exposure_kept(image: np.ndarray, seed: int, calibration, steps: int = 3) -> np.ndarray:
    """The relit scene (``relight``) as the camera takes it once the device's exposure keeper
    (vision.exposure) has scaled its exposure until the mat looks as calibrated (as many
    looks as it takes, at most ``steps``)."""
    exposure, keeper = 1.0, ExposureKeeper(calibration)
    while True:
        frame = relight(image, np.random.default_rng([seed, 11]), exposure)
        light = keeper.check(frame)
        if steps == 0 or not light.off_by(keeper.tolerance):
            return frame
        exposure *= light.correction
        steps -= 1


DIM_ROOM = "dim room, noisy"


def dim_room(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``image`` as a camera in a dim room gives it: the light at 15 %, sensor noise of
    sigma 3 grey levels (calibrated in the same room)."""
    return lit(image, 0.15, 3.0, rng)


OUT_OF_FOCUS = "out of focus"


def out_of_focus(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``image`` as a camera focused too near or too far gives it: blurred by sigma 1.5 px
    (at 640 px wide), then sensor noise of sigma 2 grey levels."""
    sigma = 1.5 * image.shape[1] / 640
    return lit(cv2.GaussianBlur(image, (0, 0), sigma), 1.0, 2.0, rng)


def match(found, truth_dice, tolerance: float = 0.5) -> int:
    """How many true dice have a found centre within ``tolerance`` of a die size (one to one)."""
    pairs = []
    for i, t in enumerate(truth_dice):
        reach = tolerance * max(t.w, t.h)
        for j, (x, y, *_rest) in enumerate(found):
            d = float(np.hypot(x - t.x, y - t.y))
            if d <= reach:
                pairs.append((d, i, j))
    used_t, used_f = set(), set()
    for _, i, j in sorted(pairs):
        if i not in used_t and j not in used_f:
            used_t.add(i)
            used_f.add(j)
    return len(used_t)


def box_iou(a, b) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0.0, min(ax + aw / 2, bx + bw / 2) - max(ax - aw / 2, bx - bw / 2))
    iy = max(0.0, min(ay + ah / 2, by + bh / 2) - max(ay - ah / 2, by - bh / 2))
    inter = ix * iy
    return inter / max(aw * ah + bw * bh - inter, 1e-6)


class Tally:
    def __init__(self, name: str):
        self.name, self.truth, self.found, self.hits, self.scenes, self.perfect = name, 0, 0, 0, 0, 0
        self.ious: list[float] = []

    def add(self, boxes, truth_dice) -> None:
        hits = match(boxes, truth_dice)
        self.truth += len(truth_dice)
        self.found += len(boxes)
        self.hits += hits
        self.scenes += 1
        self.perfect += hits == len(truth_dice) == len(boxes)
        for t in truth_dice:
            near = [b for b in boxes if np.hypot(b[0] - t.x, b[1] - t.y) <= 0.5 * max(t.w, t.h)]
            if near:
                self.ious.append(max(box_iou(b, (t.x, t.y, t.w, t.h)) for b in near))

    def line(self) -> str:
        recall = self.hits / max(self.truth, 1)
        precision = self.hits / max(self.found, 1)
        iou = float(np.median(self.ious)) if self.ious else 0.0
        return (f"  {self.name:<40} recall {recall:6.1%}  precision {precision:6.1%}  "
                f"all {self.perfect:3d}/{self.scenes:<3d} scenes  box IoU {iou:.2f}  "
                f"({self.hits}/{self.truth} dice, {self.found} found)")


def finders(calibration, before: bool):
    out = {"tray finder": TrayFinder(calibration)}
    if before:
        from vision.dicesets import pip_finder
        from vision.taught import find_by_background
        out["before: pip finder (learned)"] = pip_finder()
        out["before: taught.find_by_background"] = lambda frame: find_by_background(frame, calibration.background)
    return out


def on_the_mat(boxes, calibration):
    """Only what lies on the mat's areas (as the device loop keeps it)."""
    return [b for b in boxes if calibration.area_of(b[0], b[1]) != "outside"]


def run_scenes(args) -> None:
    names = ["tray finder"] + (["before: pip finder (learned)", "before: taught.find_by_background"]
                               if not args.no_before else [])
    conditions = ("same light", "light changed", EXPOSURE_KEPT, DIM_ROOM, OUT_OF_FOCUS)
    tallies = {(n, c): Tally(f"{n}, {c}") for n in names for c in conditions}
    for k in range(args.scenes):
        seed = args.seed + k
        empties = empty_frames(seed)
        image, truth = mat_scene(seed, touching=0.25 if k % 2 else 0.7)
        relit = relight(image, np.random.default_rng([seed, 11]))
        noise = np.random.default_rng([seed, 12])
        in_dim_room = [dim_room(frame, noise) for frame in empties + [image]]
        blurred = [out_of_focus(frame, noise) for frame in empties + [image]]
        as_lit, dim = calibrate(empties, name="bench"), calibrate(in_dim_room[:-1], name="dim")
        kept = exposure_kept(image, seed, as_lit)
        for calibration, frames in ((as_lit, {"same light": image, "light changed": relit, EXPOSURE_KEPT: kept}),
                                    (dim, {DIM_ROOM: in_dim_room[-1]}),
                                    (calibrate(blurred[:-1], name="blurred"), {OUT_OF_FOCUS: blurred[-1]})):
            for name, finder in finders(calibration, not args.no_before).items():
                for condition, frame in frames.items():
                    boxes = on_the_mat([tuple(b) for b in finder(frame)], calibration)
                    tallies[(name, condition)].add(boxes, truth.dice)
    print(f"rendered mat scenes: {args.scenes} x 7 {DICE_SET} dice at 640x480 (half with most dice touching), "
          "calibrated from 5 empty-mat frames")
    for tally in tallies.values():
        print(tally.line())


def run_camera(args) -> None:
    from vision.synthetic_camera import ScriptedRoll, SyntheticCamera
    faces = FACE_SETS[DICE_SET]
    names = ["tray finder"] + (["before: pip finder (learned)"] if not args.no_before else [])
    tallies = {n: Tally(n) for n in names}
    frames_seen = 0
    for k in range(args.frames):
        seed = args.seed + 1000 + k
        rng = np.random.default_rng(seed)
        script = [ScriptedRoll(tuple(faces[i] for i in rng.integers(0, 6, 7)), keep=(0, 1, 2)),
                  ScriptedRoll(tuple(faces[i] for i in rng.integers(0, 6, 4)), keep=(0,)),
                  ScriptedRoll(tuple(faces[i] for i in rng.integers(0, 6, 3)))]
        camera = SyntheticCamera(seed, script=script, dice_set=DICE_SET, fps=10, lead_in=0.8)
        frames, last, calibration = [], None, None
        for image, _t in camera:
            truth = camera.truth
            if truth.phase == "empty":
                frames.append(image)
                continue
            if truth.phase == "still" and last != truth.roll:
                last = truth.roll
                if not frames:
                    continue
                if calibration is None:  # from this camera's empty tray, once
                    calibration = calibrate(frames, name="bench")
                for name, finder in finders(calibration, not args.no_before).items():
                    if name in tallies:
                        boxes = on_the_mat([tuple(b) for b in finder(image)], calibration)
                        tallies[name].add(boxes, truth.dice)
                frames_seen += 1
    print(f"synthetic camera: {frames_seen} settled frames of {args.frames} games (7, then 3 kept + 4, "
          "then 4 kept + 3 dice)")
    for tally in tallies.values():
        print(tally.line())


def run_pips(args) -> None:
    """The pip reader's faces on its own finder's dice and on the tray finder's."""
    from vision.reader import reader_for
    from vision.tray_finder import with_finder
    plain = reader_for("d6-pips")
    tallies = {"pip reader, its own finder": [0, 0, 0, 0], "pip reader, tray finder": [0, 0, 0, 0]}
    for k in range(args.pip_scenes):
        seed = args.seed + 2000 + k
        table = synth.Table((640, 480), seed, background="mat")
        empties = [table.draw([], "d6-pips", np.random.default_rng([seed, 99, n]))[0] for n in range(3)]
        calibration = calibrate(empties, name="bench")
        faces = [str(f) for f in np.random.default_rng(seed).integers(1, 7, 6)]
        image, truth = synth.render_scene(faces, "d6-pips", seed=seed, background="mat")
        readers = {"pip reader, its own finder": plain,
                   "pip reader, tray finder": with_finder(plain, TrayFinder(calibration))}
        for name, reader in readers.items():
            dice = [d for d in reader(image).dice if calibration.area_of(d.x, d.y) != "outside"]
            tally = tallies[name]
            tally[0] += len(truth.dice)
            tally[3] += len(dice)
            for t in truth.dice:
                near = [d for d in dice if np.hypot(d.x - t.x, d.y - t.y) < 0.5 * max(t.w, t.h)]
                tally[1] += bool(near)
                tally[2] += bool(near) and near[0].face == t.face
    print(f"pip dice: {args.pip_scenes} rendered calibrated mat scenes of 6 dice")
    for name, (total, found, right, reported) in tallies.items():
        print(f"  {name:<34} {found}/{total} dice found, {right} read right, {reported} reported")


def run_speed(args) -> None:
    size = (1280, 720)
    calibration = calibrate(empty_frames(args.seed, size=size, count=3), name="bench")
    frames = [mat_scene(args.seed + k, size=size)[0] for k in range(5)]
    finder = TrayFinder(calibration)
    finder(frames[0])
    rounds = 20
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(rounds):
            for frame in frames:
                finder(frame)
        wall = (time.perf_counter() - wall) / (rounds * len(frames))
        cpu = (time.process_time() - cpu) / (rounds * len(frames))
    finally:
        cv2.setNumThreads(threads)
    load = ""
    try:
        import os
        load = f" (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    except OSError:
        pass
    print(f"speed at 1280x720 (7 dice, one OpenCV thread): {cpu * 1000:.1f} ms CPU per frame, "
          f"{wall * 1000:.1f} ms wall{load}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench tray_finder",
                                     description=__doc__.split("\n\n")[1])
    parser.add_argument("--scenes", type=int, default=120, help="rendered mat scenes (default 120)")
    parser.add_argument("--frames", type=int, default=6, help="synthetic camera games (default 6)")
    parser.add_argument("--pip-scenes", type=int, default=25, help="d6-pips scenes (default 25)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-before", action="store_true", help="only the tray finder (faster)")
    args = parser.parse_args(argv)
    run_scenes(args)
    run_camera(args)
    if args.pip_scenes:
        run_pips(args)
    run_speed(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
