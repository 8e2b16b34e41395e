"""The table loop drives the Pico panel and takes its buttons: host/loop.py + host/panel.py
on one end of a real pty, the firmware's PanelApp on the other."""
from __future__ import annotations

import pytest

from dwpanel.layout import layout
from host.loop import TableLoop
from host.session_store import BOOKKEEPING
from host.panel import PanelSpec, SerialPanel, screen_body
from host.session_store import SessionStore
from panel_helpers import Clock, PtyPanel
from rules import get_game
from vision.roll import Die, Roll

GAME = get_game("jingle-bell-roll")
FIRST = ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]


@pytest.fixture
def table(tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    yield store.create(GAME, {"players": ["Ann", "Ben", "Cy"]})
    store.close()


def pump(loop, panel, pico, clock, turns=4):
    """The loop's turns (commands, presenters' tick) and the Pico's, interleaved."""
    for _ in range(turns):
        panel.tick()
        pico.pump()
        while not loop.commands.empty():
            loop.handle(loop.commands.get())
        clock.now += 0.05
    panel.tick()


def test_a_checked_die_corrected_from_the_panel(table):
    clock = Clock()
    pico = PtyPanel(clock)
    panel = SerialPanel(PanelSpec(port=pico.path), on_command=None, clock=clock)
    loop = TableLoop(table, presenters=[panel], ask_setup=False)
    panel.on_command = loop.post
    try:
        pump(loop, panel, pico, clock)
        loop.start()
        pump(loop, panel, pico, clock)
        assert pico.app.light == "waiting"
        read = list(FIRST)
        read[2] = "GIFT"                       # really a LIST, read with low confidence
        loop.on_read(Roll(dice=tuple(Die(face, 0.4 if i == 2 else 0.98, 20.0 * i, 10.0, 10.0, 10.0)
                                     for i, face in enumerate(read)), dice_set="jingle-bell-roll"))
        pump(loop, panel, pico, clock)
        assert pico.app.light == "attention"
        shown = pico.app.take_screen()
        assert shown == layout(screen_body(panel.last_screen))
        assert ("text", "3?") in [op[:2] for op in shown]          # die 3 is boxed for checking
        # the player turns the panel's knob to LIST and pushes it
        target = [item.value for item in loop.menu.items].index("LIST")
        pico.turn(+target)
        pico.press("push")
        pump(loop, panel, pico, clock)
        assert sorted(table.state.faces) == sorted(FIRST)
        assert [(e.kind, e.body.get("type")) for e in table.entries
                if e.body.get("type") not in BOOKKEEPING] == [("note", "correction"), ("event", "roll")]
        assert pico.app.light == "read-ok" and pico.app.bar == 1
        assert panel.errors_from_panel == []
        loop.shutdown()                        # the panel gets the sleep screen and goes dark
        assert pico.pump_until(lambda: pico.app.light == "off") and not panel.connected
        assert "asleep" in [op for op in pico.app.take_screen() if op[0] == "text"][1][1]
    finally:
        panel.close()
        pico.unplug()
