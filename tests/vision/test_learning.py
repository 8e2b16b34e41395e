"""The learned-example store and the learner (vision/learning.py): bounded, diverse,
withdrawn, forgotten by session, written whole, and gated by the self-check."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from vision import durable, learning, synth, taught
from vision.learning import ACCEPTED, CORRECTED, Example, ExampleStore, Learner, LearningError
from vision.roll import FACE_SETS

SET = "jingle-bell-roll"
FACES = FACE_SETS[SET]


@pytest.fixture(autouse=True)
def patterns_only(monkeypatch):
    """The hand-built patterns: the same learning, without the embedding network's cost."""
    monkeypatch.setattr(taught, "DEFAULT_KIND", "pattern")


def crop(face: str, seed: int, style_seed: int = 1) -> np.ndarray:
    style = synth.random_style(np.random.default_rng([style_seed, 77]), swirl=False)
    return taught.tighten_crop(synth.render_face_crop(SET, face, seed=seed, style=style))


@pytest.fixture(scope="module")
def taught_crops():
    return {face: [crop(face, 100 * i + n) for n in range(3)] for i, face in enumerate(FACES)}


def learner_of(taught_crops, **kw) -> Learner:
    return Learner(FACES, taught_crops, kind="pattern", **kw)


def example(key: str, face: str, source: str = ACCEPTED, session: str = "s1") -> Example:
    return Example(key, face, source, session, int(key.split("-")[-1]) if key[-1].isdigit() else 0, 0)


# --------------------------------------------------------------------------- the store

def test_the_store_keeps_examples_and_crops_across_a_restart(tmp_path):
    store = ExampleStore(tmp_path / "learned")
    big = np.full((120, 90, 3), 200, np.uint8)
    store.change(added=[(example("s1-3-0", "MILK"), big), (example("s2-4-1", "BELL", CORRECTED, "s2"), big)])
    again = ExampleStore(tmp_path / "learned")
    assert list(again.examples) == ["s1-3-0", "s2-4-1"]
    assert again.examples["s2-4-1"].source == CORRECTED and again.examples["s2-4-1"].session == "s2"
    assert max(again.crop("s1-3-0").shape[:2]) == learning.CROP_SIDE   # at the reader's scale
    assert again.of_session("s2") == ["s2-4-1"]
    again.change(dropped=again.of_session("s2"))
    assert list(ExampleStore(tmp_path / "learned").examples) == ["s1-3-0"]
    assert not again.crop_path("s2-4-1").exists()


def test_a_crash_while_the_list_is_written_leaves_the_previous_list(tmp_path, monkeypatch):
    store = ExampleStore(tmp_path / "learned")
    store.change(added=[(example("s1-1-0", "MILK"), np.zeros((40, 40, 3), np.uint8))])
    before = (tmp_path / "learned" / learning.MANIFEST).read_text()

    def power_cut(src, dst):
        raise OSError("power cut")
    monkeypatch.setattr(durable.os, "replace", power_cut)   # (the store writes through vision.durable)
    with pytest.raises(OSError):
        store.change(added=[(example("s1-2-0", "BELL"), np.zeros((40, 40, 3), np.uint8))])
    monkeypatch.undo()
    assert (tmp_path / "learned" / learning.MANIFEST).read_text() == before
    assert list(ExampleStore(tmp_path / "learned").examples) == ["s1-1-0"]
    assert not [p for p in (tmp_path / "learned").rglob("*.part")]


def test_a_damaged_list_is_a_clear_error_naming_the_file(tmp_path):
    folder = tmp_path / "learned"
    folder.mkdir()
    (folder / learning.MANIFEST).write_text('{"schema": 1, "examples": [{"key": 3}]}')
    with pytest.raises(LearningError, match=r"examples\.json: not a learned-example list"):
        ExampleStore(folder)
    (folder / learning.MANIFEST).write_text(json.dumps({"schema": 1, "examples": [
        {"key": "a", "face": "MILK", "source": "guessed"}]}))
    with pytest.raises(LearningError, match="source 'guessed'"):
        ExampleStore(folder)


# --------------------------------------------------------------------------- the learner

def test_new_examples_are_read_with_at_once_without_teaching_again(taught_crops):
    learner = learner_of(taught_crops)
    other_look = crop("GIFT", 7, style_seed=5)
    before = learner.model()
    offer = learner.offer([(example("s1-1-0", "GIFT", CORRECTED), other_look)])
    assert offer.used == ("s1-1-0",)
    model = learner.model()
    assert len(model.example_faces()) == len(before.example_faces()) + 1
    assert model.classify(other_look)[0] == "GIFT"
    # the confidence is calibrated on every example, as teaching does
    assert model.self_check[1] == len(before.example_faces()) + 1


