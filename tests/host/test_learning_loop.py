"""The table loop teaches its die set as it plays (vision/learning.py through
host.table_setup.learning_watcher): a correction becomes an example read with from the next
roll on; an undone roll's unchallenged dice are withdrawn; a poisoned batch is said once;
each stored die tells the table how its read turned out, and reads like those the table
accepted are asked about less."""
from __future__ import annotations

import numpy as np
import pytest

from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from host.table_setup import learning_watcher
from rules import get_game
from vision import dicesets, learning, synth, taught
from vision.roll import FACE_SETS

SET = "jingle-bell-roll"
FACES = FACE_SETS[SET]
DIE = 60                                            # px, the dice in the frame
ROLL = ["MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "GIFT", "BELL"]


def crop(face: str, seed: int, style_seed: int) -> np.ndarray:
    style = synth.random_style(np.random.default_rng([style_seed, 77]), swirl=False)
    return synth.render_face_crop(SET, face, seed=seed, size=DIE, style=style)


def frame_of(crops) -> tuple[np.ndarray, list]:
    """The crops side by side on a plain table, and their boxes."""
    frame = np.full((DIE + 40, (DIE + 20) * len(crops) + 20, 3), 90, np.uint8)
    boxes = []
    for i, c in enumerate(crops):
        x0 = 20 + i * (DIE + 20)
        frame[20:20 + DIE, x0:x0 + DIE] = c
        boxes.append((x0 + DIE / 2, 20 + DIE / 2, DIE / 1.1, DIE / 1.1))
    return frame, boxes


@pytest.fixture
def table_and_watcher(tmp_path, monkeypatch):
    monkeypatch.setattr(taught, "DEFAULT_KIND", "pattern")   # the same learning, faster
    examples = {face: [taught.tighten_crop(crop(face, 10 * i + n, 1)) for n in range(3)]
                for i, face in enumerate(FACES)}
    dicesets.save_set("my-dice", examples, tmp_path, min_examples=3)
    # the dice on the table look unlike the taught ones (another die style)
    frame, boxes = frame_of([crop(face, 900 + i, 4) for i, face in enumerate(ROLL)])
    reader = dicesets.load_reader("my-dice", tmp_path, find_dice=lambda image: boxes)
    watcher = learning_watcher(reader, "my-dice", tmp_path)
    store = SessionStore(tmp_path / "sessions.db")
    table = store.create(get_game(SET), {"players": ["Ann", "Ben"]})
    yield table, watcher, frame
    watcher.learner.close()
    store.close()


def play(table, watcher):
    screen = RecordingPresenter()
    loop = TableLoop(table, presenters=[screen], watcher=watcher, ask_setup=False, confidence=0.0)
    loop.start()
    return loop, screen


def test_a_correction_becomes_an_example_read_with_on_the_next_roll(table_and_watcher):
    table, watcher, frame = table_and_watcher
    loop, _ = play(table, watcher)
    learner = watcher.learner
    learner.wait()
    first = watcher.reader(frame)            # the loop's watcher reads the settled frame
    die = 4                                  # a GIFT: say the camera read it as something else
    misread = next(f for f in FACES if f not in (ROLL[die], "BELL"))
    dice = list(first.dice)
    dice[die] = dice[die].__class__(misread, 0.99, dice[die].x, dice[die].y, dice[die].w, dice[die].h)
    loop.on_read(first.__class__(tuple(dice), first.dice_set, first.frame_size))
    assert table.state.roll_number == 1
    index = die    # a first roll is stored in reading order
    assert table.session.events[-1]["faces"][index] == misread
    loop.handle(f"face:{index + 1}:{ROLL[die]}")   # the player corrects it after it was scored
    learner.wait()
    key = learning.example_key(table.id, len(table.session.events) - 1, index)
    assert learner.store.examples[key].face == ROLL[die]
    assert learner.store.examples[key].source == learning.CORRECTED
    # the reader reads with it from the next roll on: the same die is now read as corrected
    again = watcher.reader(frame)
    assert again.dice[die].face == ROLL[die]
    assert key in learner.learner.keys()
    # the other dice the player let stand were learned as read
    assert sum(e.source == learning.ACCEPTED for e in learner.store.examples.values()) >= 1


def test_an_undone_roll_takes_back_what_it_taught_unchallenged(table_and_watcher):
    table, watcher, frame = table_and_watcher
    loop, _ = play(table, watcher)
    loop.on_read(watcher.reader(frame))
    watcher.learner.wait()
    assert watcher.learner.store.examples
    loop.handle("undo")
    watcher.learner.wait()
    assert not [e for e in watcher.learner.store.examples.values() if e.source == learning.ACCEPTED]


def test_a_batch_kept_aside_is_said_once_on_the_screen(table_and_watcher, monkeypatch):
    table, watcher, frame = table_and_watcher
    monkeypatch.setattr(learning.Learner, "_left_out_right",
                        lambda self, active, checked: -len(self.entries))   # every batch looks worse
    loop, screen = play(table, watcher)
    loop.on_read(watcher.reader(frame))
    watcher.learner.wait()
    loop.step(look=False)
    said = [s for s in screen.screens if s.title == "Dice not learned"]
    assert len(said) == 1 and "kept aside" in said[0].lines[0]
    assert all(e.aside for e in watcher.learner.store.examples.values())
    loop.handle("next")
    loop.step(look=False)
    assert len([s for s in screen.screens if s.title == "Dice not learned"]) == 1



def test_each_stored_die_tells_the_table_how_its_read_turned_out(table_and_watcher):
    table, watcher, frame = table_and_watcher
    loop, _ = play(table, watcher)
    learner = watcher.learner
    learner.wait()
    first = watcher.reader(frame)
    die = 2                                  # say the camera read this one as another face
    misread = next(f for f in FACES if f not in (ROLL[die], "BELL"))
    dice = list(first.dice)
    dice[die] = dice[die].__class__(misread, 0.99, dice[die].x, dice[die].y, dice[die].w, dice[die].h)
    loop.on_read(first.__class__(tuple(dice), first.dice_set, first.frame_size))
    learner.wait()
    seq = len(table.session.events) - 1
    stored = table.session.events[-1]["faces"]
    outcomes = learner.store.outcomes
    assert len(outcomes) == len(ROLL) == len(learner.record)
    # right where the stored face is the face the camera read there (remembered by place)
    assert [outcomes[learning.example_key(table.id, seq, d)].right for d in range(len(ROLL))] == \
        [first.dice[d].face == stored[d] for d in range(len(ROLL))]
    loop.handle(f"face:{die + 1}:{ROLL[die]}")      # the player puts the die right
    learner.wait()
    assert learner.store.outcomes[learning.example_key(table.id, seq, die)].right == (first.dice[die].face == ROLL[die])
    loop.handle("undo")                              # the roll taken back: its right reads no longer count
    learner.wait()
    assert all(not o.right for o in learner.store.outcomes.values())
    assert len(learner.record) == len(learner.store.outcomes)


def test_rolls_the_table_accepts_make_the_box_ask_less(table_and_watcher):
    table, watcher, frame = table_and_watcher
    play(table, watcher)
    learner = watcher.learner
    learner.wait()
    for seq in range(6):       # six rolls scored as read: each read right as far as the table knows
        roll = watcher.reader(frame)
        learner.stored(table.id, 100 + seq, [d.face for d in roll.dice],
                       [(d.x, d.y, max(d.w, d.h)) for d in roll.dice])
        learner.wait()
    assert len(learner.store.outcomes) == 6 * len(ROLL)
    raw = learner.reader(frame)                      # the set's own reader, before the table's word
    weighed = watcher.reader(frame)
    assert [d.face for d in weighed.dice] == [d.face for d in raw.dice]
    assert [d.confidence for d in weighed.dice] == [learner.record.confidence(d.confidence) for d in raw.dice]
    assert all(w.confidence >= r.confidence - 1e-6 for w, r in zip(weighed.dice, raw.dice))
    assert any(w.confidence > r.confidence for w, r in zip(weighed.dice, raw.dice))
