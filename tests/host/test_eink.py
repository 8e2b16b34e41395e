"""E-ink screens: three colours, the common panel sizes, what is drawn where, and coalescing."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from host.eink import BLACK, PANEL_SIZES, RED, WHITE, EinkScreen, PngPanel, render
from host.presenters import DieView, Screen

FACES = ["MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL", "BELL"]


def roll_screen(flagged=None, faces=FACES) -> Screen:
    dice = tuple(DieView(f, kept=i < 2, flagged=i == flagged, locked=f == "BELL") for i, f in enumerate(faces))
    return Screen("roll", title="Ann · Roll 2 of 3", dice=dice, lines=("2 LISTS: 7", "1 GIFT: 2"), total="9 pts")


SCREENS = [
    roll_screen(flagged=2),
    Screen("scoreboard", title="Round 3 of 5", table=(("Player", "Pts"), ("Ann", "23"), ("Ben", "30")), highlight=2,
           footer="Ben to roll"),
    Screen("prompt", title="Roll 2 of 3", lines=("pick up the dice you re-roll",)),
    Screen("prompt", title="Fate rolls 7 dice"),
    Screen("error", title="Roll refused", lines=("a BELL cannot be re-rolled",)),
    Screen("menu", title="Gift cards played", lines=("none", "Secret Santa", "Nice List"), highlight=1),
    Screen("fault", title="Camera lost", lines=("retrying in 4 s",)),
    Screen("sleep", title="dicewatch is asleep"),
]


@pytest.mark.parametrize("size", list(PANEL_SIZES.values()), ids=list(PANEL_SIZES))
@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s.kind}-{s.title[:12]}")
def test_every_screen_is_three_colour_and_panel_sized(screen, size):
    image = render(screen, size)
    assert image.mode == "P" and image.size == size
    used = set(np.unique(np.asarray(image)))
    assert used <= {WHITE, BLACK, RED}
    assert BLACK in used or RED in used  # something is drawn


def _pixels(image: Image.Image) -> np.ndarray:
    return np.asarray(image)


def test_a_flagged_die_is_boxed_in_red_and_the_others_are_not():
    size = (400, 300)
    flagged = _pixels(render(roll_screen(flagged=2, faces=["MILK"] * 7), size))
    plain = _pixels(render(roll_screen(flagged=None, faces=["MILK"] * 7), size))
    diff = np.argwhere(flagged != plain)
    assert len(diff)
    xs = diff[:, 1]
    # the change sits around the third of seven dice, nowhere else
    assert xs.min() > size[0] * 2 / 7 - 20 and xs.max() < size[0] * 3 / 7 + 20
    assert (flagged[flagged != plain] == RED).mean() > 0.5


def test_bells_are_red_and_milk_is_black():
    bells = _pixels(render(roll_screen(faces=["BELL"] * 7), (250, 122)))
    milk = _pixels(render(roll_screen(faces=["MILK"] * 7), (250, 122)))
    band = slice(25, 60)  # the dice row
    assert (bells[band] == RED).sum() > 5 * (milk[band] == RED).sum()


def test_rendering_is_deterministic_and_follows_the_dice():
    a = render(roll_screen(faces=FACES), (250, 122))
    b = render(roll_screen(faces=FACES), (250, 122))
    c = render(roll_screen(faces=list(reversed(FACES))), (250, 122))
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()


def test_too_small_a_panel_is_refused():
    with pytest.raises(ValueError, match="too small"):
        render(SCREENS[0], (120, 60))


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_updates_are_coalesced_to_one_full_refresh_per_interval(tmp_path):
    clock = Clock()
    panel = PngPanel(tmp_path, (250, 122))
    screen = EinkScreen(panel, min_interval=5.0, clock=clock)
    screen.show(SCREENS[2])                 # first: shown at once
    clock.now = 1.0
    screen.show(SCREENS[3])                 # too soon: waits
    clock.now = 2.0
    screen.show(SCREENS[4])                 # replaces the waiting one
    assert len(panel.written) == 1 and screen.coalesced == 1
    clock.now = 4.9
    screen.tick()
    assert len(panel.written) == 1
    clock.now = 5.0
    screen.tick()
    assert len(panel.written) == 2 and "error" in panel.written[-1].name
    screen.show(SCREENS[4])                 # unchanged screen: no refresh at all
    clock.now = 20.0
    screen.tick()
    assert len(panel.written) == 2
    written = Image.open(panel.written[-1])
    assert written.size == (250, 122)


def test_a_panel_with_partial_refresh_gets_small_changes_at_once(tmp_path):
    clock = Clock()
    panel = PngPanel(tmp_path, (400, 300), partial=True)
    screen = EinkScreen(panel, min_interval=5.0, min_partial_interval=0.5, clock=clock)
    menu = SCREENS[5]
    screen.show(menu)
    clock.now = 1.0
    screen.show(Screen("menu", title=menu.title, lines=menu.lines, highlight=2))  # the knob moved
    assert [p.name.endswith("partial.png") for p in panel.written] == [False, True]
    assert screen.partial_updates == 1 and screen.full_updates == 1


def test_close_flushes_the_waiting_screen_and_sleeps(tmp_path):
    clock = Clock()
    panel = PngPanel(tmp_path, (250, 122))
    screen = EinkScreen(panel, min_interval=5.0, clock=clock)
    screen.show(SCREENS[0])
    screen.show(SCREENS[-1])
    screen.close()
    assert len(panel.written) == 2 and "sleep" in panel.written[-1].name and panel.asleep


def test_a_broken_panel_does_not_stop_the_game(tmp_path):
    class Broken:
        size, partial = (250, 122), False

        def update(self, image, box, label):
            raise OSError("SPI write failed")

        def sleep(self):
            raise OSError("gone")

    screen = EinkScreen(Broken(), min_interval=0)
    screen.show(SCREENS[0])
    screen.close()


def test_a_slow_panel_refreshes_in_the_background(tmp_path):
    import threading
    import time as clock_time

    release = threading.Event()

    class SlowPanel(PngPanel):
        def update(self, image, box=None, label=""):
            release.wait(5)  # a 15-30 s Inky refresh, cut short by the test
            super().update(image, box, label)

    clock = Clock()
    panel = SlowPanel(tmp_path, (250, 122))
    screen = EinkScreen(panel, min_interval=0.0, clock=clock, background=True)
    started = clock_time.monotonic()
    screen.show(SCREENS[0])                    # starts the slow refresh
    screen.show(SCREENS[2])                    # waits: the panel is busy
    screen.show(SCREENS[4])                    # replaces the waiting one
    assert clock_time.monotonic() - started < 1.0 and screen.busy
    release.set()
    screen.close()                             # waits for the refresh, then shows the newest screen
    assert [p.name.split("-")[2] for p in panel.written] == ["roll", "error"] and panel.asleep


class _InkyRefusingItsPins:
    """What inky 2.x does on show() when a pin it needs is taken (no dtoverlay=spi0-0cs): its
    pin check (gpiodevice) raises SystemExit("Woah there, some pins we need are in use! ...")."""

    colour, width, height = "red", 250, 122
    WHITE = 0

    def set_image(self, image):
        pass

    def show(self):
        raise SystemExit("Woah there, some pins we need are in use!\n"
                         "  \u26a0\ufe0f   Chip Select: (line 8, GPIO8) currently claimed by spi0 CS0")


@pytest.mark.parametrize("background", [False, True])
def test_an_inky_that_cannot_get_its_pins_is_reported_and_does_not_end_the_program(caplog, background):
    from host.eink import InkyPanel

    panel = InkyPanel.__new__(InkyPanel)      # no HAT here: the library's driver object stood in for
    panel.inky, panel.size = _InkyRefusingItsPins(), (250, 122)
    screen = EinkScreen(panel, min_interval=0, background=background)
    with caplog.at_level("WARNING", logger="host.eink"):
        screen.show(SCREENS[0])               # the refresh in the loop (a worker thread on the box)
        screen.show(SCREENS[7])
        screen.close()                        # the last refresh at SIGTERM: must not exit the program
    warned = [r.getMessage() for r in caplog.records if "e-ink update failed" in r.getMessage()]
    assert warned, "the failed refresh was not reported"
    assert all("dtoverlay=spi0-0cs" in message and "Chip Select" in message for message in warned)


def test_a_breakdown_longer_than_the_panel_is_packed_not_cut():
    """On the smallest panel a roll's breakdown has two lines: three short items share them
    whole instead of the last two being joined and cut off with an ellipsis."""
    from PIL import ImageDraw

    from host.eink import packed_lines, text_width
    draw = ImageDraw.Draw(Image.new("RGB", (250, 122)))
    parts = ["1 MILK & COOKIE pair: 4", "1 GIFT: 2", "1 LIST (only exactly two score)"]
    lines = packed_lines(draw, parts, 10, 238, 2)
    assert len(lines) == 2 and " · ".join(lines) == " · ".join(parts)
    assert all(text_width(draw, line, 10) <= 238 for line in lines)
    assert packed_lines(draw, parts, 10, 238, 3) == parts           # room for each on its own
    assert packed_lines(draw, ["x" * 80, "b", "c"], 10, 238, 2) == ["x" * 80, "b · c"]  # the rest on the last line


def test_the_chosen_menu_item_wraps_so_it_reads_whole_and_stays_in_view():
    """On the smallest panel a long item is cut with an ellipsis, except the highlighted one,
    which takes a second line (a red band twice as tall) and is still scrolled into view."""
    items = ("none", "Gingerbread House: three COOKIES score 6 points",
             "Milk Mustache: turn a COOKIE into a MILK or a MILK into a COOKIE",
             "Lady Luck: 1 point for each BELL scored", "Hung with Care: 2 extra points for each BELL & STOCKING pair")

    def red_rows(highlight: int) -> np.ndarray:
        pixels = _pixels(render(Screen("menu", title="Gift cards played", lines=items, highlight=highlight), (250, 122)))
        return np.flatnonzero((pixels == RED).any(axis=1))

    short, long, last = red_rows(0), red_rows(2), red_rows(4)
    assert len(long) > 1.8 * len(short) and len(last) > 1.8 * len(short)
    assert last.max() < 122  # the last item, two lines tall, is on the panel


def drawn_texts(screen: Screen, size, monkeypatch) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Every text ``render`` draws for ``screen``, with the box it covers on the panel
    (Pillow's own ``textbbox`` for the same text, font and anchor)."""
    from PIL import ImageDraw

    drawn, original = [], ImageDraw.ImageDraw.text

    def text(self, xy, text, *args, **kwargs):
        box = self.textbbox(xy, text, font=kwargs.get("font"), anchor=kwargs.get("anchor"))
        drawn.append((text, tuple(int(v) for v in box)))
        return original(self, xy, text, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(ImageDraw.ImageDraw, "text", text)
        render(screen, size)
    return drawn


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_reads_whole(screen: Screen, size, monkeypatch, words: str) -> None:
    """Nothing drawn is shortened, off the panel or on top of other text, and every word of
    ``words`` is on the panel."""
    drawn = drawn_texts(screen, size, monkeypatch)
    assert not [text for text, _ in drawn if text.endswith("…")]
    for text, box in drawn:
        assert box[0] >= 0 and box[1] >= 0 and box[2] <= size[0] and box[3] <= size[1], (text, box)
    clashes = [(a[0], b[0]) for i, a in enumerate(drawn) for b in drawn[i + 1:] if _overlap(a[1], b[1])]
    assert not clashes
    shown = " ".join(text for text, _ in drawn).split()
    assert [word for word in words.split() if word not in shown] == []


FATE_HINTS = ("2 new snowflakes: 4 of 10 melt at 6",
              "push the knob: copy one of fate's dice, or take a free deferred die")


def test_hints_under_a_full_row_of_dice_read_whole_and_clear_of_the_footer(monkeypatch):
    """A 7-die fate roll with two hints and a footer on the 2.13" panel: the dice shrink a
    little so the last hint is not dropped or drawn over the footer."""
    dice = tuple(DieView(face) for face in ("FACE-2", "SNOWFLAKE", "FACE-4", "FACE-5", "FACE-3", "FACE-6", "FACE-6"))
    screen = Screen("prompt", title="Fate rolled", dice=dice, lines=FATE_HINTS, footer="Next: pass (take nothing)",
                    dice_set="christmas-romance")
    for size in PANEL_SIZES.values():
        assert_reads_whole(screen, size, monkeypatch, " ".join(FATE_HINTS) + " Next: pass (take nothing)")


def test_checking_a_die_keeps_the_hint_that_score_takes_the_rest_as_read(monkeypatch):
    dice = tuple(DieView(face, flagged=i >= 2) for i, face in enumerate(("MILK", "BELL", "GIFT", "LIST")))
    hints = ("is it GIFT? turn the knob to change, push to confirm", "Score: also die 4 as read")
    screen = Screen("prompt", title="Check die 3", dice=dice, lines=hints)
    assert_reads_whole(screen, (250, 122), monkeypatch, " ".join(hints))


def test_a_long_breakdown_reads_whole_on_the_smallest_panel(monkeypatch):
    """Four items of a Jingle Bell Roll score, and a romance card's roll with where the player
    stands: smaller text and dice, nothing cut."""
    jbr = roll_screen(faces=FACES)
    jbr = Screen("roll", title=jbr.title, dice=jbr.dice, total="9 points",
                 lines=("1 STOCKING: 1", "1 LIST (only exactly two score): 0", "2 GIFTS: 4", "1 MILK & COOKIE pair: 4"))
    romance = Screen("roll", title="Holly · Stage 3", dice=tuple(DieView(f) for f in ("FACE-2", "FACE-4", "SNOWFLAKE")),
                     lines=("romance card's roll: FACE-5 FACE-4 (one of each taken off the stage card)",
                            "stage 3 4/6 · romance done", "copied none · deferred 2"),
                     total="3/10", dice_set="christmas-romance")
    for screen in (jbr, romance):
        assert_reads_whole(screen, (250, 122), monkeypatch, " ".join(screen.lines) + " " + screen.total)


def test_a_breakdown_item_too_long_for_a_line_is_wrapped_not_cut():
    from PIL import ImageDraw

    from host.eink import packed_lines, text_width
    draw = ImageDraw.Draw(Image.new("RGB", (250, 122)))
    long = "romance card's roll: FACE-5 FACE-4 (one of each taken off the stage card)"
    lines = packed_lines(draw, [long, "stage 3 4/6"], 8, 238, 3)
    assert " ".join(lines).replace(" · ", " ").split() == (long + " stage 3 4/6").split()
    assert all(text_width(draw, line, 8) <= 238 for line in lines)
    assert len(lines) <= 3


@pytest.mark.parametrize("size", list(PANEL_SIZES.values()), ids=list(PANEL_SIZES))
@pytest.mark.parametrize("screen", [s for s in SCREENS if s.kind != "menu"], ids=lambda s: f"{s.kind}-{s.title[:12]}")
def test_the_usual_screens_read_whole_on_every_panel(screen, size, monkeypatch):
    words = " ".join((screen.title, *screen.lines, screen.total, screen.footer, *(c for row in screen.table for c in row)))
    assert_reads_whole(screen, size, monkeypatch, words)


def test_menu_items_a_little_too_long_are_drawn_smaller_and_whole(monkeypatch):
    """On the 2.13" panel an item that fits at 9 px is drawn whole; one far too long keeps
    the menu's size and is shortened (it reads whole when chosen)."""
    items = ("none", "Lady Luck: 1 point for each BELL scored", "Ring My Bell: one BELL counts as two stamps",
             "Milk Mustache: turn a COOKIE into a MILK or a MILK into a COOKIE")
    drawn = dict(drawn_texts(Screen("menu", title="Gift cards played (Secret Santa)", lines=items, highlight=0),
                             (250, 122), monkeypatch))
    assert items[1] in drawn and items[2] in drawn and "Gift cards played (Secret Santa)" in drawn
    long = [text for text in drawn if text.startswith("Milk Mustache")]
    assert long and long[0].endswith("…")
