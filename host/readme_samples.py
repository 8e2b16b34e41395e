"""Regenerate the README's pictures (docs/images/) and the sample inputs its examples read
(docs/samples/), all made by our own renderer and demo, never from real photos:

    .venv/bin/python -m host.readme_samples            # everything (about half a minute)
    .venv/bin/python -m host.readme_samples --skip-demo   # the rendered samples only

Rendered here: pip dice on a plain tray, Jingle Bell Roll dice on the printed mat, five
photos per face of the same die look to teach from, and a short video of two throws on the
mat that starts on the empty tray (so it calibrates too). From a run of `dicewatch demo`
(seed 2026): an e-ink screen, a read overlay and the game as a replay file. The hand-written
samples (a card layout, a config file) are not touched. Everything is deterministic; the
files stay small (a few hundred KB in all).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from vision import synth
from vision.synthetic_camera import ScriptedRoll, SyntheticCamera

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "docs" / "samples"
IMAGES = ROOT / "docs" / "images"

JPEG = [cv2.IMWRITE_JPEG_QUALITY, 85]
JBR_ROLL = ("MILK", "COOKIE", "LIST", "LIST", "GIFT", "BELL", "BELL")
PIP_ROLL = ("3", "5", "6", "1")
TEACH_PHOTOS_PER_FACE = 5      # the least `dicewatch teach --from` takes
VIDEO_SIZE, VIDEO_FPS = (640, 480), 6.0   # small file; the dice still 25 px, the settle gate still sees them stop
VIDEO_THROWS = (ScriptedRoll(("3", "5", "6")), ScriptedRoll(("1", "4", "2")))
DEMO_SEED = 2026
DEMO_SCREEN = 1                # the demo's second roll screen: a roll with its points
DEMO_READ = 2                  # and the camera's read of that roll


def jbr_die_look() -> synth.DieStyle:
    """The one die look of the Jingle Bell Roll samples: the photos taught from and the tray read."""
    return synth.random_style(np.random.default_rng(11), swirl=False)


def write_photos(out: Path) -> None:
    """A photo of pip dice on a plain tray and one of Jingle Bell Roll dice on the mat."""
    pips, _ = synth.render_scene(PIP_ROLL, seed=7, size=(640, 480), background="tray", camera_tilt=6)
    cv2.imwrite(str(out / "tray-pips.jpg"), pips, JPEG)
    jbr, _ = synth.render_scene(JBR_ROLL, dice_set="jingle-bell-roll", seed=5, size=(640, 480),
                                background="mat", camera_tilt=4, style=jbr_die_look())
    cv2.imwrite(str(out / "tray-jingle-bell-roll.jpg"), jbr, JPEG)


def write_teaching_photos(out: Path) -> None:
    """DIR/<FACE>/1.jpg ... : one die per photo, turned and moved, as `teach --from` wants them."""
    folder = out / "teach-jingle-bell-roll"
    shutil.rmtree(folder, ignore_errors=True)
    style = jbr_die_look()
    for f, face in enumerate(synth.faces_of("jingle-bell-roll")):
        (folder / face).mkdir(parents=True)
        for k in range(TEACH_PHOTOS_PER_FACE):
            crop = synth.render_face_crop("jingle-bell-roll", face, seed=100 + 10 * f + k, size=96, style=style)
            cv2.imwrite(str(folder / face / f"{k + 1}.jpg"), crop, JPEG)


def write_video(path: Path) -> None:
    """Two throws of pip dice on the mat, after a second of the empty tray."""
    camera = SyntheticCamera(seed=3, script=list(VIDEO_THROWS), size=VIDEO_SIZE, fps=VIDEO_FPS,
                             lead_in=1.0, hold=1.0)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), VIDEO_FPS, VIDEO_SIZE)
    if not writer.isOpened():
        raise SystemExit(f"readme_samples: OpenCV cannot write {path} (mp4v)")
    try:
        with camera:
            for image, _ in camera:
                writer.write(image)
    finally:
        writer.release()


def run_demo(out: Path) -> None:
    """`dicewatch demo` into ``out``, with its own data folder (never the user's)."""
    command = [sys.executable, "-m", "host.cli", "demo", "--quiet", "--seed", str(DEMO_SEED), "--out", str(out)]
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "DICEWATCH_HOME": str(out / "home")})


def nth(paths: list[Path], index: int, what: str) -> Path:
    if len(paths) <= index:
        raise SystemExit(f"readme_samples: the demo wrote {len(paths)} {what}, expected more than {index}")
    return paths[index]


def write_demo_pictures(demo: Path, images: Path) -> None:
    """A roll screen of the e-ink panel (shown at twice its size) and the camera's read of it."""
    screen = nth(sorted(demo.glob("screen-*-roll-full.png")), DEMO_SCREEN, "roll screens")
    panel = cv2.imread(str(screen))
    big = cv2.resize(panel, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
    cv2.imwrite(str(images / "eink-roll.png"), big)
    read = nth(sorted((demo / "reads").glob("read-*.png")), DEMO_READ - 1, "read overlays")
    cv2.imwrite(str(images / "read-overlay.jpg"), cv2.imread(str(read)), JPEG)


def write_demo_replay(demo: Path, path: Path) -> None:
    """The demo's game as a replay file (`dicewatch export`), for `dicewatch replay`."""
    command = [sys.executable, "-m", "host.cli", "export", "latest", "--sessions",
               str(demo / "demo-sessions.db"), "-o", str(path)]
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m host.readme_samples", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-demo", action="store_true",
                        help="leave the demo's picture and replay file as they are")
    args = parser.parse_args(argv)
    SAMPLES.mkdir(parents=True, exist_ok=True)
    IMAGES.mkdir(parents=True, exist_ok=True)
    write_photos(SAMPLES)
    write_teaching_photos(SAMPLES)
    write_video(SAMPLES / "roll.mp4")
    if not args.skip_demo:
        with tempfile.TemporaryDirectory(prefix="dicewatch-readme-") as tmp:
            demo = Path(tmp) / "demo"
            run_demo(demo)
            write_demo_pictures(demo, IMAGES)
            write_demo_replay(demo, SAMPLES / "jbr-game.jsonl")
    total = sum(p.stat().st_size for folder in (SAMPLES, IMAGES) for p in folder.rglob("*") if p.is_file())
    print(f"samples in {SAMPLES.relative_to(ROOT)}, pictures in {IMAGES.relative_to(ROOT)}: {total // 1024} KB in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
