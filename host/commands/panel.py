"""Try the Pico table panel on its own: light it up, draw a test screen, show its buttons.

Connects to the panel (flashed from firmware/README.md), prints what firmware it runs,
steps the NeoPixels through every status colour with a growing bar, sends a test screen
to its e-ink, and prints each button press and knob click as it arrives. Stops after
--seconds or on Ctrl-C. Exit 1 if no panel answers.

Examples:
  dicewatch panel                          # finds the Pico by its USB id (2E8A:0005)
  dicewatch panel --panel serial:/dev/ttyACM1 --seconds 60
"""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

from host.cli import UsageError
from host.presenters import DieView, Screen, Status

NAME = "panel"
HELP = "try the Pico table panel: lights, test screen, buttons"
MAX_SECONDS = 3600.0   # an hour: a panel is tried, not watched all day

LIGHTS = ("waiting", "moving", "read-ok", "attention", "fault")
TEST_SCREEN = Screen("roll", title="dicewatch panel test", total="all good",
                     dice=(DieView("BELL", kept=True, locked=True), DieView("GIFT", flagged=True),
                           DieView("MILK"), DieView("6")),
                     lines=("Press Score, Undo, Next;", "turn and push the knob."))


def add_arguments(parser) -> None:
    parser.add_argument("--panel", default="auto", metavar="PORT",
                        help="auto (default: USB id 2E8A:0005), usb:VID:PID, serial:/dev/ttyACM0 or a port")
    parser.add_argument("--seconds", type=float, default=30.0,
                        help=f"how long to run (default 30, at most {MAX_SECONDS:g})")


def exercise(panel, *, seconds: float, clock: Callable[[], float] = time.monotonic,
             sleep: Callable[[float], None] = time.sleep, out: TextIO = sys.stdout) -> int:
    """Drive ``panel`` (a host.panel.SerialPanel) for ``seconds``; 0 if it answered, else 1."""
    start = clock()
    step, shown = -1, False
    while clock() - start < seconds:
        panel.tick()
        if panel.panel_info and not shown:
            info = panel.panel_info
            print(f"panel on {panel.port_name}: firmware {info.get('firmware')}, protocol {info.get('protocol')}, "
                  f"{info.get('pixels')} pixels, e-ink {'yes' if info.get('screen') else 'no'}", file=out, flush=True)
            panel.show(TEST_SCREEN)
            shown = True
        if shown:
            wanted = int((clock() - start) // 2) % len(LIGHTS)
            if wanted != step:
                step = wanted
                panel.status(Status(light=LIGHTS[step], bar=step + 1, sound="scored" if step == 2 else None))
                print(f"lights: {LIGHTS[step]}, bar {step + 1}", file=out, flush=True)
        sleep(0.02)
    panel.status(Status(light="off", bar=0))
    panel.tick()
    panel.close()
    if not shown:
        print(f"dicewatch panel: no panel answered at {panel.spec.describe()} in {seconds:g} s; is it plugged in "
              "and running the dicewatch firmware (firmware/README.md)?", file=sys.stderr)
        return 1
    for reason in panel.errors_from_panel:
        print(f"panel refused a line: {reason}", file=out)
    return 0


def run(args) -> int:
    import logging

    from host.panel import SerialPanel, parse_panel_spec

    logging.basicConfig(level=logging.INFO, format="dicewatch panel: %(message)s")

    if not 0 < args.seconds <= MAX_SECONDS:   # (not nan or inf either)
        raise UsageError(f"--seconds {args.seconds:g}: expected a number of seconds above 0, up to {MAX_SECONDS:g} "
                         "(Ctrl-C stops it sooner)")
    try:
        spec = parse_panel_spec(args.panel)
    except ValueError as exc:
        raise UsageError(str(exc)) from None

    def pressed(command: str) -> None:
        print(f"panel: {command}", flush=True)

    return exercise(SerialPanel(spec, on_command=pressed), seconds=args.seconds)
