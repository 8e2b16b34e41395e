"""Dream Factory's and Making Christmas's scripted demos tick the loop's presenters between
moves, so a press on the phone page (taken by the WebTable at tick) is taken while they play."""
from __future__ import annotations

import threading
import time

import pytest

from host import demo_table, dream_factory_demo, making_christmas_demo
from host.session_store import UNDO
from host.web.table import WebTable


@pytest.mark.parametrize("demo", [dream_factory_demo, making_christmas_demo], ids=["dream-factory", "making-christmas"])
def test_a_phone_press_is_taken_while_the_demo_plays(tmp_path, demo):
    answers: list = []
    calls = []

    def pace(_seconds):   # in the loop's thread, once a stored event has been shown
        calls.append(1)
        if len(calls) != 5:
            return
        seq = web.seen().seq

        def phone():
            try:
                answers.append(web.submit(seq, "undo", timeout=20))
            except Exception as exc:  # noqa: BLE001 - said by the assertion
                answers.append(exc)
        threading.Thread(target=phone, daemon=True).start()
        deadline = time.monotonic() + 10
        while web._actions.empty() and time.monotonic() < deadline:
            time.sleep(0.005)

    web = WebTable(pace=1.0, sleep=pace)
    demo_table.EXTRA_PRESENTERS.append(web)
    try:
        table, _ = demo.play(seed=1, out=tmp_path, size=(250, 122), quiet=True)
    finally:
        demo_table.EXTRA_PRESENTERS.remove(web)
    assert len(answers) == 1 and isinstance(answers[0], int), answers
    assert any(entry.kind == UNDO for entry in table.entries)
    assert table.game.is_over(table.state)


def test_on_a_network_address_the_box_shows_the_page_address_and_pin_once(tmp_path):
    from host.presenters import RecordingPresenter
    web = WebTable(pace=0.0)
    web.greet("http://192.0.2.7:8080/", "1234")     # what start() does when the page is not on loopback
    demo_table.EXTRA_PRESENTERS.append(web)
    try:
        _, loop = dream_factory_demo.play(seed=1, out=tmp_path, size=(250, 122), quiet=True)
    finally:
        demo_table.EXTRA_PRESENTERS.remove(web)
    recorder = next(p for p in loop.presenters if isinstance(p, RecordingPresenter))
    shown = [s for s in recorder.screens if s.title == "Phone page"]
    assert len(shown) == 1 and shown[0].lines == ("http://192.0.2.7:8080/", "PIN 1234")
    assert recorder.screens.index(shown[0]) > 0                    # after the game's first screen, not lost under it
