# The Pico's pins: the only module that touches machine, neopixel and the e-ink driver.
#
# Wiring (Raspberry Pi Pico / Pico W, GP numbers; physical pin in brackets):
#   NeoPixel data  GP16 (21)  through a 330 ohm resistor; strip 5 V from VBUS (40), GND (38)
#   Score button   GP2  (4)   other leg to GND (3)      internal pull-ups, active low
#   Undo button    GP3  (5)
#   Next button    GP4  (6)
#   Encoder SW     GP5  (7)   encoder GND to GND (8), + to 3V3(OUT) (36)
#   Encoder CLK/A  GP6  (9)
#   Encoder DT/B   GP7  (10)
#   E-ink DC       GP8  (11)  SSD1680 2.13" on SPI1, VCC to 3V3(OUT) (36), GND (13)
#   E-ink CS       GP9  (12)
#   E-ink SCK      GP10 (14)
#   E-ink MOSI     GP11 (15)
#   E-ink RST      GP12 (16)
#   E-ink BUSY     GP13 (17)
import machine
import neopixel

from dwpanel.ssd1680 import SSD1680

PINS = {"pixels": 16, "score": 2, "undo": 3, "next": 4, "push": 5, "knob_a": 6, "knob_b": 7,
        "dc": 8, "cs": 9, "sck": 10, "mosi": 11, "rst": 12, "busy": 13}
SPI_ID = 1
SPI_BAUD = 4000000


class Board:
    """The panel's hardware: NeoPixels, buttons, optional knob and e-ink."""

    def __init__(self, pixels=12, screen=True, knob=True, pins=None, rotation=90):
        pins = pins or PINS
        Pin = machine.Pin
        self.rotation = rotation
        self.strip = neopixel.NeoPixel(Pin(pins["pixels"], Pin.OUT), pixels)
        names = ["score", "undo", "next"] + (["push"] if knob else [])
        self.buttons = dict((name, Pin(pins[name], Pin.IN, Pin.PULL_UP)) for name in names)
        self.knob = None
        if knob:
            self.knob = (Pin(pins["knob_a"], Pin.IN, Pin.PULL_UP), Pin(pins["knob_b"], Pin.IN, Pin.PULL_UP))
        self.panel = None
        if screen:
            spi = machine.SPI(SPI_ID, baudrate=SPI_BAUD, sck=Pin(pins["sck"]), mosi=Pin(pins["mosi"]))
            self.panel = SSD1680(spi, cs=Pin(pins["cs"], Pin.OUT), dc=Pin(pins["dc"], Pin.OUT),
                                 rst=Pin(pins["rst"], Pin.OUT), busy=Pin(pins["busy"], Pin.IN))

    def pressed(self):
        """{button: True while held}; buttons pull to ground."""
        return dict((name, pin.value() == 0) for name, pin in self.buttons.items())

    def knob_ab(self):
        return None if self.knob is None else (self.knob[0].value(), self.knob[1].value())

    def show_pixels(self, colours):
        for index, colour in enumerate(colours):
            self.strip[index] = colour
        self.strip.write()

    def start_screen(self, black, red):
        """Send a picture (the two RAM planes, see ssd1680.ram_bytes) and start the refresh."""
        if self.panel is None:
            return
        self.panel.begin()
        self.panel.start_refresh(black, red)

    def screen_busy(self):
        return self.panel is not None and self.panel.busy()

    def screen_sleep(self):
        if self.panel is not None:
            self.panel.sleep()
