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
