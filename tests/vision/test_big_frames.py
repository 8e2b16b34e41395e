"""Big frames with small dice (vision/pips.py: run_finder's finer, tiled passes): the finder
sees a frame shrunk to 320 px, so in a frame over 640 px a 20-30 px die used to shrink
below what it finds. Frames of 640 px and smaller are looked at exactly as before."""
import numpy as np
import pytest

from vision import pips
from vision.synth import render_scene


def find(x, y, side, score=0.8, fine=False):
    return pips.Find(x, y, side, side, score, fine)


@pytest.mark.parametrize("shape, scales", [
    ((640, 640), []),
    ((480, 640), []),
    ((100, 50), []),
    ((720, 1280), [0.5]),
    ((960, 1280), [0.5]),
    ((1080, 1920), [pytest.approx(1 / 3), 0.5]),
    ((3000, 4000), [0.16, 0.32, 0.5]),
])
def test_finer_scales_double_up_to_half(shape, scales):
    assert pips.finer_scales(*shape, 320) == scales


@pytest.mark.parametrize("length", [1, 320, 321, 640, 1000, 2016])
def test_tiles_cover_the_frame_and_overlap(length):
    side = 320
    starts = pips.tile_origins(length, side)
    assert starts[0] == 0 and starts == sorted(set(starts))
    assert starts[-1] + side >= length and all(s + side <= max(length, side) for s in starts)
    for a, b in zip(starts, starts[1:]):
        assert a + side - b >= pips.TILE_OVERLAP * side  # neighbours overlap


def test_coarse_pass_keeps_a_die_it_sees_well():
    coarse = find(100, 100, 48)                    # 12 px at scale 0.25
    fine = find(102, 101, 46, score=0.95, fine=True)  # 23 px at scale 0.5
    assert pips.merged([(coarse, 0.25), (fine, 0.5)]) == [coarse]


def test_a_die_too_small_for_the_coarse_pass_goes_to_the_finer_one():
    coarse = find(100, 100, 30, score=0.9)         # 7.5 px at scale 0.25: a poor view
    fine = find(101, 100, 28, score=0.7, fine=True)
    (kept,) = pips.merged([(coarse, 0.25), (fine, 0.5)], confirm=0.3)
    assert (kept.x, kept.w) == (101, 28)
    assert not kept.fine  # the coarse pass found it too: read with the usual gates


def test_a_die_only_a_finer_pass_found_stays_marked():
    weak_coarse = find(100, 100, 30, score=0.2)   # under confirm: no evidence
    fine = find(101, 100, 28, fine=True)
    other = find(400, 100, 28, fine=True)
    kept = pips.merged([(weak_coarse, 0.25), (fine, 0.5), (other, 0.5)], confirm=0.3)
    assert sorted(k.x for k in kept) == [101, 400] and all(k.fine for k in kept)


def test_finer_finds_are_held_to_the_face_readers_word():
    probs = np.array([
        [0.96, 0.01, 0.01, 0.0, 0.0, 0.0, 0.02],   # sure die, sure face
        [0.5, 0.45, 0.02, 0.0, 0.0, 0.0, 0.03],   # sure die, unsure face
        [0.9, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1],      # not sure it is a die
    ])
    heat = np.array([0.9, 0.9, 0.9])
    faint = {"threshold": 0.15, "die_prob": 0.97, "face_prob": 0.9}
    plain = pips.dice_kept(heat, probs, 0.3, 0.5, faint)
    fine = pips.dice_kept(heat, probs, 0.3, 0.5, faint, np.array([True, True, True]))
    assert plain.tolist() == [True, True, True]
    assert fine.tolist() == [True, False, False]


@pytest.fixture(scope="module")
def reader():
    return pips.PipReader()


def scenes(count=4, dice=5):
    return [render_scene([str(1 + (s + k) % 6) for k in range(dice)], seed=4100 + s, die_px=22,
                         touching=0.0) for s in range(count)]


def test_small_dice_in_a_big_frame_read_as_in_their_own(reader):
    """Nine 640x480 scenes of ~30 px dice side by side in one 1920x1440 frame: every die is
    found and read as in its own scene (the whole-frame pass alone sees them at 5 px)."""
    frame = np.zeros((1440, 1920, 3), np.uint8)
    truth = []
    for j, (image, scene) in enumerate(scenes(count=9, dice=3)):
        oy, ox = 480 * (j // 3), 640 * (j % 3)
        frame[oy:oy + 480, ox:ox + 640] = image
        truth += [(d.face, d.x + ox, d.y + oy) for d in scene.dice]
    roll = reader(frame)
    assert len(roll.dice) == len(truth)
    for face, x, y in truth:
        die = min(roll.dice, key=lambda d: (d.x - x) ** 2 + (d.y - y) ** 2)
        assert abs(die.x - x) < 12 and abs(die.y - y) < 12 and die.face == face


def test_frames_of_640_px_take_one_pass(reader, monkeypatch):
    image, _ = scenes(count=1)[0]
    calls = []
    monkeypatch.setattr(pips, "tiled_finds", lambda *a, **k: calls.append(a) or [])
    reader(image)
    assert calls == []
    assert not any(f.fine for f in reader.find(image))


@pytest.mark.parametrize("sides, small", [
    ([], True),                    # nothing found: look closer
    ([40, 44, 48], True),          # 10-12 px at scale 0.25
    ([60, 64, 200], False),        # 15 px and up: the whole-frame view is the usual one
    ([40, 64, 68], False),         # the median decides, not one small find
])
def test_finer_passes_only_where_dice_look_small(sides, small):
    finds = [find(100 * i, 100, s) for i, s in enumerate(sides)]
    assert pips.small_dice_likely(pips.median_die(finds, confirm=0.3), 0.25) is small


def test_faint_finds_do_not_decide_the_finer_passes():
    big_but_faint = [find(100, 100, 200, score=0.2)]
    assert pips.small_dice_likely(pips.median_die(big_but_faint, confirm=0.3), 0.25)


def test_a_big_frame_of_big_dice_takes_one_pass(reader, monkeypatch):
    """A phone-like photo (1920 px) of ~110 px dice: the whole-frame pass sees them at 18 px,
    as in a 640 px photo, so there are no finer passes to take specks for dice."""
    image, scene = render_scene(["1", "2", "3", "4", "5"], seed=4200, size=(1920, 1440), die_px=110,
                                touching=0.0)
    calls = []
    monkeypatch.setattr(pips, "tiled_finds", lambda *a, **k: calls.append(a) or [])
    roll = reader(image)
    assert calls == []
    assert sorted(d.face for d in roll.dice) == sorted(d.face for d in scene.dice)


def test_finer_passes_add_no_die_far_smaller_than_the_frames_dice(monkeypatch):
    """Whole-frame dice 60 px in a 1920 px frame (10 px in the finder's input: small, so the
    finer passes run); they add a 40 px die but not a 20 px speck or pip."""
    whole = [find(300 * i, 300, 60) for i in range(1, 4)]
    monkeypatch.setattr(pips, "finder_maps", lambda *a, **k: None)
    monkeypatch.setattr(pips, "peaks", lambda maps, scale, threshold: list(whole))
    monkeypatch.setattr(pips, "tiled_finds", lambda *a, **k: [find(1500, 900, 20, fine=True),
                                                               find(1500, 300, 40, fine=True)])
    kept = pips.run_finder(None, np.zeros((1440, 1920, 3), np.uint8), 0.3)
    assert sorted((k.x, k.w) for k in kept) == [(300, 60), (600, 60), (900, 60), (1500, 40)]
