"""Teaching at the box: questions on the e-ink screen, answered with the buttons (gpiozero's
MockFactory, fixture ``mock_factory``) or the terminal."""
from __future__ import annotations

import io
import threading
import time

import cv2
import pytest

from host import cli
from host.devices import ATTENTION, WAITING, TableDevices, pins_for
from host.presenters import DevicePresenter, RecordingPresenter
from host.teach_console import TeachConsole, answer_of_line
from vision import dicesets


def press(factory, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def press_later(factory, pin: int, delay: float = 0.15) -> threading.Timer:
    timer = threading.Timer(delay, press, (factory, pin))
    timer.start()
    return timer


@pytest.fixture
def box(mock_factory):
    """A console wired to the box's buttons and lights as `dicewatch teach` wires them."""
    pins = pins_for()
    recorder = RecordingPresenter()
    console = TeachConsole([recorder], wait=True, out=io.StringIO())
    devices = TableDevices(pins, on_command=console.post, pin_factory=mock_factory)
    console.presenters.append(DevicePresenter(devices))
    yield console, devices, pins, recorder
    devices.close()


def test_score_answers_go_on_and_the_light_asks_meanwhile(box, mock_factory):
    console, devices, pins, recorder = box
    seen = []
    timer = threading.Timer(0.15, lambda: (seen.append(devices.light.state), press(mock_factory, pins.score)))
    timer.start()
    assert console.ask("Face 1 of 6: MILK", ["Put ONE die in the tray with MILK on top."]) is True
    timer.join()
    assert seen == [ATTENTION]              # blinking while it waited
    assert devices.light.state == WAITING    # and back once answered
    assert devices.buzzer.last_pattern == "attention"
    screen = recorder.screens[-1]
    assert screen.kind == "prompt" and screen.title == "Face 1 of 6: MILK"
    assert "Score" in screen.footer and "Undo" in screen.footer


def test_undo_stops_and_the_knob_push_goes_on(box, mock_factory):
    console, _, pins, _ = box
    timer = press_later(mock_factory, pins.undo)
    assert console.ask("Clear the tray") is False
    timer.join()
    timer = press_later(mock_factory, pins.knob_push)
    assert console.ask("Clear the tray") is True
    timer.join()


def test_presses_before_a_question_and_other_controls_do_not_answer_it(box, mock_factory):
    console, _, pins, _ = box
    press(mock_factory, pins.score)          # pressed too early: not an answer to what follows
    console.post("left")
    console.post("next")
    timer = press_later(mock_factory, pins.undo)
    assert console.ask("Self-check: roll all the dice") is False
    timer.join()


def test_the_self_check_read_is_shown_with_unsure_dice_marked(box, mock_factory):
    console, _, pins, recorder = box
    timer = press_later(mock_factory, pins.score)
    assert console.confirm("Self-check: is this right?", ["SUN", "MOON"], [0.97, 0.5], "sky") is True
    timer.join()
    screen = recorder.screens[-1]
    assert screen.kind == "roll" and screen.dice_set == "sky"
    assert [(d.face, d.flagged) for d in screen.dice] == [("SUN", False), ("MOON", True)]
    assert "read: SUN MOON?  (2 dice, 1 unsure)" in console.out.getvalue()


def test_each_picture_ticks_the_buzzer_and_shows_progress(box):
    console, devices, _, recorder = box
    console.wait = False
    console.ask("Face 2 of 6: COOKIE", ["Put ONE die in the tray with COOKIE on top."])
    console.say("COOKIE: picture 3 of 8", picture=True)
    assert devices.buzzer.last_pattern == "scored"
    assert recorder.screens[-1].lines == ("Put ONE die in the tray with COOKIE on top.", "COOKIE: picture 3 of 8")


@pytest.mark.parametrize("line, command", [("", "score"), ("y", "score"), ("yes\n", "score"),
                                           ("q", "undo"), ("n", "undo"), ("No", "undo")])
def test_terminal_answers(line, command):
    assert answer_of_line(line) == command


def test_without_wait_nothing_waits():
    console = TeachConsole(out=False)
    assert console.ask("Face 1 of 2: SUN") is True
    assert console.confirm("Self-check: is this right?", ["SUN"], [0.99], "sky") is None


# -- the whole command --------------------------------------------------------------------------

def test_teach_on_the_png_screen_without_a_config(tmp_path, capsys):
    screens = tmp_path / "screens"
    status = cli.main(["teach", "--dice", "jingle-bell-roll", "--camera", "synthetic:2", "--replace",
                       "--shots", "5", "--display", "png", "--png-dir", str(screens)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "Face 1 of 6: MILK. Put ONE die in the tray with MILK on top." in out
    assert sorted(p.name for p in screens.glob("*.png"))  # the e-ink screens, as PNG files


def test_box_flags_are_for_the_camera(tmp_path, capsys):
    (tmp_path / "photos").mkdir()
    assert cli.main(["teach", "--dice", "sky", "--from", str(tmp_path / "photos"), "--display", "png"]) == 2
    assert "--display: for teaching at the camera (--camera) only" in capsys.readouterr().err


def test_a_broken_config_is_named(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('[device]\ndisplay = "paper"\n')
    assert cli.main(["teach", "--dice", "jingle-bell-roll", "--camera", "synthetic:2", "--replace",
                     "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert f"{config}:2: [device] display" in err and "Traceback" not in err


def test_a_png_folder_that_cannot_be_written_is_named(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert cli.main(["teach", "--dice", "jingle-bell-roll", "--camera", "synthetic:2", "--replace",
                     "--display", "png", "--png-dir", str(blocker / "screens")]) == 1
    err = capsys.readouterr().err
    assert f"cannot write the screens as PNG files to {blocker / 'screens'}" in err and "Traceback" not in err


def film_teaching(folder, faces, shots, seed=5):
    """What a camera over the tray films while a player teaches: the empty mat, one die per
    face ``shots`` times (moved between pictures), then the mixed roll; saved as numbered
    frames for ``--camera frames:DIR`` (30 frames per second)."""
    from vision.synthetic_camera import SyntheticCamera
    script = [(face,) for face in faces for _ in range(shots)] + [tuple(faces)]
    folder.mkdir()
    with SyntheticCamera(seed, script=script, dice_set="jingle-bell-roll", fps=30.0, hold=0.6,
                         lead_in=0.3) as camera:
        for n, frame in enumerate(camera):
            cv2.imwrite(str(folder / f"{n:05d}.jpg"), frame.image, [cv2.IMWRITE_JPEG_QUALITY, 95])


def test_teaching_at_the_box_answered_with_its_buttons(tmp_path, mock_factory, dicewatch_home, capsys):
    """A real (not synthetic) camera waits for the player: every question and the self-check
    are answered with the Score button, the screens go to the png display."""
    faces = ["MILK", "BELL"]
    film_teaching(tmp_path / "frames", faces, 5)
    config = tmp_path / "config.toml"
    config.write_text(f'[device]\ngpio = true\ndisplay = "png"\npng_dir = "{tmp_path / "screens"}"\n'
                      f'eink_min_interval = 0\n')
    pins = pins_for()
    done = threading.Event()

    def keep_pressing():  # Score to every question; after two minutes Undo, so a bug fails, not hangs
        started = time.monotonic()
        while not done.wait(0.05):
            press(mock_factory, pins.score if time.monotonic() - started < 120 else pins.undo)

    presser = threading.Thread(target=keep_pressing, daemon=True)
    presser.start()
    try:
        status = cli.main(["teach", "--dice", "sweets", "--camera", f"frames:{tmp_path / 'frames'}",
                           "--faces", ",".join(faces), "--shots", "5", "--config", str(config)])
    finally:
        done.set()
        presser.join()
    out = capsys.readouterr().out
    assert status == 0, out
    assert "MILK: picture 5 of 5" in out and "BELL: picture 5 of 5" in out
    assert "read: " in out and "misread" not in out
    assert dicesets.load_set("sweets", dicewatch_home).faces == ("MILK", "BELL")
    names = sorted(p.name for p in (tmp_path / "screens").glob("*.png"))
    assert any("-roll-" in name for name in names) and len(names) > 5


def test_stopping_teaching_puts_the_box_back(tmp_path, mock_factory, monkeypatch, capsys):
    """Ctrl-C or SIGTERM (raised as KeyboardInterrupt) mid-teaching: exit 130, the screen says
    so, and every GPIO pin is released (the box can be opened again at once)."""
    from host import teaching
    from host.commands import teach

    def interrupted(self):
        teach._interrupt(15, None)

    monkeypatch.setattr(teaching.CameraSession, "learn_background", interrupted)
    config = tmp_path / "config.toml"
    config.write_text(f'[device]\ngpio = true\ndisplay = "png"\npng_dir = "{tmp_path / "screens"}"\n')
    assert cli.main(["teach", "--dice", "jingle-bell-roll", "--camera", "synthetic:2", "--replace",
                     "--config", str(config)]) == 130
    assert "stopped" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "screens").glob("*.png"))[-1].endswith("prompt-full.png")
    TableDevices(pins_for(), on_command=print, pin_factory=mock_factory).close()


def test_answers_typed_on_the_terminal_and_its_end(monkeypatch):
    """Enter goes on, q stops; once the terminal's input ends (Ctrl-D), every question goes on
    as an empty answer would, instead of waiting for a line that cannot come."""
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    console = TeachConsole(wait=True, read_terminal=True, out=io.StringIO())
    assert console.ask("Clear the tray") is False  # q
    time.sleep(0.2)  # the reader thread has met the end of the input by now
    assert console.ask("Face 1 of 2: SUN") is True
    assert console.confirm("Self-check: is this right?", ["SUN"], [0.99], "sky") is True
    assert "press Enter when ready" in console.out.getvalue()


def test_a_failing_output_does_not_stop_teaching(caplog):
    class Unplugged(RecordingPresenter):
        def show(self, screen):
            raise OSError("panel unplugged")

    recorder = RecordingPresenter()
    console = TeachConsole([Unplugged(), recorder], out=False)
    assert console.ask("Face 1 of 2: SUN") is True
    console.say("SUN: picture 1 of 8", picture=True)
    console.close()
    assert recorder.screens[-1].lines == ("SUN: picture 1 of 8",) and recorder.closed
    assert "panel unplugged" in caplog.text


def test_a_camera_that_will_not_open_says_the_service_may_have_it(capsys):
    assert cli.main(["teach", "--dice", "sky", "--faces", "SUN,MOON", "--camera", "opencv:97"]) == 1
    err = capsys.readouterr().err
    assert "cannot open camera 97" in err and "Teach the dice" in err and "systemctl stop dicewatch" in err
