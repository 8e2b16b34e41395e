"""`dicewatch mat` and `dicewatch calibrate` from the command line."""
from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from host import cli
from vision import mat, synth
from vision.calibrate import find_markers

MM_PER_POINT = 25.4 / 72


@pytest.mark.parametrize("size", ["A4", "A3", "letter"])
def test_mat_pdf_has_the_paper_size(tmp_path, capsys, size):
    out = tmp_path / "mat.pdf"
    assert cli.main(["mat", "--out", str(out), "--size", size, "--dpi", "100"]) == 0
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", out.read_bytes())
    width, height = (float(v) * MM_PER_POINT for v in box.groups())
    paper_w, paper_h = mat.PAPER_MM[size]
    assert width == pytest.approx(paper_w, abs=0.5) and height == pytest.approx(paper_h, abs=0.5)
    assert f"wrote {out}: {size} landscape" in capsys.readouterr().out


def test_mat_png_shows_its_four_markers(tmp_path):
    out = tmp_path / "mat.png"
    assert cli.main(["mat", "--out", str(out), "--size", "letter", "--dpi", "100"]) == 0
    found = find_markers(cv2.imread(str(out)))
    assert sorted(found) == [8, 9, 10, 11]


@pytest.mark.parametrize("argv, status, message", [
    (["mat", "--out", "mat.docx"], 2, "expected a .pdf or .png"),
    (["mat", "--out", "mat.pdf", "--dpi", "20"], 2, "expected 100 to 600"),
    (["mat", "--out", "no/such/folder/mat.pdf"], 1, "does not exist"),
    (["calibrate", "--camera", "webcam"], 2, "unknown camera"),
    (["calibrate", "--camera", "synthetic", "--name", "../etc"], 2, "use letters, digits"),
    (["calibrate", "--camera", "frames:/no/such/dir"], 1, "no such folder of frames"),
    (["calibrate", "--camera", "synthetic", "--preview", "top.txt"], 2, "--preview top.txt: expected an image file"),
    (["calibrate", "--camera", "synthetic", "--preview", "."], 2, "--preview .: expected an image file"),
])
def test_bad_input(tmp_path, monkeypatch, capsys, argv, status, message):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == status
    assert message in capsys.readouterr().err


def test_mat_size_must_be_known(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["mat", "--out", "m.pdf", "--size", "A5"])
    assert exit_info.value.code == 2


def test_calibrate_synthetic_camera_saves_in_the_data_dir(tmp_path, dicewatch_home, capsys):
    preview = tmp_path / "top.png"
    assert cli.main(["calibrate", "--camera", "synthetic:2", "--name", "table", "--frames", "3",
                     "--preview", str(preview)]) == 0
    saved = dicewatch_home / "calibration" / "table.json"
    data = json.loads(saved.read_text())
    assert data["mat"] == "A4" and data["frame_size"] == [640, 480]
    assert re.fullmatch(r"table-background-[0-9a-f]{12}\.png", data["background"])
    assert (dicewatch_home / "calibration" / data["background"]).is_file()
    assert sorted(find_markers(cv2.imread(str(preview)))) == [0, 1, 2, 3]
    out = capsys.readouterr()
    assert "calibration 'table' saved" in out.out and "soft" not in out.err
    assert re.search(r"looks \d+ degrees from straight down, a 16 mm die is \d+-\d+ px across", out.out)
    assert "straight above" not in out.err and "bring the camera closer" not in out.err


@pytest.mark.parametrize("in_the_way", ["calibration", "calibration/table.json"])
def test_calibrate_says_when_it_cannot_save(dicewatch_home, capsys, in_the_way):
    """A file where the calibration folder should be, or folders where its files go."""
    (dicewatch_home / in_the_way).parent.mkdir(parents=True, exist_ok=True)
    if in_the_way == "calibration":
        (dicewatch_home / in_the_way).write_text("not a folder")
    else:
        (dicewatch_home / in_the_way).mkdir()
    assert cli.main(["calibrate", "--camera", "synthetic:2", "--name", "table", "--frames", "2"]) == 1
    err = capsys.readouterr().err
    assert "\ndicewatch calibrate: " in err and "Traceback" not in err
    assert "table" in err and ("cannot save" in err or "cannot write" in err)


def test_calibrate_says_when_the_camera_is_out_of_focus(tmp_path, dicewatch_home, capsys):
    table = synth.Table((640, 480), 4, background="mat")
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        frame = table.draw([], "jingle-bell-roll", np.random.default_rng(i))[0]
        cv2.imwrite(str(folder / f"{i:03d}.png"), cv2.GaussianBlur(frame, (0, 0), 2.0))
    assert cli.main(["calibrate", "--camera", f"frames:{folder}", "--frames", "3"]) == 0
    assert "the picture is soft" in capsys.readouterr().err


def test_calibrate_says_when_the_camera_looks_from_a_slant(tmp_path, dicewatch_home, capsys):
    """A camera 27 degrees off straight down (the rendered camera of seed 1, tilted up to 25 a side)."""
    table = synth.Table((1280, 720), 1, background="mat", tilt_deg=25)
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(2):
        cv2.imwrite(str(folder / f"{i:03d}.png"), table.draw([], "d6-pips", np.random.default_rng(i))[0])
    assert cli.main(["calibrate", "--camera", f"frames:{folder}", "--frames", "2"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"looks at the mat about 2\d degrees from straight down", err)
    assert "mount the camera over the tray's centre" in err


def test_calibrate_from_frames_without_the_mat(tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"{i}.png"), np.full((60, 80, 3), 128, np.uint8))
    assert cli.main(["calibrate", "--camera", f"frames:{folder}"]) == 1
    assert "no ArUco markers found" in capsys.readouterr().err


def test_run_repeats_the_calibrations_advice_at_start(dicewatch_home, capsys):
    """A calibration saved before the advice existed (or whose advice was not followed) is
    advised about again when the box starts."""
    from host.calibration import calibration_path
    from host.table_setup import load_calibration
    from vision.calibrate import Calibration
    far = Calibration(name="default", paper="A4", frame_size=(640, 480), image_to_mat=np.diag([1.2, 1.2, 1.0]))
    far.save(calibration_path("default"))
    assert load_calibration("").name == "default"
    err = capsys.readouterr().err
    assert "dicewatch run: tray calibration 'default': a 16 mm die is only 13 px across" in err
