"""`dicewatch read`: output formats, bad inputs (each reported, the rest still read), flags."""
import json

import cv2
import numpy as np
import pytest

from host import cli
from vision.synth import render_scene


@pytest.fixture(scope="module")
def scene():
    image, truth = render_scene(["2", "5", "6"], "d6-pips", seed=11, size=(640, 480), die_px=40,
                                tilt=3.0, touching=0.0)
    return image, truth


@pytest.fixture
def photo(tmp_path, scene):
    path = tmp_path / "three.png"
    cv2.imwrite(str(path), scene[0])
    return path


def json_lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_json_line_per_image_with_faces_and_centres(photo, scene, capsys):
    assert cli.main(["read", str(photo), "--json"]) == 0
    (line,) = json_lines(capsys.readouterr().out)
    assert line["image"] == str(photo)
    assert sorted(d["face"] for d in line["dice"]) == ["2", "5", "6"]
    for d in line["dice"]:
        assert set(d) == {"face", "confidence", "x", "y", "w", "h"}
        assert 0.0 <= d["confidence"] <= 1.0
        nearest = min(scene[1].dice, key=lambda t: (t.x - d["x"]) ** 2 + (t.y - d["y"]) ** 2)
        assert nearest.face == d["face"]
        assert abs(nearest.x - d["x"]) < 10 and abs(nearest.y - d["y"]) < 10


def test_plain_output_gives_faces_and_total(photo, capsys):
    assert cli.main(["read", str(photo)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{photo}: ") and "total 13" in out and "3 dice" in out


def test_a_single_die_is_one_die_not_one_dice():
    from host.commands.read import format_line
    from vision.roll import Die, Roll
    roll = Roll((Die(face="4", confidence=0.95, x=10.0, y=10.0, w=20.0, h=20.0),), "d6-pips", (64, 64))
    assert format_line("photo.jpg", roll) == "photo.jpg: 4  total 4  (1 die)"


def test_bad_images_are_reported_and_the_others_still_read(tmp_path, photo, capsys):
    text = tmp_path / "notes.jpg"
    text.write_text("this is not a photo\n")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    missing = tmp_path / "missing.jpg"
    status = cli.main(["read", str(missing), str(text), str(photo), str(empty), "--json"])
    assert status == 1
    lines = json_lines(capsys.readouterr().out)
    assert [o["image"] for o in lines] == [str(missing), str(text), str(photo), str(empty)]
    assert "no such file" in lines[0]["error"]
    assert "not an image" in lines[1]["error"]
    assert len(lines[2]["dice"]) == 3 and "error" not in lines[2]
    assert "empty file" in lines[3]["error"]


def test_image_too_big_to_decode_is_reported_not_a_traceback(tmp_path, photo, capsys):
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    huge = tmp_path / "huge.png"  # a small file whose header claims 50000x50000 pixels
    huge.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 50000, 50000, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(b"\0" * 150001)) + chunk(b"IEND", b""))
    assert cli.main(["read", str(huge), str(photo), "--json"]) == 1
    lines = json_lines(capsys.readouterr().out)
    assert lines[0] == {"image": str(huge), "error": "not an image OpenCV can decode: too many pixels "
                                                     "(OpenCV decodes at most 2^30 pixels, 2^20 a side)"}
    assert len(lines[1]["dice"]) == 3


def test_frames_of_mixed_sizes_are_reported_not_a_traceback(tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(30):  # the first size long enough to settle, then another (not half: the gate's
        size = (640, 480) if i < 15 else (400, 300)  # small copy of it has another size too)
        cv2.imwrite(str(folder / f"frame-{i}.png"), np.full((size[1], size[0], 3), 120, np.uint8))
    assert cli.main(["read", "--frames", str(folder), "--json"]) == 1
    (line,) = json_lines(capsys.readouterr().out)
    assert line["image"] == str(folder)
    assert "frame-15.png: a 400x300 frame among 640x480 ones" in line["error"]


def test_bad_image_without_json_goes_to_stderr(tmp_path, capsys):
    assert cli.main(["read", str(tmp_path / "nope.png")]) == 1
    captured = capsys.readouterr()
    assert "nope.png: no such file" in captured.err and captured.out == ""


def test_twelve_megapixel_photo_reports_input_pixels(tmp_path, scene, capsys):
    image, truth = scene
    big = cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert cli.main(["read", str(path), "--json"]) == 0
    (line,) = json_lines(capsys.readouterr().out)
    k = 4000 / 640
    assert len(line["dice"]) == 3
    for d in line["dice"]:
        nearest = min(truth.dice, key=lambda t: (t.x * k - d["x"]) ** 2 + (t.y * k - d["y"]) ** 2)
        assert abs(nearest.x * k - d["x"]) < 60 and abs(nearest.y * k - d["y"]) < 60
        assert 0.6 * nearest.w * k < d["w"] < 1.6 * nearest.w * k
        if d["confidence"] >= 0.9:  # a sure reading must be right (this blown-up copy is soft)
            assert d["face"] == nearest.face


def test_overlay_written_per_image(tmp_path, photo, capsys):
    out_dir = tmp_path / "overlays"
    assert cli.main(["read", str(photo), "--overlay", str(out_dir)]) == 0
    (written,) = list(out_dir.iterdir())
    assert written.name == "three.overlay.png"
    drawn = cv2.imread(str(written))
    assert drawn.shape[1] == 640 and drawn.shape[0] > 480  # the frame plus the strip of dice
    original = cv2.imread(str(photo))
    assert np.any(drawn[:480] != original)


@pytest.mark.parametrize("argv, message", [
    (["read"], "required"),
    (["read", "x.jpg", "--bogus"], "usage: dicewatch read [-h]"),   # the command's own usage
    (["read", "x.jpg", "--bogus"], "dicewatch read: error: unrecognized arguments: --bogus"),
    (["read", "x.jpg", "--dice", "no-such-dice"], "no-such-dice"),
])
def test_bad_flags_are_usage_errors(argv, message, capsys):
    try:
        status = cli.main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        status = exc.code
    assert status == 2
    assert message in capsys.readouterr().err


def test_overlay_into_a_file_is_a_usage_error(tmp_path, photo, capsys):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    assert cli.main(["read", str(photo), "--overlay", str(blocker)]) == 2
    assert "not a directory" in capsys.readouterr().err
