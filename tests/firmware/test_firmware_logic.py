"""The firmware's logic modules (protocol, animations, debounce, layout, app, e-ink byte
layout, board glue on fakes): every case in mp_cases.py, under CPython and under MicroPython."""
from __future__ import annotations

import pytest

import mp_cases
from mpwasm import run_cases, snapshot

CASES = dict(mp_cases.cases())


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_under_cpython(name):
    CASES[name]()


@pytest.fixture(scope="module")
def micropython_results(mount):
    before = snapshot(mount)
    results = run_cases(mount, "mp_cases", sorted(CASES))
    results["mount unchanged"] = snapshot(mount) == before
    return results


def test_micropython_wrote_nothing_to_the_mount(micropython_results):
    assert micropython_results["mount unchanged"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_under_micropython(micropython_results, name):
    assert name in micropython_results, "case did not run under MicroPython"
    status, detail = micropython_results[name]
    assert status == "PASS", f"under MicroPython:\n{detail}"
    assert "skipped" not in detail    # framebuf exists in MicroPython: the real-framebuf case must run