def test_the_same_die_again_replaces_its_older_example(taught_crops):
    learner = learner_of(taught_crops)
    still = crop("BELL", 11, style_seed=5)
    learner.offer([(example("s1-1-0", "BELL"), still)])
    offer = learner.offer([(example("s1-2-0", "BELL"), still.copy())])   # a BELL left standing
    assert offer.dropped == ("s1-1-0",) and offer.used == ("s1-2-0",)
    assert learner.counts()["BELL"] == {"taught": 3, ACCEPTED: 1}


def test_an_unchallenged_read_never_replaces_a_correction(taught_crops):
    learner = learner_of(taught_crops)
    die = crop("LIST", 12, style_seed=5)
    learner.offer([(example("s1-1-0", "LIST", CORRECTED), die)])
    offer = learner.offer([(example("s1-2-0", "LIST"), die.copy())])
    assert offer.skipped == ("s1-2-0",) and learner.counts()["LIST"][CORRECTED] == 1


def test_a_correction_withdraws_a_look_alike_read_of_another_face(taught_crops):
    learner = learner_of(taught_crops)
    die = crop("STOCKING", 13, style_seed=5)
    learner.offer([(example("s1-1-0", "GIFT"), die)])        # read GIFT, nobody objected
    offer = learner.offer([(example("s1-2-0", "STOCKING", CORRECTED), die.copy())])
    assert "s1-1-0" in offer.dropped and "s1-1-0" not in learner.keys()


def test_each_face_keeps_a_bounded_number_of_table_examples(taught_crops):
    learner = learner_of(taught_crops, max_per_face=4)
    for n in range(9):
        learner.offer([(example(f"s1-{n}-0", "MILK"), crop("MILK", 1000 + n, style_seed=n))])
    counts = learner.counts()["MILK"]
    assert counts == {"taught": 3, ACCEPTED: 4}
    assert len(learner.model().example_faces()) == 6 * 3 + 4


def test_withdrawn_examples_leave_the_model(taught_crops):
    learner = learner_of(taught_crops)
    learner.offer([(example("s1-1-0", "COOKIE"), crop("COOKIE", 21, style_seed=5))])
    count = len(learner.model().example_faces())
    learner.withdraw(["s1-1-0"])
    assert "s1-1-0" not in learner.keys() and len(learner.model().example_faces()) == count - 1


def test_a_poisoned_batch_is_kept_aside(taught_crops):
    learner = learner_of(taught_crops)
    before = learner.self_check()
    # six true MILK dice of the taught look, each stored as BELL: the taught MILKs would read BELL
    poison = [(example(f"s9-{n}-0", "BELL", CORRECTED, "s9"), crop("MILK", 500 + n)) for n in range(6)]
    offer = learner.offer(poison)
    assert set(offer.aside) == {e.key for e, _ in poison} and not offer.used
    assert learner.self_check() == before and not (learner.keys() & set(offer.aside))


def test_the_learner_rebuilt_from_the_store_reads_as_before(tmp_path, taught_crops):
    from vision import dicesets
    dicesets.save_set("my-dice", taught_crops, tmp_path, min_examples=3)
    learner, store = learning.learner_for("my-dice", tmp_path)
    die = crop("GIFT", 31, style_seed=6)
    offer = learner.offer([(example("s1-1-0", "GIFT", CORRECTED), die)])
    store.change(added=[(example("s1-1-0", "GIFT", CORRECTED), die)], dropped=offer.dropped)
    again, _ = learning.learner_for("my-dice", tmp_path)
    assert again.keys() == learner.keys()
    assert again.model().classify(die) == learner.model().classify(die)
    assert os.path.isfile(store.crop_path("s1-1-0"))


def test_an_example_whose_crop_was_deleted_is_left_out(tmp_path, taught_crops):
    from vision import dicesets
    dicesets.save_set("my-dice", taught_crops, tmp_path, min_examples=3)
    _, store = learning.learner_for("my-dice", tmp_path)
    store.change(added=[(example("s1-1-0", "GIFT"), crop("GIFT", 41, style_seed=6)),
                        (example("s1-1-1", "MILK"), crop("MILK", 42, style_seed=6))])
    store.crop_path("s1-1-0").unlink()
    learner, _ = learning.learner_for("my-dice", tmp_path)
    assert "s1-1-1" in learner.keys() and "s1-1-0" not in learner.keys()


# --------------------------------------------------------------------------- the table's word

def record_of(*groups: tuple[float, bool, int]) -> learning.TableRecord:
    """A table record of ``count`` stored dice read at ``confidence``, right or not, per group."""
    outcomes, n = [], 0
    for confidence, right, count in groups:
        for _ in range(count):
            outcomes.append(learning.Outcome(f"s1-{n}-0", "s1", confidence, right))
            n += 1
    return learning.TableRecord.of(outcomes)


def test_without_outcomes_a_read_keeps_the_readers_confidence():
    assert learning.TableRecord().confidence(0.72) == pytest.approx(0.72)


