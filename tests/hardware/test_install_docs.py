"""Every guide that sets a Pi up for the Inky e-ink HAT gives the same steps: inky 2.x drives the
SPI chip select itself and refuses to start ("Woah there, some pins we need are in use! Chip
Select: (line 8, GPIO8) currently claimed by spi0 CS0") unless dtoverlay=spi0-0cs frees it."""
from __future__ import annotations

from host.eink import InkyPanel
from host.paths import PROJECT_ROOT


def section(text: str, heading: str) -> str:
    """From ``heading`` to the next heading of the same or a higher level (outside code blocks)."""
    lines = text[text.index(heading):].splitlines()
    level, fenced = len(heading.split(" ", 1)[0]), False
    for number, line in enumerate(lines[1:], start=1):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#") and len(line.split(" ", 1)[0].strip("#")) == 0 \
                and len(line.split(" ", 1)[0]) <= level:
            return "\n".join(lines[:number])
    return "\n".join(lines)


def test_every_inky_setup_guide_frees_the_spi_chip_select():
    guides = {
        "README.md, Install on the Pi": section((PROJECT_ROOT / "README.md").read_text(encoding="utf-8"),
                                                "### 4. Install on the Pi"),
        "hardware/README.md, Assemble the Pi box": section(
            (PROJECT_ROOT / "hardware" / "README.md").read_text(encoding="utf-8"), "## 2. Assemble the Pi box"),
        "host.eink.InkyPanel docstring": InkyPanel.__doc__,
    }
    for where, text in guides.items():
        assert "SPI" in text, where
        assert "dtoverlay=spi0-0cs" in text, f"{where} enables SPI for the Inky but not dtoverlay=spi0-0cs"
