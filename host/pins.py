"""The pin map: hardware/pins.toml read, checked and turned into GPIO numbers.

``load_pins(path)`` returns a :class:`Pins`; anything wrong in the file (a missing key, a
number that is not a GPIO, the same GPIO twice, a pin the e-ink HAT needs, a typo in a
key) is a :class:`host.config.ConfigError` naming the file, the line and what was
expected, e.g. ``pins.toml:31: [buzzer] pin: GPIO 17 is the Inky HAT's BUSY line
(header pin 11); expected a free GPIO``.

>>> pins = load_pins(pins_file())            # doctest: +SKIP
>>> pins.status_light, pins.buzzer           # doctest: +SKIP
((12, 13, 19), 18)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from host.config import ConfigError, line_of_key, load_toml
from host.paths import pins_file

#: BCM GPIO number -> physical pin on the 40-pin header (same on Pi 2/3/4/5, Zero).
HEADER_PIN: dict[int, int] = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32,
    13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16,
    24: 18, 25: 22, 26: 37, 27: 13,
}
#: Physical pins that are not GPIOs.
POWER_PINS: dict[int, str] = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V",
                              **{p: "GND" for p in (6, 9, 14, 20, 25, 30, 34, 39)}}

_ID_EEPROM = {0: "the HAT ID EEPROM's ID_SD", 1: "the HAT ID EEPROM's ID_SC"}
_INKY = {
    2: "the Inky HAT's EEPROM I2C SDA", 3: "the Inky HAT's EEPROM I2C SCL",
    7: "SPI0 CE1 (kept free for the SPI driver)", 8: "the Inky HAT's SPI0 chip select CE0",
    9: "SPI0 MISO", 10: "the Inky HAT's SPI0 MOSI", 11: "the Inky HAT's SPI0 SCLK",
    17: "the Inky HAT's BUSY line", 22: "the Inky HAT's DC line", 27: "the Inky HAT's RESET line",
}
_IMPRESSION_BUTTONS = {5: "the Inky Impression's button A", 6: "the Inky Impression's button B",
                       16: "the Inky Impression's button C", 24: "the Inky Impression's button D"}
# The 13.3" Impression drives two panel halves, each with its own chip select (inky's
# inky_el133uf1 driver: CS0 on GPIO 26, CS1 on GPIO 16), so its button C moves to GPIO 25.
_IMPRESSION_13 = {26: "the Inky Impression 13.3\"'s chip select CS0",
                  16: "the Inky Impression 13.3\"'s chip select CS1"}
_IMPRESSION_13_BUTTONS = {5: "the Inky Impression's button A", 6: "the Inky Impression's button B",
                          25: "the Inky Impression 13.3\"'s button C", 24: "the Inky Impression's button D"}

#: e-ink HAT -> {GPIO: what holds it}. Pins in ``SHAREABLE[hat]`` may carry our buttons only.
HATS: dict[str, dict[int, str]] = {
    "inky-phat": {**_ID_EEPROM, **_INKY},
    "inky-what": {**_ID_EEPROM, **_INKY},
    "inky-impression": {**_ID_EEPROM, **_INKY, **_IMPRESSION_BUTTONS},
    "inky-impression-13": {**_ID_EEPROM, **_INKY, **_IMPRESSION_13, **_IMPRESSION_13_BUTTONS},
    "none": dict(_ID_EEPROM),
}
#: e-ink HAT -> its pins that are push buttons to ground: our own buttons may share them
#: (same wiring).
SHAREABLE: dict[str, frozenset[int]] = {
    "inky-impression": frozenset(_IMPRESSION_BUTTONS),
    "inky-impression-13": frozenset(_IMPRESSION_13_BUTTONS),
}

BAR_DRIVERS = ("74hc595", "gpio")
_KEYS: dict[str, dict[str, bool]] = {   # table -> {key: required}
    "eink": {"hat": True},
    "status_light": {"red": True, "green": True, "blue": True, "common": True},
    "roll_bar": {"driver": True, "data": False, "clock": False, "latch": False, "length": False,
                 "segments": False},
    "buzzer": {"pin": True, "active_high": False},
    "buttons": {"score": True, "undo": True, "next": True},
    "encoder": {"a": True, "b": True, "push": True},
}


@dataclass(frozen=True)
class BarGraphPins:
    """How the 10-segment bar graph is driven.

    ``driver="74hc595"``: ``data``/``clock``/``latch`` GPIOs feed chained shift registers
    with ``length`` segments. ``driver="gpio"``: one GPIO per segment in ``segments``,
    bottom first.
    """

    driver: str
    length: int
    data: int | None = None
    clock: int | None = None
    latch: int | None = None
    segments: tuple[int, ...] = ()

    @property
    def gpios(self) -> tuple[int, ...]:
        return self.segments if self.driver == "gpio" else (self.data, self.clock, self.latch)


@dataclass(frozen=True)
class Pins:
    """Every GPIO (BCM number) the Pi box uses, checked against the e-ink HAT's pins."""

    hat: str
    status_light: tuple[int, int, int]      # red, green, blue
    status_common_anode: bool
    roll_bar: BarGraphPins
    buzzer: int
    buzzer_active_high: bool
    score: int
    undo: int
    next: int
    knob_a: int
    knob_b: int
    knob_push: int

    @property
    def status_active_high(self) -> bool:
        """gpiozero's ``active_high`` for the RGB LED (False for a common-anode LED)."""
        return not self.status_common_anode

    def roles(self) -> dict[int, str]:
        """GPIO -> what it drives, e.g. ``{12: "status light red", ...}``."""
        roles = {self.status_light[0]: "status light red", self.status_light[1]: "status light green",
                 self.status_light[2]: "status light blue", self.buzzer: "buzzer",
                 self.score: "Score button", self.undo: "Undo button", self.next: "Next button",
                 self.knob_a: "encoder A (CLK)", self.knob_b: "encoder B (DT)",
                 self.knob_push: "encoder push (SW)"}
        bar = self.roll_bar
        if bar.driver == "gpio":
            roles.update({gpio: f"bar graph segment {n}" for n, gpio in enumerate(bar.segments, 1)})
        else:
            roles.update({bar.data: "bar graph 74HC595 data (SER)", bar.clock: "bar graph 74HC595 clock (SRCLK)",
                          bar.latch: "bar graph 74HC595 latch (RCLK)"})
        return roles


