"""The benchmark's error listing (vision/bench/errors.py): errors paired as the scorer pairs
them, added up per scene, and drawn so a person can see each one."""
import json

import cv2
import numpy as np
import pytest

from vision.bench import errors
from vision.bench.errors import ReadError, errors_in, scene_lines, scene_table, write_errors
from vision.training.split import DEFAULT_ROOT


def die(face, x, y, side=40, **more):
    return {"face": face, "x": x, "y": y, "w": side, "h": side, **more}


LABELS = [die("3", 100, 100), die("5", 300, 100), die("2", 500, 500)]
READS = [die("3", 102, 98, confidence=0.97),   # right
         die("6", 305, 104, confidence=0.41),  # misread: a 5 read as 6
         die("1", 50, 580, confidence=0.12)]   # nothing labelled there: false
# the 2 at (500, 500) is not read: missed


def test_every_error_is_found_and_the_right_read_is_not():
    found = errors_in("a.jpg", "a", LABELS, READS)
    kinds = sorted(e.kind for e in found)
    assert kinds == ["false", "misread", "missed"]
    misread = next(e for e in found if e.kind == "misread")
    assert (misread.label["face"], misread.read["face"]) == ("5", "6")
    assert next(e for e in found if e.kind == "missed").label["face"] == "2"
    assert next(e for e in found if e.kind == "false").read["face"] == "1"


def test_a_read_too_far_from_its_label_is_a_false_find_and_a_missed_die():
    # the scorer pairs within max(0.75 x the label's larger side, 15 px): 30 px here
    found = errors_in("a.jpg", "a", [die("4", 100, 100)], [die("4", 135, 100)])
    assert sorted(e.kind for e in found) == ["false", "missed"]


def test_scene_table_puts_the_worst_scene_first_and_counts_its_copies():
    photos = [("busy", 3), ("busy", 3), ("plain", 2)]
    found = (errors_in("busy1.jpg", "busy", LABELS, READS)
             + errors_in("busy2.jpg", "busy", LABELS, READS[:1])
             + errors_in("plain.jpg", "plain", LABELS[:2], READS[:1] + [die("5", 300, 100)]))
    rows = scene_table(photos, found)
    assert [r.scene for r in rows] == ["busy", "plain"]
    busy, plain = rows
    assert (busy.photos, busy.dice, busy.missed, busy.misread, busy.false) == (2, 6, 3, 1, 1)
    assert busy.right == 2 and plain.right == 2 and plain.errors == 0
    lines = scene_lines(rows)
    assert lines[1].split()[:3] == ["busy", "2", "6"]
    assert lines[-1] == "these 1 of 2 scenes hold 75% of the labelled dice and 100% of the errors"


def test_scene_lines_say_so_when_nothing_went_wrong():
    assert scene_lines(scene_table([("a", 2)], [])) == ["no errors"]


def test_scene_spread_weighs_each_scene_equally_and_brackets_the_pooled_figure():
    # one big scene read badly (10 of 100 dice right, 10 false finds), nine small ones read
    # perfectly (2 of 2): pooled per die 28 / 118, scene mean (0.1 + 9 x 1) / 10
    rows = [errors.SceneRow("crowd", 1, 100, missed=80, misread=10, false=10)]
    rows += [errors.SceneRow(f"s{i}", 1, 2) for i in range(9)]
    spread = errors.scene_spread(rows, draws=4000)
    assert spread["scenes"] == 10
    assert spread["scene_mean"] == pytest.approx(0.91)
    low, high = spread["per_die"]
    assert low < 28 / 118 < high  # the pooled figure lies inside the draws' middle 90 %
    assert high == 1.0            # draws without the crowd read every die
    assert low < 0.15             # draws with the crowd twice sink below the pooled figure
    p_low, p_high = spread["precision"]
    assert p_low < 38 / 48 < p_high and p_high == 1.0
    assert errors.scene_spread(rows, draws=4000) == spread  # the same draws each time


def test_scene_spread_is_exact_when_every_scene_reads_alike():
    rows = [errors.SceneRow(f"s{i}", 1, 4, misread=1) for i in range(5)]
    spread = errors.scene_spread(rows)
    assert spread["scene_mean"] == 0.75 and spread["per_die"] == (0.75, 0.75)
    assert spread["precision"] == (1.0, 1.0)
    lines = errors.spread_lines(rows)
    assert lines[0] == "per die with each of the 5 scenes weighted equally: 75.0%"
    assert lines[1].endswith("per die 75.0-75.0%, precision 100.0-100.0%")


