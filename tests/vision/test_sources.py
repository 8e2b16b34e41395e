"""Frame sources: specs, files, folders, missing cameras and the synthetic camera."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import sources, synthetic_camera
from vision.sources import (CameraError, CameraSpec, CameraSpecError, FrameFolder, SourceError, VideoFile,
                            open_source, parse_spec)
from vision.synthetic_camera import ScriptedRoll, SyntheticCamera


@pytest.mark.parametrize("text, spec", [
    ("picamera", CameraSpec("picamera")),
    ("opencv:0", CameraSpec("opencv", 0)),
    ("opencv:rtsp://cam.local/stream", CameraSpec("opencv", "rtsp://cam.local/stream")),
    ("opencv:/dev/video2", CameraSpec("opencv", "/dev/video2")),
    ("video:roll.mp4", CameraSpec("video", "roll.mp4")),
    ("frames:shots/", CameraSpec("frames", "shots/")),
    ("synthetic", CameraSpec("synthetic", 0)),
    ("synthetic:42", CameraSpec("synthetic", 42)),
])
def test_specs_parse(text, spec):
    assert parse_spec(text) == spec


@pytest.mark.parametrize("text, message", [
    ("", "unknown camera"),
    ("webcam", "unknown camera; expected picamera | opencv:INDEX"),
    ("opencv", "say which camera"),
    ("opencv:front", "camera index"),
    ("video:", "give the file"),
    ("frames:", "give the folder"),
    ("synthetic:abc", "must be a whole number"),
    ("picamera:1", "picamera takes no argument"),
])
def test_bad_specs_say_what_was_expected(text, message):
    with pytest.raises(CameraSpecError, match=message):
        parse_spec(text)


def test_missing_cameras_raise_the_retryable_error():
    with pytest.raises(CameraError):
        open_source("picamera")          # picamera2 is not installed off the Pi
    with pytest.raises(CameraError, match="cannot open camera 97"):
        open_source("opencv:97")


def _write_frames(folder, count=5):
    folder.mkdir()
    for i in range(count):
        image = np.full((40, 60, 3), 20 * i, np.uint8)
        cv2.imwrite(str(folder / f"frame-{i + 1}.png"), image)  # 1, 2, ... (not 01, 02): names sort 1, 10, 11, 2


def test_frame_folder_in_number_order(tmp_path):
    _write_frames(tmp_path / "shots", 12)   # frame-10.png .. frame-12.png sort before frame-2.png by name
    (tmp_path / "shots" / "notes.txt").write_text("not a frame")
    with open_source(f"frames:{tmp_path / 'shots'}", fps=10) as folder:
        frames = list(folder)
    assert [int(f.image[0, 0, 0]) for f in frames] == [20 * i for i in range(12)]
    assert [f.timestamp for f in frames] == pytest.approx([0.1 * i for i in range(12)])


def test_frame_folder_bad_input(tmp_path):
    with pytest.raises(SourceError, match="no such folder"):
        FrameFolder(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no images in it"):
        FrameFolder(tmp_path / "empty")
    _write_frames(tmp_path / "timed", 2)
    for fps in (0, float("nan"), float("inf")):
        with pytest.raises(SourceError, match=f"frames per second must be a number above 0, not {fps}"):
            FrameFolder(tmp_path / "timed", fps=fps)
    _write_frames(tmp_path / "broken", 2)
    (tmp_path / "broken" / "frame-3.jpg").write_text("this is text")
    folder = FrameFolder(tmp_path / "broken")
    next(folder), next(folder)
    with pytest.raises(SourceError, match="frame-3.jpg: not an image"):
        next(folder)


def huge_png_header(path, width=50000, height=50000):
    """A small PNG file whose header claims more pixels than OpenCV will decode."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(b"\0" * (1 + 3 * width))) + chunk(b"IEND", b""))
    return path