def test_reads_the_table_kept_accepting_are_asked_about_less():
    record = record_of((0.7, True, 15), (0.8, True, 15))
    assert record.confidence(0.8) >= 0.9 > 0.8   # the box no longer asks about such a read
    assert record.confidence(0.75) > 0.75


def test_a_few_accepted_reads_do_not_raise_a_confidence_yet():
    few = record_of((0.8, True, learning.MIN_TO_RAISE - 1))
    assert few.confidence(0.8) == pytest.approx(0.8)


def test_sure_reads_the_table_corrected_lower_the_confidence_at_once():
    record = record_of((0.95, True, 7), (0.95, False, 3))
    assert record.confidence(0.95) < 0.9    # asked about from now on
    assert record_of((0.95, False, 1)).confidence(0.95) < 0.95


def test_surer_reads_do_not_speak_for_a_close_call():
    record = record_of((0.99, True, 200))
    assert record.confidence(0.5) == pytest.approx(0.5)


def test_weighing_a_roll_changes_only_its_confidences():
    from vision.roll import Die, Roll
    roll = Roll((Die("MILK", 0.8, 10, 20, 30, 30), Die("BELL", 0.3, 50, 20, 30, 30)), SET, (100, 50))
    weighed = record_of((0.7, True, 15), (0.8, True, 15)).weigh(roll)
    assert [d.face for d in weighed.dice] == ["MILK", "BELL"]
    assert [(d.x, d.y, d.w) for d in weighed.dice] == [(d.x, d.y, d.w) for d in roll.dice]
    assert weighed.dice[0].confidence > 0.9 and weighed.dice[1].confidence == pytest.approx(0.3)


def test_an_outcome_belongs_to_its_own_roll_only_though_session_ids_hold_dashes():
    session = "20261207-171726-ann-1"
    outcome = learning.Outcome(learning.example_key(session, 12, 3), session, 0.9, True)
    assert learning.of_roll(outcome, session, 12)
    assert not learning.of_roll(outcome, session, 1) and not learning.of_roll(outcome, session, 123)
    cousin = "20261207-171726-ann"          # a session whose id the other's starts with: its roll 1 is not this
    assert not learning.of_roll(outcome, cousin, 1)


def test_the_store_keeps_the_last_outcomes_across_a_restart(tmp_path, monkeypatch):
    monkeypatch.setattr(learning, "OUTCOMES_KEPT", 5)
    store = ExampleStore(tmp_path / "learned")
    store.change(outcomes=[learning.Outcome(f"s1-{n}-0", "s1", 0.5 + n / 20, n % 3 != 0) for n in range(8)])
    again = ExampleStore(tmp_path / "learned")
    assert list(again.outcomes) == [f"s1-{n}-0" for n in range(3, 8)]
    assert again.outcomes["s1-6-0"].right is False
    assert len(again.record()) == 5
    again.change(unsaid=["s1-7-0"])
    assert "s1-7-0" not in ExampleStore(tmp_path / "learned").outcomes


def test_a_store_written_before_outcomes_loads_with_none(tmp_path):
    folder = tmp_path / "learned"
    folder.mkdir()
    (folder / learning.MANIFEST).write_text(json.dumps({"schema": learning.SCHEMA, "examples": []}))
    assert ExampleStore(folder).outcomes == {}


def test_a_damaged_outcome_is_a_clear_error_naming_the_file(tmp_path):
    folder = tmp_path / "learned"
    folder.mkdir()
    (folder / learning.MANIFEST).write_text(json.dumps({"schema": learning.SCHEMA, "examples": [], "outcomes": [
        {"key": "s1-1-0", "session": "s1", "confidence": 7, "right": True}]}))
    with pytest.raises(LearningError, match=r"examples\.json.*confidence in \[0, 1\]"):
        ExampleStore(folder)


from hypothesis import given, settings, strategies as st  # noqa: E402

outcome_lists = st.lists(st.tuples(st.sampled_from([0.2, 0.5, 0.6, 0.75, 0.8, 0.9, 0.95, 0.99]), st.booleans()),
                         max_size=40)


@settings(max_examples=300, deadline=None)
@given(outcome_lists, st.sampled_from([0.5, 0.6, 0.8, 0.9, 0.97]), st.sampled_from([0.3, 0.6, 0.8, 0.9, 0.99]))
def test_the_tables_word_is_a_confidence_and_each_outcome_pushes_the_right_way(outcomes, seen, read):
    confidences = np.array([c for c, _ in outcomes], np.float32)
    rights = np.array([r for _, r in outcomes], bool)
    now = learning.table_confidence(read, confidences, rights)
    assert 0.0 <= now <= 1.0
    more = np.append(confidences, np.float32(seen))
    assert learning.table_confidence(read, more, np.append(rights, False)) <= now + 1e-6   # a wrong one never raises
    assert learning.table_confidence(read, more, np.append(rights, True)) >= now - 1e-6    # a right one never lowers
