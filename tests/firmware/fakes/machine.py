# A small stand-in for MicroPython's ``machine`` module (Pin, SPI) for the firmware tests.
# Works under CPython and MicroPython. Tests set input levels with ``PINS[n].level = 0``.

PINS = {}
SPI_BUSES = {}


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=None, pull=None, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        self.level = 1 if pull == Pin.PULL_UP else 0
        self.writes = []
        if value is not None:
            self.value(value)
        PINS[id] = self

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = 1 if level else 0
        self.writes.append(self.level)

    def __call__(self, level=None):
        return self.value(level)


class SPI:
    def __init__(self, id, baudrate=1000000, sck=None, mosi=None, miso=None, **_):
        self.id = id
        self.baudrate = baudrate
        self.sck, self.mosi = sck, mosi
        self.written = []     # (dc level, bytes) per write
        self.dc = None
        SPI_BUSES[id] = self

    def write(self, data):
        self.written.append((None if self.dc is None else self.dc.level, bytes(data)))


def reset():
    PINS.clear()
    SPI_BUSES.clear()
