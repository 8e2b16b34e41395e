"""Shared test fixtures.

* Every test gets its own empty ``$DICEWATCH_HOME`` so nothing touches the real data dir.
* ``REAL_DATA`` points at ../shared/data/d6-real; tests that need it skip when it is absent.
* ``pip_models(settings)`` makes a models folder with the shipped pip networks and the given
  ``pip_reader.json`` (a dict, or text as it would be on disk), for settings tests.
"""
from __future__ import annotations

import json
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


@pytest.fixture
def pip_models(tmp_path):
    from vision import pips

    def make(settings) -> Path:
        folder = tmp_path / "pip-models"
        folder.mkdir(exist_ok=True)
        for name in ("pip_finder.onnx", "pip_faces.onnx"):
            (folder / name).write_bytes((pips.MODELS / name).read_bytes())
        text = settings if isinstance(settings, str) else json.dumps(settings)
        (folder / "pip_reader.json").write_text(text)
        return folder
    return make
