"""The hostile-input corpus (tests/hostile/corpus.py) in the test suite: each fast case run
in-process through the command line must be answered clearly (a refusal with a message and
exit 1 or 2, or exit 0 for a fine input), within a time limit, never with an exception; and
the serial panel must survive any line a broken or foreign device sends. The slow cases
(those that load the dice models or a camera) run in tests/hostile/sweep.py."""
from __future__ import annotations

import random
import signal
from contextlib import contextmanager

import pytest

from host import cli
from tests.hostile.corpus import cases, materialise
from tests.hostile.sweep import judge

FAST = [case for case in cases() if not case.slow]
SECONDS = 20   # per case; the slowest fast case takes about 2 s


class TookTooLong(Exception):
    pass


@contextmanager
def time_limit(seconds: int):
    def expired(signum, frame):
        raise TookTooLong(f"no answer in {seconds} s")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("case", FAST, ids=[case.name() for case in FAST])
def test_every_bad_input_gets_a_clear_answer(case, tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("DICEWATCH_HOME", str(home))
    monkeypatch.setenv("DICEWATCH_DEBUG", "1")   # a bug raises here instead of its one line
    argv = materialise(case, tmp_path)
    with time_limit(SECONDS):
        try:
            code = cli.main(argv)
        except SystemExit as exc:   # argparse's own usage errors
            code = exc.code
    out, err = capsys.readouterr()
    assert judge(case, code, err, out) == "clear", f"exit {code}\nstdout: {out[-400:]}\nstderr: {err[-400:]}"


def test_the_corpus_covers_every_command_and_file_kind():
    kinds = {case.kind for case in cases()}
    assert {"photos", "videos", "configs", "calibrations", "layouts", "replay files", "die sets", "pin maps",
            "numbers", "sizes", "names", "outputs", "placed dice", "ignored flags"} <= kinds
    commands = {case.argv[0] for case in cases() if case.argv and case.kind != "unknown flag"}
    assert {"calibrate", "demo", "dice", "export", "geometry", "mat", "panel", "pins", "place", "read", "replay",
            "run", "score", "teach"} <= commands


def test_any_line_a_serial_device_sends_leaves_the_panel_working():
    """Random bytes, truncated and mangled protocol lines, a 100 kB line: the panel never raises
    (host/panel.py: nothing blocks and nothing raises) and only real presses become commands."""
    from host.panel import SerialPanel, parse_panel_spec, protocol

    class Port:
        def __init__(self):
            self.data = b""

        @property
        def in_waiting(self):
            return len(self.data)

        def read(self, n):
            chunk, self.data = self.data[:n], self.data[n:]
            return chunk

        def write(self, line):
            pass

        def close(self):
            pass

    rng = random.Random(56)
    lines = [b"\x00\xff\n", b"{}\n", b"[]\n", b"not json\n", b"\n" * 5, b"x" * 100_000 + b"\n",
             b'{"v": 1, "seq": 1, "kind": "button", "body": {"name": "self-destruct"}}\n']
    lines += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80))) + b"\n" for _ in range(100)]
    sender = protocol.Endpoint(0, side="panel")
    for kind, body in [("button", {"name": "score"}), ("knob", {"step": 1})]:
        good = sender.send(kind, body, 0)
        for _ in range(40):
            mangled = bytearray(good)
            mangled[rng.randrange(len(mangled) - 1)] = rng.randrange(32, 127)
            lines.append(bytes(mangled))
    commands: list[str] = []
    for line in lines:
        port = Port()
        panel = SerialPanel(parse_panel_spec("serial:/dev/panel"), on_command=commands.append,
                            opener=lambda name: port, finder=lambda spec: "/dev/panel", clock=lambda: 1.0)
        panel.tick()
        port.data = line
        panel.tick()
    assert set(commands) <= {"score", "undo", "push", "left", "right", "next"}
