"""The gpiozero devices, on gpiozero's MockFactory (fixture ``mock_factory``, reset after each test)."""
from __future__ import annotations

import time

import pytest

from host.devices import (ATTENTION, FAULT, MOVING, READ_OK, STATUS_COLOURS, WAITING, RollBar, ShiftRegisterBar,
                          StatusLight, TableBuzzer, TableControls, TableDevices, pins_for)
from host.presenters import DevicePresenter, Status


def test_status_light_colours(mock_factory):
    light = StatusLight(12, 13, 19, pin_factory=mock_factory)
    for state in (WAITING, MOVING, READ_OK):
        light.show(state)
        assert light.state == state
        assert light.value == pytest.approx(STATUS_COLOURS[state][0])
    assert mock_factory.pin(13).state == pytest.approx(1.0)  # green leg fully on for read-ok
    with pytest.raises(ValueError, match="unknown status"):
        light.show("purple")


def test_status_light_fault_blinks_red(mock_factory):
    light = StatusLight(12, 13, 19, pin_factory=mock_factory)
    light.show(FAULT)
    deadline = time.monotonic() + 2
    seen = set()
    while time.monotonic() < deadline and len(seen) < 2:
        seen.add(light.value)
        time.sleep(0.02)
    assert (1.0, 0.0, 0.0) in seen and (0.0, 0.0, 0.0) in seen  # on and off: blinking
    light.off()


def test_common_anode_inverts_the_pins(mock_factory):
    light = StatusLight(12, 13, 19, active_high=False, pin_factory=mock_factory)
    light.show(READ_OK)
    assert mock_factory.pin(13).state == pytest.approx(0.0)  # green sinks current: pin low
    assert mock_factory.pin(12).state == pytest.approx(1.0)


def test_roll_bar_on_gpios(mock_factory):
    pins = [4, 14, 15, 18, 23, 24, 25, 8, 7, 1]
    bar = RollBar(*pins, pin_factory=mock_factory)
    bar.show_roll(2)
    assert [mock_factory.pin(p).state for p in pins] == [True, True] + [False] * 8
    bar.show_snowflakes(12)  # clipped to the bar
    assert bar.lit_count == 10
    bar.off()
    assert not any(mock_factory.pin(p).state for p in pins)


def test_shift_register_bar_shifts_sixteen_bits_and_latches(mock_factory):
    bar = ShiftRegisterBar(data=20, clock=21, latch=26, pin_factory=mock_factory)
    clock, latch, data = mock_factory.pin(21), mock_factory.pin(26), mock_factory.pin(20)
    for pin in (clock, latch, data):
        pin.clear_states()
    bar.show_roll(3)
    rises = lambda pin: sum(1 for a, b in zip(pin.states, pin.states[1:]) if not a.state and b.state)  # noqa: E731
    assert rises(clock) == 16
    assert rises(latch) == 1
    # highest bit first: 13 zeros then 3 ones -> the data line goes high once and stays high
    assert [s.state for s in data.states] == [False, True]
    assert bar.lit_count == 3 and bar.value == pytest.approx(0.3)
    clock.clear_states()
    bar.show_roll(3)  # no change, nothing shifted
    assert rises(clock) == 0


def test_buzzer_patterns(mock_factory):
    buzzer = TableBuzzer(18, pin_factory=mock_factory)
    buzzer.play("error")
    time.sleep(0.05)
    assert mock_factory.pin(18).state  # sounding
    assert buzzer.last_pattern == "error"
    buzzer.off()
    with pytest.raises(ValueError, match="seven-bells"):
        buzzer.play("jingle")


def _turn(factory, a, b, clockwise: bool) -> None:
    first, second = (a, b) if clockwise else (b, a)
    for pin, level in ((first, False), (second, False), (first, True), (second, True)):
        factory.pin(pin).drive_low() if not level else factory.pin(pin).drive_high()


def test_buttons_and_knob_post_commands(mock_factory):
    got = []
    controls = TableControls(score=5, undo=6, next=16, knob_a=23, knob_b=25, knob_push=4,
                             on_command=got.append, bounce_time=None, pin_factory=mock_factory)
    for pin in (5, 6, 16, 4):
        mock_factory.pin(pin).drive_low()
        mock_factory.pin(pin).drive_high()
    _turn(mock_factory, 23, 25, clockwise=True)
    _turn(mock_factory, 23, 25, clockwise=False)
    assert got == ["score", "undo", "next", "push", "right", "left"]
    controls.close()


def test_table_devices_from_the_pin_map(mock_factory):
    got = []
    pins = pins_for()
    devices = TableDevices(pins, on_command=got.append, pin_factory=mock_factory)
    presenter = DevicePresenter(devices)
    presenter.status(Status(light=ATTENTION, bar=2, sound="attention"))
    assert devices.light.state == ATTENTION and devices.bar.lit_count == 2
    mock_factory.pin(pins.score).drive_low()
    assert got == ["score"]
    presenter.close()
    assert devices.bar.lit_count == 0 and devices.light.value == (0, 0, 0)
    devices.close()


def test_a_failing_part_releases_the_pins_already_taken(mock_factory):
    pins = pins_for()
    busy = TableBuzzer(pins.buzzer, pin_factory=mock_factory)  # taken: the light and bar are made, then it fails
    with pytest.raises(Exception):
        TableDevices(pins, on_command=print, pin_factory=mock_factory)
    busy.close()
    TableDevices(pins, on_command=print, pin_factory=mock_factory).close()  # nothing left reserved
