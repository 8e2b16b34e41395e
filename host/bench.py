"""Device benchmark: how long from a settled camera frame to the e-ink image and the LEDs.

    python -m host.bench                 # 30 settled 1280x720 frames, then a whole game's peak RSS
    python -m host.bench --frames 50 --panel 800x480 --no-run

For each frame (rendered Jingle Bell Roll dice on the tray mat, 1280x720) it times the
whole path the table loop takes once the dice have stopped: the settle gate's last
update, the dice reader (tray calibrated from the empty mat), the rules check, the durable write (SQLite, synchronous=FULL, on
this machine's disk), the e-ink image rendered for the panel size, and the status light
and bar graph set (gpiozero on its MockFactory, the same code path as on the Pi minus
the pin toggling). It prints the median and the 95th percentile per stage and in total,
and how often the reader got the roll right. The stages after the reader are run with
the roll as thrown, so every frame takes the accepted-roll path.

Then it plays a whole game with ``dicewatch run`` on the synthetic camera in a child process
(a calibrated tray, the set taught beforehand, two players, no characters), pressing the keys
a player would on its terminal (``host.keys``: Score after each turn's first roll, Next on
every question and die check), and prints its wall time and peak resident memory (the child's
VmHWM, read while it plays): the device's camera loop, reads in their worker thread, the e-ink screens
written as PNG files. That is the figure that matters for a 512 MB Pi Zero 2 W or a 1 GB Pi;
the demo's peak is not (it renders every screen and the dice itself, scripts the players and
keeps the whole game's overlays), and the synthetic camera's renderer counted here is the one
part a real camera does not need (``--no-run`` skips this part).
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STAGES = ("gate", "read", "rules+store", "e-ink image", "LEDs", "total")


class ImageKeeper:
    """A panel that only keeps the image: 'e-ink image ready' without any panel I/O."""

    partial = False

    def __init__(self, size):
        self.size = size
        self.image = None

    def update(self, image, box=None, label=""):
        self.image = image

    def sleep(self):
        pass


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    low, high = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def settled_frames(count: int, size=(1280, 720)):
    """``count`` still frames of seven Jingle Bell Roll dice, and their true faces."""
    import random
    from vision.synth import render_scene
    faces = ("MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL")
    rng = random.Random(7)
    out = []
    for _ in range(count):
        truth = [rng.choice(faces) for _ in range(7)]
        # one seed: the same table, mat and light under the camera; only the dice change
        image, scene = render_scene(truth, "jingle-bell-roll", seed=1, size=size, background="mat")
        out.append((image, scene.faces))
    return out


def empty_tray_calibration(size=(1280, 720)):
    """The tray calibrated from the empty mat (the same table the frames show), as at a real box."""
    from vision.calibrate import calibrate
    from vision.synth import render_scene
    empty, _ = render_scene([], "jingle-bell-roll", seed=1, size=size, background="mat")
    return calibrate([empty])


def bench_path(frames: int, panel: tuple[int, int]) -> dict[str, list[float]]:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from host.devices import TableDevices, pins_for
    from host.eink import EinkScreen
    from host.loop import TableLoop
    from host.watcher import FrameWatcher
    from host.presenters import DevicePresenter, Presenter
    from host.session_store import SessionStore
    from rules import get_game
    from host.watcher import dice_reader
    from vision.roll import Die, Roll
    from vision.settle import SettleGate

    timings: dict[str, list[float]] = {stage: [] for stage in STAGES}
    factory = MockFactory(pin_class=MockPWMPin)
    with tempfile.TemporaryDirectory() as home:
        calibration = empty_tray_calibration()
        # as the device reads: the dice found by the calibrated tray's finder (host.loop)
        reader = dice_reader("jingle-bell-roll", home, calibration)
        store = SessionStore(Path(home) / "sessions.db")
        table = store.create(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben", "Cy"]})
        devices = TableDevices(pins_for(), on_command=lambda command: None, pin_factory=factory)
        keeper = ImageKeeper(panel)
        eink = EinkScreen(keeper, min_interval=0.0)
        clock = {"t": 0.0}

        class Timed(Presenter):
            """Splits the presenters' time: the e-ink render and the LEDs."""

            def show(self, screen):
                t0 = time.perf_counter()
                eink.show(screen)
                stamps["eink"] += time.perf_counter() - t0

            def status(self, status):
                t0 = time.perf_counter()
                leds.status(status)
                stamps["leds"] += time.perf_counter() - t0

        leds = DevicePresenter(devices)
        loop = TableLoop(table, presenters=[Timed()], ask_setup=False, confidence=0.0,
                         clock=lambda: clock["t"])
        reads = {"roll": None}

        def timed_reader(image):
            t0 = time.perf_counter()
            reads["roll"] = reader(image)
            stamps["read"] += time.perf_counter() - t0
            return reads["roll"]

        stamps = {"read": 0.0, "eink": 0.0, "leds": 0.0}
        # window 0: the second identical frame is the settled one; motion 0: any change is motion
        watcher = FrameWatcher(timed_reader, SettleGate(window=0.0, motion=0.0), calibration=calibration)
        stamps = {"read": 0.0, "eink": 0.0, "leds": 0.0}
        found: list[bool] = []
        counted: list[bool] = []
        loop.start()
        samples = settled_frames(frames + 2)
        reader(samples[0][0])  # warm-up: the reader's first call builds its caches
        for image, _truth in samples[2:]:
            watcher((image, clock["t"]))  # the dice arrive: motion since the last scene
            clock["t"] += 0.1
            stamps = {"read": 0.0, "eink": 0.0, "leds": 0.0}
            start = time.perf_counter()
            motion, roll = watcher((image, clock["t"]))
            gate_done = time.perf_counter()
            if roll is not None:
                found.append(sorted(roll.faces) == sorted(_truth))
                counted.append(len(roll.dice) == len(_truth))
            # The rest of the path with the roll as thrown, so that every frame is an accepted,
            # stored, shown roll (a misread would be a "Check die" prompt instead; same cost).
            loop.on_read(Roll(dice=tuple(Die(face, 1.0, 0.0, 0.0, 0.0, 0.0) for face in _truth),
                              dice_set="jingle-bell-roll", frame_size=(image.shape[1], image.shape[0])))
            end = time.perf_counter()
            clock["t"] += 0.1
            total = end - start
            gate = gate_done - start - stamps["read"]
            timings["gate"].append(gate * 1000)
            timings["read"].append(stamps["read"] * 1000)
            timings["e-ink image"].append(stamps["eink"] * 1000)
            timings["LEDs"].append(stamps["leds"] * 1000)
            timings["rules+store"].append((total - gate - stamps["read"] - stamps["eink"] - stamps["leds"]) * 1000)
            timings["total"].append(total * 1000)
            while loop.pending is not None:  # a flagged die: confirm it (not timed)
                loop.handle("push")
            if table.state.roll_number:
                loop.handle("undo")  # the next frame is a first roll again; the lights go back to waiting
        devices.close()
        store.close()
    factory.reset()
    timings["_reads"] = [float(sum(counted)), float(sum(found)), float(len(found))]
    return timings