def _table_line(path: Path, table: str) -> int | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for number, raw in enumerate(lines, start=1):
        if raw.strip().replace(" ", "") == f"[{table}]":
            return number
    return None


class _Reader:
    """Reads one pins.toml, remembering where each GPIO came from for the clash checks."""

    def __init__(self, path: Path, doc: Mapping[str, Any]):
        self.path, self.doc = path, doc
        self.where: list[tuple[int, str, str]] = []   # (gpio, table, key)

    def fail(self, message: str, table: str, key: str | None = None):
        line = line_of_key(self.path, key, table) if key else None
        raise ConfigError(self.path, message, line or _table_line(self.path, table))

    def table(self, name: str) -> Mapping[str, Any]:
        section = self.doc.get(name)
        if section is None:
            raise ConfigError(self.path, f"missing table [{name}]; expected keys "
                              f"{', '.join(k for k, req in _KEYS[name].items() if req)}")
        if not isinstance(section, Mapping):
            self.fail(f"{name}: expected a table [{name}], got {section!r}", name, name)
        for key in section:
            if key not in _KEYS[name]:
                self.fail(f"[{name}] {key}: unknown key; expected one of {', '.join(_KEYS[name])}", name, key)
        for key, required in _KEYS[name].items():
            if required and key not in section:
                self.fail(f"[{name}] is missing {key!r}; expected {key} = ...", name)
        return section

    def gpio(self, table: str, key: str, value: Any = None) -> int:
        value = self.doc[table][key] if value is None else value
        if isinstance(value, bool) or not isinstance(value, int) or value not in HEADER_PIN:
            self.fail(f"[{table}] {key}: expected a GPIO (BCM) number 0-27, got {value!r}", table, key)
        self.where.append((value, table, key))
        return value

    def choice(self, table: str, key: str, options: tuple[str, ...]) -> str:
        value = self.doc[table][key]
        if value not in options:
            self.fail(f"[{table}] {key}: expected one of {', '.join(repr(o) for o in options)}, got {value!r}",
                      table, key)
        return value

    def boolean(self, table: str, key: str, default: bool) -> bool:
        value = self.doc[table].get(key, default)
        if not isinstance(value, bool):
            self.fail(f"[{table}] {key}: expected true or false, got {value!r}", table, key)
        return value


