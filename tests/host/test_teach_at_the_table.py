"""Teaching the game's dice again from the table loop's knob menu ("Teach the dice")."""
from __future__ import annotations

import threading
import time

import cv2
import pytest

from host.teaching import box_teacher
from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from rules import get_game
from vision import dicesets
from vision.roll import Die, Roll
from vision.sources import Frame, FrameSource

GAME = get_game("jingle-bell-roll")
FIRST = ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]


@pytest.fixture
def table(tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    yield store.create(GAME, {"players": ["Ann", "Ben"]})
    store.close()


class Camera:
    closed = False

    def read(self):
        return None

    def close(self):
        self.closed = True


def make_loop(table, teach_dice=None):
    screen = RecordingPresenter()
    loop = TableLoop(table, presenters=[screen], ask_setup=False, watcher="old watcher")
    loop.teach_dice = teach_dice
    loop.start()
    return loop, screen


def open_teaching(loop):
    loop.handle("push")  # the knob menu
    loop.menu = loop.menu.pick("teach")
    loop.handle("push")


def test_between_turns_the_menu_offers_teaching_and_it_swaps_the_reader(table):
    calls = []
    loop, screen = make_loop(table, lambda lp: calls.append(lp) or "new watcher")
    camera = loop.camera = Camera()
    open_teaching(loop)
    assert calls == [loop] and camera.closed and loop.camera is None  # teaching had the camera
    assert loop.watcher == "new watcher" and loop.menu is None
    loop.handle("next")  # teaching's last screen put away: the game as it stood
    assert screen.screens[-1].kind == "scoreboard" and not table.entries


def test_mid_turn_and_without_a_teacher_it_is_not_offered(table):
    loop, _ = make_loop(table, lambda lp: None)
    loop.on_read(Roll(tuple(Die(f, 0.98, 20.0 * i, 10, 10, 10) for i, f in enumerate(FIRST)), "jingle-bell-roll"))
    loop.handle("push")
    assert "teach" not in [item.value for item in loop.menu.items]
    loop, _ = make_loop(table)
    loop.table.undo()
    loop.handle("push")
    assert "teach" not in [item.value for item in loop.menu.items]


def test_teaching_that_fails_keeps_the_old_dice(table):
    def broken(_loop):
        raise OSError("camera busy")

    loop, screen = make_loop(table, broken)
    open_teaching(loop)
    assert loop.watcher == "old watcher"
    shown = screen.screens[-1]
    assert shown.kind == "error" and shown.title == "Teaching failed" and "camera busy" in shown.lines[0]


def test_a_camera_that_cannot_open_is_an_error_and_the_game_goes_on(table, dicewatch_home):
    loop, screen = make_loop(table, box_teacher("frames:/nonexistent", "jingle-bell-roll", dicewatch_home,
                                                lambda: "new watcher"))
    open_teaching(loop)
    assert loop.watcher == "old watcher" and screen.screens[-1].title == "Teaching failed"


def test_undo_at_the_first_question_stops_and_keeps_the_old_dice(table, dicewatch_home, tmp_path):
    """A real camera waits for the buttons: Undo stops teaching, nothing is stored."""
    from vision.synthetic_camera import SyntheticCamera
    frames = tmp_path / "frames"
    frames.mkdir()
    with SyntheticCamera(1, script=[], dice_set="jingle-bell-roll", lead_in=0.5) as camera:
        for n, frame in enumerate(camera):
            cv2.imwrite(str(frames / f"{n:04d}.png"), frame.image)
    loop, screen = make_loop(table, box_teacher(f"frames:{frames}", "jingle-bell-roll", dicewatch_home,
                                                lambda: "new watcher"))
    before = dicesets.load_set("jingle-bell-roll", dicewatch_home).origin
    done = threading.Event()

    def player():  # presses Undo until teaching is over (a press before a question is not an answer)
        while not done.wait(0.05):
            loop.post("undo")

    threading.Thread(target=player, daemon=True).start()
    try:
        open_teaching(loop)
    finally:
        done.set()
    assert [s.title for s in screen.screens][-2:] == ["Clear the tray", "Stopped"]
    assert loop.watcher == "old watcher"
    assert dicesets.load_set("jingle-bell-roll", dicewatch_home).origin == before


def test_the_whole_teaching_at_the_synthetic_camera(table, dicewatch_home):
    made = []
    loop, screen = make_loop(table, box_teacher("synthetic:2", "jingle-bell-roll", dicewatch_home,
                                                lambda: made.append(1) or "new watcher", shots=5))
    open_teaching(loop)
    titles = [s.title for s in screen.screens]
    assert "Face 1 of 6: MILK" in titles and "Self-check: is this right?" in titles
    last = screen.screens[-1]
    assert last.title == "Taught jingle-bell-roll" and last.footer == "Next: back to the game"
    assert "the game reads with them now" in last.lines
    assert made == [1] and loop.watcher == "new watcher"
    stored = dicesets.load_set("jingle-bell-roll", dicewatch_home)
    assert all(len(stored.examples[f]) == 5 for f in stored.faces)
    loop.handle("next")
    assert screen.screens[-1].kind == "scoreboard" and not table.entries  # Next did not skip a turn


class EmptyTray(FrameSource):
    """A live camera over an empty tray: the same picture, 30 a second, for ever."""

    def __init__(self, image):
        self.image, self.count = image, 0

    def read(self):
        time.sleep(1 / 300)  # a little slower than the loop would like, as a camera is
        self.count += 1
        return Frame(self.image, self.count / 30)


def test_sigterm_while_teaching_waits_for_no_die(table, dicewatch_home, monkeypatch):
    """The service is stopped while the box waits for a die in an empty tray: teaching ends
    there (the settle gate never reports an empty tray twice, so without the stop it would
    wait for ever), says so, and the game keeps its old dice."""
    from vision import sources
    from vision.synthetic_camera import SyntheticCamera
    with SyntheticCamera(1, script=[], dice_set="jingle-bell-roll", lead_in=0.2) as camera:
        empty = next(iter(camera)).image
    tray = EmptyTray(empty)
    monkeypatch.setattr(sources, "open_source", lambda spec, **_: tray)
    loop, screen = make_loop(table, box_teacher("opencv:9", "jingle-bell-roll", dicewatch_home,
                                                lambda: "new watcher"))

    def player_then_sigterm():
        # Score to the questions (the tray is clear; a MILK die is coming) until the box has
        # watched the empty tray for two seconds of frames, then the service is stopped
        while tray.count < 60 and not loop.stop_requested.wait(0.05):
            loop.post("score")
        loop.request_stop()

    player = threading.Thread(target=player_then_sigterm, daemon=True)
    player.start()
    open_teaching(loop)
    player.join()
    assert tray.count >= 60  # it was watching the tray when the stop came
    assert loop.watcher == "old watcher"
    titles = [s.title for s in screen.screens]
    assert "Face 1 of 6: MILK" in titles and titles[-1] == "Stopped"
