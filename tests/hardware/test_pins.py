"""hardware/pins.toml: the committed map is valid, and every kind of mistake is reported
with the file, the line and what was expected."""
from __future__ import annotations

import pytest

from host.config import ConfigError
from host.paths import pins_file
from host.pins import HATS, HEADER_PIN, SHAREABLE, load_pins

GOOD = pins_file().read_text(encoding="utf-8")


def write(tmp_path, text):
    path = tmp_path / "pins.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_for(tmp_path, text) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_pins(write(tmp_path, text))
    return caught.value


def test_committed_pin_map_is_valid_and_uses_every_gpio_once():
    pins = load_pins()
    roles = pins.roles()
    assert len(roles) == 13                       # 3 light + 3 bar + buzzer + 3 buttons + 3 knob
    reserved = HATS[pins.hat]
    for gpio in roles:
        assert gpio in HEADER_PIN
        assert gpio not in reserved or gpio in SHAREABLE[pins.hat]


def test_committed_pin_map_avoids_every_inky_model_but_the_13_inch_impression():
    """The same wiring works whichever Inky HAT is fitted (only our buttons share the
    Impression's), except the 13.3" Impression, whose second chip select and button C take
    pins of the default map (its own map is in the [eink] comment of pins.toml)."""
    pins = load_pins()
    for hat, reserved in HATS.items():
        if hat == "inky-impression-13":
            continue
        for gpio, role in pins.roles().items():
            if gpio in reserved:
                assert gpio in SHAREABLE[hat] and "button" in role, (hat, gpio, role)


def impression_13_map(text: str) -> str:
    """The committed map moved as its [eink] comment says for a 13.3" Inky Impression."""
    assert "inky-impression-13: latch = 14, next = 25, b = 15" in text
    for old, new in (('hat = "inky-impression"', 'hat = "inky-impression-13"'), ("latch = 26", "latch = 14"),
                     ("next = 16", "next = 25"), ("b = 25", "b = 15")):
        assert old in text
        text = text.replace(old, new)
    return text


def test_the_default_map_under_a_13_inch_impression_is_refused_at_its_chip_select(tmp_path):
    error = error_for(tmp_path, GOOD.replace('hat = "inky-impression"', 'hat = "inky-impression-13"'))
    assert "GPIO 26" in str(error) and "chip select CS0" in str(error) and "expected a free GPIO" in str(error)


def test_the_13_inch_impression_map_in_the_comment_is_valid(tmp_path):
    pins = load_pins(write(tmp_path, impression_13_map(GOOD)))
    assert pins.hat == "inky-impression-13" and pins.next == 25 and pins.knob_b == 15
    assert pins.roll_bar.latch == 14


def test_status_light_pins_are_hardware_pwm_capable():
    assert set(load_pins().status_light) <= {12, 13, 18, 19}


def test_common_anode_flag(tmp_path):
    pins = load_pins(write(tmp_path, GOOD.replace('common = "cathode"', 'common = "anode"')))
    assert pins.status_active_high is False


def test_gpio_bar_graph_variant(tmp_path):
    text = GOOD.replace('driver = "74hc595"', 'driver = "gpio"\nsegments = [14, 15]')
    for key in ("data = 20", "clock = 21", "latch = 26", "length = 10"):
        text = text.replace(key, "# " + key)
    pins = load_pins(write(tmp_path, text.replace('hat = "inky-impression"', 'hat = "inky-phat"')))
    assert pins.roll_bar.segments == (14, 15) and pins.roll_bar.length == 2


def _line(text, needle):
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(needle))


def test_duplicate_gpio_names_both_uses_and_the_line(tmp_path):
    text = GOOD.replace("pin = 18", "pin = 12")
    err = error_for(tmp_path, text)
    assert err.line == _line(text, "pin = 12")
    assert "GPIO 12 is already used by [status_light] red" in str(err)
    assert str(err).startswith(f"{tmp_path / 'pins.toml'}:{err.line}: [buzzer] pin")