def _roll_bar(reader: _Reader) -> BarGraphPins:
    section = reader.table("roll_bar")
    driver = reader.choice("roll_bar", "driver", BAR_DRIVERS)
    if driver == "gpio":
        segments = section.get("segments")
        if not isinstance(segments, list) or not segments:
            reader.fail(f"[roll_bar] segments: expected a list of GPIO numbers, bottom segment first, "
                        f"got {segments!r}", "roll_bar", "segments" if "segments" in section else None)
        extra = sorted(set(section) & {"data", "clock", "latch"})
        if extra:
            reader.fail(f"[roll_bar] {extra[0]}: only for driver = \"74hc595\"", "roll_bar", extra[0])
        pins = tuple(reader.gpio("roll_bar", "segments", s) for s in segments)
        length = section.get("length", len(pins))
        if length != len(pins) or isinstance(length, bool):
            reader.fail(f"[roll_bar] length: {length!r}, but segments lists {len(pins)} GPIOs; with "
                        f"driver = \"gpio\" expected length = {len(pins)} or no length", "roll_bar", "length")
        return BarGraphPins("gpio", len(pins), segments=pins)
    for key in ("data", "clock", "latch"):
        if key not in section:
            reader.fail(f"[roll_bar] is missing {key!r}; driver = \"74hc595\" needs data, clock and latch",
                        "roll_bar")
    if "segments" in section:
        reader.fail("[roll_bar] segments: only for driver = \"gpio\"", "roll_bar", "segments")
    length = section.get("length", 10)
    if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= 16:
        reader.fail(f"[roll_bar] length: expected 1-16 segments (two chained 74HC595s), got {length!r}",
                    "roll_bar", "length")
    return BarGraphPins("74hc595", length, data=reader.gpio("roll_bar", "data"),
                        clock=reader.gpio("roll_bar", "clock"), latch=reader.gpio("roll_bar", "latch"))


def load_pins(path: Path | str | None = None) -> Pins:
    """Read and check the pin map (default: hardware/pins.toml)."""
    path = Path(path) if path is not None else pins_file()
    doc = load_toml(path)
    reader = _Reader(path, doc)
    for table in doc:
        if table not in _KEYS:
            reader.fail(f"unknown table [{table}]; expected {', '.join(f'[{t}]' for t in _KEYS)}", table)
    reader.table("eink")
    hat = reader.choice("eink", "hat", tuple(HATS))
    reader.table("status_light")
    light = tuple(reader.gpio("status_light", key) for key in ("red", "green", "blue"))
    common = reader.choice("status_light", "common", ("cathode", "anode"))
    roll_bar = _roll_bar(reader)
    reader.table("buzzer")
    buzzer = reader.gpio("buzzer", "pin")
    buzzer_high = reader.boolean("buzzer", "active_high", True)
    reader.table("buttons")
    score, undo, next_ = (reader.gpio("buttons", key) for key in ("score", "undo", "next"))
    reader.table("encoder")
    knob_a, knob_b, knob_push = (reader.gpio("encoder", key) for key in ("a", "b", "push"))
    _check_clashes(reader, HATS[hat], hat)
    return Pins(hat=hat, status_light=light, status_common_anode=common == "anode", roll_bar=roll_bar,
                buzzer=buzzer, buzzer_active_high=buzzer_high, score=score, undo=undo, next=next_,
                knob_a=knob_a, knob_b=knob_b, knob_push=knob_push)


def _check_clashes(reader: _Reader, reserved: dict[int, str], hat: str) -> None:
    seen: dict[int, tuple[str, str]] = {}
    for gpio, table, key in reader.where:
        if gpio in seen:
            first = seen[gpio]
            reader.fail(f"[{table}] {key}: GPIO {gpio} is already used by [{first[0]}] {first[1]}; "
                        "expected every GPIO once", table, key)
        seen[gpio] = (table, key)
        shareable = gpio in SHAREABLE.get(hat, ())
        if gpio in reserved and not (shareable and table in ("buttons", "encoder") and key != "a"
                                     and key != "b"):
            use = "only for a button" if shareable else "a free GPIO"
            reader.fail(f"[{table}] {key}: GPIO {gpio} (header pin {HEADER_PIN[gpio]}) is {reserved[gpio]} "
                        f"with hat = {hat!r}; expected {use}", table, key)
