"""The Dice page (/dice): face counts over every stored session (read-only, the dice thrown
only, undone throws and secrets left out), the chi-square test's p-value without scipy, and
the chart: one bar per face, each labelled with its face and count."""
from __future__ import annotations

import re
import sqlite3
import warnings

import pytest

from host.session_store import SessionStore
from host.web.app import make_app
from host.web.dice_stats import chi_square, face_counts, thrown_faces, upper_gamma_q
from rules import get_game
from tests.host.test_web import LiveTable, plugged_in  # noqa: F401 - a fixture

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.mark.parametrize("chi2, df, p", [
    (3.841, 1, 0.05), (11.07, 5, 0.05), (6.635, 1, 0.01), (15.086, 5, 0.01), (5.991, 2, 0.05),
    (124.342, 100, 0.05), (0.0, 5, 1.0), (2.0, 2, 0.36788),
])
def test_the_p_value_is_the_upper_tail_of_chi_square(chi2, df, p):
    assert upper_gamma_q(df / 2, chi2 / 2) == pytest.approx(p, abs=2e-4)


def test_a_fair_die_and_a_loaded_one():
    assert chi_square({f: 10 for f in "123456"}) == (0.0, 5, 1.0)
    chi2, df, p = chi_square({"1": 30, "2": 6, "3": 6, "4": 6, "5": 6, "6": 6})
    assert chi2 == pytest.approx(48.0) and df == 5 and p < 1e-6
    assert chi_square({"1": 0, "2": 0})[2] is None


def pig_game(store, rolls, undo_last=False):
    table = store.create(get_game("secret-pig"), {"players": ["Ann", "Ben"], "target": 100})
    table.play({"type": "lucky", "player": "Ann", "face": "5"})
    table.play({"type": "lucky", "player": "Ben", "face": "3"})
    for face in rolls:
        table.play({"type": "roll", "faces": [face]})
    if undo_last:
        table.undo()
    return table


def test_counts_over_every_stored_session_without_undone_throws_or_secrets(tmp_path):
    path = tmp_path / "s.db"
    with SessionStore(path) as store:
        pig_game(store, ["6", "6", "2", "4"])
        pig_game(store, ["6", "3", "1"], undo_last=True)      # the 1 was taken back
    before = path.read_bytes()
    sets = face_counts(path)
    assert list(sets) == ["d6-pips"]
    pips = sets["d6-pips"]
    assert pips.table() == {"1": 0, "2": 1, "3": 1, "4": 1, "5": 0, "6": 3}   # no lucky face counted
    assert pips.throws == 6 and len(pips.games) == 2
    chi2, df, p = pips.test()
    assert chi2 == pytest.approx(6.0) and df == 5 and p == pytest.approx(0.30622, abs=1e-4)
    assert path.read_bytes() == before                                       # read-only


def test_dice_left_standing_are_not_counted_as_thrown():
    game = get_game("jingle-bell-roll")
    from rules.core import Session
    session = Session(game, {"players": ["Ann", "Ben"]})
    state = session.state
    chance = game.chance(state)
    faces = ["MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL", "BELL"][:chance.total]
    assert sorted(thrown_faces(game, state, chance.with_faces(faces))) == sorted(faces)

    class Standing:
        total, standing, event = 3, ("BELL",), {"type": "roll"}
    fake = type("G", (), {"event_view": staticmethod(lambda e, v: e), "dice": "jingle-bell-roll",
                          "chance": staticmethod(lambda s, chosen=None: Standing())})
    assert sorted(thrown_faces(fake, None, {"type": "roll", "faces": ["BELL", "MILK", "BELL"]})) == ["BELL", "MILK"]


def test_the_dice_page_renders_a_chart_with_one_labelled_bar_per_face(tmp_path):
    path = tmp_path / "s.db"
    with SessionStore(path) as store:
        pig_game(store, ["6", "6", "2", "4", "1"])
    live = LiveTable(path)
    try:
        client = TestClient(make_app(live.web, loopback=True, pin=None))
        page = client.get("/dice")
        assert page.status_code == 200
        text = page.text
        assert "<h2>d6-pips</h2>" in text and "5 dice in 5 throws" in text
        svg = re.search(r"<svg.*?</svg>", text, re.S).group(0)
        assert svg.count("<rect") == 6
        labels = re.findall(r'<text[^>]*font-weight="bold"[^>]*>([^<]*)</text>', svg)
        assert labels == ["1", "2", "3", "4", "5", "6"]
        counts = re.findall(r'<text x="\d+" y="\d+" font-size="22" fill="#000">(\d+)</text>', svg)
        assert counts == ["1", "1", "0", "1", "0", "2"]
        assert "p = " in text and "degrees of freedom" in text and 'href="/dice"' in client.get("/").text
    finally:
        live.close()


def test_the_dice_page_with_no_throws_yet(tmp_path):
    live = LiveTable(tmp_path / "s.db")
    try:
        page = TestClient(make_app(live.web, loopback=True, pin=None)).get("/dice")
        assert page.status_code == 200 and "No dice thrown yet." in page.text
    finally:
        live.close()


def test_a_database_that_is_not_ours_reads_as_an_error(tmp_path):
    path = tmp_path / "x.db"
    sqlite3.connect(path).execute("CREATE TABLE other (x)").connection.commit()
    with pytest.raises(sqlite3.Error):
        face_counts(path)
