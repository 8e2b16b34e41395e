"""Pip-dice reading on the shared real photos: the learned reader against the classic counter.

  python -m vision.bench.pips [--split test|val|train|all] [--folder NAME] [--json DIR] [--errors DIR]
                              [--data DIR] [--turns N] [--models DIR] [--no-classic]

Per folder of ../shared/data/d6-real, on the chosen side of the fixed split
(vision/training/split.py; default 'test' = the held-out photos no model was trained or
tuned on), for both readers in the same run on the same photos: per-die accuracy (found
*and* face right), recall, precision, face accuracy of found dice, images read exactly,
median and p95 milliseconds per photo (reading only, decoded image in memory, one OpenCV
thread; CPU time, which is what one free core would take, and wall time, which other
programs on the machine inflate), peak memory, the whole-process time (start-up, model
loading, decoding, reading),
the confusion matrix, the reliability table of the confidences, the scenes (a photo
and its augmented copies) holding the learned reader's most errors, and how far the
per-die and precision figures move when the scenes are drawn again at random
(``errors.scene_spread``).

Each reader runs in its own child process (so start-up time and peak memory are its own).
Counting is exactly /work/shared/tools/score_reads.py's; ``--json DIR`` writes the reads as
`dicewatch read --json` lines (DIR/FOLDER.learned.jsonl, DIR/FOLDER.classic.jsonl) so that
script can verify them (use ``--split all``: it scores every photo of a folder).
``--errors DIR`` writes the learned reader's errors as JSON lines and contact sheets of
each missed die, misread die and false find (``vision/bench/errors.py``).
"""
from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from vision.bench import errors as read_errors
from vision.bench.scoring import FACE_NAMES, Tally, labels_in_pixels
from vision.training.split import DEFAULT_ROOT, FOLDERS, group_of, photos

METHODS = ("learned", "classic")


# ----------------------------------------------------------------------------- child process

def worker(method: str, root: Path, folder: str, split: str, turns: int | None,
           models: Path | None = None) -> int:
    """Read the photos and print one JSON line each, then a line with peak memory."""
    import cv2
    cv2.setNumThreads(1)
    if method == "learned":
        from vision.pips import PipReader
        read = PipReader(turns=turns, **({"models": models} if models else {}))
    else:
        from vision import classic
        read = classic.read_frame
    for photo in photos(root, folder, None if split == "all" else split):
        frame = cv2.imread(str(photo.image), cv2.IMREAD_COLOR)
        start, cpu_start = time.perf_counter(), time.process_time()
        roll = read(frame)
        ms = (time.perf_counter() - start) * 1000
        cpu_ms = (time.process_time() - cpu_start) * 1000
        dice = [{k: v for k, v in d.to_json().items() if k != "outline"} for d in roll.dice]
        print(json.dumps({"image": str(photo.image), "ms": round(ms, 3), "cpu_ms": round(cpu_ms, 3),
                          "size": frame.shape[1::-1], "dice": dice}), flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"peak_mb": round(peak, 1)}), flush=True)
    return 0


