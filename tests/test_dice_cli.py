"""`dicewatch dice list|show|delete|rename` and the die-set store behind it."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from host import cli
from vision import dicesets, taught
from vision.synth import random_style, render_face_crop

ICONS = {"SUN": "COOKIE", "MOON": "BELL", "STAR": "GIFT"}


@pytest.fixture
def sky(dicewatch_home):
    """A small taught set 'sky' with three faces, 5 crops each."""
    style = random_style(np.random.default_rng(1))
    examples = {face: [taught.tighten_crop(render_face_crop("jingle-bell-roll", icon, seed=10 * i + n, style=style))
                       for n in range(5)] for i, (face, icon) in enumerate(ICONS.items())}
    return dicesets.save_set("sky", examples, dicewatch_home)


def dice(*args):
    return cli.main(["dice", *map(str, args)])


def test_list_shows_builtins_and_taught(sky, capsys):
    assert dice("list") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("d6-pips") and "1, 2, 3, 4, 5, 6" in out[0]
    assert any(l.startswith("jingle-bell-roll") and "MILK, COOKIE" in l for l in out)
    assert any(l.startswith("christmas-romance") and "SNOWFLAKE, FACE-2" in l for l in out)
    assert any(l.startswith("sky") and "taught, 15 examples: SUN, MOON, STAR" in l for l in out)


def test_show_writes_a_contact_sheet(sky, tmp_path, capsys):
    out = tmp_path / "sheets" / "sky.png"
    assert dice("show", "sky", "--out", out) == 0
    sheet = cv2.imread(str(out))
    assert sheet is not None and sheet.shape[0] > 3 * 64  # a row per face
    assert "SUN 5, MOON 5, STAR 5" in capsys.readouterr().out


def test_show_builtin_materialises_its_default(dicewatch_home, tmp_path, capsys):
    assert dice("show", "christmas-romance", "--out", tmp_path / "cr.png") == 0
    assert f"SNOWFLAKE {dicesets.BUILT_IN_SHOTS}" in capsys.readouterr().out
    assert (dicewatch_home / "dice" / "christmas-romance" / "faces.json").is_file()


@pytest.mark.parametrize("args, code, message", [
    (("show", "d6-pips"), 1, "built-in pip reader; it has no taught examples"),
    (("show", "nope"), 1, "no die set named 'nope'"),
    (("show", "sky", "--out", "x.jpg"), 2, "give a file name ending in .png"),
    (("show", "bad name"), 2, "die set name 'bad name'"),
    (("delete", "nope"), 1, "no die set named 'nope'"),
    (("delete", "d6-pips"), 1, "cannot be deleted"),
    (("delete", "jingle-bell-roll"), 1, "built in and has not been taught; nothing to delete"),
    (("rename", "sky", "COMET", "X"), 1, "'sky' has no face 'COMET'; its faces: SUN, MOON, STAR"),
    (("rename", "sky", "SUN", "MOON"), 1, "'sky' already has a face 'MOON'"),
    (("rename", "sky", "SUN", "SUN DAY"), 1, "face name 'SUN DAY'"),
    (("rename", "d6-pips", "1", "ONE"), 1, "built-in pip reader"),
    (("rename", "nope", "A", "B"), 1, "no die set named 'nope'"),
])
def test_bad_input(sky, capsys, args, code, message):
    assert dice(*args) == code
    assert message in capsys.readouterr().err


def test_no_action_is_usage(capsys):
    assert dice() == 2
    assert "list, show NAME, delete NAME, rename NAME OLD NEW or forget NAME --session ID" in capsys.readouterr().err


def test_show_out_is_a_folder(sky, tmp_path, capsys):
    (tmp_path / "d.png").mkdir()
    assert dice("show", "sky", "--out", tmp_path / "d.png") == 2
    assert "is a folder" in capsys.readouterr().err


def test_delete_taught_set(sky, dicewatch_home, capsys):
    assert dice("delete", "sky") == 0
    assert "deleted sky" in capsys.readouterr().out
    assert not (dicewatch_home / "dice" / "sky").exists()
    assert not dicesets.exists("sky", dicewatch_home)


def test_delete_retaught_builtin_brings_default_back(sky, dicewatch_home, capsys):
    examples = dicesets.example_crops(sky)
    dicesets.save_set("jingle-bell-roll", examples, dicewatch_home, replace=True)
    assert dice("delete", "jingle-bell-roll") == 0
    assert "it now reads with the built-in default" in capsys.readouterr().out
    assert not (dicewatch_home / "dice" / "jingle-bell-roll").exists()
    listed = {s.name: s for s in dicesets.list_sets(dicewatch_home)}
    assert listed["jingle-bell-roll"].origin == "built-in"
    assert listed["jingle-bell-roll"].faces[0] == "MILK"


def test_rename_placeholder_face(dicewatch_home, capsys):
    assert dice("rename", "christmas-romance", "FACE-2", "HEART") == 0
    out = capsys.readouterr().out
    assert "FACE-2 is now HEART" in out
    assert '[dice.christmas-romance] faces = ["SNOWFLAKE", "HEART", "FACE-3"' in out
    model = dicesets.load_model("christmas-romance", dicewatch_home)
    assert model.faces == ("SNOWFLAKE", "HEART", "FACE-3", "FACE-4", "FACE-5", "FACE-6")
    crop = render_face_crop("christmas-romance", "FACE-2", seed=99)
    assert model.classify(crop)[0] in model.faces


def test_broken_faces_json_is_reported(sky, dicewatch_home, capsys):
    (dicewatch_home / "dice" / "sky" / "faces.json").write_text("{not json")
    assert dice("show", "sky") == 1
    assert "faces.json: not readable JSON" in capsys.readouterr().err


def test_missing_model_is_rebuilt_from_examples(sky, dicewatch_home):
    (dicewatch_home / "dice" / "sky" / "model.npz").unlink()
    model = dicesets.load_model("sky", dicewatch_home)
    assert model.faces == ("SUN", "MOON", "STAR")
    assert (dicewatch_home / "dice" / "sky" / "model.npz").is_file()


def test_built_in_sets_vote_with_the_single_best_example_taught_ones_with_their_kinds_vote(sky, dicewatch_home):
    """The built-in stand-ins are taught from many random die looks, where only the example
    of the look being read matches well; a user's set is one look."""
    from vision import taught
    built_in = dicesets.load_model("christmas-romance", dicewatch_home)
    assert built_in.vote() == taught.SINGLE_BEST
    (dicewatch_home / "dice" / "christmas-romance" / "model.npz").unlink()   # rebuilt the same way
    assert dicesets.load_model("christmas-romance", dicewatch_home).vote() == taught.SINGLE_BEST
    assert dicesets.load_model("sky", dicewatch_home).vote() == taught.NEIGHBOURS[taught.default_kind()]


