"""The pip reader on synthetic scenes (known faces), odd frames, and the classic counter."""
import cv2
import numpy as np
import pytest

from vision import classic
from vision.pips import PipReader, letterbox
from vision.reader import ImageError, UnknownDiceSet, load_image, read_frame, read_image, reader_for
from vision.synth import render_scene

SCENES = [  # (faces, seed, size, die_px, background)
    (["1", "2", "3", "4", "5", "6"], 1, (640, 480), 36, "tray"),
    (["6", "6", "3", "1"], 2, (640, 480), 28, "tray"),
    (["5", "2", "4", "4", "1"], 3, (640, 640), 48, "tray"),
    (["3", "6", "2"], 4, (800, 600), None, "mat"),
]


def assert_reads_scene(roll, truth, tolerance=0.35):
    assert sorted(roll.faces) == sorted(truth.faces)
    for die in roll.dice:
        nearest = min(truth.dice, key=lambda t: (t.x - die.x) ** 2 + (t.y - die.y) ** 2)
        assert nearest.face == die.face
        assert abs(nearest.x - die.x) < tolerance * nearest.w
        assert abs(nearest.y - die.y) < tolerance * nearest.h


@pytest.mark.parametrize("faces, seed, size, die_px, background", SCENES)
def test_synthetic_scene_read_exactly(faces, seed, size, die_px, background):
    image, truth = render_scene(faces, "d6-pips", seed=seed, size=size, die_px=die_px,
                                background=background, tilt=3.0)
    roll = read_frame(image)
    assert_reads_scene(roll, truth)
    assert roll.frame_size == size and roll.dice_set == "d6-pips"
    assert all(len(d.outline) == 4 for d in roll.dice)


def test_reading_order_is_top_to_bottom_then_left_to_right():
    positions = [(500, 100), (120, 100), (320, 380)]
    image, _ = render_scene(["1", "2", "3"], "d6-pips", seed=5, positions=positions, die_px=40, tilt=0)
    assert read_frame(image).faces == ["2", "1", "3"]


def test_empty_tray_has_no_dice():
    image, _ = render_scene([], "d6-pips", seed=6)
    assert read_frame(image).dice == ()


def test_dice_that_are_not_pip_dice_are_seldom_read_as_pips():
    """Numeral, letter and picture dice (rendered, scenes no model trained on) are not pip
    dice: the face reader learnt them as "no die". The models before that read 95 % of these
    dice as pips, 58 % at >= 0.9; the shipped ones 17 % and 3.4 % (vision.bench rendered)."""
    from vision.bench.rendered import not_pip_reads
    dice, read, sure = not_pip_reads(PipReader(), 40)
    assert dice > 500
    assert read <= 0.3 * dice and sure <= 0.06 * dice, (dice, read, sure)


def test_gray_and_bgra_frames_read_like_bgr():
    image, truth = render_scene(["4", "2"], "d6-pips", seed=7, die_px=40, tilt=0)
    bgra = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    assert sorted(read_frame(bgra).faces) == ["2", "4"]
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert len(read_frame(gray).dice) == 2


def test_letterbox_keeps_aspect_and_pads():
    canvas, scale = letterbox(np.zeros((480, 640, 3), np.uint8), 320)
    assert canvas.shape == (320, 320, 3) and scale == 0.5
    assert canvas[300, 10, 0] != 0  # padding below the picture


def test_turn_votes_settings():
    reader = PipReader(turns=1)
    image, truth = render_scene(["3", "5"], "d6-pips", seed=8, die_px=40, tilt=0)
    assert sorted(reader(image).faces) == ["3", "5"]


def test_load_image_errors(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "missing.png")
    (tmp_path / "a.jpg").write_text("hello")
    with pytest.raises(ImageError, match="not an image"):
        read_image(tmp_path / "a.jpg")
    with pytest.raises(ImageError, match="directory"):
        load_image(tmp_path)


def test_unknown_dice_set():
    with pytest.raises(UnknownDiceSet, match="d6-pips"):
        reader_for("no-such-set")


def draw_plain_dice(faces, side=60, pip=10):
    """White squares with black pips on grey: the case the classic counter handles."""
    layout = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
              4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
              6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
    image = np.full((240, 120 * len(faces), 3), 110, np.uint8)
    centres = []
    for n, face in enumerate(faces):
        cx, cy = 60 + 120 * n, 120
        cv2.rectangle(image, (cx - side // 2, cy - side // 2), (cx + side // 2, cy + side // 2), (245, 245, 245), -1)
        for dx, dy in layout[face]:
            cv2.circle(image, (cx + dx * side // 4, cy + dy * side // 4), pip // 2, (20, 20, 20), -1, cv2.LINE_AA)
        centres.append((cx, cy))
    return image, centres


def test_classic_counter_counts_clean_pips():
    faces = [1, 2, 3, 4, 5, 6]
    image, centres = draw_plain_dice(faces)
    roll = classic.read_frame(image)
    assert [int(f) for f in roll.faces] == faces
    for die, (cx, cy) in zip(roll.dice, centres):
        assert abs(die.x - cx) < 8 and abs(die.y - cy) < 8


def test_classic_counter_on_blank_frame():
    assert classic.read_frame(np.full((200, 200, 3), 128, np.uint8)).dice == ()


def test_shipped_models_stay_small():
    """The run-time models (ONNX, read by cv2.dnn) stay under 2 MB together."""
    from vision.pips import MODELS
    sizes = {p.name: p.stat().st_size for p in MODELS.glob("*.onnx")}
    assert {"pip_finder.onnx", "pip_faces.onnx"} <= set(sizes)
    assert sum(sizes.values()) < 2_000_000, sizes