def test_scene_spread_has_nothing_to_say_without_labelled_dice():
    assert errors.scene_spread([errors.SceneRow("empty", 1, 0, false=2)]) is None
    assert errors.spread_lines([]) == []


def test_sheets_and_json_lines_show_each_error(tmp_path):
    image = np.full((600, 600, 3), 200, np.uint8)
    found = errors_in("a.jpg", "a", LABELS, READS) * 20  # 60 errors: two sheets of misreads
    written = write_errors(tmp_path, "folder", found, {"a.jpg": image}, {"a.jpg": LABELS})
    names = sorted(p.name for p in written)
    assert names == ["folder-false-1.png", "folder-misread-1.png", "folder-missed-1.png",
                     "folder.errors.jsonl"]
    sheet = cv2.imread(str(tmp_path / "folder-misread-1.png"))
    side = errors.TILE + errors.CAPTION
    assert sheet.shape == (3 * side, errors.PER_ROW * errors.TILE, 3)  # 20 tiles: 3 rows of 8
    lines = [json.loads(line) for line in (tmp_path / "folder.errors.jsonl").read_text().splitlines()]
    assert len(lines) == 60
    assert {(l["kind"], l["number"]) for l in lines} >= {("misread", 19), ("false", 0)}


def test_a_tile_draws_the_die_in_red_and_its_labelled_neighbours_in_green():
    image = np.full((400, 400, 3), 200, np.uint8)
    labels = [die("5", 200, 200), die("2", 250, 200)]
    e = ReadError("misread", "p.jpg", "s", labels[0], die("6", 201, 199, confidence=0.4))
    tile = errors.error_tile(image, labels, e, 0)[:errors.TILE]
    red = (tile[:, :, 2] > 150) & (tile[:, :, 1] < 100) & (tile[:, :, 0] < 100)
    green = (tile[:, :, 1] > 150) & (tile[:, :, 2] < 100) & (tile[:, :, 0] < 100)
    assert red.any() and green.any()
    cols = np.flatnonzero(green.any(axis=0))
    assert cols.min() > errors.TILE / 2  # the neighbour lies right of the centred die


def test_a_caption_names_the_faces_and_the_confidence():
    e = ReadError("misread", "p.jpg", "dice_12_jpg", die("5", 1, 1), die("6", 1, 1, confidence=0.41))
    assert e.caption(7) == "7 dice_12_jpg L5 R6 0.41"
    assert ReadError("missed", "p.jpg", "s", label=die("2", 1, 1)).caption(0) == "0 s L2 R-"


def test_a_die_at_the_edge_of_the_photo_stays_centred_and_unstretched():
    image = np.full((100, 100, 3), 200, np.uint8)
    tile = errors.error_tile(image, [], ReadError("false", "p", "s", read=die("1", 4, 96, 8, confidence=0.1)), 0)
    assert tile.shape == (errors.TILE + errors.CAPTION, errors.TILE, 3)
    view = tile[:errors.TILE]
    red = (view[:, :, 2] > 150) & (view[:, :, 1] < 100)
    rows, cols = np.flatnonzero(red.any(axis=1)), np.flatnonzero(red.any(axis=0))
    centre = errors.TILE / 2
    assert abs((rows.min() + rows.max()) / 2 - centre) < 4 and abs((cols.min() + cols.max()) / 2 - centre) < 4
    assert abs((rows.max() - rows.min()) - (cols.max() - cols.min())) <= 2  # a square die stays square
    assert (view[-10:, :10] == 0).all() and (view[:10, -10:] == 200).all()  # black only past the corner


@pytest.mark.skipif(not DEFAULT_ROOT.is_dir(), reason="../shared/data/d6-real is absent")
def test_the_benchmark_writes_the_errors_of_real_photos(tmp_path, capsys):
    from vision.bench import pips
    assert pips.main(["--folder", "byler-train", "--split", "val", "--no-classic", "--errors", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "scenes with the most errors" in out
    assert "scenes weighted equally" in out and "scenes drawn again at random" in out
    lines = (tmp_path / "byler-train.errors.jsonl").read_text().splitlines()
    assert lines, "the val tray photos have a few errors (97.7 % per die)"
    kinds = {json.loads(line)["kind"] for line in lines}
    for kind in kinds:
        assert (tmp_path / f"byler-train-{kind}-1.png").is_file()
