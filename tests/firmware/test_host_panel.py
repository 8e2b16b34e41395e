"""host/panel.py against the real firmware logic, over real serial ports.

* end to end over a pty pair: the host's SerialPanel opens the pty with pyserial; the
  firmware's PanelApp (firmware/dwpanel) serves the other end;
* unplug and replug: the pty vanishes, the host backs off, a new one appears, the panel
  gets the current screen and lights again;
* pyserial's own ``loop://`` port for what the host does with garbage.
"""
from __future__ import annotations

import io

import pytest
import serial

from dwpanel import protocol
from dwpanel.layout import layout, waiting_screen
from panel_helpers import Clock, PtyPanel
from host.panel import (BACKOFF_MAX, PanelSpec, SerialPanel, open_panel, parse_panel_spec, screen_body)
from host.presenters import DieView, Screen, Status


@pytest.fixture
def clock():
    return Clock()


def exchange(host, pico, clock, turns=4, step=0.05):
    for _ in range(turns):
        host.tick()
        pico.pump()
        clock.now += step
    host.tick()


SCREEN = Screen(kind="roll", title="Ann: roll 2 of 3",
                dice=(DieView("BELL", kept=True, locked=True), DieView("GIFT", flagged=True), DieView("MILK")),
                lines=("2 BELL kept", "GIFT: check it"), total="6 points", footer="Score to end the turn")


def test_end_to_end_over_a_pty(clock):
    pico = PtyPanel(clock)
    commands = []
    host = SerialPanel(PanelSpec(port=pico.path), on_command=commands.append, clock=clock)
    try:
        exchange(host, pico, clock)
        assert host.connected and host.panel_info["pixels"] == 12 and host.panel_info["protocol"] == 1
        host.status(Status(light="moving", bar=2))
        host.show(SCREEN)
        exchange(host, pico, clock)
        assert pico.app.light == "moving" and pico.app.bar == 2
        assert pico.app.take_screen() == layout(screen_body(SCREEN))
        assert host.errors_from_panel == []
        pico.press("score")
        pico.press("next", held_ms=1000)      # long press of Next: the menu
        pico.turn(+2)
        pico.turn(-1)
        exchange(host, pico, clock)
        assert commands == ["score", "push", "right", "right", "left"]
        # heartbeats both ways keep the link up through a quiet spell
        for _ in range(100):
            clock.now += 0.1
            host.tick()
            pico.pump()
        assert host.connected and pico.app.host_alive(clock.ms())
    finally:
        host.close()
        pico.unplug()


def test_unplug_and_replug(clock):
    pico = PtyPanel(clock)
    where = {"path": pico.path}
    host = SerialPanel(PanelSpec(vid=0x2E8A, pid=0x0005), on_command=lambda c: None, clock=clock,
                       finder=lambda spec: where["path"])
    try:
        exchange(host, pico, clock)
        host.status(Status(light="attention", bar=3, sound="attention"))
        host.show(SCREEN)
        exchange(host, pico, clock)
        assert host.connected
        pico.unplug()
        where["path"] = None                   # the cable is out
        host.status(Status(light="read-ok", bar=3, sound="scored"))   # the game goes on meanwhile
        for _ in range(40):
            clock.now += 0.25
            host.tick()
        assert not host.connected and host.backoff == BACKOFF_MAX
        pico = PtyPanel(clock)                 # plugged in again (a new /dev/ttyACM*)
        where["path"] = pico.path
        clock.now += BACKOFF_MAX
        exchange(host, pico, clock)
        assert host.connected and host.connects == 2
        assert pico.app.light == "read-ok" and pico.app.bar == 3      # the latest state, not the old one
        assert pico.app.effect is None                                 # and no sound played again
        assert pico.app.take_screen() == layout(screen_body(SCREEN))
    finally:
        host.close()
        pico.unplug()


def test_silent_panel_is_dropped_and_retried(clock):
    pico = PtyPanel(clock)
    host = SerialPanel(PanelSpec(port=pico.path), on_command=lambda c: None, clock=clock)
    try:
        exchange(host, pico, clock)
        assert host.connected
        for _ in range(40):                    # the Pico hangs: no more heartbeats
            clock.now += 0.1
            host.tick()
        assert host.losses == 1
        clock.now += 1
        exchange(host, pico, clock)
        assert host.connected and host.connects == 2 and host.panel_info
    finally:
        host.close()
        pico.unplug()


def test_missing_panel_does_not_stop_anything(clock):
    host = SerialPanel(PanelSpec(port="/dev/does-not-exist"), on_command=lambda c: None, clock=clock)
    host.status(Status())
    host.show(SCREEN)
    waits = []
    for _ in range(6):
        host.tick()
        waits.append(host.next_attempt - clock.now)
        clock.now += 10
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert not host.connected


def test_open_panel_for_run(monkeypatch):
    panel = open_panel("serial:/dev/does-not-exist", on_command=lambda c: None)
    assert not panel.connected and panel.spec.port == "/dev/does-not-exist"
    with pytest.raises(ValueError, match="expected"):
        open_panel("bluetooth", on_command=lambda c: None)


