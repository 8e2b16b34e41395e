"""Shared test fixtures.

* Every test gets its own empty ``$DICEWATCH_HOME`` so nothing touches the real data dir.
* ``REAL_DATA`` points at ../shared/data/d6-real; tests that need it skip when it is absent.
"""
from __future__ import annotations

from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
REAL_DATA = PROJECT_ROOT.parent / "shared" / "data" / "d6-real"


@pytest.fixture(autouse=True)
def dicewatch_home(tmp_path, monkeypatch):
    home = tmp_path / "dicewatch-home"
    home.mkdir()
    monkeypatch.setenv("DICEWATCH_HOME", str(home))
    return home


@pytest.fixture
def real_data():
    if not REAL_DATA.is_dir():
        pytest.skip(f"real photos not present at {REAL_DATA}")
    return REAL_DATA
