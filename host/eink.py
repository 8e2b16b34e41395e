"""E-ink screens: Pillow images in white, black and red, and the panels that show them.

:func:`render` turns a :class:`host.presenters.Screen` into a palette image ("P" mode,
index 0 white, 1 black, 2 red: the order Pimoroni's ``inky`` uses) for one of the
common panel sizes: 250x122 (Inky pHAT), 400x300 (Inky wHAT), 800x480 (7.5" panels).
Any size from 200x100 up works; the layouts scale with the height.

:class:`EinkScreen` is the presenter. E-ink is slow (a red/black/white panel takes
~15 s for a full refresh) and wears with use, so it coalesces: only the latest screen
waits, a full refresh happens at most every ``min_interval`` seconds, and a panel
that can do a partial refresh gets only the changed rectangle in between.

Backends (anything with ``size``, ``partial``, ``update(image, box)`` and ``sleep()``):

* :class:`PngPanel`: numbered PNG files in a folder (anywhere, the demo, tests);
* :class:`InkyPanel`: a Pimoroni Inky HAT (``inky`` imported only when it is made).
"""
from __future__ import annotations

import logging
import math
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Callable

from PIL import Image, ImageChops, ImageDraw, ImageFont

from host.presenters import ERROR, FAULT, MENU, PROMPT, ROLL, SCOREBOARD, SLEEP, Presenter, Screen

log = logging.getLogger(__name__)

WHITE, BLACK, RED = 0, 1, 2
PALETTE = [255, 255, 255, 0, 0, 0, 200, 0, 0]
PANEL_SIZES = {"phat": (250, 122), "what": (400, 300), "7in5": (800, 480)}
SMALLEST_TEXT = 8  # px: the smallest text drawn (the footers' size on the 2.13" panel), still legible