RUN = (sys.executable, "-m", "host.cli", "run")
GAME_ARGS = ("--players", "Ann,Ben", "--no-characters", "--no-gpio", "--display", "png")


def key_for(screen: str) -> str | None:
    """What a player at the terminal types for a screen ``dicewatch run`` printed (its text,
    first line ``[kind] title``): Score once a roll is shown (a turn of one roll), Next on a
    question, a die to check or an error (the usual answer, the die as read, back to the game)."""
    head = screen.split("\n", 1)[0]
    if head.startswith("[roll]") and "press Score" in screen:
        return "s"
    if head.startswith(("[menu]", "[error]")) or head.startswith("[prompt] Check die"):
        return "n"
    return None


def progress(database: Path) -> tuple[bool, int]:
    """Whether the session in ``database`` has ended, and how many throws it stored (read-only,
    beside the running box)."""
    import sqlite3
    if not database.exists():
        return False, 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1)) as db:
            over = any(closed is not None for (closed,) in db.execute("SELECT closed FROM sessions"))
            throws = db.execute("SELECT COUNT(*) FROM journal WHERE kind = 'event' AND body LIKE '%\"faces\"%'"
                                ).fetchone()[0]
            return over, int(throws)
    except sqlite3.Error:
        return False, 0


def bench_run(timeout: float = 300.0) -> dict:
    """One whole game of ``dicewatch run --camera synthetic:3`` (see the module docstring):
    ``wall`` seconds, ``peak`` RSS (MB), ``keys`` typed, ``throws`` stored, whether it got to
    the game's end (``over``; else stopped after ``timeout`` seconds) and its ``last`` screen."""
    import os
    import pty
    import signal
    import threading
    from host.watcher import dice_reader
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, DICEWATCH_HOME=home)
        done = subprocess.run([sys.executable, "-m", "host.cli", "calibrate", "--camera", "synthetic:3"],
                              env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"dicewatch calibrate failed:\n{done.stderr[-2000:]}")
        dice_reader("jingle-bell-roll", home)  # the built-in set taught and stored, as after a first run
        keys, terminal = pty.openpty()
        start = time.perf_counter()
        child = subprocess.Popen([*RUN, "--camera", "synthetic:3", *GAME_ARGS,
                                  "--png-dir", str(Path(home) / "screens")],
                                 env=env, stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        os.close(terminal)
        screens: list[list[str]] = []
        threading.Thread(target=_collect_screens, args=(child.stdout, screens), daemon=True).start()
        typed, answered, deadline, last, peak = 0, 0, time.monotonic() + timeout, None, 0.0
        database = Path(home) / "sessions.db"
        while not progress(database)[0] and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.2)
            peak = max(peak, high_water_mb(child.pid))
            newest = (len(screens), len(screens[-1]) if screens else 0)
            # every screen but the newest is whole; the newest once it stayed the same for a turn
            whole = len(screens) if newest == last else len(screens) - 1
            last = newest
            while answered < whole:
                key = key_for("".join(screens[answered]))
                answered += 1
                if key is not None:
                    os.write(keys, (key + "\n").encode())
                    typed += 1
        over, throws = progress(database)
        peak = max(peak, high_water_mb(child.pid))
        child.send_signal(signal.SIGTERM)
        child.wait()
        wall = time.perf_counter() - start
        os.close(keys)
    return {"wall": wall, "peak": peak, "keys": typed, "throws": throws, "over": over,
            "last": "".join(screens[-1]) if screens else "(none)", "exit": child.returncode}


