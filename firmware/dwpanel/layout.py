# Screen layout for a 2.13" SSD1680-class e-ink panel (250 x 122, black/white/red).
#
# ``layout(screen)`` turns one ``screen`` message from the host into a list of drawing
# operations; ``render(ops, canvas)`` replays them on anything with framebuf's methods
# (fill, text, rect, fill_rect, hline). Layout is pure and testable; the panel's
# framebuf and the SSD1680 driver live in board.py / ssd1680.py.
#
# Logical colours: WHITE, BLACK, RED. Text uses framebuf's built-in 8 x 8 font.

WIDTH = 250
HEIGHT = 122
CHAR = 8
LINE = 11                # text line pitch in pixels
COLUMNS = WIDTH // CHAR  # 31 characters across
WHITE, BLACK, RED = 0, 1, 2
TITLE_HEIGHT = 14
MAX_DICE = 7             # die boxes across (4 characters each)

# Short names of the faces that fit a 4-character die box.
SHORT_FACES = {"STOCKING": "STOK", "COOKIE": "COOK", "SNOWFLAKE": "SNOW"}


def ascii_text(text):
    """Only what the 8 x 8 font can draw (printable ASCII); anything else becomes '?'."""
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(text))


def fit(text, columns):
    """``text`` cut to ``columns`` characters, marking a cut with a final '~'."""
    text = ascii_text(text)
    if columns <= 0:
        return ""
    if len(text) <= columns:
        return text
    return text[:columns - 1] + "~"


def wrap(text, columns):
    """Word-wrap ``text`` into lines of at most ``columns`` characters (long words are cut)."""
    lines, current = [], ""
    for word in ascii_text(text).split():
        while len(word) > columns:
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:columns])
            word = word[columns:]
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= columns:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def short_face(face):
    face = ascii_text(face).upper()
    return SHORT_FACES.get(face, face[:4])


def _title(ops, title, colour=BLACK):
    ops.append(("fill_rect", 0, 0, WIDTH, TITLE_HEIGHT, colour))
    ops.append(("text", fit(title, COLUMNS - 1), 4, 3, WHITE))


