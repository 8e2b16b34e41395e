"""Draw hardware/wiring.svg from hardware/pins.toml (the pin map is the only source).

    python3 hardware/make_wiring.py            # rewrite hardware/wiring.svg
    python3 hardware/make_wiring.py --check    # exit 1 if the committed SVG is stale
    python3 hardware/make_wiring.py --pins other.toml --out /tmp/wiring.svg

The drawing is the Pi's 40-pin header seen from above (pin 1 top left, by the SD card
end's corner), each pin labelled with its GPIO number and what it is wired to: our
parts in colour, the e-ink HAT's pins in grey, power and ground in red and black.
The output is deterministic, so a test can compare it byte for byte.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from host.config import ConfigError  # noqa: E402
from host.pins import HATS, HEADER_PIN, POWER_PINS, Pins, load_pins  # noqa: E402

SVG = ROOT / "hardware" / "wiring.svg"
ROW = 24
TOP = 110
CENTRE = 560
PIN_R = 7

#: what each part's wire goes through, shown after its label
PART_NOTES = {
    "status light": ("#c0392b", "220 ohm to the LED leg"),
    "bar graph": ("#8e44ad", "to the 74HC595 chain"),
    "buzzer": ("#d35400", "1 kohm to the NPN base"),
    "button": ("#27ae60", "push button to GND"),
    "encoder": ("#2980b9", "KY-040 encoder"),
}
POWER_COLOURS = {"3V3": "#e67e22", "5V": "#e74c3c", "GND": "#222222"}


def part_style(role: str) -> tuple[str, str]:
    for prefix, (colour, note) in PART_NOTES.items():
        if role.lower().startswith(prefix) or prefix in role.lower():
            return colour, note
    return "#555555", ""


def pin_labels(pins: Pins) -> dict[int, tuple[str, str, str]]:
    """physical pin -> (label, colour, note) for every header pin."""
    by_gpio = {gpio: physical for gpio, physical in HEADER_PIN.items()}
    roles = pins.roles()
    reserved = HATS[pins.hat]
    labels: dict[int, tuple[str, str, str]] = {}
    for physical, name in POWER_PINS.items():
        labels[physical] = (name, POWER_COLOURS[name], "")
    for gpio, physical in by_gpio.items():
        if gpio in roles:
            colour, note = part_style(roles[gpio])
            if gpio in reserved:
                note = f"shared with {reserved[gpio].removeprefix('the ')}"
            labels[physical] = (f"GPIO{gpio}: {roles[gpio]}", colour, note)
        elif gpio in reserved:
            labels[physical] = (f"GPIO{gpio}: {reserved[gpio].removeprefix('the ')}", "#9a9a9a", "HAT, keep free")
        else:
            labels[physical] = (f"GPIO{gpio}: free", "#a8a8a8", "")
    return labels


def render(pins: Pins, source: str = "hardware/pins.toml") -> str:
    labels = pin_labels(pins)
    height = TOP + 20 * ROW + 190
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="1120" height="{height}" viewBox="0 0 1120 {height}" '
        'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        '<text x="560" y="34" text-anchor="middle" font-size="20" font-weight="bold">'
        'dicewatch: Raspberry Pi 4/5 GPIO wiring</text>',
        f'<text x="560" y="56" text-anchor="middle" fill="#555">generated from {escape(source)} by '
        f'hardware/make_wiring.py; e-ink HAT: {escape(pins.hat)}; BCM (GPIO) numbers</text>',
        '<text x="560" y="76" text-anchor="middle" fill="#555">header seen from above, pin 1 (square) '
        'at the top left; odd pins on the left, even on the right</text>',
        f'<rect x="{CENTRE - 40}" y="{TOP - 16}" width="80" height="{20 * ROW + 8}" rx="6" fill="#1f3d2b"/>',
    ]
    for row in range(20):
        y = TOP + row * ROW
        for column, physical in ((0, 2 * row + 1), (1, 2 * row + 2)):
            x = CENTRE - 16 if column == 0 else CENTRE + 16
            label, colour, note = labels[physical]
            if physical == 1:
                out.append(f'<rect x="{x - PIN_R}" y="{y - PIN_R}" width="{2 * PIN_R}" height="{2 * PIN_R}" '
                           f'fill="{colour}" stroke="#fff"/>')
            else:
                out.append(f'<circle cx="{x}" cy="{y}" r="{PIN_R}" fill="{colour}" stroke="#fff"/>')
            out.append(f'<text x="{x}" y="{y + 4}" text-anchor="middle" font-size="8" fill="#fff">{physical}</text>')
            text = escape(label) + (f' <tspan fill="#777">({escape(note)})</tspan>' if note else "")
            weight = ' font-weight="bold"' if colour not in ("#9a9a9a", "#a8a8a8") else ""
            if column == 0:
                out.append(f'<line x1="{x - PIN_R}" y1="{y}" x2="{x - 60}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
                out.append(f'<text x="{x - 66}" y="{y + 4}" text-anchor="end" fill="{colour}"{weight}>{text}</text>')
            else:
                out.append(f'<line x1="{x + PIN_R}" y1="{y}" x2="{x + 60}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
                out.append(f'<text x="{x + 66}" y="{y + 4}" fill="{colour}"{weight}>{text}</text>')
    y = TOP + 20 * ROW + 30
    notes = [
        "Parts (see hardware/BOM.md, hardware/README.md):",
        f"Status light: RGB LED, common {'anode to 3V3 (pin 1)' if pins.status_common_anode else 'cathode to GND (pin 34)'}; "
        "each colour leg through 220 ohm to its GPIO.",
    ]
    bar = pins.roll_bar
    if bar.driver == "74hc595":
        notes.append(f"Bar graph: {bar.length} segments on two chained 74HC595 (3V3 on VCC pin 16 and SRCLR pin 10, "
                     "GND on pin 8 and OE pin 13; first QH' pin 9 to second SER pin 14);")
        notes.append(f"GPIO{bar.data} to SER (pin 14), GPIO{bar.clock} to both SRCLK (pin 11), GPIO{bar.latch} to both "
                     "RCLK (pin 12); each output through 220 ohm to a segment anode, cathodes to GND.")
    else:
        notes.append(f"Bar graph: {bar.length} segments straight on GPIOs, each through 220 ohm, cathodes to GND.")
    notes += [
        f"Buzzer: GPIO{pins.buzzer} through 1 kohm to an NPN (2N2222/BC337) base; emitter GND; buzzer + to 5V "
        "(pin 2), - to the collector; a 1N4148 across the buzzer.",
        f"Buttons: Score GPIO{pins.score}, Undo GPIO{pins.undo}, Next GPIO{pins.next}: each between its GPIO and GND "
        "(internal pull-ups).",
        f"Encoder (KY-040): CLK GPIO{pins.knob_a}, DT GPIO{pins.knob_b}, SW GPIO{pins.knob_push}, + to 3V3 (never 5V), "
        "GND to GND.",
        "E-ink HAT: sits on the header (use a stacking header or a GPIO breakout to reach the pins above).",
    ]
    for number, line in enumerate(notes):
        weight = ' font-weight="bold"' if number == 0 else ""
        out.append(f'<text x="40" y="{y + number * 20}"{weight}>{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Draw the GPIO wiring diagram from the pin map.")
    parser.add_argument("--pins", default=str(ROOT / "hardware" / "pins.toml"), help="pin map (default hardware/pins.toml)")
    parser.add_argument("--out", default=str(SVG), help="SVG to write (default hardware/wiring.svg)")
    parser.add_argument("--check", action="store_true", help="only check that --out is up to date")
    args = parser.parse_args(argv)
    try:
        pins = load_pins(args.pins)
    except ConfigError as exc:
        print(f"make_wiring: {exc}", file=sys.stderr)
        return 1
    pins_path = Path(args.pins).resolve()
    source = str(pins_path.relative_to(ROOT)) if pins_path.is_relative_to(ROOT) else pins_path.name
    svg = render(pins, source)
    out = Path(args.out)
    if args.check:
        if not out.exists() or out.read_text(encoding="utf-8") != svg:
            print(f"{out} is stale: run python3 hardware/make_wiring.py", file=sys.stderr)
            return 1
        return 0
    out.write_text(svg, encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
