"""The device config: defaults, every key checked, errors that name file, line and expectation."""
from __future__ import annotations

import pytest

from host import cli
from host.config import ConfigError, DeviceConfig, load_config


def write(tmp_path, text):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_no_file_means_the_defaults():
    doc, config = load_config(None)
    assert doc == {} and config == DeviceConfig()
    assert config.camera == "picamera" and config.display == "inky" and config.confidence == 0.9


def test_a_full_device_table(tmp_path):
    path = write(tmp_path, '[device]\ncamera = "opencv:0"\ndisplay = "png"\ndisplay_size = [400, 300]\n'
                           'confidence = 0.8\ngpio = false\neink_min_interval = 10\n'
                           '[jingle-bell-roll]\nrounds = 6\n')
    doc, config = load_config(path)
    assert (config.camera, config.display, config.display_size, config.confidence, config.gpio) == \
        ("opencv:0", "png", (400, 300), 0.8, False)
    assert doc["jingle-bell-roll"] == {"rounds": 6}  # passed through to the rules


@pytest.mark.parametrize("text, line, expected", [
    ('[device]\n\ncamra = "opencv:0"\n', 3, "unknown key 'camra'; expected one of"),
    ('[device]\nconfidence = "high"\n', 2, "confidence: expected a number between 0 and 1"),
    ('[device]\nconfidence = 1.5\n', 2, "confidence: expected a number between 0 and 1, got 1.5"),
    ('[device]\ngpio = "yes"\n', 2, "gpio: expected true or false"),
    ('[device]\ndisplay = "lcd"\n', 2, 'display: expected one of "inky", "png", "none"'),
    ('[device]\ndisplay_size = [100, 50]\n', 2, "display_size: expected [width, height] from [200, 100] to [1600, 1200]"),
    ('[device]\ndisplay_size = [100000, 100000]\n', 2, "display_size: expected [width, height] from [200, 100]"),
    ('[devcie]\ncamera = "opencv:0"\n', 1, "unknown table [devcie]; did you mean [device]?"),
    ('[device]\nconfidence = 0.9\n[jingle-bell-rol]\nrounds = 6\n', 3, "unknown table [jingle-bell-rol]; did you mean [jingle-bell-roll]?"),
    ('[device]\ncamera = "webcam"\n', 2, "camera: expected picamera, opencv:INDEX"),
    ('[device]\ncamera_retry_max = 0\n', 2, "camera_retry_max: expected seconds >= 1"),
    ('[device]\ngpio = true\ncalibration = "../x"\n', 3, "calibration: '../x': expected the name of a saved tray"),
    ('[device]\ngpio = true\npanel = "bluetooth"\n', 3, "[device] panel 'bluetooth': expected \"auto\""),
    ('[device]\npanel = "usb:zz"\n', 2, "expected usb:VID or usb:VID:PID in hex"),
    ('[device\ngpio = true\n', 1, "not valid TOML"),
    ('device = 3\n', 1, "device: expected a table [device]"),
])
def test_broken_config_names_file_line_and_expectation(tmp_path, text, line, expected):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert expected in str(caught.value)


def test_a_config_with_no_panel_or_a_real_one_loads(tmp_path):
    for panel in ("", "auto", "usb:2E8A:0005", "serial:/dev/ttyACM0", "/dev/ttyUSB1"):
        assert load_config(write(tmp_path, f'[device]\npanel = "{panel}"\n'))[1].panel == panel


def test_run_refuses_a_panel_it_cannot_understand_as_a_usage_error(capsys):
    """`run --panel bluetooth` is a usage error before anything starts, as `panel --panel
    bluetooth` is; before, `run` began the game and only warned that the panel was missing."""
    assert cli.main(["run", "--players", "Ann,Ben", "--panel", "bluetooth"]) == 2
    err = capsys.readouterr().err
    assert "--panel bluetooth: panel 'bluetooth': expected \"auto\"" in err and "usage: dicewatch run" in err


def test_run_reports_a_broken_config_without_a_traceback(tmp_path, capsys):
    path = write(tmp_path, '[device]\ndisplay = "lcd"\n')
    assert cli.main(["run", "--players", "Ann,Ben", "--config", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2: [device] display" in err and "Traceback" not in err


def test_run_with_a_png_folder_that_cannot_be_written_starts_no_game(tmp_path, dicewatch_home, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert cli.main(["run", "--players", "Ann,Ben", "--camera", "synthetic", "--no-gpio", "--display", "png",
                     "--png-dir", str(blocker / "screens")]) == 1
    err = capsys.readouterr().err
    assert f"cannot write the screens as PNG files to {blocker / 'screens'}" in err and "Traceback" not in err
    assert not (dicewatch_home / "sessions.db").exists()


def test_run_usage_errors(capsys):
    assert cli.main(["run"]) == 2
    assert "--players" in capsys.readouterr().err
    assert cli.main(["run", "--players", "Ann,,Ben"]) == 2
    assert cli.main(["run", "--players", "Ann,Ben", "--camera", "webcam"]) == 2
    assert cli.main(["run", "--players", "Ann,Ben", "--game", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert cli.main(["run", "--players", "Ann,Ben", "--mode", "coop"]) == 2   # the default game is jingle-bell-roll
    assert "--mode: only for --game christmas-romance, not jingle-bell-roll" in capsys.readouterr().err
    assert cli.main(["run", "--game", "christmas-romance", "--no-characters"]) == 2
    assert "--no-characters: only for --game jingle-bell-roll, not christmas-romance" in capsys.readouterr().err
    assert cli.main(["demo", "--mode", "coop"]) == 2   # a flag of another game is refused, not ignored
    assert "--mode: only for --game christmas-romance, not jingle-bell-roll" in capsys.readouterr().err
    assert cli.main(["run", "--resume"]) == 1
    assert "no unfinished game to resume" in capsys.readouterr().err
    assert cli.main(["run", "--resume", "--game", "jingle-bell-roll"]) == 1
    assert "no unfinished jingle-bell-roll game to resume" in capsys.readouterr().err