def _lines(ops, lines, top, colour=BLACK, bottom=HEIGHT, highlight=None):
    y = top
    shown = 0
    wrapped = []
    for index, line in enumerate(lines):
        for part in wrap(line, COLUMNS - 1) or [""]:
            wrapped.append((index, part))
    room = max(0, (bottom - top) // LINE)
    if len(wrapped) > room and room > 0:
        wrapped = wrapped[:room - 1] + [(None, "...")]
    for index, part in wrapped:
        if highlight is not None and index == highlight:
            ops.append(("fill_rect", 0, y - 2, WIDTH, LINE, RED))
            ops.append(("text", part, 4, y, WHITE))
        else:
            ops.append(("text", part, 4, y, colour))
        y += LINE
        shown += 1
    return y


def _dice(ops, dice, top):
    """A row of die boxes: kept = double border, flagged = red box and "N?", locked = red bar."""
    if not dice:
        return top
    slots = min(len(dice), MAX_DICE)
    shown = slots if len(dice) <= MAX_DICE else MAX_DICE - 1
    pitch = WIDTH // slots
    size = min(pitch - 2, 40)
    for index in range(shown):
        face, marks = dice[index][0], dice[index][1]
        x = index * pitch + (pitch - size) // 2
        flagged = "f" in marks
        colour = RED if flagged else BLACK
        ops.append(("rect", x, top, size, 24, colour))
        if "k" in marks:
            ops.append(("rect", x + 2, top + 2, size - 4, 20, colour))
        label = short_face(face)[:max(1, size // CHAR)]
        ops.append(("text", label, x + (size - len(label) * CHAR) // 2, top + 8, colour))
        if "l" in marks:
            ops.append(("fill_rect", x, top + 25, size, 3, RED))
        number = str(index + 1) + ("?" if flagged else "")
        ops.append(("text", number, x + (size - len(number) * CHAR) // 2, top + 30, colour))
    if shown < len(dice):
        more = "+%d" % (len(dice) - shown)
        ops.append(("text", more, shown * pitch + (pitch - len(more) * CHAR) // 2, top + 8, BLACK))
    return top + 42


def _table(ops, rows, top, highlight):
    if not rows:
        return top
    columns = max(len(row) for row in rows)
    widths = [0] * columns
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(ascii_text(cell)))
    budget = COLUMNS - 1 - (columns - 1)
    # shrink the widest column until the row fits
    while sum(widths) > budget and max(widths) > 1:
        widest = widths.index(max(widths))
        widths[widest] -= 1
    y = top
    room = (HEIGHT - top) // LINE
    for number, row in enumerate(rows[:room]):
        cells = [fit(row[i] if i < len(row) else "", widths[i]) for i in range(columns)]
        text = " ".join(cells[i] + " " * (widths[i] - len(cells[i])) for i in range(columns)).rstrip()
        if number == highlight:
            ops.append(("fill_rect", 0, y - 2, WIDTH, LINE, RED))
            ops.append(("text", text, 4, y, WHITE))
        else:
            ops.append(("text", text, 4, y, BLACK))
            if number == 0 and len(rows) > 1:
                ops.append(("hline", 0, y + 9, WIDTH, BLACK))
        y += LINE
    return y


def layout(screen):
    """Drawing operations for one ``screen`` message body (see protocol.KINDS["screen"])."""
    kind = screen.get("kind", "prompt")
    title = screen.get("title", "")
    lines = screen.get("lines") or []
    ops = [("fill", WHITE)]
    if kind == "roll":
        _title(ops, title)
        y = _dice(ops, screen.get("dice") or [], TITLE_HEIGHT + 4)
        total = ascii_text(screen.get("total", ""))
        bottom = HEIGHT - (LINE + 2 if total else 0)
        _lines(ops, lines, y, bottom=bottom)
        if total:
            text = fit(total, COLUMNS - 1)
            ops.append(("text", text, WIDTH - 4 - len(text) * CHAR, HEIGHT - LINE, RED))
    elif kind == "scoreboard":
        _title(ops, title)
        y = _table(ops, screen.get("rows") or [], TITLE_HEIGHT + 5, screen.get("highlight"))
        _lines(ops, lines, y + 2)
    elif kind in ("error", "fault"):
        _title(ops, title, RED)
        _lines(ops, lines, TITLE_HEIGHT + 6)
    elif kind == "menu":
        _title(ops, title)
        _lines(ops, lines, TITLE_HEIGHT + 6, highlight=screen.get("highlight"))
    elif kind == "sleep":
        ops.append(("text", "dicewatch", (WIDTH - 9 * CHAR) // 2, HEIGHT // 2 - 12, BLACK))
        text = fit(title, COLUMNS - 1)
        ops.append(("text", text, (WIDTH - len(text) * CHAR) // 2, HEIGHT // 2 + 4, RED))
    else:   # prompt: a big message in a box, the dice in question, hints below
        parts = wrap(title, COLUMNS - 2)[:3] or [""]
        height = len(parts) * LINE + 8
        ops.append(("rect", 0, 0, WIDTH, height, RED))
        for number, part in enumerate(parts):
            ops.append(("text", part, (WIDTH - len(part) * CHAR) // 2, 5 + number * LINE, BLACK))
        y = _dice(ops, screen.get("dice") or [], height + 4) if screen.get("dice") else height + 6
        _lines(ops, lines, y)
    return ops


def waiting_screen(firmware):
    """What the panel shows before the host has said hello."""
    return layout({"kind": "prompt", "title": "Waiting for dicewatch",
                   "lines": ["Connect the USB cable to the Pi", "and start: dicewatch run", "panel " + firmware]})


def render(ops, canvas):
    """Replay ``ops`` on ``canvas`` (framebuf methods with logical colours)."""
    for op in ops:
        name = op[0]
        if name == "fill":
            canvas.fill(op[1])
        elif name == "text":
            canvas.text(op[1], op[2], op[3], op[4])
        elif name == "rect":
            canvas.rect(op[1], op[2], op[3], op[4], op[5])
        elif name == "fill_rect":
            canvas.fill_rect(op[1], op[2], op[3], op[4], op[5])
        elif name == "hline":
            canvas.hline(op[1], op[2], op[3], op[4])


class TwoPlanes:
    """A canvas over two 1-bit framebufs, as the SSD1680 wants them.

    ``black`` is the black/white plane (bit 1 = white), ``red`` the red plane (bit 1 = red).
    Any framebuf.FrameBuffer (MONO_HLSB) works; so does anything with the same methods.
    """

    def __init__(self, black, red):
        self.black = black
        self.red = red

    def _planes(self, colour):
        # (value on the black plane, value on the red plane) for a logical colour
        if colour == WHITE:
            return 1, 0
        if colour == BLACK:
            return 0, 0
        return 1, 1

    def fill(self, colour):
        b, r = self._planes(colour)
        self.black.fill(b)
        self.red.fill(r)

    def text(self, text, x, y, colour):
        b, r = self._planes(colour)
        self.black.text(text, x, y, b)
        self.red.text(text, x, y, r)

    def rect(self, x, y, w, h, colour):
        b, r = self._planes(colour)
        self.black.rect(x, y, w, h, b)
        self.red.rect(x, y, w, h, r)

    def fill_rect(self, x, y, w, h, colour):
        b, r = self._planes(colour)
        self.black.fill_rect(x, y, w, h, b)
        self.red.fill_rect(x, y, w, h, r)

    def hline(self, x, y, w, colour):
        b, r = self._planes(colour)
        self.black.hline(x, y, w, b)
        self.red.hline(x, y, w, r)
