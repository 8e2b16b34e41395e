"""How high to mount the camera over your dice tray, and how big a die will look.

Give the tray's inside size; the long side runs across the picture. For each camera
(or the one you name) it prints the lens height above the tray for the tray to fill the
frame with a margin, the field of view and the ground it covers, and how many pixels
a die spans at 1280x720 (what the reader uses) and at the full sensor resolution.
Figures come from the cameras' published sensor and lens data; see
hardware/camera-geometry.md for common trays.

Examples:
  dicewatch geometry --tray 300x200mm
  dicewatch geometry --tray 40x30cm --camera module3-wide --margin 5
"""
from __future__ import annotations

from host.cli import UsageError
from host.geometry import CAMERAS, describe, parse_size, parse_tray, plan

NAME = "geometry"
HELP = "camera mounting height, field of view and pixels per die for a tray"


def add_arguments(parser) -> None:
    parser.add_argument("--tray", required=True, metavar="WxD",
                        help="inside size of the tray, e.g. 300x200mm, 30x20cm, 12x8in")
    parser.add_argument("--camera", choices=sorted(CAMERAS), action="append",
                        help="module3 | module3-wide | hq-6mm (repeatable; default: all three)")
    parser.add_argument("--margin", type=float, default=10.0, metavar="PERCENT",
                        help="free space around the tray on each side, in %% of its size (default 10)")
    parser.add_argument("--die", type=float, default=16.0, metavar="MM", help="die edge in mm (default 16)")
    parser.add_argument("--resolution", default="1280x720", metavar="WxH",
                        help="frame size the reader uses (default 1280x720)")


def run(args) -> int:
    try:
        tray = parse_tray(args.tray)
        output = parse_size(args.resolution, "--resolution")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not 0 <= args.margin <= 100:
        raise UsageError(f"--margin {args.margin:g}: expected a percentage from 0 to 100")
    if not 3 <= args.die <= 100:
        raise UsageError(f"--die {args.die:g}: expected a die edge from 3 to 100 mm")
    for number, key in enumerate(args.camera or list(CAMERAS)):
        if number:
            print()
        print(describe(plan(tray, key, margin=args.margin / 100, die_mm=args.die, output=output)))
    return 0
