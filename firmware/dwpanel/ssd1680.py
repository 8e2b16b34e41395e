# A small driver for SSD1680-class 2.13" three-colour e-ink panels (250 x 122), e.g. the
# Adafruit 2.13" tri-color eInk breakout or FeatherWing, WeAct 2.13" BWR modules.
#
# The controller's RAM is portrait (122 wide, 250 tall, 16 bytes a row, MSB = leftmost
# pixel); the panel is used landscape. ``ram_bytes`` turns any landscape picture into
# that layout (a pure function, tested on the host); ``SSD1680`` only moves bytes over SPI.
#
#   spi = machine.SPI(1, baudrate=4_000_000, sck=Pin(10), mosi=Pin(11))
#   panel = SSD1680(spi, cs=Pin(9, Pin.OUT), dc=Pin(8, Pin.OUT), rst=Pin(12, Pin.OUT),
#                   busy=Pin(13, Pin.IN))
#   panel.begin(); panel.start_refresh(black_bytes, red_bytes)
#   while panel.busy(): ...            # 15-20 s for a full three-colour refresh
#   panel.sleep()

import time

_sleep_ms = getattr(time, "sleep_ms", None) or (lambda ms: time.sleep(ms / 1000))

RAM_WIDTH = 122      # pixels across the controller's RAM (the panel's short side)
RAM_HEIGHT = 250     # rows (the long side)
ROW_BYTES = 16       # 128 bits a row, the last 6 unused


def ram_bytes(pixel, width=250, height=122, rotation=90, on=1, out=None, first=0, last=RAM_HEIGHT):
    """Portrait RAM bytes from a landscape picture.

    :param pixel: ``pixel(x, y)`` of the landscape picture (``width`` x ``height``).
    :param rotation: 90 or 270: which way round the panel is mounted.
    :param on: the pixel value that sets a RAM bit.
    :param out, first, last: fill only RAM rows ``first``..``last - 1`` of ``out`` (so a
        caller can convert a few rows at a time and let other tasks run in between).
    """
    if rotation not in (90, 270):
        raise ValueError("rotation must be 90 or 270")
    if out is None:
        out = bytearray(ROW_BYTES * RAM_HEIGHT)
    for row in range(first, last):
        base = row * ROW_BYTES
        for index in range(base, base + ROW_BYTES):
            out[index] = 0
        for column in range(RAM_WIDTH):
            if rotation == 90:
                x, y = row, height - 1 - column
            else:
                x, y = width - 1 - row, column
            if x < width and 0 <= y < height and pixel(x, y) == on:
                out[base + (column >> 3)] |= 0x80 >> (column & 7)
    return out


class SSD1680:
    """The panel on SPI. Pins are machine.Pin objects (cs, dc, rst outputs; busy input)."""

    def __init__(self, spi, cs, dc, rst, busy):
        self.spi, self.cs, self.dc, self.rst, self.busy_pin = spi, cs, dc, rst, busy
        self.cs.value(1)

    def command(self, code, data=None):
        self.dc.value(0)
        self.cs.value(0)
        self.spi.write(bytes([code]))
        self.cs.value(1)
        if data:
            self.dc.value(1)
            self.cs.value(0)
            self.spi.write(bytes(data))
            self.cs.value(1)

    def busy(self):
        return self.busy_pin.value() == 1

    def wait(self, timeout_ms=30000):
        waited = 0
        while self.busy():
            if waited > timeout_ms:
                raise OSError("e-ink panel stayed busy for %d ms (check BUSY wiring)" % timeout_ms)
            _sleep_ms(10)
            waited += 10

    def begin(self):
        """Hardware reset and the init sequence from the SSD1680 datasheet."""
        self.rst.value(0)
        _sleep_ms(10)
        self.rst.value(1)
        _sleep_ms(10)
        self.wait()
        self.command(0x12)                                   # software reset
        self.wait()
        self.command(0x01, [(RAM_HEIGHT - 1) & 0xFF, (RAM_HEIGHT - 1) >> 8, 0x00])  # gate lines
        self.command(0x11, [0x03])                           # data entry: X+, Y+, X first
        self.command(0x44, [0x00, ROW_BYTES - 1])            # RAM X window, in bytes
        self.command(0x45, [0x00, 0x00, (RAM_HEIGHT - 1) & 0xFF, (RAM_HEIGHT - 1) >> 8])
        self.command(0x3C, [0x05])                           # border waveform
        self.command(0x18, [0x80])                           # internal temperature sensor
        self.command(0x21, [0x00, 0x80])                     # display update control

    def _cursor(self):
        self.command(0x4E, [0x00])
        self.command(0x4F, [0x00, 0x00])

    def start_refresh(self, black, red):
        """Send both planes and start a full refresh; poll ``busy()`` until it ends."""
        self._cursor()
        self.command(0x24, black)                            # black/white RAM (1 = white)
        self._cursor()
        self.command(0x26, red)                              # red RAM (1 = red)
        self.command(0x22, [0xF7])                           # full update sequence
        self.command(0x20)                                   # go

    def sleep(self):
        self.command(0x10, [0x01])                           # deep sleep; e-ink keeps the picture
