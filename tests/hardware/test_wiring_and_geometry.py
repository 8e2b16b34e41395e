"""The generated hardware files are up to date, and the camera geometry maths is right."""
from __future__ import annotations

import math
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from host.cli import main
from host.geometry import CAMERAS, output_fov, parse_tray, plan, sheet_markdown
from host.paths import PROJECT_ROOT
from host.pins import HEADER_PIN, load_pins

HARDWARE = PROJECT_ROOT / "hardware"
sys.path.insert(0, str(HARDWARE))
import make_wiring  # noqa: E402


def test_committed_wiring_svg_is_up_to_date():
    committed = (HARDWARE / "wiring.svg").read_text(encoding="utf-8")
    assert committed == make_wiring.render(load_pins()), \
        "hardware/wiring.svg is stale: run python3 hardware/make_wiring.py"


def test_wiring_svg_labels_every_pin_from_the_map():
    svg = (HARDWARE / "wiring.svg").read_text(encoding="utf-8")
    ET.fromstring(svg)                                        # well-formed
    pins = load_pins()
    for gpio, role in pins.roles().items():
        assert f"GPIO{gpio}: {role}" in svg
    assert svg.count("<circle") + svg.count('<rect x="') - 1 == 40   # 39 round pins + square pin 1 (+ board rect)
    assert "GPIO17: Inky HAT&apos;s BUSY line" in svg or "GPIO17: Inky HAT's BUSY line" in svg


def test_wiring_follows_a_changed_pin_map(tmp_path):
    text = (HARDWARE / "pins.toml").read_text(encoding="utf-8").replace("pin = 18", "pin = 14")
    (tmp_path / "pins.toml").write_text(text, encoding="utf-8")
    out = tmp_path / "wiring.svg"
    assert make_wiring.main(["--pins", str(tmp_path / "pins.toml"), "--out", str(out)]) == 0
    svg = out.read_text(encoding="utf-8")
    assert "GPIO14: buzzer" in svg and "GPIO18: free" in svg
    assert make_wiring.main(["--pins", str(tmp_path / "pins.toml"), "--out", str(HARDWARE / "wiring.svg"),
                             "--check"]) == 1


def test_make_wiring_reports_a_broken_map(tmp_path, capsys):
    (tmp_path / "pins.toml").write_text("[eink]\nhat = 'inky-phat'\n", encoding="utf-8")
    assert make_wiring.main(["--pins", str(tmp_path / "pins.toml"), "--out", str(tmp_path / "w.svg")]) == 1
    assert "missing table [status_light]" in capsys.readouterr().err


def test_committed_geometry_sheet_is_up_to_date():
    result = subprocess.run([sys.executable, str(HARDWARE / "make_geometry_sheet.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (HARDWARE / "camera-geometry.md").read_text(encoding="utf-8") == sheet_markdown()


def test_module3_height_worked_by_hand():
    # 16:9 output on the 66 x 41 degree lens: width kept, height cropped to 40.1 degrees.
    half_w = math.tan(math.radians(33))
    half_h = half_w * 9 / 16
    need_short = 200 * 1.2
    expected = need_short / (2 * half_h)                     # the short side binds
    result = plan((300, 200), "module3")
    assert result.height_mm == pytest.approx(expected, rel=1e-9)
    assert result.height_mm == pytest.approx(328.5, abs=0.5)
    assert result.view_mm[1] == pytest.approx(240)
    assert result.die_px_output == pytest.approx(16 * 1280 / (2 * expected * half_w))
    assert result.warnings == ()


def test_long_side_binds_for_a_long_narrow_tray():
    result = plan((600, 100), "module3")
    assert result.view_mm[0] == pytest.approx(720)            # 600 mm + 2 x 10 %
    assert result.view_mm[1] > 120


def test_orientation_does_not_matter_and_lens_only_changes_height():
    a, b = plan((300, 200), "module3"), plan((200, 300), "module3")
    assert a.height_mm == b.height_mm and a.tray_mm == (300, 200)
    wide, hq = plan((300, 200), "module3-wide"), plan((300, 200), "hq-6mm")
    assert wide.height_mm < a.height_mm < hq.height_mm
    assert wide.die_px_output == pytest.approx(a.die_px_output, rel=0.05)


def test_bigger_trays_mean_smaller_dice_and_warnings():
    small, big = plan((250, 180), "module3"), plan((900, 600), "module3")
    assert small.die_px_output > big.die_px_output
    assert any("pips may be hard" in w for w in big.warnings)
    close = plan((40, 30), "hq-6mm")
    assert any("closer than this lens focuses" in w for w in close.warnings)


def test_hq_fov_from_focal_length_and_sensor():
    hq = CAMERAS["hq-6mm"]
    assert hq.hfov_deg == pytest.approx(55.3, abs=0.1) and hq.vfov_deg == pytest.approx(42.9, abs=0.1)
    h, v = output_fov(hq, (1280, 720))
    assert h == pytest.approx(hq.hfov_deg, abs=0.1) and v < hq.vfov_deg
    h, v = output_fov(hq, (1000, 1000))                       # a square output crops the width
    assert v == pytest.approx(hq.vfov_deg, abs=0.1) and h < hq.hfov_deg


@pytest.mark.parametrize("text,expected", [("300x200mm", (300, 200)), ("30x20cm", (300, 200)),
                                           ("12x8in", (304.8, 203.2)), ("300 x 200", (300, 200)),
                                           ("250.5x180MM", (250.5, 180))])
def test_parse_tray(text, expected):
    assert parse_tray(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["", "300", "300x200m", "300by200", "x200mm", "5x5mm", "9000x200mm", "-3x2cm"])
def test_parse_tray_errors(text):
    with pytest.raises(ValueError, match="--tray"):
        parse_tray(text)


def test_geometry_command(capsys):
    assert main(["geometry", "--tray", "300x200mm", "--camera", "module3"]) == 0
    out = capsys.readouterr().out
    assert "mount the lens 329 mm (32.9 cm) above the tray" in out and "48 px at 1280x720" in out
    assert main(["geometry", "--tray", "30x20cm"]) == 0
    assert capsys.readouterr().out.count("mount the lens") == 3


@pytest.mark.parametrize("argv,message", [
    (["--tray", "300by200"], "expected WIDTHxDEPTH with a unit, e.g. 300x200mm"),
    (["--tray", "300x200mm", "--margin", "-5"], "--margin -5: expected a percentage"),
    (["--tray", "300x200mm", "--die", "0"], "--die 0: expected a die edge"),
    (["--tray", "300x200mm", "--resolution", "big"], "--resolution 'big': expected WIDTHxHEIGHT"),
    (["--tray", "300x200mm", "--resolution", "99999x1"], "expected a camera picture from 160x120 to 9600x9600"),
])
def test_geometry_usage_errors(capsys, argv, message):
    assert main(["geometry", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_header_map_is_the_real_40_pin_header():
    assert sorted(HEADER_PIN) == list(range(28))
    assert len(set(HEADER_PIN.values())) == 28
    assert HEADER_PIN[2] == 3 and HEADER_PIN[18] == 12 and HEADER_PIN[21] == 40 and HEADER_PIN[0] == 27