def test_missing_example_crop_is_named(sky, dicewatch_home, capsys):
    (dicewatch_home / "dice" / "sky" / "examples" / "0-00.png").unlink()
    assert dice("show", "sky") == 1
    assert "0-00.png: example crop missing or unreadable" in capsys.readouterr().err


def test_damaged_set_is_listed(sky, dicewatch_home, capsys):
    (dicewatch_home / "dice" / "sky" / "faces.json").write_text("[]")
    assert dice("list") == 0
    assert any(l.startswith("sky") and "damaged" in l for l in capsys.readouterr().out.splitlines())


def test_read_with_an_invalid_set_name_is_usage(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "x.png"), np.zeros((20, 20, 3), np.uint8))
    assert cli.main(["read", "--dice", "bad name", str(tmp_path / "x.png")]) == 2
    assert "no die set named 'bad name'" in capsys.readouterr().err


def test_a_torn_model_file_is_rebuilt_from_the_examples(sky, dicewatch_home):
    """A model.npz cut short (a power cut while an older version wrote it in place)."""
    path = dicewatch_home / "dice" / "sky" / "model.npz"
    path.write_bytes(path.read_bytes()[:100])
    assert dicesets.load_model("sky", dicewatch_home).faces == ("SUN", "MOON", "STAR")
    assert taught.FaceModel.load(path).faces == ("SUN", "MOON", "STAR")   # and cached whole again