_FONT_FILES = ("DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.ImageFont:
    """A bold sans font at ``size`` px: DejaVu when installed, else Pillow's built-in font."""
    for name in _FONT_FILES:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def new_image(size: tuple[int, int]) -> Image.Image:
    image = Image.new("P", size, WHITE)
    image.putpalette(PALETTE + [0] * (768 - len(PALETTE)))
    return image


def text_width(draw: ImageDraw.ImageDraw, text: str, size: int) -> int:
    return int(draw.textlength(text, font=font(size)))


def fit_text(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> str:
    """``text`` shortened with an ellipsis to fit ``width`` pixels."""
    if text_width(draw, text, size) <= width:
        return text
    while text and text_width(draw, text + "…", size) > width:
        text = text[:-1]
    return text + "…"


def fitting_size(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, smallest: int) -> int:
    """The biggest font size from ``size`` down to ``smallest`` at which ``text`` fits
    ``width`` pixels whole; ``size`` itself when it fits at none (it is then shortened at
    the usual size, which shows more of it than tiny type would)."""
    for trial in range(size, smallest - 1, -1):
        if text_width(draw, text, trial) <= width:
            return trial
    return size


def wrap(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> list[str]:
    """Greedy word wrap of ``text`` to ``width`` pixels."""
    lines, current = [], ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if current and text_width(draw, trial, size) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    return lines or [""]


def packed_lines(draw: ImageDraw.ImageDraw, parts: list[str], size: int, width: int, room: int) -> list[str]:
    """``parts`` (a score's breakdown, one item each) on at most ``room`` lines of ``width``
    pixels: each part on its own line when there is room and it fits; else as many parts to
    a line, joined with " · ", as fit, a part too long for any line wrapped over two; what
    still does not fit goes on the last line (shortened when drawn). On the smallest panel a
    breakdown of three short items then reads whole."""
    if len(parts) <= room and all(text_width(draw, part, size) <= width for part in parts):
        return list(parts)
    lines: list[str] = []
    for part in parts:
        joined = f"{lines[-1]} · {part}" if lines else part
        if lines and text_width(draw, joined, size) <= width:
            lines[-1] = joined
        else:
            lines += wrap(draw, part, size, width)
    if len(lines) > room:
        lines = lines[:room - 1] + [" · ".join(lines[room - 1:])]
    return lines


# -- face icons ----------------------------------------------------------------------------------

@lru_cache(maxsize=256)
def icon_mask(face: str, size: int) -> Image.Image | None:
    """The face's picture from vision's icon set (the art the synthetic dice carry) as a
    1-bit mask of ``size`` px, or None when vision has no picture for it."""
    try:
        import numpy as np
        from vision.icons import draw_icon
        canvas = np.full((size * 2, size * 2, 3), 255, np.uint8)  # drawn at 2x, then reduced: smoother edges
        draw_icon(canvas, face, (0, 0, 0), (255, 255, 255))
    except (ImportError, KeyError, ValueError):
        return None
    grey = Image.fromarray(canvas[:, :, 0]).resize((size, size), Image.Resampling.BOX)
    return grey.point(lambda v: 255 if v < 140 else 0, mode="1")


def draw_face(draw: ImageDraw.ImageDraw, face: str, box: tuple[int, int, int, int], colour: int = BLACK,
              red: bool = False) -> None:
    """Draw a die face icon (pips 1-6 or a custom face) inside ``box`` (x0, y0, x1, y1);
    ``red``: the game's special face (a BELL, a SNOWFLAKE: the game's table says which)."""
    x0, y0, x1, y1 = box
    side = int(min(x1 - x0, y1 - y0))
    if face not in {"1", "2", "3", "4", "5", "6"} and side >= 8:
        mask = icon_mask(face, side)
        if mask is not None:
            draw.bitmap((int(x0), int(y0)), mask, fill=RED if red else colour)
            return
    s = x1 - x0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    lw = max(1, round(s / 14))
    if face in {"1", "2", "3", "4", "5", "6"}:
        spots = {"1": [(0, 0)], "2": [(-1, -1), (1, 1)], "3": [(-1, -1), (0, 0), (1, 1)],
                 "4": [(-1, -1), (1, -1), (-1, 1), (1, 1)], "5": [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
                 "6": [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[face]
        r = s * 0.09
        for dx, dy in spots:
            px, py = cx + dx * s * 0.27, cy + dy * s * 0.27
            draw.ellipse((px - r, py - r, px + r, py + r), fill=RED if face == "1" else colour)
        return
    if face == "MILK":  # a bottle
        draw.rectangle((cx - s * 0.1, y0 + s * 0.12, cx + s * 0.1, y0 + s * 0.3), outline=colour, width=lw)
        draw.rounded_rectangle((cx - s * 0.22, y0 + s * 0.3, cx + s * 0.22, y1 - s * 0.1), radius=s * 0.08,
                               outline=colour, width=lw)
        draw.rectangle((cx - s * 0.22 + lw, cy, cx + s * 0.22 - lw, y1 - s * 0.1 - lw), fill=colour)
    elif face == "COOKIE":  # a round cookie with chips
        r = s * 0.34
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=colour, width=lw)
        for ax, ay in ((-0.12, -0.12), (0.14, -0.05), (-0.05, 0.15), (0.1, 0.16), (-0.18, 0.06)):
            c = s * 0.045
            draw.ellipse((cx + ax * s - c, cy + ay * s - c, cx + ax * s + c, cy + ay * s + c), fill=colour)
    elif face == "LIST":  # a sheet with lines and a tick
        draw.rectangle((x0 + s * 0.22, y0 + s * 0.12, x1 - s * 0.22, y1 - s * 0.12), outline=colour, width=lw)
        for k in range(4):
            ly = y0 + s * (0.28 + 0.14 * k)
            draw.line((x0 + s * 0.32, ly, x1 - s * 0.32, ly), fill=colour, width=lw)
    elif face == "STOCKING":  # leg and foot
        pts = [(cx - s * 0.08, y0 + s * 0.15), (cx + s * 0.16, y0 + s * 0.15), (cx + s * 0.16, cy + s * 0.12),
               (cx - s * 0.02, y1 - s * 0.14), (cx - s * 0.3, y1 - s * 0.14), (cx - s * 0.3, cy + s * 0.12),
               (cx - s * 0.08, cy + s * 0.02)]
        draw.polygon(pts, outline=colour, fill=None, width=lw)
        draw.rectangle((cx - s * 0.12, y0 + s * 0.1, cx + s * 0.2, y0 + s * 0.22), fill=RED)
    elif face == "GIFT":  # a box with a ribbon
        draw.rectangle((cx - s * 0.3, cy - s * 0.14, cx + s * 0.3, y1 - s * 0.14), outline=colour, width=lw)
        draw.rectangle((cx - s * 0.05, cy - s * 0.14, cx + s * 0.05, y1 - s * 0.14), fill=RED)
        draw.ellipse((cx - s * 0.22, cy - s * 0.34, cx, cy - s * 0.14), outline=RED, width=lw)
        draw.ellipse((cx, cy - s * 0.34, cx + s * 0.22, cy - s * 0.14), outline=RED, width=lw)
    elif face == "BELL":  # a red bell
        draw.chord((cx - s * 0.26, y0 + s * 0.14, cx + s * 0.26, y1 - s * 0.1), 180, 360, fill=RED)
        draw.rectangle((cx - s * 0.26, cy - s * 0.02, cx + s * 0.26, cy + s * 0.16), fill=RED)
        draw.polygon([(cx - s * 0.36, cy + s * 0.24), (cx + s * 0.36, cy + s * 0.24), (cx + s * 0.26, cy + s * 0.14),
                      (cx - s * 0.26, cy + s * 0.14)], fill=RED)
        r = s * 0.07
        draw.ellipse((cx - r, cy + s * 0.24, cx + r, cy + s * 0.24 + 2 * r), fill=colour)
    else:  # an unknown / taught face: its name
        size = max(8, int(s * 0.28))
        label = fit_text(draw, face, size, int(s * 0.9))
        draw.text((cx, cy), label, font=font(size), fill=colour, anchor="mm")


# -- layouts -------------------------------------------------------------------------------------

def _title(draw: ImageDraw.ImageDraw, text: str, w: int, u: float, colour: int = BLACK) -> int:
    """A black (or red) title bar with white text; returns the y below it."""
    bar = int(u * 20)
    draw.rectangle((0, 0, w, bar), fill=colour)
    size = fitting_size(draw, text, int(u * 14), w - int(u * 10), int(u * 10))
    draw.text((int(u * 5), bar // 2), fit_text(draw, text, size, w - int(u * 10)), font=font(size),
              fill=WHITE, anchor="lm")
    return bar


def _die_gap(u: float) -> int:
    return max(2, int(u * 3))  # between two dice of a row, and at its ends


def _die_side(count: int, w: int, u: float, most: int | None = None) -> int:
    """How wide each die of a row of ``count`` is drawn: up to 34 units (or ``most`` px)."""
    count = max(1, count)
    return min(int(u * 34) if most is None else most, (w - _die_gap(u) * (count + 1)) // count)


def _dice_row_height(side: int, u: float) -> int:
    return side + int(u * 12)  # the die and its number under it


def _dice_row(draw, screen: Screen, top: int, w: int, u: float, most: int | None = None) -> int:
    count, gap = max(1, len(screen.dice)), _die_gap(u)
    s = _die_side(count, w, u, most)
    x = (w - (count * s + (count - 1) * gap)) // 2
    for number, die in enumerate(screen.dice, start=1):
        box = (x, top, x + s, top + s)
        outline = RED if die.flagged else BLACK
        width = max(1, int(u * (2.5 if die.flagged else 1.2)))
        draw.rounded_rectangle(box, radius=max(2, s // 7), outline=outline, width=width)
        draw_face(draw, die.face, (x + width, top + width, x + s - width, top + s - width), red=die.red or die.locked)
        if die.flagged:
            size = int(u * 9)
            draw.text((x + s - width - 1, top + width), "?", font=font(size), fill=RED, anchor="rt")
        label_y = top + s + int(u * 1.5)
        if die.kept or die.locked:
            draw.rectangle((x, label_y, x + s, label_y + max(2, int(u * 2.5))), fill=RED if die.locked else BLACK)
        size = max(7, int(u * 7))
        draw.text((x + s / 2, label_y + int(u * 3.5)), str(number), font=font(size), fill=BLACK, anchor="mt")
        x += s + gap
    return top + _dice_row_height(s, u)


def _dice_and_text(draw, screen: Screen, top: int, bottom: int, w: int, u: float, width: int,
                   arrange: Callable[[int, int], list[str]]) -> tuple[int, int, list[str]]:
    """Sizes for a row of dice with text under it between ``top`` and ``bottom``, so that the
    text the player needs is all there: its font shrinks from 10 units down to the smallest
    legible size, and at each size the dice give up to a third of their width first, until
    ``arrange(size, room)`` (the lines at that font size for ``room`` lines) fits. Returns
    (die side, font size, lines); when nothing fits, the smallest of each (cut when drawn)."""
    full = _die_side(len(screen.dice), w, u)
    sides = list(range(full, min(full, int(u * 24)) - 1, -2)) if screen.dice else [0]

    def room(side: int, size: int) -> int:
        free = bottom - top - (_dice_row_height(side, u) if screen.dice else 0)
        return max(1, (free - size) // int(size * 1.25) + 1)

    smallest = max(SMALLEST_TEXT, int(u * 8))
    for size in range(int(u * 10), smallest - 1, -1):
        for side in sides:
            lines_fit = room(side, size)
            lines = arrange(size, lines_fit)
            if len(lines) <= lines_fit and all(text_width(draw, line, size) <= width for line in lines):
                return side, size, lines
    return sides[-1], smallest, arrange(smallest, room(sides[-1], smallest))


def render(screen: Screen, size: tuple[int, int] = (250, 122)) -> Image.Image:
    """The screen as a white/black/red palette image of ``size`` (width, height)."""
    w, h = size
    if w < 200 or h < 100:
        raise ValueError(f"panel size {w}x{h} is too small; expected at least 200x100")
    image = new_image(size)
    draw = ImageDraw.Draw(image)
    u = min(h / 122, w / 250)  # layout unit: 1 px on the smallest panel
    if screen.kind == ROLL:
        top = _title(draw, screen.title, w, u) + int(u * 4)
        # bottom band: the total (big, red, right) and the footer (small, left)
        total_size, footer_size = int(u * 16), max(SMALLEST_TEXT, int(u * 8))
        band = int(total_size * 1.3) + int(u * 3) if screen.total else int(footer_size * 1.4) + int(u * 3)
        total_w = text_width(draw, screen.total, total_size) + int(u * 10) if screen.total else 0
        if screen.total:
            draw.text((w - int(u * 6), h - int(u * 3)), screen.total, font=font(total_size), fill=RED, anchor="rd")
        if screen.footer:
            draw.text((int(u * 6), h - int(u * 3)), fit_text(draw, screen.footer, footer_size, w - total_w - int(u * 8)),
                      font=font(footer_size), fill=BLACK, anchor="ld")
        width = w - int(u * 12)
        side, line_size, lines = _dice_and_text(
            draw, screen, top, h - band, w, u, width,
            lambda size, room: packed_lines(draw, list(screen.lines), size, width, room))
        y = _dice_row(draw, screen, top, w, u, most=side) if screen.dice else top
        for line in lines:
            draw.text((int(u * 6), y), fit_text(draw, line, line_size, width), font=font(line_size), fill=BLACK)
            y += int(line_size * 1.25)
    elif screen.kind == SCOREBOARD:
        y = _title(draw, screen.title, w, u) + int(u * 3)
        rows = list(screen.table)
        line_size = int(u * (11 if len(rows) <= 6 else 9))
        step = int(line_size * 1.3)
        cols = max((len(r) for r in rows), default=0)
        widths = [max(text_width(draw, str(r[c]), line_size) if c < len(r) else 0 for r in rows) for c in range(cols)]
        for number, row in enumerate(rows):
            if y + step > h - (int(u * 11) if screen.footer else 0):
                break
            colour = RED if screen.highlight == number else BLACK
            x = int(u * 6)
            for c, cell in enumerate(row):
                draw.text((x, y), str(cell), font=font(line_size), fill=colour)
                x += widths[c] + int(u * 10)
            if number == 0:
                draw.line((int(u * 4), y + step - 2, w - int(u * 4), y + step - 2), fill=BLACK, width=max(1, int(u)))
            y += step
        if screen.footer:
            draw.text((int(u * 6), h - int(u * 2)), fit_text(draw, screen.footer, int(u * 9), w - int(u * 12)),
                      font=font(int(u * 9)), fill=BLACK, anchor="ld")
    elif screen.kind in (PROMPT, FAULT, ERROR, SLEEP):
        colour = BLACK if screen.kind in (PROMPT, SLEEP) else RED
        if screen.kind in (ERROR, FAULT):
            draw.rectangle((0, 0, w - 1, h - 1), outline=RED, width=max(2, int(u * 3)))
        full_w = w
        if screen.qr and screen.kind == PROMPT:   # the code on the right, the words in what is left
            w = w - _qr_code(draw, screen.qr, full_w, h, u)
        width = w - int(u * 14)
        big = int(u * (22 if screen.kind == PROMPT else 17))
        title_lines = wrap(draw, screen.title, big, width)
        while len(title_lines) > 2 and big > int(u * 14):  # a long title shrinks a little to fit two lines
            big -= 1
            title_lines = wrap(draw, screen.title, big, width)
        if len(title_lines) > 2:
            title_lines = [title_lines[0], fit_text(draw, " ".join(title_lines[1:]), big, width)]
        y = int(u * 10)
        for line in title_lines:
            draw.text((w // 2, y), line, font=font(big), fill=colour, anchor="mt")
            y += int(big * 1.2)
        y += int(u * 4)
        footer_size = int(u * 8)
        bottom = h - int(u * 3) - (int(footer_size * 1.25) + int(u * 2) if screen.footer else 0)
        side, small, body_lines = _dice_and_text(
            draw, screen, y, bottom, w, u, width,
            lambda size, room: [part for line in screen.lines for part in wrap(draw, line, size, width)])
        if screen.dice:
            y = _dice_row(draw, screen, y, w, u, most=side)
        for line in body_lines:
            if y + small > bottom:
                break
            draw.text((w // 2, y), line, font=font(small), fill=BLACK, anchor="mt")
            y += int(small * 1.25)
        if screen.footer:
            draw.text((w // 2, h - int(u * 4)), fit_text(draw, screen.footer, footer_size, w - int(u * 12)),
                      font=font(footer_size), fill=BLACK, anchor="md")
        w = full_w
    elif screen.kind == MENU:
        y = _title(draw, screen.title, w, u, colour=BLACK) + int(u * 3)
        _menu_lines(draw, list(screen.lines), screen.highlight, y, w, h, u, int(u * 11))
    return image


def _qr_code(draw: ImageDraw.ImageDraw, text: str, w: int, h: int, u: float) -> int:
    """Draw ``text`` as a QR code at the right edge, as big as the panel's height allows in
    whole pixels per module (a phone's camera needs sharp modules); returns the width used."""
    import segno   # (only for the screens that carry a code)
    rows = [list(row) for row in segno.make(text, error="m").matrix_iter(scale=1, border=2)]
    margin = int(u * 3)
    scale = max(1, min(h - 2 * margin, w // 2) // len(rows))
    side = scale * len(rows)
    left, top = w - side - margin, (h - side) // 2
    draw.rectangle((left, top, left + side - 1, top + side - 1), fill=WHITE)
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                draw.rectangle((left + x * scale, top + y * scale,
                                left + (x + 1) * scale - 1, top + (y + 1) * scale - 1), fill=BLACK)
    return side + 2 * margin


CHOSEN_LINES = 2  # lines the highlighted menu item may take, so the player reads what they choose


def _menu_lines(draw, lines: list[str], highlight: int | None, top: int, w: int, h: int, u: float,
                size: int) -> None:
    """A menu's items from ``top`` down, scrolled so the ``highlight`` one shows. The items
    are cut to the panel's width, but the highlighted one wraps onto up to CHOSEN_LINES lines
    (on the smallest panel "Milk Mustache: turn a COOKIE into a MILK or ..." reads whole)."""
    step, width = int(size * 1.25), w - int(u * 12)
    room = max(1, (h - top) // step)
    chosen: list[str] = []
    if highlight is not None and 0 <= highlight < len(lines):
        chosen = wrap(draw, "> " + lines[highlight], size, width)
        if len(chosen) > CHOSEN_LINES:
            chosen = chosen[:CHOSEN_LINES - 1] + [fit_text(draw, " ".join(chosen[CHOSEN_LINES - 1:]), size, width)]
        chosen = chosen[:room]
    items = max(1, room - max(0, len(chosen) - 1))  # how many items fit beside a tall chosen one
    first = highlight - items + 1 if highlight is not None and highlight >= items else 0
    y = top
    for number in range(first, min(len(lines), first + items)):
        if number == highlight and chosen:
            rows, row_size = chosen, size
        else:  # one line, a little smaller where that shows it whole
            row_size = fitting_size(draw, lines[number], size, width, int(u * 9))
            rows = [fit_text(draw, lines[number], row_size, width)]
        if y + step * len(rows) > h:
            break
        if number == highlight:
            draw.rectangle((int(u * 2), y - 1, w - int(u * 2), y + step * len(rows) - 2), fill=RED)
        for row in rows:
            draw.text((int(u * 6), y), row, font=font(row_size), fill=WHITE if number == highlight else BLACK)
            y += step


# -- panels -------------------------------------------------------------------------------------

class PngPanel:
    """A stand-in e-ink panel that writes each update as a numbered PNG in ``folder``.

    ``partial=True`` makes it behave like a panel with partial refresh (the file name then
    says ``partial``); the image written is always the whole screen.
    """

    def __init__(self, folder: Path | str, size: tuple[int, int] = (250, 122), *, partial: bool = False,
                 prefix: str = "screen"):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.size, self.partial, self.prefix = size, partial, prefix
        self.written: list[Path] = []
        self.asleep = False

    def update(self, image: Image.Image, box: tuple[int, int, int, int] | None = None, label: str = "") -> None:
        kind = "partial" if box is not None else "full"
        name = f"{self.prefix}-{len(self.written) + 1:04d}-{label or 'screen'}-{kind}.png"
        path = self.folder / name
        image.save(path, optimize=False, compress_level=1)
        self.written.append(path)
        self.asleep = False

    def sleep(self) -> None:
        self.asleep = True


class InkyPanel:
    """A Pimoroni Inky pHAT / wHAT / Impression on the SPI header (Raspberry Pi only).

    Fit the HAT on the GPIO header, enable SPI and I2C (``sudo raspi-config nonint do_spi 0``,
    ``do_i2c 0``) and add ``dtoverlay=spi0-0cs`` to ``/boot/firmware/config.txt`` (inky drives
    the chip select itself), then reboot.
    The HAT identifies itself through its EEPROM; ``inky`` (``pip install inky``, the
    ``[pi]`` extra) is imported only here. Inky's panels have no partial refresh, so every
    update is a full one (~15 s on red pHAT/wHAT panels, ~30 s on an Impression); the
    screens are drawn in white, black and red whatever the panel's palette.

    :param colour: ``"red"`` (default) for red/black/white panels.
    """

    partial = False

    def __init__(self, colour: str = "red"):
        try:
            from inky.auto import auto  # Pi only
        except ImportError as exc:
            raise RuntimeError(f"the Inky e-ink library is not installed ({exc}); on the Pi run "
                               "pip install 'dicewatch[pi]' or choose display = \"png\" in the config") from None
        try:
            self.inky = auto(ask_user=False, verbose=False)
        except Exception as exc:  # inky raises bare RuntimeError when no HAT EEPROM is found
            raise RuntimeError(f"no Inky e-ink HAT found ({exc}); is it seated and SPI enabled?") from None
        try:
            self.inky.set_border(self.inky.WHITE)
        except Exception:  # noqa: BLE001 - some models have no border colour
            pass
        self.size = (self.inky.width, self.inky.height)

    def update(self, image: Image.Image, box=None, label: str = "") -> None:
        colour = getattr(self.inky, "colour", "")
        try:
            if colour in ("red", "yellow"):      # pHAT / wHAT: palette indexes white 0, black 1, red 2
                self.inky.set_image(image)
            elif colour == "black":              # black/white panels: red becomes black
                self.inky.set_image(image.point(lambda i: BLACK if i == RED else i))
            else:                                # Impression (7 colours): inky maps RGB to its palette
                self.inky.set_image(image.convert("RGB"))
            self.inky.show()
        except SystemExit as exc:
            # inky 2.x checks its pins on the first show() and, when one is taken (SPI's CE0 without
            # the overlay, or one of ours), raises SystemExit: silent in a worker thread, the end
            # of the program at shutdown. Make it an ordinary, explained failure.
            raise RuntimeError(f"the Inky HAT cannot have its pins ({exc}); add dtoverlay=spi0-0cs to "
                               "/boot/firmware/config.txt and reboot (hardware/README.md, step 2), and check "
                               "`dicewatch pins`") from None

    def sleep(self) -> None:
        # An e-ink panel keeps its picture without power; inky powers the panel down after show().
        pass


class EinkScreen(Presenter):
    """The e-ink presenter: renders screens and feeds a panel without wearing it out.

    Only the newest screen is kept while waiting. A full refresh happens at most every
    ``min_interval`` seconds; on a panel with partial refresh, a change that covers less
    than half the screen goes out at once as a partial update (at most every
    ``min_partial_interval`` seconds).

    >>> screen = EinkScreen(PngPanel("demo-out", (250, 122)), min_interval=5.0)   # doctest: +SKIP
    >>> screen.show(Screen("prompt", title="Roll 1 of 3"))                        # doctest: +SKIP

    :param panel: a backend (:class:`PngPanel`, :class:`InkyPanel` or your own).
    :param min_interval: seconds between full refreshes.
    :param min_partial_interval: seconds between partial refreshes.
    :param clock: time source (the demo passes the synthetic camera's clock).
    :param background: send updates from a worker thread, so that a panel that takes 15-30 s
        to refresh (Inky) never holds up the camera and the buttons; screens that arrive
        meanwhile wait, coalesced, for the refresh to end.
    """

    def __init__(self, panel, *, min_interval: float = 5.0, min_partial_interval: float = 0.5,
                 clock: Callable[[], float] = time.monotonic, background: bool = False):
        self.panel = panel
        self.background = background
        self._worker: threading.Thread | None = None
        self.size = tuple(panel.size)
        self.min_interval, self.min_partial_interval, self.clock = min_interval, min_partial_interval, clock
        self.pending: Screen | None = None  # rendered only when it is about to be shown
        self.current: Image.Image | None = None
        self.last_full = -math.inf
        self.last_partial = -math.inf
        self.full_updates = self.partial_updates = 0
        self.coalesced = 0

    def show(self, screen: Screen) -> None:
        if self.pending is not None:
            self.coalesced += 1
        self.pending = screen
        self.tick(self.clock())

    @property
    def busy(self) -> bool:
        """A background refresh is still running."""
        return self._worker is not None and self._worker.is_alive()

    def tick(self, now: float | None = None) -> None:
        if self.pending is None or self.busy:
            return
        now = self.clock() if now is None else now
        due_full = now - self.last_full >= self.min_interval
        partial = getattr(self.panel, "partial", False) and now - self.last_partial >= self.min_partial_interval
        if not (due_full or partial):
            return  # too soon: the screen waits (and is only drawn when it can go out)
        image, label = render(self.pending, self.size), self.pending.kind
        if self.current is not None:
            box = ImageChops.difference(image.convert("L"), self.current.convert("L")).getbbox()
            if box is None:  # nothing changed
                self.pending = None
                return
            area = (box[2] - box[0]) * (box[3] - box[1])
            if partial and area < 0.5 * self.size[0] * self.size[1]:
                self._push(image, label, box)
                self.last_partial = now
                self.partial_updates += 1
                return
        if due_full:
            self._push(image, label, None)
            self.last_full = now
            self.full_updates += 1

    def _push(self, image: Image.Image, label: str, box, wait: bool = False) -> None:
        self.current, self.pending = image, None
        if self.background and not wait:
            self._worker = threading.Thread(target=self._update, args=(image, box, label), name="eink", daemon=True)
            self._worker.start()
        else:
            self._update(image, box, label)

    def _update(self, image: Image.Image, box, label: str) -> None:
        try:
            self.panel.update(image, box, label)
        except Exception as exc:  # noqa: BLE001 - a display fault must not stop the game
            log.warning("e-ink update failed: %s", exc)

    def flush(self, timeout: float = 60.0) -> None:
        """Show the waiting screen now, whatever the interval (shutdown, end of demo)."""
        if self._worker is not None:
            self._worker.join(timeout)  # let a refresh in progress finish first
        if self.pending is not None:
            image, label = render(self.pending, self.size), self.pending.kind
            if self.current is None or ImageChops.difference(image.convert("L"),
                                                             self.current.convert("L")).getbbox() is not None:
                self._push(image, label, None, wait=True)
                self.full_updates += 1
            self.pending = None

    def close(self) -> None:
        self.flush()
        try:
            self.panel.sleep()
        except Exception as exc:  # noqa: BLE001
            log.warning("e-ink sleep failed: %s", exc)