def high_water_mb(pid: int) -> float:
    """A running process's peak resident memory so far (VmHWM), MB; 0 once it has gone. Not the
    child's ru_maxrss: Linux starts that at the forking parent's size, and this benchmark's own
    process is larger than the box (it taught a set and timed the path first)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def _collect_screens(stream, screens: list[list[str]]) -> None:
    """Each screen the box prints (a ``[kind] title`` line and the lines under it), as it comes."""
    for line in stream:
        if line.startswith("["):
            screens.append([])
        if screens:
            screens[-1].append(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m host.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=30, help="settled frames to time (default 30)")
    parser.add_argument("--panel", default="250x122", help="e-ink panel size WxH (default 250x122)")
    parser.add_argument("--no-run", action="store_true",
                        help="skip the whole game of `dicewatch run` (its wall time and peak RSS)")
    args = parser.parse_args(argv)
    w, h = (int(v) for v in args.panel.split("x"))
    timings = bench_path(args.frames, (w, h))
    print(f"settled 1280x720 frame -> e-ink image ready ({w}x{h}) + LEDs set, {args.frames} frames:")
    print(f"  {'stage':<12} {'median ms':>10} {'p95 ms':>10}")
    for stage in STAGES:
        values = timings[stage]
        print(f"  {stage:<12} {statistics.median(values):>10.1f} {percentile(values, 0.95):>10.1f}")
    counted, right, reads = timings["_reads"]
    print(f"  (the reader found all 7 dice in {counted:.0f} of {reads:.0f} frames and read every face right in "
          f"{right:.0f}; the stages after it are timed with the roll as thrown)")
    if not args.no_run:
        game = bench_run()
        print(f"dicewatch run on the synthetic camera: {game['throws']} throws stored, {game['keys']} keys typed, "
              f"wall {game['wall']:.1f} s, peak RSS {game['peak']:.0f} MB")
        if not game["over"]:
            print(f"  note: the game did not reach its end in time (a peak over part of a game); its last screen:\n"
                  f"  {game['last'].strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
