"""Dice too big for the finder's usual scale (vision/pips.py: ``big_dice_finds``,
``with_big_dice``, ``big_or_small``): a die filling a third of a close-up photo is read as one die, not as its
pips."""
from dataclasses import replace

import numpy as np
import pytest

from vision import pips
from vision.synth import render_scene


def find(x, y, side, score=0.8):
    return pips.Find(x, y, side, side, score)


def test_big_finds_are_added_and_marked():
    pip_finds = [find(280, 280, 40), find(360, 360, 40)]
    merged = pips.with_big_dice(pip_finds, [find(320, 320, 240)])
    assert merged[:2] == pip_finds and merged[2].big and (merged[2].x, merged[2].w) == (320, 240)


def test_a_die_the_usual_pass_found_whole_is_not_found_twice():
    usual = find(322, 318, 0.8 * 240)  # the usual pass's box, a little smaller than the die
    assert pips.with_big_dice([usual], [find(320, 320, 240)]) == [usual]


def pick(confidences, big_kept=True):
    """big_or_small on a big die at (320, 320) over two smaller finds on it and one elsewhere."""
    finds = [find(280, 280, 40), find(360, 360, 40), find(560, 80, 60), replace(find(320, 320, 240), big=True)]
    kept = np.array([True, True, True, big_kept])
    return list(pips.big_or_small(finds, kept, np.array(confidences)))


def test_a_surer_big_die_takes_the_place_of_its_pips():
    assert pick([0.4, 0.6, 0.3, 0.8]) == [False, False, True, True]


def test_a_pile_read_less_surely_than_its_dice_stays_those_dice():
    assert pick([0.95, 0.6, 0.3, 0.8]) == [True, True, True, False]


def test_an_unsure_big_die_replaces_nothing():
    assert pick([0.1, 0.2, 0.3, pips.BIG_SURE - 0.01]) == [True, True, True, False]


def test_a_big_die_the_face_reader_dropped_changes_nothing():
    assert pick([0.1, 0.2, 0.3, 0.9], big_kept=False) == [True, True, True, False]


def test_a_big_die_alone_stays():
    finds = [find(560, 80, 60), replace(find(320, 320, 240), big=True)]
    assert list(pips.big_or_small(finds, np.array([True, True]), np.array([0.9, 0.3]))) == [True, True]


def test_the_half_scale_pass_keeps_only_big_dice(monkeypatch):
    """At half the usual scale (a 640 px frame -> 160 px) a find must be BIG_DIE_PX there."""
    seen = []
    monkeypatch.setattr(pips, "finder_maps", lambda finder, canvas, width, mirror=False: seen.append(canvas.shape))
    monkeypatch.setattr(pips, "peaks", lambda maps, scale, threshold: [find(300, 300, 40 / scale - 1),
                                                                       find(100, 100, 40 / scale + 1)])
    big = pips.big_dice_finds(None, np.zeros((640, 640, 3), np.uint8), 0.3, 320)
    assert seen == [(160, 160, 3)]
    assert [(f.x, f.y) for f in big] == [(100, 100)]


@pytest.fixture(scope="module")
def reader():
    return pips.PipReader()


@pytest.mark.parametrize("die_px", [200, 240])
@pytest.mark.parametrize("face", list("123456"))
def test_a_close_up_die_reads_as_one_die(reader, face, die_px):
    """One die 200-240 px across in a 640 px frame (the usual pass alone reads 9 of these 12
    scenes wrong: pips taken for dice, or nothing)."""
    seed = 5300 + int(face) + die_px
    image, scene = render_scene([face], seed=seed, size=(640, 640), die_px=die_px,
                                positions=[(300 + 7 * int(face), 330 - 5 * int(face))])
    roll = reader(image)
    assert [d.face for d in roll.dice] == [face]
    assert abs(roll.dice[0].x - scene.dice[0].x) < 0.2 * die_px


@pytest.mark.parametrize("shape, side, half_scale_pass", [
    ((640, 640), 60, True),       # a photo: always
    ((1440, 1920), 60, False),    # a big frame of small dice (10 px at the usual scale): its tiles instead
    ((1440, 1920), 300, True),    # a big frame of big dice: no tiles, so the half-scale pass
])
def test_the_half_scale_pass_runs_where_the_finer_passes_do_not(monkeypatch, shape, side, half_scale_pass):
    calls = []
    monkeypatch.setattr(pips, "finder_maps", lambda *a, **k: None)
    monkeypatch.setattr(pips, "peaks", lambda maps, scale, threshold: [find(400, 400, side)])
    monkeypatch.setattr(pips, "tiled_finds", lambda *a, **k: [])
    monkeypatch.setattr(pips, "big_dice_finds", lambda *a, **k: calls.append(a) or [])
    pips.run_finder(None, np.zeros((*shape, 3), np.uint8), 0.3)
    assert bool(calls) == half_scale_pass


def test_taught_sets_keep_the_usual_finds_under_a_big_one():
    """The taught reader's boxes from the pip finder: a big die with finds on it is dropped
    (no face reader there to ask), one with none is kept."""
    from vision.dicesets import without_pile_doubts
    small = [find(280, 280, 40), find(360, 360, 40)]
    pile = replace(find(320, 320, 240), big=True)
    lone = replace(find(560, 500, 200), big=True)
    assert without_pile_doubts(small + [pile, lone]) == small + [lone]
