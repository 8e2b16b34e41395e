"""`dicewatch teach`: from a folder of photos, at the (synthetic) camera, and every bad input."""
from __future__ import annotations

import io

import cv2
import numpy as np
import pytest

from host import cli
from vision import dicesets
from vision.synth import render_face_crop, render_scene, random_style

FACES = ("SUN", "MOON", "STAR")
ICONS = dict(zip(FACES, ("COOKIE", "BELL", "GIFT")))  # stand-in art for our made-up faces


def write_face_folder(root, faces=FACES, count=5, photos=False):
    """root/<FACE>/N.png: loose crops (or, with photos=True, 640x480 scenes with one die)."""
    style = random_style(np.random.default_rng(4))
    for i, face in enumerate(faces):
        folder = root / face
        folder.mkdir(parents=True)
        for n in range(count):
            if photos:
                image, _ = render_scene([ICONS[face]], "jingle-bell-roll", seed=50 * i + n, style=style)
            else:
                image = render_face_crop("jingle-bell-roll", ICONS[face], seed=50 * i + n, style=style)
            cv2.imwrite(str(folder / f"{n}.png"), image)
    return root


def teach(*args):
    return cli.main(["teach", *map(str, args)])


def test_teach_from_crops_then_list_and_read(tmp_path, dicewatch_home, capsys):
    photos = write_face_folder(tmp_path / "photos")
    assert teach("--dice", "sky", "--from", photos) == 0
    out = capsys.readouterr().out
    assert "taught sky" in out and "3 faces" in out and "self-check" in out
    stored = dicesets.load_set("sky", dicewatch_home)
    assert set(stored.faces) == set(FACES)
    assert all(len(stored.examples[f]) == 5 for f in FACES)
    assert (dicewatch_home / "dice" / "sky" / "model.npz").is_file()


def test_teach_from_photos_finds_the_die(tmp_path, dicewatch_home, capsys):
    photos = write_face_folder(tmp_path / "photos", photos=True)
    assert teach("--dice", "sky", "--from", photos) == 0
    crops = dicesets.example_crops(dicesets.load_set("sky", dicewatch_home))
    for face in FACES:  # each crop is about one die, not the whole 640x480 photo
        assert all(max(c.shape[:2]) < 120 for c in crops[face])


def close_up(face: str, seed: int) -> np.ndarray:
    """A 640x640 photo of one pip die about a third of the frame across, as a phone held close
    takes it, with a few crumbs on the table."""
    photo = render_face_crop("d6-pips", face, seed=seed, size=640, fill=0.35)
    for x, y in ((90, 100), (560, 520), (120, 560)):
        cv2.circle(photo, (x, y), 4, (50, 50, 60), -1)
    return photo


def test_a_close_up_teaching_photo_is_one_die_not_its_pips_and_crumbs(tmp_path, dicewatch_home, capsys):
    """The pip finder sees a close-up die's pips as small dice on it and crumbs as dice too;
    a teaching photo's finder keeps the one die round them."""
    for seed in range(4):
        photo = close_up(str(seed + 2), seed)
        boxes = dicesets.pip_finder(one_die=True)(photo)
        assert len(boxes) == 1, (seed, boxes)
        x, y, w, h = boxes[0]
        assert abs(x - 320) < 80 and abs(y - 320) < 80 and 0.7 * 224 < max(w, h) < 1.8 * 224
    for face, pip in (("HIGH", "6"), ("LOW", "1")):
        (tmp_path / "photos" / face).mkdir(parents=True)
        for n in range(5):
            cv2.imwrite(str(tmp_path / "photos" / face / f"{n}.png"), close_up(pip, 10 * n + len(face)))
    assert teach("--dice", "closeups", "--from", tmp_path / "photos") == 0, capsys.readouterr().err
    assert "taught closeups" in capsys.readouterr().out