def test_a_model_write_that_fails_midway_leaves_the_previous_file(sky, dicewatch_home, monkeypatch):
    path = dicewatch_home / "dice" / "sky" / "model.npz"
    before = path.read_bytes()
    model = dicesets.load_model("sky", dicewatch_home)

    def dies_midway(fh, **arrays):
        fh.write(b"PK\x03\x04 half a zip")
        raise OSError("power cut")

    monkeypatch.setattr(np, "savez_compressed", dies_midway)
    with pytest.raises(OSError, match="power cut"):
        model.save(path)
    assert path.read_bytes() == before and [p.name for p in path.parent.iterdir() if "part" in p.name] == []


def _cut_between_the_renames(dicewatch_home, new_whole: bool):
    """Teach 'sky' again with --replace, the power failing after the old set was moved aside."""
    real_rename = type(dicewatch_home).rename

    def rename(self, target):
        if target.name == "set":              # the old set moved aside: the power fails now
            real_rename(self, target)
            if not new_whole:
                next(dicewatch_home.glob("dice/.sky.*/faces.json")).unlink()   # the new one, half written
            raise KeyboardInterrupt("power cut")
        return real_rename(self, target)

    style = random_style(np.random.default_rng(2))
    examples = {face: [taught.tighten_crop(render_face_crop("jingle-bell-roll", icon, seed=500 + n, style=style))
                       for n in range(5)] for face, icon in (("CLOUD", "LIST"), ("RAIN", "MILK"), ("SNOW", "BELL"))}
    with pytest.MonkeyPatch.context() as cut, pytest.raises(KeyboardInterrupt):
        cut.setattr(type(dicewatch_home), "rename", rename)
        cut.setattr(dicesets.shutil, "rmtree", lambda *a, **k: None)   # a power cut cleans nothing up
        dicesets.save_set("sky", examples, dicewatch_home, replace=True)
    assert not (dicewatch_home / "dice" / "sky").exists()


@pytest.mark.parametrize("new_whole, faces", [(True, ("CLOUD", "RAIN", "SNOW")), (False, ("SUN", "MOON", "STAR"))])
def test_a_replacement_cut_short_between_its_renames_is_finished_on_the_next_look(
        sky, dicewatch_home, capsys, new_whole, faces):
    _cut_between_the_renames(dicewatch_home, new_whole)
    assert dice("list") == 0
    assert any(l.startswith("sky") for l in capsys.readouterr().out.splitlines())
    assert dicesets.load_set("sky", dicewatch_home).faces == faces
    assert dicesets.load_model("sky", dicewatch_home).faces == faces
    assert not list((dicewatch_home / "dice").glob(".sky.old.*"))


def learned_sky(sky):
    """Two games taught 'sky' at the table: one scored a SUN and a MOON, one corrected a STAR."""
    from vision import learning
    store = learning.ExampleStore.of_set(sky.folder)
    crop = np.full((50, 50, 3), 180, np.uint8)
    store.change(added=[(learning.Example("g1-2-0", "SUN", learning.ACCEPTED, "g1", 2, 0), crop),
                        (learning.Example("g1-2-1", "MOON", learning.ACCEPTED, "g1", 2, 1), crop),
                        (learning.Example("g2-5-0", "STAR", learning.CORRECTED, "g2", 5, 0), crop),
                        (learning.Example("g2-7-0", "SUN", learning.ACCEPTED, "g2", 7, 0, aside=True), crop)],
                 outcomes=[learning.Outcome("g1-2-0", "g1", 0.93, True), learning.Outcome("g1-2-1", "g1", 0.85, True),
                           learning.Outcome("g2-5-0", "g2", 0.9, False), learning.Outcome("g2-7-0", "g2", 0.6, True)])
    return store


def test_show_says_what_each_face_learned_at_the_table_and_from_which_games(sky, tmp_path, capsys):
    assert dice("show", "sky", "--out", tmp_path / "sky.png") == 0
    assert "learned at the table: nothing yet" in capsys.readouterr().out
    learned_sky(sky)
    assert dice("show", "sky", "--out", tmp_path / "sky.png") == 0
    out = capsys.readouterr().out
    assert "  SUN: 5 taught, 1 scored, 0 corrected" in out
    assert "  STAR: 5 taught, 0 scored, 1 corrected" in out
    assert "kept aside: 1" in out and "games that taught it: g1 (2), g2 (2)" in out
    assert "dice stored at the table (the last 4): 3 read right, 1 corrected" in out
    assert "0.90 -> 0.84, 0.95 -> 0.87" in out   # a sure read the table corrected: such reads are asked about
    assert "dicewatch dice forget sky --session ID" in out