def test_frame_folder_with_a_frame_too_big_to_decode_says_which(tmp_path):
    _write_frames(tmp_path / "shots", 2)
    huge_png_header(tmp_path / "shots" / "frame-3.png")
    folder = FrameFolder(tmp_path / "shots")
    next(folder), next(folder)
    with pytest.raises(SourceError, match="frame-3.png: not an image OpenCV can read: too many pixels"):
        next(folder)


def test_frame_folder_with_a_frame_of_another_size_says_which(tmp_path):
    _write_frames(tmp_path / "shots", 3)
    cv2.imwrite(str(tmp_path / "shots" / "frame-4.png"), np.zeros((30, 50, 3), np.uint8))
    folder = FrameFolder(tmp_path / "shots")
    assert len([next(folder) for _ in range(3)]) == 3
    with pytest.raises(SourceError, match=r"frame-4.png: a 50x30 frame among 60x40 ones \(from frame-1.png on\)"):
        next(folder)


def test_video_file_round_trip(tmp_path):
    path = tmp_path / "roll.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 20.0, (64, 48))
    assert writer.isOpened()
    for i in range(6):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    with VideoFile(path) as video:
        frames = list(video)
    assert len(frames) == 6 and frames[0].image.shape == (48, 64, 3)
    assert frames[-1].timestamp == pytest.approx(5 / 20, abs=0.01)


def test_video_bad_input(tmp_path):
    with pytest.raises(SourceError, match="no such video file"):
        VideoFile(tmp_path / "missing.mp4")
    text = tmp_path / "notes.mp4"
    text.write_text("hello")
    with pytest.raises(SourceError, match="notes.mp4: "):
        list(VideoFile(text))


def test_synthetic_camera_is_deterministic_and_tells_the_truth():
    script = [ScriptedRoll(("3", "4"))]
    a = SyntheticCamera(5, script=script, size=(240, 180), lead_in=0.2, hold=0.3)
    b = open_source("synthetic:5", size=(240, 180), realtime=False, script=script, lead_in=0.2, hold=0.3)
    frames_a = [(f.image, f.timestamp, a.truth) for f in a]
    frames_b = [(f.image, f.timestamp) for f in b]
    assert len(frames_a) == len(frames_b) > 20
    assert all(np.array_equal(x[0], y[0]) and x[1] == y[1] for x, y in zip(frames_a, frames_b))
    phases = [t.phase for _, _, t in frames_a]
    assert phases[0] == "empty" and "hand" in phases and "moving" in phases and phases[-1] == "still"
    assert sorted(frames_a[-1][2].faces) == ["3", "4"]
    a.close()
    assert list(a) == []


def test_synthetic_custom_dice_and_kept_dice_stay_put():
    script = [ScriptedRoll(("BELL", "GIFT", "MILK"), keep=(0,)), ScriptedRoll(("COOKIE", "LIST"))]
    camera = SyntheticCamera(2, script=script, dice_set="jingle-bell-roll", size=(320, 240), hold=0.3, lead_in=0.1)
    last = [camera.truth for _ in camera][-1]
    assert sorted(last.faces) == ["BELL", "COOKIE", "LIST"]
    assert [d.area for d in last.dice if d.face == "BELL"] == ["keep"]


def die_colours(one_set: bool) -> list[np.ndarray]:
    """The median colour of each die's middle in the still frames of three throws, as shares
    of its brightness (the light and the icon change how bright a die looks, not its hue)."""
    script = [ScriptedRoll(("BELL", "GIFT")), ScriptedRoll(("MILK", "LIST")), ScriptedRoll(("COOKIE", "BELL"))]
    camera = SyntheticCamera(4, script=script, dice_set="jingle-bell-roll", size=(480, 360), hold=0.3,
                             lead_in=0.1, hands=False, one_set=one_set)
    stills = {}
    for frame in camera:
        if camera.truth.phase == "still":
            stills[camera.truth.roll] = (frame.image, camera.truth.dice)
    colours = []
    for image, dice in stills.values():
        for d in dice:
            half = max(2, int(d.w / 4))
            patch = image[int(d.y) - half:int(d.y) + half, int(d.x) - half:int(d.x) + half]
            colour = np.median(patch.reshape(-1, 3), axis=0)
            colours.append(colour / max(colour.sum(), 1.0))
    assert len(colours) == 6
    return colours


