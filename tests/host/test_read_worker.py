"""Reads off the loop's thread (host.watcher.ReadWorker, TableLoop.read_in_background):
a press during a read is handled at once, reads are applied in order (the newest waiting
scene wins), a read about a table that has moved on is dropped, and a stop joins the worker.

The reader here is deliberately slow: it waits for the test to let it finish, so every
assertion is about order (what was handled before the read finished), never about time.
"""
from __future__ import annotations

import os
import signal
import threading

import pytest

from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from host.watcher import FrameWatcher, ReadWorker
from rules import get_game
from test_loop import FIRST, kinds, roll_of
from vision.settle import Settle

SECOND = ["GIFT", "GIFT", "MILK", "COOKIE", "LIST", "STOCKING", "BELL"]
THIRD = ["LIST", "GIFT", "MILK", "MILK", "COOKIE", "STOCKING", "BELL"]
WAIT = 10.0   # seconds: only a bound for a broken test, never reached when it passes


class SceneGate:
    """A settle gate for made-up frames: a frame named "scene ..." settles at once (its
    name is the picture to read), anything else is a still tray."""

    state = "still"

    def update(self, image, timestamp):
        return Settle(image, timestamp, 0, 1.0) if str(image).startswith("scene") else None

    def reset(self):
        pass


class SlowReader:
    """Reads a scene's name into its roll, but only once the test lets it go (``release``)."""

    def __init__(self, rolls, hold=True):
        self.rolls = rolls               # scene name -> Roll
        self.started = threading.Event()
        self.release = threading.Event()
        self.read = []                   # scenes read, in order
        self.finished = []               # ... and done
        if not hold:
            self.release.set()

    def __call__(self, image):
        self.read.append(image)
        self.started.set()
        assert self.release.wait(WAIT), "the test never let the read finish"
        self.finished.append(image)
        return self.rolls[image]


class Camera:
    def __init__(self, frames):
        self.frames = list(frames)

    def read(self):
        return self.frames.pop(0) if self.frames else "still"

    def close(self):
        pass


@pytest.fixture
def table(tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    yield store.create(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben", "Cy"]})
    store.close()


def background_loop(table, reader, frames):
    loop = TableLoop(table, presenters=[RecordingPresenter()], ask_setup=False,
                     watcher=FrameWatcher(reader, SceneGate()), open_camera=lambda: Camera(frames))
    loop.start()
    loop.read_in_background()
    return loop


def test_a_press_during_a_read_is_handled_before_the_read_finishes(table):
    reader = SlowReader({"scene 1": roll_of(FIRST)})
    loop = background_loop(table, reader, ["scene 1"])
    loop.step()                                   # the scene settles: handed to the worker
    assert reader.started.wait(WAIT)
    loop.post("push")                             # the knob, while the dice are being read
    loop.step()
    assert loop.menu is not None and reader.finished == []   # handled; the read still runs
    assert table.state.roll_number == 0
    reader.release.set()
    assert loop.wait_idle(WAIT)
    assert table.state.roll_number == 1 and sorted(table.state.faces) == sorted(FIRST)
    assert loop.menu is None                      # a roll puts the menu away, as before
    loop.shutdown()


def test_reads_are_applied_in_order_and_the_newest_waiting_scene_wins(table):
    reader = SlowReader({"scene 1": roll_of(FIRST), "scene 2": roll_of(THIRD), "scene 3": roll_of(SECOND)})
    loop = background_loop(table, reader, ["scene 1", "scene 2", "scene 3"])
    loop.step()
    assert reader.started.wait(WAIT)
    loop.step()                                   # scene 2 settles while scene 1 is read ...
    loop.step()                                   # ... and gives way to scene 3
    assert loop.reads.dropped == 1 and table.state.roll_number == 0
    reader.release.set()
    assert loop.wait_idle(WAIT)
    assert reader.read == ["scene 1", "scene 3"]
    rolls = [e.body["faces"] for e in table.entries if e.kind == "event"]
    assert [sorted(faces) for faces in rolls] == [sorted(FIRST), sorted(SECOND)]
    loop.shutdown()


def test_a_read_of_a_roll_the_player_typed_meanwhile_is_dropped(table):
    reader = SlowReader({"scene 1": roll_of(SECOND)})
    loop = background_loop(table, reader, ["scene 1"])
    loop.step()
    assert reader.started.wait(WAIT)
    loop.post("roll:" + ",".join(FIRST))          # typed while the camera's read runs
    loop.step()
    assert table.state.roll_number == 1
    reader.release.set()
    assert loop.wait_idle(WAIT)
    assert reader.finished == ["scene 1"]
    assert table.state.roll_number == 1 and sorted(table.state.faces) == sorted(FIRST)
    assert kinds(table) == [("note", "typed-roll"), ("event", "roll")]
    loop.shutdown()


def test_a_read_that_fails_in_the_worker_is_shown_and_the_game_goes_on(table):
    def broken(image):
        raise ValueError("empty frame")

    loop = background_loop(table, broken, ["scene 1"])
    loop.step()
    assert loop.wait_idle(WAIT)
    assert loop.stack.notice() is not None and table.state.roll_number == 0
    loop.shutdown()


def test_sigterm_during_a_read_finishes_it_and_joins_the_worker(table):
    reader = SlowReader({"scene 1": roll_of(FIRST)}, hold=False)
    stopped_during_read = []

    def read_then_sigterm(image):
        os.kill(os.getpid(), signal.SIGTERM)      # as systemd stops the box, mid-read
        stopped_during_read.append(loop.stop_requested.wait(WAIT))
        return reader(image)

    loop = TableLoop(table, presenters=[RecordingPresenter()], ask_setup=False,
                     watcher=FrameWatcher(read_then_sigterm, SceneGate()), open_camera=lambda: Camera(["scene 1"]))
    previous = signal.signal(signal.SIGTERM, loop.request_stop)
    try:
        loop.run(frame_interval=0.01)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert stopped_during_read == [True] and reader.finished == ["scene 1"]
    assert not loop.reads.alive
    assert "dice-reader" not in [t.name for t in threading.enumerate()]
    assert loop.closed


def test_the_worker_alone_reads_one_scene_at_a_time_and_closes_twice():
    worker = ReadWorker()
    inside, most = [0], [0]
    lock = threading.Lock()

    def read(image):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        with lock:
            inside[0] -= 1
        return image * 2

    for n in range(20):
        worker.submit(read, n, ticket=n)
    assert worker.wait_idle(WAIT)
    done = worker.finished()
    assert most[0] == 1 and done and [ticket for ticket, _, _ in done] == sorted(t for t, _, _ in done)
    assert all(roll == 2 * ticket and error is None for ticket, roll, error in done)
    assert done[-1][0] == 19                      # the newest scene is always read
    worker.close()
    worker.close()
    assert not worker.alive and not worker.busy