def test_loop_port_garbage_never_crashes(clock):
    """pyserial's loop:// port: what the host writes comes back to it, plus any garbage."""
    port = serial.serial_for_url("loop://", timeout=0)
    host = SerialPanel(PanelSpec(port="loop://"), on_command=lambda c: None, clock=clock,
                       opener=lambda name: port)
    host.tick()                                   # connects, sends hello (which comes back)
    port.write(b"\x00\xff garbage\n" + b"x" * 3000 + b"\nDW1 1 button {\"name\":\"fly\"}*0000\n")
    for _ in range(5):
        host.tick()
        clock.now += 0.01
    assert host.connected
    host.status(Status(light="disco", bar=-4, sound="trumpet"))   # out-of-vocabulary status is made safe
    host.tick()
    assert host.connected


@pytest.mark.parametrize("text,expected", [
    ("auto", PanelSpec(vid=0x2E8A, pid=0x0005)),
    ("usb:2e8a", PanelSpec(vid=0x2E8A)),
    ("usb:2E8A:000A", PanelSpec(vid=0x2E8A, pid=0x000A)),
    ("serial:/dev/ttyACM1", PanelSpec(port="/dev/ttyACM1")),
    ("/dev/ttyACM0", PanelSpec(port="/dev/ttyACM0")),
    ("socket://pi.local:7777", PanelSpec(port="socket://pi.local:7777")),
])
def test_parse_panel_spec(text, expected):
    assert parse_panel_spec(text) == expected


@pytest.mark.parametrize("text", ["", "usb:", "usb:zz", "usb:1:2:3", "usb:12345", "serial:", "ttyACM0"])
def test_parse_panel_spec_errors(text):
    with pytest.raises(ValueError, match="expected"):
        parse_panel_spec(text)


def test_screen_body_always_fits_a_line():
    huge = Screen(kind="scoreboard", title="T" * 200, table=tuple(("name" * 10, "99" * 10, "x", "y", "z") for _ in range(30)),
                  lines=tuple("line " * 40 for _ in range(30)), highlight=2)
    body = screen_body(huge)
    assert len(protocol.encode(65535, "screen", body)) <= protocol.MAX_LINE
    assert body["rows"] and body["highlight"] == 2
    assert screen_body(Screen(kind="prompt", title="Check die 3")) == {"kind": "prompt", "title": "Check die 3", "lines": []}
    assert waiting_screen("x")   # the panel's own idle screen exists


def test_an_old_firmware_is_reported(clock, caplog):
    port = serial.serial_for_url("loop://", timeout=0)
    host = SerialPanel(PanelSpec(port="loop://"), on_command=lambda c: None, clock=clock, opener=lambda name: port)
    host.tick()
    port.write(protocol.encode(0, "hello", {"panel": "dicewatch-panel", "firmware": "0.0.1", "protocol": 2}))
    host.tick()
    assert host.panel_info["protocol"] == 2
    assert "update the firmware" in caplog.text


def test_panel_command_exercises_a_real_panel(clock):
    import io

    from host.commands.panel import TEST_SCREEN, exercise

    pico = PtyPanel(clock)
    seen = []
    host = SerialPanel(PanelSpec(port=pico.path), on_command=seen.append, clock=clock)
    out = io.StringIO()
    pressed = []

    def sleep(seconds):
        clock.now += seconds
        pico.pump()
        if pico.app.messages > 3 and not pressed:
            pico.press("undo")
            pressed.append(True)

    try:
        assert exercise(host, seconds=11, clock=clock, sleep=sleep, out=out) == 0
        pico.pump()
    finally:
        pico.unplug()
    text = out.getvalue()
    assert "firmware 0.1.0, protocol 1, 12 pixels, e-ink yes" in text
    for light in ("waiting", "moving", "read-ok", "attention", "fault"):
        assert f"lights: {light}" in text
    assert seen == ["undo"] and pico.app.light == "off"
    assert pico.app.take_screen() == layout(screen_body(TEST_SCREEN))


def test_panel_command_without_a_panel(clock, capsys):
    from host.commands.panel import exercise
    host = SerialPanel(PanelSpec(port="/dev/does-not-exist"), on_command=lambda c: None, clock=clock)

    def sleep(seconds):
        clock.now += seconds

    assert exercise(host, seconds=2, clock=clock, sleep=sleep) == 1
    assert "no panel answered at /dev/does-not-exist" in capsys.readouterr().err


def test_panel_command_usage_errors(capsys):
    from host.cli import main
    assert main(["panel", "--panel", "bluetooth"]) == 2
    assert "expected" in capsys.readouterr().err
    assert main(["panel", "--seconds", "0"]) == 2


def test_a_port_that_echoes_is_not_taken_for_a_panel(clock, capsys):
    """A port that sends back what it is sent (pyserial's loop://, a tty left echoing, a serial
    console) hands the host its own hello: that is not a panel answering."""
    from host.commands.panel import exercise
    port = serial.serial_for_url("loop://", timeout=0)
    host = SerialPanel(PanelSpec(port="loop://"), on_command=lambda c: None, clock=clock, opener=lambda name: port)

    def sleep(seconds):
        clock.now += seconds

    out = io.StringIO()
    assert exercise(host, seconds=2, clock=clock, sleep=sleep, out=out) == 1
    assert not host.panel_info
    assert "firmware None" not in out.getvalue()
    assert "no panel answered" in capsys.readouterr().err
