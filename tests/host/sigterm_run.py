"""Run ``dicewatch run`` in a child process until it has drawn its first screen, then stop it
with SIGTERM the way systemd does (shared by the Jingle Bell Roll and fate end-to-end tests)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


LAUNCHER = Path(__file__).resolve().parents[2] / "dicewatch.py"


def run_then_sigterm(args: list[str], home, screens, settle: float = 1.0,
                     launcher: bool = False, until=None) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``host.cli run ARGS --display png --png-dir SCREENS``
    stopped ``settle`` seconds after its first screen (or after 60 s without one);
    ``launcher``: started as the README does, ``python3 dicewatch.py run ...``; ``until``:
    a check that must also hold before the stop (tried for up to 60 s more)."""
    start = [sys.executable, str(LAUNCHER)] if launcher else [sys.executable, "-m", "host.cli"]
    command = [*start, "run", *args, "--display", "png", "--png-dir", str(screens)]
    env = dict(os.environ, DICEWATCH_HOME=str(home))
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(screens.glob("*.png")) and child.poll() is None:
        time.sleep(0.2)
    time.sleep(settle)
    deadline = time.monotonic() + 60
    while until is not None and time.monotonic() < deadline and child.poll() is None and not until():
        time.sleep(0.2)
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=30)
    return child.returncode, out, err
