"""The box's lights, buzzer, buttons and knob, as gpiozero devices.

Every class here is a thin, named gpiozero device in the style of gpiozero's own
``LED`` and ``Buzzer``: the docstring is the manual (what it is, how to wire it, a tiny
example, the parameters). Pin numbers are Broadcom (BCM / "GPIO") numbers and never
appear in code: :func:`pins_for` reads them from ``hardware/pins.toml``
(:func:`host.paths.pins_file`, checked by :mod:`host.pins`), the single source of truth
shared with the wiring diagram.

Nothing touches real hardware at import time. Every class takes ``pin_factory`` so tests
pass gpiozero's own ``MockFactory(pin_class=MockPWMPin)``; on the Pi the service sets
``GPIOZERO_PIN_FACTORY=lgpio``.

The parts (all 3.3 V logic; see hardware/ for the full wiring diagram):

* :class:`StatusLight`: one common-cathode RGB LED, three 220 ohm resistors.
* :class:`ShiftRegisterBar` / :class:`RollBar`: a 10-segment LED bar graph, one 220 ohm
  resistor per segment, through two 74HC595s (3 GPIOs, the default when an e-ink HAT
  is fitted) or straight on 10 GPIOs.
* :class:`TableBuzzer`: an active 5 V buzzer switched by an NPN transistor (1 kohm base
  resistor, 1N4148 across the buzzer).
* :class:`TableControls`: Score, Undo and Next push buttons and a rotary encoder with a
  push switch (KY-040 style), all to ground with the Pi's internal pull-ups.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from gpiozero import Button, Buzzer, CompositeDevice, DigitalOutputDevice, LEDBarGraph, RGBLED, RotaryEncoder

from host.paths import pins_file
from host.pins import Pins, load_pins
from host.presenters import ATTENTION, FAULT, MOVING, OFF, READ_OK, WAITING  # noqa: F401 - the light states

# -- the status light ------------------------------------------------------------------------


#: colour (red, green, blue in 0..1) and whether it blinks, for each state of the table
STATUS_COLOURS: dict[str, tuple[tuple[float, float, float], bool]] = {
    WAITING: ((0.0, 0.0, 0.25), False),   # dim blue: ready for a roll
    MOVING: ((1.0, 0.45, 0.0), False),    # amber: dice still moving or a hand in the tray
    READ_OK: ((0.0, 1.0, 0.0), False),    # green: read, scored, shown
    ATTENTION: ((1.0, 0.0, 1.0), True),   # blinking magenta: check the screen, press a button
    FAULT: ((1.0, 0.0, 0.0), True),       # blinking red: camera lost, config broken...
    OFF: ((0.0, 0.0, 0.0), False),
}


class StatusLight(RGBLED):
    """The one light that says what the box is doing, on an RGB LED.

    Wire a common-cathode RGB LED's long leg (cathode) to a ground pin and each of its
    red, green and blue legs through a 220 ohm resistor to a GPIO pin. The states:

    ========== ======================= ===================================
    state      colour                  meaning
    ========== ======================= ===================================
    waiting    dim blue                ready: roll the dice
    moving     amber                   dice tumbling or a hand in the tray
    read-ok    green                   the roll was read and scored
    attention  blinking magenta        look at the screen (check a die...)
    fault      blinking red            camera missing, broken config...
    off        dark                    shut down
    ========== ======================= ===================================

    >>> light = StatusLight(red=13, green=19, blue=26)   # doctest: +SKIP
    >>> light.show("moving")                             # doctest: +SKIP

    :param red, green, blue: the GPIO (BCM) pins of the three legs.
    :param active_high: False for a common-anode LED (its long leg to 3.3 V).
    :param pin_factory: gpiozero pin factory (tests pass a ``MockFactory``).
    """

    def __init__(self, red: int, green: int, blue: int, *, active_high: bool = True, pin_factory=None):
        super().__init__(red, green, blue, active_high=active_high, pwm=True, pin_factory=pin_factory)
        self.state = OFF

    def show(self, state: str) -> None:
        """Switch to ``state`` (one of :data:`STATUS_COLOURS`); repeating a state is free."""
        if state not in STATUS_COLOURS:
            raise ValueError(f"unknown status {state!r}; one of {', '.join(STATUS_COLOURS)}")
        if state == self.state:
            return
        colour, blinks = STATUS_COLOURS[state]
        self.state = state
        if blinks:
            self.blink(on_time=0.4, off_time=0.4, on_color=colour, off_color=(0, 0, 0), background=True)
        else:
            self.color = colour


# -- the bar graph -----------------------------------------------------------------------------

class RollBar(LEDBarGraph):
    """A 10-segment LED bar graph showing the roll number (and fate snowflakes).

    Wire each segment's anode through a 220 ohm resistor to a GPIO pin and all the
    cathodes to ground; list the pins from the bottom segment up. During a Jingle Bell
    Roll turn segments 1-3 show the roll (one lit = first roll); in a fate round the bar
    counts snowflakes, one segment each.

    >>> bar = RollBar(4, 14, 15, 18, 23, 25, 12, 20, 21, 7)   # doctest: +SKIP
    >>> bar.show_roll(2)                                       # doctest: +SKIP

    :param pins: the segment pins, bottom first (any number; 10 on the usual part).
    :param active_high: False when the segments' anodes are common to 3.3 V.
    :param pin_factory: gpiozero pin factory (tests pass a ``MockFactory``).
    """

    def __init__(self, *pins: int, active_high: bool = True, pin_factory=None):
        super().__init__(*pins, pwm=False, active_high=active_high, pin_factory=pin_factory)

    def show_count(self, count: int) -> None:
        """Light ``count`` segments from the bottom (clipped to the bar's length)."""
        self.lit_count = max(0, min(int(count), len(self.leds)))

    def show_roll(self, roll_number: int) -> None:
        """Show which roll of the turn this is (0 = the turn has not started)."""
        self.show_count(roll_number)

    def show_snowflakes(self, snowflakes: int) -> None:
        """Show a fate round's snowflake count, one segment each."""
        self.show_count(snowflakes)


class ShiftRegisterBar(CompositeDevice):
    """A 10-segment LED bar graph driven through two chained 74HC595 shift registers.

    Saves GPIOs when an e-ink HAT takes most of the header: three pins drive any number
    of segments up to 16. Wire the first 74HC595's SER (DS, chip pin 14) to ``data``,
    both chips' SRCLK (chip pin 11) to ``clock`` and RCLK (chip pin 12) to ``latch``;
    the first chip's QH' (pin 9) to the second chip's SER; OE (pin 13) to ground and
    SRCLR (pin 10) to 3.3 V; power both from 3.3 V. Segment 1 (bottom) is the first
    chip's QA, each through a 220 ohm resistor to ground. It shows the same things as
    :class:`RollBar`.

    >>> bar = ShiftRegisterBar(data=20, clock=21, latch=26)   # doctest: +SKIP
    >>> bar.show_roll(3)                                       # doctest: +SKIP

    :param data, clock, latch: GPIO (BCM) pins to SER, SRCLK and RCLK.
    :param length: segments in use (1-16), lit from the first chip's QA upwards.
    :param pin_factory: gpiozero pin factory (tests pass a ``MockFactory``).
    """

    BITS = 16  # two chips

    def __init__(self, *, data: int, clock: int, latch: int, length: int = 10, pin_factory=None):
        if not 1 <= length <= self.BITS:
            raise ValueError(f"length must be 1-{self.BITS}, got {length}")
        super().__init__(data=DigitalOutputDevice(data, pin_factory=pin_factory),
                         clock=DigitalOutputDevice(clock, pin_factory=pin_factory),
                         latch=DigitalOutputDevice(latch, pin_factory=pin_factory),
                         _order=("data", "clock", "latch"), pin_factory=pin_factory)
        self.length = length
        self._lit = -1
        self.show_count(0)

    def _shift_out(self, bits: int) -> None:
        # The first bit shifted ends up in the last chip's QH, so send the highest bit first.
        self.latch.off()
        for position in reversed(range(self.BITS)):
            self.data.value = bool(bits >> position & 1)
            self.clock.on()
            self.clock.off()
        self.latch.on()
        self.latch.off()

    @property
    def lit_count(self) -> int:
        return max(self._lit, 0)

    @lit_count.setter
    def lit_count(self, count: int) -> None:
        self.show_count(count)

    @property
    def value(self) -> float:
        return self.lit_count / self.length

    def show_count(self, count: int) -> None:
        """Light ``count`` segments from the bottom (clipped to ``length``)."""
        count = max(0, min(int(count), self.length))
        if count != self._lit:
            self._shift_out((1 << count) - 1)
            self._lit = count

    def show_roll(self, roll_number: int) -> None:
        self.show_count(roll_number)

    def show_snowflakes(self, snowflakes: int) -> None:
        self.show_count(snowflakes)

    def off(self) -> None:
        self.show_count(0)


# -- the buzzer --------------------------------------------------------------------------------

#: sound patterns: (on seconds, off seconds, repeats)
BUZZER_PATTERNS: dict[str, tuple[float, float, int]] = {
    "seven-bells": (0.12, 0.1, 7),    # seven quick bells: an instant win
    "error": (0.6, 0.0, 1),           # one long buzz: refused, look at the screen
    "attention": (0.08, 0.12, 2),     # two pips: please check a die
    "scored": (0.05, 0.0, 1),         # one tick: the turn was scored
    "game-over": (0.3, 0.2, 3),
}


class TableBuzzer(Buzzer):
    """An active buzzer that plays the box's few sounds.

    An active (self-oscillating) 5 V buzzer draws more than a GPIO pin may give, so an NPN
    transistor (2N2222A, BC337) switches it: the GPIO pin through a 1 kohm resistor to the
    base, the emitter to ground, the buzzer's + leg to 5 V and its - leg to the collector,
    and a 1N4148 diode across the buzzer (stripe towards 5 V). Patterns: ``seven-bells``
    (an instant win), ``error``, ``attention``, ``scored``, ``game-over``.

    >>> buzzer = TableBuzzer(9)            # doctest: +SKIP
    >>> buzzer.play("seven-bells")         # doctest: +SKIP

    :param pin: the GPIO (BCM) pin wired to the transistor's base resistor.
    :param active_high: False if the buzzer sounds when the pin is low.
    :param pin_factory: gpiozero pin factory (tests pass a ``MockFactory``).
    """

    def __init__(self, pin: int, *, active_high: bool = True, pin_factory=None):
        super().__init__(pin, active_high=active_high, pin_factory=pin_factory)
        self.last_pattern: str | None = None

    def play(self, pattern: str) -> None:
        """Start ``pattern`` in the background (replacing one already playing)."""
        if pattern not in BUZZER_PATTERNS:
            raise ValueError(f"unknown sound {pattern!r}; one of {', '.join(BUZZER_PATTERNS)}")
        on_time, off_time, repeats = BUZZER_PATTERNS[pattern]
        self.last_pattern = pattern
        self.beep(on_time=on_time, off_time=off_time or 0.01, n=repeats, background=True)


# -- buttons and the knob ----------------------------------------------------------------------

SCORE, UNDO, NEXT, TURN_LEFT, TURN_RIGHT, PUSH = "score", "undo", "next", "left", "right", "push"


class TableControls:
    """The three buttons (Score, Undo, Next) and the menu knob (a rotary encoder with push).

    Wire each push button between its GPIO pin and ground (the Pi's internal pull-up
    keeps the pin high until pressed). Wire the encoder's CLK (A) and DT (B) pins to two
    GPIO pins, its SW (push) pin to a third, and its GND to ground; leave its + pin
    unconnected (the internal pull-ups are enough) or connect it to 3.3 V, never 5 V.

    Every press or click calls ``on_command`` with one of ``"score"``, ``"undo"``,
    ``"next"``, ``"left"``, ``"right"`` (one detent of the knob) or ``"push"``.

    >>> controls = TableControls(score=5, undo=6, next=16, knob_a=20, knob_b=21, knob_push=26,
    ...                          on_command=print)   # doctest: +SKIP

    :param score, undo, next: GPIO (BCM) pins of the three buttons.
    :param knob_a, knob_b, knob_push: the encoder's CLK, DT and SW pins.
    :param on_command: called with the command name, from gpiozero's event thread.
    :param bounce_time: seconds of switch bounce to ignore on the buttons.
    :param pin_factory: gpiozero pin factory (tests pass a ``MockFactory``).
    """

    def __init__(self, *, score: int, undo: int, next: int, knob_a: int, knob_b: int, knob_push: int,
                 on_command: Callable[[str], None], bounce_time: float | None = 0.05, pin_factory=None):
        self.on_command = on_command
        self.buttons = {
            SCORE: Button(score, bounce_time=bounce_time, pin_factory=pin_factory),
            UNDO: Button(undo, bounce_time=bounce_time, pin_factory=pin_factory),
            NEXT: Button(next, bounce_time=bounce_time, pin_factory=pin_factory),
            PUSH: Button(knob_push, bounce_time=bounce_time, pin_factory=pin_factory),
        }
        for name, button in self.buttons.items():
            button.when_pressed = self._sender(name)
        self.knob = RotaryEncoder(knob_a, knob_b, max_steps=0, pin_factory=pin_factory)
        self.knob.when_rotated_clockwise = self._sender(TURN_RIGHT)
        self.knob.when_rotated_counter_clockwise = self._sender(TURN_LEFT)

    def _sender(self, name: str) -> Callable[[], None]:
        def send(*_device: Any) -> None:
            self.on_command(name)
        return send

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.knob.close()


# -- the pin map -------------------------------------------------------------------------------

def pins_for(path: Path | str | None = None) -> Pins:
    """The checked pin map (default hardware/pins.toml); see :mod:`host.pins`."""
    return load_pins(Path(path) if path is not None else pins_file())


def make_bar(pins: Pins, *, pin_factory=None):
    """The roll bar the pin map describes: through 74HC595s or straight on GPIOs."""
    bar = pins.roll_bar
    if bar.driver == "74hc595":
        return ShiftRegisterBar(data=bar.data, clock=bar.clock, latch=bar.latch, length=bar.length,
                                pin_factory=pin_factory)
    return RollBar(*bar.segments, pin_factory=pin_factory)


class TableDevices:
    """Everything on the GPIO header, built from the pin map, closed together.

    >>> devices = TableDevices(pins_for(), on_command=print)   # doctest: +SKIP
    >>> devices.light.show("waiting"); devices.bar.show_roll(1)  # doctest: +SKIP
    """

    def __init__(self, pins: Pins, *, on_command: Callable[[str], None], pin_factory=None):
        self.pins = pins
        made: list[Any] = []
        try:
            self.light = StatusLight(*pins.status_light, active_high=pins.status_active_high, pin_factory=pin_factory)
            made.append(self.light)
            self.bar = make_bar(pins, pin_factory=pin_factory)
            made.append(self.bar)
            self.buzzer = TableBuzzer(pins.buzzer, active_high=pins.buzzer_active_high, pin_factory=pin_factory)
            made.append(self.buzzer)
            self.controls = TableControls(score=pins.score, undo=pins.undo, next=pins.next, knob_a=pins.knob_a,
                                          knob_b=pins.knob_b, knob_push=pins.knob_push,
                                          on_command=on_command, pin_factory=pin_factory)
        except Exception:
            for device in made:
                device.close()
            raise

    def off(self) -> None:
        """All lights and sound off (shutdown)."""
        self.light.off()
        self.light.state = OFF
        self.bar.off()
        self.buzzer.off()

    def close(self) -> None:
        self.off()
        for device in (self.controls, self.buzzer, self.bar, self.light):
            device.close()