def test_forget_takes_back_what_one_game_taught(sky, dicewatch_home, capsys):
    from vision import learning
    learned_sky(sky)
    assert dice("forget", "sky", "--session", "g2") == 0
    assert "forgot the 2 example(s) session g2 taught and how its 2 stored dice were read" in capsys.readouterr().out
    store = learning.ExampleStore.of_set(sky.folder)
    assert sorted(store.examples) == ["g1-2-0", "g1-2-1"] and not store.crop_path("g2-5-0").exists()
    assert sorted(store.outcomes) == ["g1-2-0", "g1-2-1"]


def test_a_box_playing_leaves_out_what_was_forgotten_from_its_next_stored_roll(sky, dicewatch_home):
    """`dice forget` while a box plays: the box's next write must not bring the examples back."""
    from vision import dicesets, learning
    learned_sky(sky)
    reader = dicesets.load_reader("sky", dicewatch_home, find_dice=lambda image: [])
    box = learning.TableLearner("sky", dicewatch_home, reader, background=False)
    assert "g2-5-0" in box.learner.keys()
    assert dice("forget", "sky", "--session", "g2") == 0
    box.stored("g3", 1, ["SUN"], [(10.0, 10.0, 20.0)])   # nothing read there: only the check runs
    box._do(lambda: None)
    assert "g2-5-0" not in box.learner.keys() and "g2-5-0" not in box.store.examples
    assert sorted(learning.ExampleStore.of_set(sky.folder).outcomes) == ["g1-2-0", "g1-2-1"]


@pytest.mark.parametrize("args, code, message", [
    (("forget", "sky", "--session", "g9"), 1, "no examples of sky came from session 'g9'; the games that taught it: g1, g2"),
    (("forget", "nope", "--session", "g1"), 1, "no die set named 'nope'"),
    (("forget", "d6-pips", "--session", "g1"), 1, "built-in pip reader; it learns nothing"),
    (("forget", "bad name", "--session", "g1"), 2, "die set name 'bad name'"),
])
def test_forget_bad_input(sky, capsys, args, code, message):
    learned_sky(sky)
    assert dice(*args) == code
    assert message in capsys.readouterr().err


def test_forget_needs_a_session(sky):
    with pytest.raises(SystemExit) as exc:
        dice("forget", "sky")
    assert exc.value.code == 2


def test_a_damaged_learned_list_is_named(sky, capsys):
    from vision import learning
    learned_sky(sky)
    (sky.folder / learning.FOLDER / learning.MANIFEST).write_text("{not json")
    assert dice("forget", "sky", "--session", "g1") == 1
    assert "examples.json: not a learned-example list" in capsys.readouterr().err


def test_read_reads_a_taught_set_as_a_box_playing_now_would(sky, dicewatch_home, tmp_path, monkeypatch, capsys):
    """`dicewatch read --dice NAME` reads with what the set learned at the table and weighs each
    confidence by the table's word, as `dicewatch run` does."""
    import json
    from vision import learning
    learned_sky(sky)
    style = random_style(np.random.default_rng(2))
    frame = np.full((200, 200, 3), 90, np.uint8)
    frame[70:130, 70:130] = render_face_crop("jingle-bell-roll", ICONS["STAR"], seed=77, size=60, style=style)
    photo = tmp_path / "star.png"
    cv2.imwrite(str(photo), frame)
    box = [(100.0, 100.0, 60 / 1.1, 60 / 1.1)]
    monkeypatch.setattr(dicesets, "pip_finder", lambda: (lambda image: box))
    assert cli.main(["read", "--json", "--dice", "sky", str(photo)]) == 0
    got = json.loads(capsys.readouterr().out.splitlines()[0])["dice"]
    learner, store = learning.learner_for("sky", dicewatch_home)
    assert "g2-5-0" in learner.keys()
    raw = taught.TaughtReader(learner.model(), "sky", lambda image: box)(frame).dice
    assert [d["face"] for d in got] == [d.face for d in raw]
    assert got[0]["confidence"] == pytest.approx(store.record().confidence(raw[0].confidence), abs=1e-4)
