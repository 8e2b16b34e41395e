"""The device classes' docstrings are their wiring manuals (house style): the buzzer's must
describe the wiring that hardware/pins.toml, BOM.md and wiring.svg give (a 5 V active buzzer
switched by an NPN transistor), not a buzzer straight on a GPIO, which with the BOM's 5 V
buzzer would draw more current than a Pi GPIO may give."""
from __future__ import annotations

import host.devices
from host.devices import TableBuzzer
from host.paths import PROJECT_ROOT


def test_the_buzzer_manual_matches_the_pin_map_and_bom():
    pins_toml = (PROJECT_ROOT / "hardware" / "pins.toml").read_text(encoding="utf-8")
    bom = (PROJECT_ROOT / "hardware" / "BOM.md").read_text(encoding="utf-8")
    assert "NPN transistor (1 kohm) switching an active 5 V buzzer" in pins_toml
    assert "Buzzer, active, 5 V" in bom and "1N4148" in bom
    manual = " ".join(TableBuzzer.__doc__.split())
    for wiring in ("5 V", "NPN", "1 kohm", "base", "collector", "emitter", "1N4148"):
        assert wiring in manual, f"TableBuzzer's docstring does not say {wiring!r}"
    assert "+ leg to a GPIO" not in manual
    summary = " ".join(host.devices.__doc__.split())
    assert "3.3 V buzzer" not in summary and "5 V buzzer" in summary


def test_the_bar_graph_resistors_are_the_same_part_in_the_pin_map_and_bom():
    """Each 74HC595 output needs its own series resistor: an isolated network (BOM.md's
    8-resistor Bourns 4116R-1) fits, a bussed 9-resistor SIP (common pin) does not."""
    pins_toml = (PROJECT_ROOT / "hardware" / "pins.toml").read_text(encoding="utf-8")
    bom = (PROJECT_ROOT / "hardware" / "BOM.md").read_text(encoding="utf-8")
    assert "one 8-resistor isolated network (Bourns 4116R-1-221LF) + 2" in bom
    assert "9-resistor network" not in pins_toml
    assert "8-resistor isolated network + 2" in pins_toml