def run_child(method, root, folder, split, turns, models=None) -> tuple[list[dict], float, float, float]:
    """(reads, peak MB, whole-process wall seconds, whole-process CPU seconds)."""
    cmd = [sys.executable, "-m", "vision.bench.pips", "--worker", method, "--data", str(root),
           "--folder", folder, "--split", split]
    if turns:
        cmd += ["--turns", str(turns)]
    if models:
        cmd += ["--models", str(models)]
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if done.returncode != 0:
        raise RuntimeError(f"{method} reader failed on {folder}:\n{done.stderr[-2000:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return [o for o in lines if "image" in o], lines[-1].get("peak_mb", float("nan")), wall, cpu


# ----------------------------------------------------------------------------- report

def labelled_reads(reads: list[dict], root: Path, folder: str, split: str) -> list[tuple]:
    """Per photo of the chosen side: (the photo, its labels in pixels, the dice read on it)."""
    by_image = {r["image"]: r for r in reads}
    rows = []
    for photo in photos(root, folder, None if split == "all" else split):
        r = by_image.get(str(photo.image), {"dice": [], "size": None})
        w, h = r["size"] or (640, 640)
        rows.append((photo, labels_in_pixels(photo.dice, w, h), r["dice"]))
    return rows


def score(rows: list[tuple]) -> Tally:
    tally = Tally()
    for _, labels, dice in rows:
        tally.add(labels, dice)
    return tally


def errors_of(rows: list[tuple]) -> tuple[list[read_errors.ReadError], list[read_errors.SceneRow]]:
    """Every error of these reads (``vision.bench.errors``) and the per-scene table."""
    found, scenes = [], []
    for photo, labels, dice in rows:
        scene = group_of(photo.image.stem)
        scenes.append((scene, len(labels)))
        found += read_errors.errors_in(photo.image.name, scene, labels, dice)
    return found, read_errors.scene_table(scenes, found)


def write_error_sheets(out_dir: Path, folder: str, found: list[read_errors.ReadError], rows: list[tuple]) -> None:
    """``--errors``: the photos with errors decoded again and the sheets written."""
    import cv2
    wrong = {e.photo for e in found}
    images = {photo.image.name: cv2.imread(str(photo.image), cv2.IMREAD_COLOR)
              for photo, _, _ in rows if photo.image.name in wrong}
    labels = {photo.image.name: labels for photo, labels, _ in rows}
    read_errors.write_errors(out_dir, folder, found, images, labels)


def pct(v: float) -> str:
    return "  n/a" if v != v else f"{100 * v:5.1f}%"


def print_folder(folder: str, split: str, results: dict) -> None:
    first = next(iter(results.values()))
    tally = first["tally"]
    print(f"\n## {folder}  [{split}: {tally.images} photos, {tally.labelled} labelled dice]")
    names = list(results)
    print(f"{'':26}" + "".join(f"{n:>12}" for n in names))

    def row(label, fn):
        print(f"{label:26}" + "".join(f"{fn(results[n]):>12}" for n in names))

    row("per-die (found+right)", lambda r: pct(r["tally"].per_die))
    row("recall (found)", lambda r: pct(r["tally"].recall))
    row("precision", lambda r: pct(r["tally"].precision))
    row("face right | found", lambda r: pct(r["tally"].right / r["tally"].matched if r["tally"].matched else 0))
    row("images read exactly", lambda r: pct(r["tally"].image_exact))
    row("CPU ms/photo median", lambda r: f"{np.median(r['cpu_ms']):.1f}")
    row("CPU ms/photo p95", lambda r: f"{np.percentile(r['cpu_ms'], 95):.1f}")
    row("wall ms/photo median", lambda r: f"{np.median(r['ms']):.1f}")
    row("wall ms/photo p95", lambda r: f"{np.percentile(r['ms'], 95):.1f}")
    row("peak memory MB", lambda r: f"{r['peak_mb']:.0f}")
    row("whole process CPU s", lambda r: f"{r['cpu']:.2f}")
    row("whole process wall s", lambda r: f"{r['wall']:.2f}")
    row("reads conf>=0.9", lambda r: str(r["tally"].confident(0.9)[0]))
    row("right among conf>=0.9", lambda r: pct(r["tally"].confident(0.9)[1]))
    if "learned" in results and "classic" in results:
        lc, cc = results["learned"]["cpu"], results["classic"]["cpu"]
        lw, cw = results["learned"]["wall"], results["classic"]["wall"]
        lm, cm = np.median(results["learned"]["cpu_ms"]), np.median(results["classic"]["cpu_ms"])
        print(f"learned / classic: whole process {lc / cc:.2f}x CPU ({lw / cw:.2f}x wall), "
              f"median per photo {lm / cm:.2f}x CPU")
    learned = results.get("learned") or first
    t = learned["tally"]
    cols = list(FACE_NAMES) + ["missed"]
    print(f"\nconfusion ({names[0]}; rows = labelled face, 'none' = a read die with no label; "
          "columns = face read)")
    print("      " + "".join(f"{c:>7}" for c in cols))
    for true in list(FACE_NAMES) + ["none"]:
        cells = t.confusion.get(true, {})
        print(f"{true:>6}" + "".join(f"{cells.get(c, 0) if not (true == 'none' and c == 'missed') else '':>7}"
                                      for c in cols))
    print(f"\nreliability ({names[0]}): confidence bin, reads, right")
    for label, n, right in t.reliability():
        print(f"  {label:>11} {n:6d} {pct(right):>7}")
    if "scenes" in learned:
        print(f"\nscenes with the most errors ({names[0]}; a scene is a photo and its augmented copies)")
        for line in read_errors.scene_lines(learned["scenes"]) + read_errors.spread_lines(learned["scenes"]):
            print("  " + line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.bench.pips", description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_ROOT, help="the d6-real folder")
    ap.add_argument("--split", choices=("test", "val", "train", "all"), default="test")
    ap.add_argument("--folder", choices=FOLDERS, action="append", help="only this folder (repeatable)")
    ap.add_argument("--json", type=Path, metavar="DIR", help="also write the reads as JSON lines here")
    ap.add_argument("--errors", type=Path, metavar="DIR",
                    help="also write the learned reader's errors here: JSON lines and contact sheets")
    ap.add_argument("--turns", type=int, choices=(1, 2, 4), help="readings per die (default: the model's)")
    ap.add_argument("--no-classic", action="store_true", help="skip the classic pip counter")
    ap.add_argument("--models", type=Path, help="read with the models in this folder (default: vision/models)")
    ap.add_argument("--worker", choices=METHODS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.data, args.folder[0], args.split, args.turns, args.models)
    if not args.data.is_dir():
        print(f"vision.bench.pips: no photos at {args.data}; nothing to measure", file=sys.stderr)
        return 1
    methods = METHODS[:1] if args.no_classic else METHODS
    print(f"pip reading on {args.data} ({args.split} split), one OpenCV thread per reader")
    summary = {}
    for folder in args.folder or FOLDERS:
        results = {}
        for method in methods:
            reads, peak, wall, cpu = run_child(method, args.data, folder, args.split, args.turns,
                                                   args.models if method == "learned" else None)
            rows = labelled_reads(reads, args.data, folder, args.split)
            results[method] = {"tally": score(rows), "peak_mb": peak,
                               "wall": wall, "cpu": cpu, "ms": [r["ms"] for r in reads] or [math.nan],
                               "cpu_ms": [r["cpu_ms"] for r in reads] or [math.nan]}
            if method == "learned":
                found, results[method]["scenes"] = errors_of(rows)
                if args.errors:
                    write_error_sheets(args.errors, folder, found, rows)
            if args.json:
                args.json.mkdir(parents=True, exist_ok=True)
                with open(args.json / f"{folder}.{method}.jsonl", "w") as out:
                    for r in reads:
                        out.write(json.dumps({"image": r["image"], "dice": r["dice"]}) + "\n")
        print_folder(folder, args.split, results)
        summary[folder] = {m: {"per_die": r["tally"].per_die, "precision": r["tally"].precision,
                               "confident_right": r["tally"].confident(0.9)[1]} for m, r in results.items()}
    print("\nsummary " + json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
