"""host/keys.py: the terminal as the box's buttons and knob for `dicewatch run`."""
from __future__ import annotations

import io
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from host.keys import HELP, TerminalKeys, commands_of_line
from host.session_store import SessionStore


@pytest.mark.parametrize("line, commands", [
    ("s\n", ["score"]), ("U", ["undo"]), (" n ", ["next"]), ("\n", ["push"]), ("p", ["push"]),
    ("<", ["left"]), (">>>", ["right"] * 3), ("<<", ["left", "left"]), ("score", ["score"]),
    ("RIGHT", ["right"]), ("face:3:MILK", ["face:3:MILK"]), ("roll:BELL,GIFT\n", ["roll:BELL,GIFT"]),
])
def test_a_typed_line_is_the_buttons_and_knob(line, commands):
    assert commands_of_line(line) == commands


@pytest.mark.parametrize("line", ["x", "<>", "scor", "1"])
def test_anything_else_says_what_was_expected(line):
    with pytest.raises(ValueError, match=rf"unknown key '{line}'; keys, then Enter: s Score"):
        commands_of_line(line)


def test_keys_post_in_order_and_a_wrong_key_is_answered_not_posted():
    posted, out = [], io.StringIO()
    keys = TerminalKeys(posted.append, io.StringIO("s\nbogus\n?\n>>\n\nu\n"), out)
    keys.start().thread.join(5)
    assert posted == ["score", "right", "right", "push", "undo"]
    lines = out.getvalue().splitlines()
    assert lines[0] == f"dicewatch run: {HELP}"                     # the list of keys, once at the start
    assert lines[1].startswith("dicewatch run: unknown key 'bogus'") and lines[2] == HELP


def test_run_in_a_terminal_plays_from_typed_keys(tmp_path):
    """`dicewatch run` on a machine with no buttons, started from a terminal: Enter and s choose
    the two players' character cards, as the knob's push and Score would."""
    home = tmp_path / "home"
    home.mkdir()
    main, typed = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "host.cli", "run", "--players", "Ann,Ben", "--camera", "synthetic",
         "--no-gpio", "--display", "none"],
        stdin=typed, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=dict(os.environ, DICEWATCH_HOME=str(home)), cwd=Path(__file__).resolve().parents[2])
    os.close(typed)
    seen = b""

    def wait_for(text: bytes, seconds: float = 60) -> None:
        nonlocal seen
        deadline = time.monotonic() + seconds
        while text not in seen and time.monotonic() < deadline and child.poll() is None:
            if select.select([child.stdout], [], [], 0.2)[0]:
                seen += os.read(child.stdout.fileno(), 65536)
        assert text in seen, seen.decode(errors="replace")[-2000:]

    try:
        wait_for(b"Ann: choose a character")
        os.write(main, b"\n")                        # push: the highlighted card
        wait_for(b"Ben: choose a character")
        os.write(main, b"s\n")                       # Score: the highlighted card
        wait_for(b"[scoreboard]")
    finally:
        child.send_signal(signal.SIGTERM)
        child.communicate(timeout=30)
        os.close(main)
    assert child.returncode == 0
    with SessionStore(home / "sessions.db") as store:
        session_id = store.latest("jingle-bell-roll")
        events = [e.body for e in store.entries(session_id) if e.kind == "event"]
    assert [(e["type"], e["player"]) for e in events[:2]] == [("choose_character", "Ann"), ("choose_character", "Ben")]
