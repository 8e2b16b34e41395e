"""`dicewatch read --video / --frames / --calibration`: one read per settled roll.

These check the plumbing (settle gate -> reader -> output), not the reader's accuracy
(tests/vision/test_reader.py does that): each read must come from a frame where the
synthetic dice really lay still with no hand in view."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from host import cli
from vision.synthetic_camera import ScriptedRoll, SyntheticCamera

SCRIPT = [ScriptedRoll(("2", "5", "6"), hover=True), ScriptedRoll(("1", "4"), keep=())]


def _film(seed=3):
    camera = SyntheticCamera(seed, script=SCRIPT, size=(640, 480), hold=0.8, lead_in=0.3,
                             background="mat")
    frames = []
    for image, _ in camera:
        frames.append((image, camera.truth))
    return frames


@pytest.fixture(scope="module")
def filmed():
    return _film()


def _reads(capsys):
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_frames_folder_gives_one_read_per_roll(tmp_path, capsys, filmed):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, (image, _) in enumerate(filmed):
        cv2.imwrite(str(folder / f"frame-{i}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert cli.main(["read", "--frames", str(folder), "--json"]) == 0
    reads = _reads(capsys)
    assert len(reads) == 2, reads  # the hover and the empty tray are not reads
    for read, roll in zip(reads, (0, 1)):
        assert read["image"].startswith(f"{folder}@") and read["image"].endswith("s")
        truth = filmed[round(float(read["image"].rsplit("@", 1)[1][:-1]) * 30)][1]
        assert truth.phase == "still" and not truth.hand and truth.roll == roll
        assert read["dice"]


def test_video_with_calibration_reports_areas(tmp_path, capsys, filmed, monkeypatch):
    """With --calibration, dice are found as the device finds them on that tray (by the
    calibrated tray's finder), and each die gets its area."""
    from vision.tray_finder import TrayFinder
    looked = []
    find = TrayFinder.find
    monkeypatch.setattr(TrayFinder, "find", lambda self, frame: looked.append(1) or find(self, frame))
    empty = tmp_path / "empty-tray"
    empty.mkdir()
    for i, (image, truth) in enumerate(filmed[:5]):  # the lead-in: the empty mat
        assert truth.phase == "empty"
        cv2.imwrite(str(empty / f"{i}.png"), image)
    assert cli.main(["calibrate", "--camera", f"frames:{empty}", "--frames", "5"]) == 0
    capsys.readouterr()
    video = tmp_path / "roll.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (640, 480))
    for image, _ in filmed:
        writer.write(image)
    writer.release()
    assert cli.main(["read", "--video", str(video), "--calibration", "default", "--json"]) == 0
    reads = _reads(capsys)
    assert len(reads) == 2 and looked
    assert [sorted(d["face"] for d in r["dice"]) for r in reads] == [sorted(roll.faces) for roll in SCRIPT]
    areas = [d.get("area") for r in reads for d in r["dice"]]
    assert "rolling" in areas and set(areas) <= {"rolling", "keep", "outside"}


@pytest.mark.parametrize("argv, message", [
    (["read"], "photos (IMAGE ...) are required, or --video FILE, or --frames DIR"),
    (["read", "a.jpg", "--video", "b.mp4"], "not IMAGE and --video together"),
    (["read", "--frames", ".", "--fps", "0"], "--fps 0"),
    (["read", "--frames", ".", "--fps", "nan"], "--fps nan: expected a number of frames per second above 0"),
    (["read", "--frames", ".", "--fps", "inf"], "--fps inf: expected a number of frames per second above 0"),
    (["read", "a.jpg", "--calibration", "nope"], "no calibration named 'nope'"),
    (["read", "--video", "b.mp4", "--fps", "25"], "--fps 25: only for --frames"),
    (["read", "a.jpg", "--fps", "25"], "--fps 25: only for --frames"),
])
def test_usage_errors(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_missing_video_is_reported_like_a_bad_photo(tmp_path, capsys):
    missing = tmp_path / "none.mp4"
    assert cli.main(["read", "--video", str(missing), "--json"]) == 1
    (line,) = _reads(capsys)
    assert line == {"image": str(missing), "error": "no such video file"}


def test_photo_of_another_camera_is_refused_with_calibration(tmp_path, capsys):
    assert cli.main(["calibrate", "--camera", "synthetic:1", "--frames", "2"]) == 0
    photo = tmp_path / "square.png"
    cv2.imwrite(str(photo), cv2.resize(_film_first_frame(), (300, 300)))
    capsys.readouterr()
    assert cli.main(["read", str(photo), "--calibration", "default", "--json"]) == 1
    (line,) = _reads(capsys)
    assert "made for 640x480 frames; this picture is 300x300" in line["error"]


def _film_first_frame():
    camera = SyntheticCamera(1, script=[], size=(640, 480), lead_in=0.1)
    return next(iter(camera)).image


def test_frames_of_another_camera_are_refused_with_calibration(tmp_path, capsys, filmed):
    assert cli.main(["calibrate", "--camera", "synthetic:1", "--frames", "2"]) == 0
    folder = tmp_path / "square"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"{i}.png"), cv2.resize(filmed[i][0], (200, 200)))
    capsys.readouterr()
    assert cli.main(["read", "--frames", str(folder), "--calibration", "default", "--json"]) == 1
    (line,) = _reads(capsys)
    assert line["image"] == str(folder) and "made for 640x480 frames" in line["error"]


def test_frames_too_few_to_settle_say_so(tmp_path, capsys):
    for n in range(3):   # 0.1 s of frames at 30 per second: nothing can lie still for 0.3 s
        cv2.imwrite(str(tmp_path / f"frame-{n}.png"), np.full((120, 160, 3), 90, np.uint8))
    assert cli.main(["read", "--frames", str(tmp_path), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{tmp_path}: no roll settled in its 3 frames" in captured.err
