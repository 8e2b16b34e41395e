"""Check the pin map and print it as a wiring table: every GPIO the box uses, its pin on the
40-pin header, and what it drives, plus the pins the e-ink HAT keeps.

The pin map is hardware/pins.toml (the only place pin numbers live; hardware/wiring.svg is
drawn from it). A broken map -- a GPIO used twice, a pin the HAT needs, a number that is not
a GPIO, a missing or misspelt key -- is reported with its line and what was expected (exit 1).

Examples:
  dicewatch pins
  dicewatch pins --file my-pins.toml
"""
from __future__ import annotations

import sys

from host.config import ConfigError
from host.paths import pins_file
from host.pins import HATS, HEADER_PIN, load_pins

NAME = "pins"
HELP = "check the GPIO pin map and print the wiring table"


def add_arguments(parser) -> None:
    parser.add_argument("--file", metavar="FILE", help="pin map to check (default: hardware/pins.toml)")


def run(args) -> int:
    path = args.file or pins_file()
    try:
        pins = load_pins(path)
    except ConfigError as exc:
        print(f"dicewatch pins: {exc}", file=sys.stderr)
        return 1
    roles = pins.roles()
    print(f"{path}: OK, {len(roles)} GPIOs, e-ink HAT {pins.hat}")
    print(f"{'GPIO':>5} {'pin':>4}  drives")
    for gpio in sorted(roles, key=lambda g: HEADER_PIN[g]):
        shared = f" (shared with {HATS[pins.hat][gpio].removeprefix('the ')})" if gpio in HATS[pins.hat] else ""
        print(f"{gpio:>5} {HEADER_PIN[gpio]:>4}  {roles[gpio]}{shared}")
    kept = sorted((g for g in HATS[pins.hat] if g not in roles), key=lambda g: HEADER_PIN[g])
    print("kept free for the HAT: " + ", ".join(f"GPIO{g} (pin {HEADER_PIN[g]})" for g in kept))
    light = "common anode to 3V3" if pins.status_common_anode else "common cathode to GND"
    print(f"status light: {light}; bar graph: {pins.roll_bar.length} segments via {pins.roll_bar.driver}")
    return 0
