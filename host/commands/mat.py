"""Write the printable tray mat: four ArUco markers in the corners (the camera finds the tray
by them), a ROLL area, a dashed KEEP area for dice set aside between rolls, a 50 mm scale bar
and a line of instructions.

Print it at 100% ("actual size", never "fit to page") and check that the scale bar measures
50 mm. Each paper size has its own marker ids, so 'dicewatch calibrate' knows which mat it
sees.

examples:
  dicewatch mat --out mat.pdf
  dicewatch mat --out mat-a3.pdf --size A3
  dicewatch mat --out mat.png --size letter --dpi 150
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
from PIL import Image

from host.cli import UsageError
from vision import mat

NAME = "mat"
HELP = "write the printable tray mat (PDF or PNG) with its four ArUco markers"
FORMATS = {".pdf": "PDF", ".png": "PNG"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, metavar="FILE", help="where to write it (.pdf or .png)")
    parser.add_argument("--size", default="A4", choices=list(mat.PAPER_MM), help="paper size (default A4, landscape)")
    parser.add_argument("--dpi", type=int, default=300, help="print resolution (default 300; 100-600)")


def run(args: argparse.Namespace) -> int:
    suffix = args.out.suffix.lower()
    if suffix not in FORMATS:
        raise UsageError(f"--out {args.out}: expected a .pdf or .png file name")
    if not 100 <= args.dpi <= 600:
        raise UsageError(f"--dpi {args.dpi}: expected 100 to 600")
    if not args.out.parent.is_dir():
        print(f"{args.out}: the folder {args.out.parent} does not exist", file=sys.stderr)
        return 1
    layout = mat.layout(args.size)
    page = mat.render(layout, px_per_mm=args.dpi / 25.4)
    image = Image.fromarray(cv2.cvtColor(page, cv2.COLOR_BGR2RGB))
    try:
        image.save(args.out, FORMATS[suffix], resolution=float(args.dpi), dpi=(args.dpi, args.dpi))
    except OSError as exc:
        print(f"{args.out}: cannot write: {exc}", file=sys.stderr)
        return 1
    first = layout.markers[0][0]
    print(f"wrote {args.out}: {layout.paper} landscape, {layout.width:g} x {layout.height:g} mm, markers "
          f"{first}-{first + 3}; print at 100% (no 'fit to page') and check the scale bar measures 50 mm")
    return 0