def test_clash_with_the_hat(tmp_path):
    text = GOOD.replace("pin = 18", "pin = 17")
    err = error_for(tmp_path, text)
    assert err.line == _line(text, "pin = 17")
    assert "BUSY" in str(err) and "header pin 11" in str(err) and "expected a free GPIO" in str(err)


def test_impression_button_pins_are_for_buttons_only(tmp_path):
    text = GOOD.replace("pin = 18", "pin = 24")
    err = error_for(tmp_path, text)
    assert "Impression's button D" in str(err) and "only for a button" in str(err)
    # ...but free on a pHAT
    load_pins(write(tmp_path, text.replace('hat = "inky-impression"', 'hat = "inky-phat"')))


@pytest.mark.parametrize("value", ["28", "-1", '"GPIO18"', "true", "18.0"])
def test_out_of_range_or_wrong_type(tmp_path, value):
    text = GOOD.replace("pin = 18", f"pin = {value}")
    err = error_for(tmp_path, text)
    assert "expected a GPIO (BCM) number 0-27" in str(err)
    assert err.line == _line(text, "pin = ")


def test_missing_key_names_the_table_line(tmp_path):
    text = GOOD.replace("undo = 6", "")
    err = error_for(tmp_path, text)
    assert "[buttons] is missing 'undo'" in str(err)
    assert err.line == _line(text, "[buttons]")


def test_missing_table(tmp_path):
    text = GOOD.replace("[encoder]", "[encoder_typo]")
    err = error_for(tmp_path, text)
    assert "unknown table [encoder_typo]" in str(err)


def test_unknown_key_is_a_typo(tmp_path):
    text = GOOD.replace("red = 12", "rde = 12")
    err = error_for(tmp_path, text)
    assert "[status_light] rde: unknown key" in str(err) and err.line == _line(text, "rde = 12")


def test_bad_choices(tmp_path):
    assert "expected one of 'inky-phat'" in str(error_for(tmp_path, GOOD.replace('"inky-impression"', '"papirus"')))
    assert "'cathode', 'anode'" in str(error_for(tmp_path, GOOD.replace('"cathode"', '"both"')))
    assert "1-16 segments" in str(error_for(tmp_path, GOOD.replace("length = 10", "length = 17")))


def test_not_toml_and_no_file(tmp_path):
    err = error_for(tmp_path, GOOD.replace("[buzzer]", "[buzzer"))
    assert "not valid TOML" in str(err) and err.line
    with pytest.raises(ConfigError, match="no such file"):
        load_pins(tmp_path / "absent.toml")


def test_pins_command_prints_the_wiring_table(capsys):
    from host.cli import main
    assert main(["pins"]) == 0
    out = capsys.readouterr().out
    assert "OK, 13 GPIOs" in out and "   18   12  buzzer" in out
    assert "Score button (shared with Inky Impression's button A)" in out
    assert "GPIO17 (pin 11)" in out.split("kept free for the HAT:")[1]


def test_pins_command_reports_a_broken_map(tmp_path, capsys):
    from host.cli import main
    path = write(tmp_path, GOOD.replace("pin = 18", "pin = 22"))
    assert main(["pins", "--file", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:" in err and "DC line" in err and "Traceback" not in err


def test_gpio_bar_graph_length_that_disagrees_with_its_segments_is_refused(tmp_path):
    """driver = "gpio" lights one segment per listed GPIO; a length left over from the
    74HC595 map (10) with fewer segments listed was dropped without a word."""
    text = GOOD.replace('driver = "74hc595"', 'driver = "gpio"\nsegments = [14, 15, 7]')
    for key in ("data = 20", "clock = 21", "latch = 26"):
        text = text.replace(key, "# " + key)
    text = text.replace('hat = "inky-impression"', 'hat = "none"')
    err = error_for(tmp_path, text)
    assert err.line == _line(text, "length = 10")
    assert "[roll_bar] length: 10, but segments lists 3 GPIOs" in str(err)
    assert load_pins(write(tmp_path, text.replace("length = 10", "length = 3"))).roll_bar.length == 3