def test_one_die_finds_drop_pips_on_the_die_and_specks_not_a_second_die():
    from vision.pips import Find
    die = Find(300, 300, 200, 200, 0.8, big=True)
    pips = [Find(250 + 50 * i, 300, 50, 50, 0.6) for i in range(3)]
    speck = Find(80, 90, 30, 30, 0.5)
    assert dicesets.one_die_finds([die, *pips, speck]) == [die]
    other = Find(600, 300, 180, 180, 0.7)  # a second die of the set: about as big
    assert dicesets.one_die_finds([die, other, speck]) == [die, other]
    surer_small = Find(80, 90, 30, 30, 0.95)  # surer than the die: not taken for a speck
    assert dicesets.one_die_finds([die, surer_small]) == [die, surer_small]


def test_a_tilted_die_found_twice_is_one_die_but_two_dice_are_refused(tmp_path):
    """A finder that sees a tilted die's side face as a second die, nearer than two dice
    lying side by side can be, still gives one teaching crop (from its surest find); two
    finds a die apart or more are two dice, and the photo is refused with its name."""
    from host.teaching import die_crop_from_photo
    photo = tmp_path / "one.png"
    cv2.imwrite(str(photo), np.full((480, 640, 3), 120, np.uint8))

    def finds(*boxes):
        return lambda image: list(boxes)

    crop = die_crop_from_photo(photo, finds((126.0, 193.0, 30.0, 30.0), (148.0, 195.0, 30.0, 30.0)))
    assert crop.shape[0] < 120
    with pytest.raises(ValueError, match=r"one\.png: 2 dice found; each photo should show one die"):
        die_crop_from_photo(photo, finds((126.0, 193.0, 30.0, 30.0), (157.0, 193.0, 30.0, 30.0)))