def test_synthetic_custom_dice_are_one_set_per_camera():
    """One look for every die of a session (a player's set), the same for every camera of a
    seed (teaching at synthetic:SEED teaches the dice it films); one_set=False: a new look
    for every throw."""
    same = die_colours(one_set=True)
    assert max(np.abs(c - same[0]).max() for c in same) < 0.05
    assert SyntheticCamera(4, dice_set="christmas-romance").set_style == synthetic_camera.set_style(4)
    assert SyntheticCamera(4).set_style is None  # pip dice stay a mix of looks
    mixed = die_colours(one_set=False)
    assert max(np.abs(c - mixed[0]).max() for c in mixed) > 0.1


def test_another_game_at_the_same_synthetic_table_has_the_same_dice_and_other_throws():
    def first_throw(**kw):
        camera = SyntheticCamera(4, dice_set="jingle-bell-roll", size=(320, 240), hold=0.3, lead_in=0.1,
                                 dice_count=lambda: 7, **kw)
        while camera.truth is None or not camera.truth.dice or camera.truth.phase != "still":
            camera.read()
        return camera, sorted(d.face for d in camera.truth.dice), [(round(d.x), round(d.y)) for d in camera.truth.dice]
    first, faces, places = first_throw()
    again, faces_again, places_again = first_throw()
    other, other_faces, other_places = first_throw(game=1)
    assert (faces, places) == (faces_again, places_again)          # a game is the seed's own
    assert (faces, places) != (other_faces, other_places)          # another game throws otherwise
    assert other.set_style == first.set_style and other.table.size == first.table.size   # the same dice, the same table


@pytest.mark.parametrize("kwargs, message", [
    (dict(game=-1), "game -1; expected a whole number from 0 up"),
    (dict(game=True), "game True"),
    (dict(script=[("7",)]), "'7' not a face of d6-pips"),
    (dict(script=[ScriptedRoll(("1",), keep=(3,))]), "keep index 3"),
    (dict(dice_set="yahtzee"), "unknown dice set"),
    (dict(fps=0), "frames per second"),
])
def test_synthetic_bad_scripts(kwargs, message):
    with pytest.raises(SourceError, match=message):
        SyntheticCamera(0, **kwargs)


def test_every_source_is_a_context_manager():
    for cls in (sources.PiCamera, sources.OpenCVCamera, VideoFile, FrameFolder, SyntheticCamera):
        assert hasattr(cls, "__enter__") and hasattr(cls, "close")


def test_appending_to_the_script_films_more_throws_on_the_same_table():
    camera = SyntheticCamera(1, script=[], size=(240, 180), lead_in=0.2, hold=0.3)
    assert all(camera.truth.phase == "empty" for _ in camera)
    camera.script.append(ScriptedRoll(("1", "2"), keep=(1,)))
    assert len(list(camera)) > 10 and sorted(camera.truth.faces) == ["1", "2"]
    camera.script.append(("5",))
    list(camera)
    assert sorted(camera.truth.faces) == ["2", "5"] and camera.truth.roll == 1


def test_a_camera_that_stops_delivering_is_lost(tmp_path):
    # A stream that ends stands in for an unplugged camera: OpenCV's own capture, no fakes.
    path = tmp_path / "stream.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 24))
    for i in range(2):
        writer.write(np.full((24, 32, 3), 100, np.uint8))
    writer.release()
    with sources.OpenCVCamera(str(path), retries=2) as camera:
        camera.read(), camera.read()
        with pytest.raises(CameraError, match="stopped delivering frames"):
            camera.read()


def test_synthetic_camera_without_hands():
    camera = SyntheticCamera(3, script=[ScriptedRoll(("6",), hover=True)], hands=False, size=(240, 180),
                             lead_in=0.1, hold=0.3)
    phases = {camera.truth.phase for _ in camera}
    assert "hand" not in phases and "moving" in phases


