"""Write hardware/camera-geometry.md from host/geometry.py (run after changing either).

    python3 hardware/make_geometry_sheet.py          # rewrite the sheet
    python3 hardware/make_geometry_sheet.py --check  # exit 1 if the committed sheet is stale
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from host.geometry import sheet_markdown  # noqa: E402

SHEET = ROOT / "hardware" / "camera-geometry.md"


def main(argv: list[str]) -> int:
    text = sheet_markdown()
    if "--check" in argv:
        current = SHEET.read_text(encoding="utf-8") if SHEET.exists() else ""
        if current != text:
            print(f"{SHEET} is stale: run python3 hardware/make_geometry_sheet.py", file=sys.stderr)
            return 1
        return 0
    SHEET.write_text(text, encoding="utf-8")
    print(f"wrote {SHEET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
