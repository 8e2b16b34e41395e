"""The settle gate on synthetic frame sequences: one read per settle, never a hand.

The reads here use the renderer's ground truth as the "reader", so these tests check the
gate, not the pip reader."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import synth
from vision.roll import Roll
from vision.settle import HAND, SettleGate, reads_from_stream
from vision.synthetic_camera import ScriptedRoll, SyntheticCamera


def _truth_reads(camera, **gate_options):
    def read(image):
        return Roll(dice=camera.truth.dice)
    out = []
    for settle, roll in reads_from_stream(camera, read, gate=SettleGate(**gate_options)):
        assert camera.truth.phase == "still" and not camera.truth.hand
        out.append((settle, sorted(roll.faces)))
    return out


@pytest.mark.parametrize("seed, background", [(1, "mat"), (2, "tray")])
def test_one_read_per_settle_with_the_right_faces(seed, background):
    script = [ScriptedRoll(("1", "2", "3", "4"), keep=(0, 2), hover=True),
              ScriptedRoll(("6", "6", "5"), nudge=True),
              ScriptedRoll(("2", "5"), new_turn=True)]
    camera = SyntheticCamera(seed, script=script, background=background, size=(480, 360), hold=1.0)
    reads = _truth_reads(camera)
    assert [faces for _, faces in reads] == [
        ["1", "2", "3", "4"],            # the first throw
        ["1", "3", "5", "6", "6"],       # kept 1 and 3 stay in the keep area; the hover is not a read
        ["1", "3", "5", "6", "6"],       # the nudged die: same faces, new place, read again
        ["2", "5"],                      # a new turn: the kept dice were picked up
    ]
    # Each read comes within a second of the dice stopping (window 0.3 s).
    times = [s.timestamp for s, _ in reads]
    assert all(b > a for a, b in zip(times, times[1:]))


def _still_scene_with_hand(seed: int, hand_frames: int, reach: float = 0.8, size=(480, 360)):
    """Dice lying still; then a hand reaches in and stays still; then it leaves."""
    table = synth.Table(size, seed, background="tray")
    rng = np.random.default_rng(seed)
    places = table.random_positions(3, rng, touching=0.0, region=table.rolling_region())
    poses = [synth.DiePose(face=f, x=x, y=y, yaw=yaw, style=synth.random_style(rng))
             for f, (x, y, yaw) in zip(("3", "5", "6"), places)]
    hand = synth.random_hand(table.size, rng, reach=reach, die_px=table.die_px)
    timeline = [[]] * 20 + [[synth.hand_at(hand, (i + 1) / 8)] for i in range(8)] + [[hand]] * hand_frames
    timeline += [[synth.hand_at(hand, 1 - (i + 1) / 8)] for i in range(8)] + [[]] * 20
    for i, hands in enumerate(timeline):
        image, _ = table.draw(poses, "d6-pips", np.random.default_rng([seed, i]), hands=hands)
        yield image, i / 30, bool(hands)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_a_hand_held_still_is_never_read_and_the_same_dice_not_twice(seed):
    gate = SettleGate()
    reports, hand_seen = [], False
    for image, t, hand in _still_scene_with_hand(seed, hand_frames=45):
        settle = gate.update(image, t)
        if hand and gate.state == HAND:
            hand_seen = True
        if settle is not None:
            reports.append((t, hand))
    assert hand_seen
    assert len(reports) == 1 and reports[0][1] is False  # only the dice before the hand came


def test_calibrated_background_spots_a_hand_in_the_very_first_frames():
    table = synth.Table((480, 360), 9, background="tray")
    rng = np.random.default_rng(9)
    empty, _ = table.draw([], "d6-pips", rng)
    hand = synth.random_hand(table.size, rng, reach=0.9, die_px=table.die_px)
    gate = SettleGate(background=empty)
    for i in range(30):
        image, _ = table.draw([], "d6-pips", np.random.default_rng([9, i]), hands=[hand])
        assert gate.update(image, i / 30) is None
    assert gate.state == HAND


def test_noise_alone_is_still_and_one_scene_is_read_once():
    table = synth.Table((320, 240), 11, background="tray")
    rng = np.random.default_rng(11)
    places = table.random_positions(2, rng, touching=0.0)
    poses = [synth.DiePose(face="4", x=x, y=y, yaw=yaw) for x, y, yaw in places]
    frames = [table.draw(poses, "d6-pips", np.random.default_rng([11, i]))[0] for i in range(40)]
    settles = list(reads_from_stream(frames, lambda image: Roll(dice=(1,))))
    assert len(settles) == 1
    assert settles[0][0].timestamp == pytest.approx(0.3, abs=0.05)


def test_bare_images_and_empty_reads():
    frames = [np.full((120, 160, 3), 90, np.uint8)] * 20
    assert list(reads_from_stream(frames, lambda image: Roll())) == []          # empty tray skipped
    assert len(list(reads_from_stream(frames, lambda image: Roll(), skip_empty=False))) == 1


def test_background_of_another_shape_is_refused():
    gate = SettleGate(background=np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError, match="background is 10x10 but the frames are 160x120"):
        gate.update(np.zeros((120, 160, 3), np.uint8), 0.0)
    half = SettleGate(background=np.zeros((60, 80, 3), np.uint8))  # same camera, half the size
    assert half.update(np.zeros((120, 160, 3), np.uint8), 0.0) is None


def test_a_hand_resting_for_seconds_is_still_not_read_but_a_shadow_becomes_scene():
    frames = _still_scene_with_hand(6, hand_frames=150, size=(320, 240))  # five seconds of a still hand
    gate = SettleGate()
    reports = [hand for image, t, hand in frames if gate.update(image, t) is not None]
    assert reports == [False]
    # A big dark patch from the edge that is not skin (a person leaning over): after
    # stale_after seconds of stillness it is part of the scene, and changed dice are read.
    table = synth.Table((320, 240), 12, background="tray")
    rng = np.random.default_rng(12)
    x, y, yaw = table.random_positions(1, rng, touching=0.0)[0]
    gate = SettleGate(stale_after=1.0)
    reads = []
    for i in range(150):
        pose = synth.DiePose(face="2" if i < 40 else "5", x=x, y=y, yaw=yaw)
        image, _ = table.draw([pose], "d6-pips", np.random.default_rng([12, i]))
        if i >= 40:
            image[:, :120] = (image[:, :120] * 0.55).astype(np.uint8)
        if gate.update(image, i / 30) is not None:
            reads.append(i)
    assert len(reads) == 2 and reads[0] < 40 and reads[1] >= 40 + 30


def test_a_hand_as_bright_as_the_table_is_still_a_hand():
    # This table and this skin tone have nearly the same grey level (161 vs 168): a gate
    # looking at grey only misses the hand; the colour difference gives it away.
    table = synth.Table((640, 480), 2, background="tray")
    rng = np.random.default_rng(2)
    places = table.random_positions(4, rng, touching=0.0, region=table.rolling_region())
    poses = [synth.DiePose(face=f, x=x, y=y, yaw=yaw, style=synth.random_style(rng))
             for f, (x, y, yaw) in zip("3456", places)]
    hand = synth.Hand(entry=(390, -48), tip=(400, 190), width=110, skin=(110, 150, 205))
    gate = SettleGate()
    reports = []
    for i in range(80):
        hands = [synth.hand_at(hand, min(1.0, (i - 19) / 5))] if 20 <= i < 65 else []
        image, _ = table.draw(poses, "d6-pips", np.random.default_rng([2, i]), hands=hands)
        if gate.update(image, i / 30) is not None:
            reports.append(i)
    assert reports == [9]  # the dice once; nothing while the hand rests there, nor after it left


def test_fingers_just_reaching_in_from_the_edge_are_not_a_roll():
    table = synth.Table((480, 360), 14, background="tray")
    rng = np.random.default_rng(14)
    places = table.random_positions(2, rng, touching=0.0, region=table.rolling_region())
    poses = [synth.DiePose(face="6", x=x, y=y, yaw=yaw) for x, y, yaw in places]
    hand = synth.Hand(entry=(240, 460), tip=(240, 320), width=60, skin=synth.SKIN_TONES[0])
    gate = SettleGate()
    reports = []
    for i in range(70):
        hands = [hand] if 20 <= i < 60 else []  # only the fingertips are in the picture
        image, _ = table.draw(poses, "d6-pips", np.random.default_rng([14, i]), hands=hands)
        if gate.update(image, i / 30) is not None:
            reports.append(i)
    assert reports == [9]


def test_skin_coloured_dice_at_the_edge_are_read():
    table = synth.Table((480, 360), 15, background="tray", die_px=30)
    tan = synth.DieStyle(body=(110, 150, 205), ink=(20, 20, 20))
    x0, y0, x1, y1 = table.visible_region(margin_px=18)
    poses = [synth.DiePose(face=f, x=x0 + 17 * k, y=y0, style=tan) for k, f in enumerate("123")]
    gate = SettleGate(stale_after=1.0)
    reads = []
    for i in range(70):
        shown = poses if i >= 20 else poses[:1]  # two more orange dice join at the edge
        image, _ = table.draw(shown, "d6-pips", np.random.default_rng([15, i]))
        if gate.update(image, i / 30) is not None:
            reads.append(i)
    # They look like fingertips reaching in, so they wait stale_after seconds; then they are read.
    assert len(reads) == 2 and reads[0] == 9 and 20 + 30 <= reads[1] <= 20 + 40


@pytest.mark.parametrize("level", [1.3, 0.7])
def test_a_lamp_switched_on_or_off_over_still_dice_is_not_a_new_roll(level):
    """The room's light changes while the dice lie still (the camera's exposure is locked, so
    the pale mat burns out when it brightens): the same dice are not read again, and the
    next throw, in the new light, is read once."""
    script = [ScriptedRoll(("1", "3", "5", "6")), ScriptedRoll(("2", "4"))]
    camera = SyntheticCamera(3, script=script, size=(480, 360), hold=3.0, fps=10, light=[(4.0, level)])
    reads = _truth_reads(camera)
    assert [faces for _, faces in reads] == [["1", "3", "5", "6"], ["2", "4"]]
    assert reads[0][0].timestamp < 4.0 - 1.0 and reads[1][0].timestamp > 4.0 + 1.0  # the change is mid-hold


def test_the_light_change_is_measured_as_a_gain_with_burnt_out_pixels_clipped():
    from vision.settle import light_change, relit
    rng = np.random.default_rng(0)
    before = rng.integers(30, 220, (90, 160, 3), dtype=np.uint8)
    after = np.clip(before.astype(np.float32) * (1.3, 1.2, 1.25), 0, 255).astype(np.uint8)
    gains, shifts = light_change(before, after)
    assert np.allclose(gains, (1.3, 1.2, 1.25), atol=0.02) and np.all(np.abs(shifts) <= 1.0)
    assert np.abs(relit(before, gains, shifts).astype(int) - after).max() <= 4
    grey = before[..., 0]
    assert np.allclose(light_change(grey, grey)[0], 1.0)


@pytest.mark.parametrize("report_first", [True, False])
def test_frames_that_change_size_start_afresh_instead_of_failing(report_first):
    """A webcam reconnected at another resolution: the scene after it is reported once."""
    table = synth.Table((320, 240), 12, background="tray")
    rng = np.random.default_rng(12)
    poses = [synth.DiePose(face="3", x=x, y=y, yaw=yaw) for x, y, yaw in table.random_positions(2, rng, touching=0.0)]
    scene = table.draw(poses, "d6-pips", np.random.default_rng(1))[0]
    wider = cv2.copyMakeBorder(scene, 0, 0, 0, 80, cv2.BORDER_REPLICATE)   # 400x240: another shape
    gate = SettleGate(report_first=report_first)
    reports = [gate.update(frame, 0.05 * i) for i, frame in enumerate([scene] * 20 + [wider] * 20)]
    times = [round(r.timestamp, 2) for r in reports if r is not None]
    assert times == ([0.3] if report_first else []) + [1.3]