def test_synthetic_camera_with_too_many_dice_says_so():
    camera = SyntheticCamera(0, script=[("1",) * 60], size=(240, 180), lead_in=0.1)
    with pytest.raises(SourceError, match="synthetic camera: cannot fit 60 dice"):
        list(camera)


def still_dice_per_throw(camera, throws):
    """The dice in view once each of the first ``throws`` throws has settled."""
    seen = {}
    for _ in camera:
        truth = camera.truth
        if truth.phase == "still" and truth.roll not in seen:
            seen[truth.roll] = truth.dice
            if len(seen) == throws:
                return [seen[k] for k in range(throws)]
    raise AssertionError(f"only {len(seen)} throws filmed")


def test_unscripted_throws_follow_the_dice_count_they_are_told():
    """`dicewatch run` hands the game loop's ``dice_wanted`` to the synthetic camera, so its
    players throw what the game asks for: all 7 of Jingle Bell Roll's dice, 3 for a turn of
    the fate game, 10 for fate."""
    wanted = [7, 3, 10]
    camera = SyntheticCamera(5, dice_set="jingle-bell-roll", dice_count=lambda: wanted[0],
                             lead_in=0.1, hold=0.3, fps=10)
    settled = []
    for _ in camera:                    # the game asks for the next throw once one has settled
        if camera.truth.phase == "still" and camera.truth.roll == len(settled):
            settled.append(len(camera.truth.dice))
            wanted.pop(0)
            if not wanted:
                break
    assert settled == [7, 3, 10]


def test_a_throw_the_game_no_longer_wants_is_not_thrown():
    """The game changes while the hand reaches in (a menu opened; a re-roll announced): the
    players take the hand back and throw what it asks now. Before, the throw in the air was
    read as the announced re-roll and refused."""
    from vision.roll import Throw

    wanted = {"now": Throw(7)}
    camera = SyntheticCamera(5, dice_set="jingle-bell-roll", dice_count=lambda: wanted["now"],
                             lead_in=0.1, hold=0.3, fps=10, size=(320, 240))
    first, = still_dice_per_throw(camera, 1)
    wanted["now"] = Throw(6, keep=(first[0].face,))           # roll 2 asked for
    for _ in camera:
        if camera.truth.phase == "hand" and camera.truth.roll == 1:
            break                                              # the hand reaches in for it
    wanted["now"] = Throw(1, keep=tuple(d.face for d in first[1:]))   # a one-die re-roll instead
    for _ in camera:
        if camera.truth.phase == "still" and camera.truth.roll == 1:
            break
    after = camera.truth.dice
    moved = [d for d in after if not any((d.face, d.x, d.y) == (f.face, f.x, f.y) for f in first)]
    assert len(after) == 7 and len(moved) == 1


def test_a_throw_leaves_the_dice_it_keeps_standing_where_they_lie():
    """A Throw names the faces left standing (Jingle Bell Roll's BELLS, the six dice a one-die
    re-roll does not touch): those dice stay exactly where they lay, and only ``count`` new
    dice are thrown. For a face the table does not show (the game took a misread) another
    die stands: no die leaves the table."""
    from vision.roll import Throw

    wanted = {"now": Throw(7)}
    camera = SyntheticCamera(5, dice_set="jingle-bell-roll", dice_count=lambda: wanted["now"],
                             lead_in=0.1, hold=0.3, fps=10, size=(320, 240))
    first, = still_dice_per_throw(camera, 1)
    keep = (first[0].face, first[3].face, "SNOWMAN-NOT-A-FACE")
    wanted["now"] = Throw(4, keep=keep)
    after = [camera.truth.dice]
    for _ in camera:
        if camera.truth.phase == "still" and camera.truth.roll == 1:
            after = camera.truth.dice
            break
    assert len(after) == 3 + 4
    standing = [d for d in after if any((d.face, d.x, d.y) == (f.face, f.x, f.y) for f in first)]
    assert len(standing) == 3 and all(standing.count(d) <= 1 for d in standing)
    faces = [d.face for d in standing]
    assert all(faces.count(face) >= keep[:2].count(face) for face in keep[:2])


