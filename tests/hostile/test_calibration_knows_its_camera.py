"""The calibration knows its camera (issue 56 item 4): it records which camera and frame size
made it and where the empty mat's markers lay; `calibrate`, `read` and `run` (at its first
frame, and again after a minute with nothing settled) say when the camera has moved or is
another one, with the command that recalibrates. Old files without the record still load."""
from __future__ import annotations

import json
import logging

import cv2
import numpy as np
import pytest

from tests.hostile import run_cli
from host.calibration import calibration_path, load_named, view_problem
from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from host.watcher import FrameWatcher, VIEW_RECHECK_S
from rules import get_game
from vision.calibrate import Calibration, calibrate, check_view
from vision.roll import Roll
from vision.synthetic_camera import SyntheticCamera

SIZE = (640, 480)


def empty_mat(seed: int, count: int = 3) -> list[np.ndarray]:
    camera = SyntheticCamera(seed, script=[], size=SIZE, lead_in=count / 10, fps=10)
    return [frame.image for frame in camera][:count]


@pytest.fixture(scope="module")
def seed1():
    frames = empty_mat(1)
    return calibrate(frames, name="table", background_frames=3), frames[0]


def shifted(image: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The picture as a camera nudged by (dx, dy) pixels would see it."""
    return cv2.warpAffine(image, np.float32([[1, 0, dx], [0, 1, dy]]), image.shape[1::-1],
                          borderMode=cv2.BORDER_REPLICATE)


def test_the_calibration_file_records_the_camera_and_the_markers(capsys):
    code, _, err = run_cli(capsys, "calibrate", "--camera", "synthetic:1", "--frames", "2")
    assert code == 0 and "no calibration 'default' saved before" in err
    saved = json.loads(calibration_path("default").read_text())
    assert saved["schema"] == 2
    assert saved["camera"] == {"source": "synthetic:1", "backend": "synthetic", "frame_size": list(SIZE)}
    assert sorted(saved["markers"]) == ["0", "1", "2", "3"] and all(len(c) == 4 for c in saved["markers"].values())
    loaded = load_named("default")
    assert loaded.camera["source"] == "synthetic:1" and set(loaded.markers) == {0, 1, 2, 3}
    # calibrating again says what changed: nothing, then another camera that sees the mat elsewhere
    code, _, err = run_cli(capsys, "calibrate", "--camera", "synthetic:1", "--frames", "2")
    assert code == 0 and "the camera sees the mat as before" in err
    code, _, err = run_cli(capsys, "calibrate", "--camera", "synthetic:5", "--frames", "2")
    assert code == 0 and "px from where they were (the camera or the mat has moved)" in err
    assert "it was made with synthetic:1, this is synthetic:5" in err


def test_check_view_tells_fits_moved_other_size_and_no_mat(seed1):
    calibration, frame = seed1
    assert check_view(calibration, frame).verdict == "fits"
    assert check_view(calibration, shifted(frame, 2, 1)).verdict == "fits"        # a tremor is not a move
    moved = check_view(calibration, shifted(frame, 25, -10))
    assert moved.verdict == "moved" and 20 < moved.offset_px < 35 and "has moved" in moved.message
    half = cv2.resize(frame, (320, 240))
    assert check_view(calibration, half).verdict == "fits"                         # same camera, smaller frames
    assert check_view(calibration, cv2.resize(frame, (300, 300))).verdict == "other-size"
    assert check_view(calibration, np.full((480, 640, 3), 128, np.uint8)).verdict == "no-markers"
    problem = view_problem(calibration, shifted(frame, 25, -10), "opencv:1")
    assert problem.endswith("recalibrate: dicewatch calibrate --camera opencv:1 --name table")


def old_calibration_file(seed1) -> None:
    """A calibration as dicewatch wrote it before it recorded the camera: schema 1."""
    calibration, _ = seed1
    path = calibration_path("old")
    Calibration.save(calibration, path)
    doc = json.loads(path.read_text())
    doc.update(schema=1, name="old")
    del doc["camera"], doc["markers"]
    path.write_text(json.dumps(doc))


def test_an_old_calibration_loads_with_one_line_of_advice(seed1, tmp_path, capsys):
    old_calibration_file(seed1)
    old = load_named("old")
    assert old.markers is None and old.camera is None
    assert check_view(old, seed1[1]).fits          # cannot tell: not refused
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), seed1[1])
    code, _, err = run_cli(capsys, "read", str(photo), "--calibration", "old")
    assert code == 0
    advice = [line for line in err.splitlines() if "older dicewatch" in line]
    assert len(advice) == 1 and "recalibrate: dicewatch calibrate --camera SOURCE --name old" in advice[0]
    from host.table_setup import load_calibration
    assert load_calibration("old").name == "old"
    assert "older dicewatch" in capsys.readouterr().err


def test_read_refuses_frames_and_photos_the_calibration_does_not_fit(seed1, tmp_path, capsys):
    """Before: a video from a moved camera never settled and read said 'no roll settled', exit 0."""
    calibration, frame = seed1
    calibration.save(calibration_path("table"))
    folder = tmp_path / "moved"
    folder.mkdir()
    for n in range(12):
        cv2.imwrite(str(folder / f"frame-{n}.png"), shifted(frame, 30, 12))
    code, out, err = run_cli(capsys, "read", "--frames", str(folder), "--calibration", "table", "--json")
    assert code == 1 and "no roll settled" not in err
    (line,) = [json.loads(x) for x in out.splitlines()]
    assert "the calibration does not fit these frames" in line["error"] and "has moved" in line["error"]
    assert "recalibrate: dicewatch calibrate --camera" in line["error"]
    photo = tmp_path / "moved.png"
    cv2.imwrite(str(photo), shifted(frame, 30, 12))
    code, out, err = run_cli(capsys, "read", str(photo), "--calibration", "table")
    assert code == 1 and "does not fit this photo" in err
    cv2.imwrite(str(photo), frame)
    code, out, err = run_cli(capsys, "read", str(photo), "--calibration", "table")
    assert code == 0 and "no dice found" in out


def test_the_watcher_checks_at_start_and_after_a_quiet_minute(seed1, caplog):
    calibration, frame = seed1
    watcher = FrameWatcher(lambda image: Roll(dice=()), calibration=calibration)
    watcher.camera_source = "opencv:0"
    moved = shifted(frame, 30, 12)
    with caplog.at_level(logging.INFO, logger="host.watcher"):
        watcher((moved, 0.0))
        assert "has moved" in watcher.view_warning and "--camera opencv:0 --name table" in watcher.view_warning
        for t in range(1, 20):   # put back at once, but not looked at again for a minute
            watcher((frame, t / 10))
        assert watcher.view_warning is not None
        quiet_since = watcher.last_settle.timestamp if watcher.last_settle is not None else 0.0
        watcher((frame, quiet_since + VIEW_RECHECK_S - 1))
        assert watcher.view_warning is not None
        watcher((frame, quiet_since + VIEW_RECHECK_S + 1))
        assert watcher.view_warning is None
    said = [r.getMessage() for r in caplog.records]
    assert sum("has moved" in m for m in said) == 1 and any("where calibration 'table' saw them again" in m
                                                            for m in said)


def test_the_table_shows_a_moved_camera_once(tmp_path):
    class Watcher:
        view_warning = None

        def __call__(self, frame):
            return "still", None

    class Camera:
        def read(self):
            return object()

        def close(self):
            pass

    with SessionStore(tmp_path / "sessions.db") as store:
        table = store.create(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben"]})
        screen, watcher = RecordingPresenter(), Watcher()
        loop = TableLoop(table, presenters=[screen], ask_setup=False, watcher=watcher, open_camera=Camera)
        loop.start()
        loop.step()
        watcher.view_warning = "the mat's markers are 30 px from where ... recalibrate: dicewatch calibrate"
        for _ in range(3):
            loop.step()
        errors = [s for s in screen.screens if s.kind == "error"]
        assert len(errors) == 1 and errors[0].title == "Camera moved?" and "recalibrate" in errors[0].lines[0]