def test_existing_name_needs_replace(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos")
    assert teach("--dice", "sky", "--from", photos) == 0
    capsys.readouterr()
    assert teach("--dice", "sky", "--from", photos) == 1
    err = capsys.readouterr().err
    assert "'sky' already exists" in err and "--replace" in err
    assert teach("--dice", "sky", "--from", photos, "--replace") == 0


def test_builtin_name_needs_replace(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos")
    assert teach("--dice", "jingle-bell-roll", "--from", photos) == 1
    assert "built-in die set named 'jingle-bell-roll' already exists" in capsys.readouterr().err


def test_replacing_a_builtin_notes_missing_rule_faces(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos")
    assert teach("--dice", "jingle-bell-roll", "--from", photos, "--replace") == 0
    err = capsys.readouterr().err
    assert "the rules of jingle-bell-roll use the faces" in err and "MILK" in err


def test_d6_pips_cannot_be_taught(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos")
    assert teach("--dice", "d6-pips", "--from", photos, "--replace") == 2
    assert "built-in pip reader" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["my dice", "_x", "a/b", "x" * 41, ""])
def test_bad_set_names(tmp_path, capsys, name):
    assert teach("--dice", name, "--from", tmp_path) == 2
    assert "die set name" in capsys.readouterr().err


def test_missing_folder(tmp_path, capsys):
    assert teach("--dice", "sky", "--from", tmp_path / "nope") == 1
    assert f"--from {tmp_path / 'nope'}: no such folder" in capsys.readouterr().err


def test_folder_is_a_file(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("x")
    assert teach("--dice", "sky", "--from", tmp_path / "a.txt") == 1
    assert "not a folder" in capsys.readouterr().err


def test_empty_folder(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert teach("--dice", "sky", "--from", tmp_path / "empty") == 1
    err = capsys.readouterr().err
    assert "no face folders" in err and "<FACE>" in err


def test_loose_photos_without_face_folders(tmp_path, capsys):
    (tmp_path / "flat").mkdir()
    cv2.imwrite(str(tmp_path / "flat" / "1.png"), np.zeros((40, 40, 3), np.uint8))
    assert teach("--dice", "sky", "--from", tmp_path / "flat") == 1
    assert "holds 1 photo(s) directly" in capsys.readouterr().err


def test_empty_face_folder(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos")
    (photos / "COMET").mkdir()
    (photos / "COMET" / "notes.txt").write_text("not a photo")
    assert teach("--dice", "sky", "--from", photos) == 1
    err = capsys.readouterr().err
    assert f"{photos / 'COMET'}: no photos" in err
    assert not (tmp_path / "dice" / "sky").exists()


def test_unreadable_image_is_named(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos")
    (photos / "SUN" / "broken.jpg").write_bytes(b"this is not a jpeg")
    (photos / "MOON" / "empty.png").write_bytes(b"")
    assert teach("--dice", "sky", "--from", photos) == 1
    err = capsys.readouterr().err
    assert f"{photos / 'SUN' / 'broken.jpg'}: not an image" in err
    assert f"{photos / 'MOON' / 'empty.png'}: empty file" in err


def test_a_photo_too_small_to_be_a_die_is_named_not_a_traceback(tmp_path, dicewatch_home, capsys):
    photos = write_face_folder(tmp_path / "photos")
    cv2.imwrite(str(photos / "SUN" / "dot.png"), np.zeros((1, 1, 3), np.uint8))
    cv2.imwrite(str(photos / "MOON" / "line.png"), np.full((3, 120, 3), 200, np.uint8))
    assert teach("--dice", "sky", "--from", photos) == 1
    err = capsys.readouterr().err
    assert f"{photos / 'SUN' / 'dot.png'}: 1x1 pixels; expected a photo or a crop of one die" in err
    assert f"{photos / 'MOON' / 'line.png'}: 120x3 pixels" in err
    assert not dicesets.exists("sky", dicewatch_home)


def test_too_few_examples_says_needed_and_found(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos", count=5)
    for extra in ("3.png", "4.png"):
        (photos / "STAR" / extra).unlink()
    assert teach("--dice", "sky", "--from", photos) == 1
    err = capsys.readouterr().err
    assert "3 photo(s) of STAR; at least 5 needed" in err


def test_a_single_face_is_not_a_die(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos", faces=("SUN",))
    assert teach("--dice", "sky", "--from", photos) == 1
    assert "at least 2 faces" in capsys.readouterr().err


def test_bad_face_folder_name(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos")
    (photos / "SUN").rename(photos / "SUN DAY")
    assert teach("--dice", "sky", "--from", photos) == 1
    assert "face name 'SUN DAY'" in capsys.readouterr().err


def test_photo_without_a_die(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos")
    cv2.imwrite(str(photos / "SUN" / "blank.png"), np.full((480, 640, 3), 200, np.uint8))
    assert teach("--dice", "sky", "--from", photos) == 1
    assert f"{photos / 'SUN' / 'blank.png'}: no die found" in capsys.readouterr().err


def test_faces_flag_is_for_the_camera(tmp_path, capsys):
    photos = write_face_folder(tmp_path / "photos")
    assert teach("--dice", "sky", "--from", photos, "--faces", "A,B") == 2
    assert "--faces is for --camera" in capsys.readouterr().err


def test_from_and_camera_are_exclusive(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        teach("--dice", "sky", "--from", tmp_path, "--camera", "synthetic")
    assert exc.value.code == 2


def test_camera_needs_face_names_for_a_new_set(capsys):
    assert teach("--dice", "sky", "--camera", "synthetic") == 2
    assert "--faces: say the face names" in capsys.readouterr().err


@pytest.mark.parametrize("faces, message", [("A,A", "named twice"), ("A", "at least 2 faces"),
                                            ("A,B C", "face name 'B C'")])
def test_bad_faces_flag(capsys, faces, message):
    assert teach("--dice", "sky", "--camera", "synthetic", "--faces", faces) == 2
    assert message in capsys.readouterr().err


def test_synthetic_camera_draws_only_builtin_faces(capsys):
    assert teach("--dice", "sky", "--camera", "synthetic", "--faces", "SUN,MOON") == 2
    assert "synthetic draws only the built-in faces" in capsys.readouterr().err


def test_bad_camera_spec(capsys):
    assert teach("--dice", "sky", "--camera", "webcam", "--faces", "A,B") == 2
    assert "unknown camera" in capsys.readouterr().err


def test_too_few_or_too_many_shots(capsys, tmp_path):
    assert teach("--dice", "jingle-bell-roll", "--camera", "synthetic", "--shots", "2", "--replace") == 2
    assert "--shots 2: expected 5 to 100 pictures per face" in capsys.readouterr().err
    assert teach("--dice", "jingle-bell-roll", "--camera", "synthetic", "--shots", "100000", "--replace") == 2
    assert "--shots 100000: expected 5 to 100" in capsys.readouterr().err
    assert teach("--dice", "mine", "--from", str(tmp_path), "--shots", "3") == 2   # not silently ignored
    assert "--shots: for teaching at the camera (--camera) only" in capsys.readouterr().err


def test_teach_at_the_synthetic_camera(dicewatch_home, capsys):
    status = teach("--dice", "sweets", "--camera", "synthetic:2", "--faces", "MILK,COOKIE,BELL",
                   "--shots", "5")
    out = capsys.readouterr().out
    assert status == 0, out
    assert "Face 1 of 3" in out and "COOKIE: picture 5 of 5" in out
    assert "Self-check: roll all the dice" in out and "read:" in out
    stored = dicesets.load_set("sweets", dicewatch_home)
    assert stored.faces == ("MILK", "COOKIE", "BELL")
    assert all(len(stored.examples[f]) == 5 for f in stored.faces)


def test_add_pictures_to_a_taught_set_from_a_folder(tmp_path, dicewatch_home, capsys):
    """--add keeps the set's pictures and teaches it again with the new ones (a face folder
    for only some faces is enough)."""
    assert teach("--dice", "sky", "--from", write_face_folder(tmp_path / "first")) == 0
    more = tmp_path / "more"
    write_face_folder(more, faces=("MOON",), count=3)
    capsys.readouterr()
    assert teach("--dice", "sky", "--add", "--from", more) == 0
    assert "taught sky from its pictures and those in" in capsys.readouterr().out
    stored = dicesets.load_set("sky", dicewatch_home)
    assert set(stored.faces) == set(FACES) and [len(stored.examples[f]) for f in FACES] == [5, 8, 5]
    model = dicesets.load_model("sky", dicewatch_home)    # each example's face, for the self-check's report
    assert list(np.bincount(model.example_faces())) == [len(stored.examples[f]) for f in model.faces]
    assert len(model.example_faces()) == len(model.loo_right) == 18


@pytest.mark.parametrize("first, extra, message", [
    (None, (), "'sky' is not a taught die set; teach your dice first"),
    ("jingle-bell-roll", (), "holds the built-in rendered stand-ins"),
    ("sky", ("COMET",), "COMET is not a face of sky (MOON, STAR, SUN)"),
])
def test_add_says_what_it_cannot_add_to(tmp_path, dicewatch_home, capsys, first, extra, message):
    name = first or "sky"
    if first == "sky":
        assert teach("--dice", "sky", "--from", write_face_folder(tmp_path / "first")) == 0
    more = tmp_path / "more"
    write_face_folder(more, faces=("MOON",), count=3)
    for face in extra:
        (more / face).mkdir()
        cv2.imwrite(str(more / face / "0.png"), cv2.imread(str(next((more / "MOON").iterdir()))))
    capsys.readouterr()
    assert teach("--dice", name, "--add", "--from", more) == 1
    assert message in capsys.readouterr().err


def test_add_and_replace_are_one_or_the_other(tmp_path, capsys):
    assert teach("--dice", "sky", "--add", "--replace", "--from", tmp_path) == 2
    assert "--add keeps the set's pictures and --replace drops them" in capsys.readouterr().err


def test_add_pictures_of_some_faces_at_the_synthetic_camera(dicewatch_home, capsys):
    assert teach("--dice", "sweets", "--camera", "synthetic:2", "--faces", "MILK,COOKIE,BELL", "--shots", "5") == 0
    capsys.readouterr()
    assert teach("--dice", "sweets", "--camera", "synthetic:2", "--add", "--faces", "GIFT") == 2
    assert "with --add, name faces of sweets (MILK, COOKIE, BELL)" in capsys.readouterr().err
    assert teach("--dice", "sweets", "--camera", "synthetic:2", "--add", "--faces", "COOKIE", "--shots", "5") == 0
    out = capsys.readouterr().out
    assert "Face 1 of 1: COOKIE" in out and "Self-check: roll all the dice" in out
    stored = dicesets.load_set("sweets", dicewatch_home)
    assert [len(stored.examples[f]) for f in stored.faces] == [5, 10, 5]


def test_the_self_check_names_the_faces_it_misread_and_how_to_add_pictures(capsys):
    """The faces whose pictures the left-out check misread, from the model's own record."""
    import types
    from host.teaching import look_alike
    model = types.SimpleNamespace(faces=("SUN", "MOON"), example_faces=lambda: np.array([0, 0, 0, 1, 1, 1]),
                                  loo_right=np.array([True, False, True, True, True, True]))
    assert look_alike(model) == [("SUN", 1, 3)]


def test_read_a_taught_set(tmp_path, capsys):
    """`dicewatch read --dice NAME` reads a taught set: same JSON, faces named as taught."""
    import json
    photos = write_face_folder(tmp_path / "photos")
    assert teach("--dice", "sky", "--from", photos) == 0
    style = random_style(np.random.default_rng(4))
    image, truth = render_scene(["COOKIE", "BELL", "GIFT"], "jingle-bell-roll", seed=31, style=style)
    cv2.imwrite(str(tmp_path / "roll.png"), image)
    capsys.readouterr()
    assert cli.main(["read", "--dice", "sky", "--json", str(tmp_path / "roll.png")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["image"] == str(tmp_path / "roll.png") and doc["dice"]
    for die in doc["dice"]:
        assert die["face"] in FACES and 0 <= die["confidence"] <= 1
        assert {"x", "y", "w", "h"} <= set(die)


def test_read_an_unknown_set_is_usage(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "roll.png"), np.zeros((50, 50, 3), np.uint8))
    assert cli.main(["read", "--dice", "nope", str(tmp_path / "roll.png")]) == 2
    assert "no die set named 'nope'" in capsys.readouterr().err


def test_teaching_at_the_mat_cuts_dice_as_the_calibrated_tray_reads_them(dicewatch_home, capsys):
    """With the printed mat in view the empty tray calibrates, so the teaching pictures are cut
    by the tray's die finder (on the die, not its shadow), as the device's reads will be:
    every example reads right when left out, and so does the mixed roll at the end."""
    from host.teaching import CameraSession
    from vision import sources
    session = CameraSession(sources.parse_spec("synthetic:3"), "jingle-bell-roll", script=[])
    session.learn_background()
    assert session.tray_finder is not None
    session.close()
    status = teach("--dice", "jingle-bell-roll", "--camera", "synthetic:3", "--replace", "--shots", "6")
    out = capsys.readouterr().out
    assert status == 0, out
    assert "self-check: 36 of 36 examples read right" in out
    assert "self-check: 6 of 6 dice read right" in out


def test_a_die_off_the_mat_is_pointed_out_while_teaching():
    """The calibrated tray's finder looks only at the mat's areas: a die put down beside the
    mat is not taken silently as an empty tray."""
    from host.teaching import CameraSession, CaptureError, capture_examples
    from host.teach_console import TeachConsole
    from vision import sources, synth
    session = CameraSession(sources.parse_spec("synthetic:3"), "jingle-bell-roll", script=[])
    session.learn_background()
    table = session.camera.table
    x, y = table.camera.to_table(0.03 * table.size[0], 0.5 * table.size[1])  # on the table, left of the mat
    beside, _ = table.draw([synth.DiePose(face="BELL", x=x, y=y, yaw=10, style=session.camera.set_style)],
                           "jingle-bell-roll", np.random.default_rng(1))
    session.settled = lambda: iter([beside] * 3)
    said = io.StringIO()
    with pytest.raises(CaptureError, match="after 0 picture"):
        capture_examples(session, ["BELL", "GIFT"], 5, TeachConsole(out=said))
    assert sum("outside the mat's rolling and keep areas" in line for line in said.getvalue().splitlines()) == 3
    session.close()


def test_a_throw_unseen_while_teaching_does_not_shift_the_later_faces(dicewatch_home, capsys):
    """At synthetic:4 one MILK throw lands where the tray's finder does not take it. Teaching
    follows the synthetic player's script by its throws, so MILK gets 7 pictures and every
    later face its own 8; before, each face took the next face's first throw (COOKIE pictures
    stored as MILK, ...), the mixed roll was taken as a BELL picture, and the self-check read
    nothing (41 of 47 pictures read right when left out)."""
    status = teach("--dice", "jingle-bell-roll", "--camera", "synthetic:4", "--replace")
    out = capsys.readouterr().out
    assert status == 0, out
    stored = dicesets.load_set("jingle-bell-roll", dicewatch_home)
    assert [len(stored.examples[f]) for f in stored.faces] == [7, 8, 8, 8, 8, 8]
    assert "self-check: 47 of 47 examples read right" in out
    assert "self-check: 6 of 6 dice read right" in out


def test_add_dir_adds_pictures_and_keeps_what_the_table_taught(tmp_path, dicewatch_home, capsys):
    from vision import learning
    assert teach("--dice", "sky", "--from", write_face_folder(tmp_path / "first")) == 0
    store = learning.ExampleStore.of_set(dicesets.load_set("sky", dicewatch_home).folder)
    store.change(added=[(learning.Example("g1-2-0", "SUN", learning.ACCEPTED, "g1", 2, 0),
                         np.full((40, 40, 3), 200, np.uint8))])
    more = write_face_folder(tmp_path / "more", faces=("STAR",), count=2)
    capsys.readouterr()
    assert teach("--dice", "sky", "--add", more) == 0
    assert f"taught sky from its pictures and those in {more}" in capsys.readouterr().out
    stored = dicesets.load_set("sky", dicewatch_home)
    assert [len(stored.examples[f]) for f in FACES] == [5, 5, 7]
    kept = learning.ExampleStore.of_set(stored.folder)
    assert list(kept.examples) == ["g1-2-0"] and kept.crop_path("g1-2-0").is_file()


@pytest.mark.parametrize("extra, code, message", [
    (("--from", "x"), 2, "give no --from or --camera with it"),
    (("--camera", "synthetic"), 2, "give no --from or --camera with it"),
])
def test_add_dir_is_the_only_source(tmp_path, capsys, extra, code, message):
    assert teach("--dice", "sky", "--add", tmp_path, *extra) == code
    assert message in capsys.readouterr().err


def test_add_dir_bad_folders_are_named_as_add(tmp_path, dicewatch_home, capsys):
    assert teach("--dice", "sky", "--from", write_face_folder(tmp_path / "first")) == 0
    capsys.readouterr()
    assert teach("--dice", "sky", "--add", tmp_path / "nowhere") == 1
    assert f"--add {tmp_path / 'nowhere'}: no such folder" in capsys.readouterr().err
    (tmp_path / "flat").mkdir()
    cv2.imwrite(str(tmp_path / "flat" / "1.png"), np.zeros((40, 40, 3), np.uint8))
    assert teach("--dice", "sky", "--add", tmp_path / "flat") == 1
    assert "no face folders (it holds 1 photo(s) directly" in capsys.readouterr().err


def test_no_pictures_named_is_usage(capsys):
    assert teach("--dice", "sky") == 2
    assert "say where the pictures are: --from DIR, --camera SOURCE, or --add DIR" in capsys.readouterr().err