@pytest.mark.parametrize("keep", ["BELL", [3], None])
def test_a_throw_with_bad_faces_to_keep_says_what_is_expected(keep):
    from vision.roll import Throw

    camera = SyntheticCamera(5, dice_count=lambda: Throw(2, keep=keep), lead_in=0.1, size=(240, 180))
    with pytest.raises(SourceError, match=r"asked to keep .*; expected a sequence of face names"):
        list(camera)


def test_a_dice_count_of_none_throws_two_to_six_like_before():
    told = SyntheticCamera(5, dice_count=lambda: None, lead_in=0.1, hold=0.3, fps=10, hands=False)
    free = SyntheticCamera(5, lead_in=0.1, hold=0.3, fps=10, hands=False)
    counts = [len(dice) for dice in still_dice_per_throw(told, 4)]
    assert counts == [len(dice) for dice in still_dice_per_throw(free, 4)]
    assert all(2 <= n <= 6 for n in counts)


@pytest.mark.parametrize("answer", [-2, 2.5, "7", True])
def test_a_bad_dice_count_says_what_was_asked_and_what_is_expected(answer):
    camera = SyntheticCamera(5, dice_count=lambda: answer, lead_in=0.1, size=(240, 180))
    with pytest.raises(SourceError, match=r"asked to throw .* dice; expected a whole number from 0 up"):
        list(camera)


def test_a_dice_count_of_0_keeps_the_dice_still_until_the_game_asks_again():
    """While the game waits for a button (a question, the turn's last roll scored), `run`'s
    synthetic players throw nothing: the dice lie as they fell, frame after frame, and the
    next throw comes on the first frame the game asks for dice again."""
    answers = {"now": 3}
    camera = SyntheticCamera(5, dice_count=lambda: answers["now"], lead_in=0.1, hold=0.3, fps=10,
                             hands=False, size=(240, 180))
    frames = iter(camera)
    while camera.truth is None or camera.truth.phase != "still":
        next(frames)
    answers["now"] = 0
    lying = camera.truth.faces
    for _ in range(60):                    # six seconds of nobody throwing
        next(frames)
        assert camera.truth.phase == "still" and camera.truth.roll == 0 and camera.truth.faces == lying
    answers["now"] = 2
    while camera.truth.roll == 0:
        next(frames)
    assert camera.truth.roll == 1
    while camera.truth.phase != "still":
        next(frames)
    assert len(camera.truth.faces) == 2
    empty = SyntheticCamera(5, dice_count=lambda: 0, lead_in=0.1, fps=10, size=(240, 180))
    assert all(empty.read() and empty.truth.phase == "empty" for _ in range(20))


def test_the_synthetic_rooms_light_changes_and_its_exposure_makes_up_for_it():
    camera = SyntheticCamera(6, script=[ScriptedRoll(("2",))], size=(240, 180), lead_in=0.5, hold=0.3,
                             light=[(0.2, 0.5)])
    first, second = camera.read().image, camera.read().image   # 0.0 s and 1/30 s: as lit
    for _ in range(6):
        later = camera.read().image                           # 0.2 s on: half the light
    assert abs(float(later.mean()) / float(first.mean()) - 0.5) < 0.03
    assert camera.adjust_exposure(2.0) and camera.exposure == 2.0
    assert abs(float(camera.read().image.mean()) / float(second.mean()) - 1.0) < 0.03
    with pytest.raises(ValueError, match="above 0"):
        camera.adjust_exposure(0)
    with pytest.raises(SourceError, match="light levels must be above 0"):
        SyntheticCamera(6, light=[(1.0, 0.0)])


def test_files_cannot_change_their_exposure(tmp_path):
    import cv2
    cv2.imwrite(str(tmp_path / "frame-1.png"), np.zeros((8, 8, 3), np.uint8))
    assert FrameFolder(tmp_path).adjust_exposure(1.5) is False
