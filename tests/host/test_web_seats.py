"""The phone page's seats, resume and die sets, and the box's private screens.

* A player's private link is handed out once, to the phone that takes that seat on the Join
  page; a second phone is refused; giving the seat up kills the old link; no link is ever
  printed or shown on a public page.
* /controls resumes another unfinished game of this game, and switches the die set.
* A screen for one player's eyes (``Screen.private``) reaches the panel only: the terminal
  and the phone page get a stand-in.
* The PIN screen on the box carries the address as a QR code.
"""
from __future__ import annotations

import io
import re
import warnings

import numpy as np
import pytest

from host import games
from host.eink import render
from host.loop import TableLoop
from host.presenters import RecordingPresenter, Screen, TerminalPresenter
from host.session_store import SessionStore
from host.web.app import make_app
from host.web.table import Refused, WebTable
from rules import get_game
from rules.core import RuleError
from tests.games import secret_pig_table
from tests.host.test_web import ORIGIN, LiveTable, client, live, plugged_in, seq_of  # noqa: F401 - fixtures

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def take(client, player):
    return client.post("/join", data={"seq": seq_of(client), "player": player}, headers=ORIGIN,
                       follow_redirects=False)


def test_a_seat_is_taken_once_and_its_link_given_only_to_that_phone(live, client):
    page = client.get("/join").text
    assert "I am Ann" in page and "I am Ben" in page and "/me/" not in page
    ann = take(client, "Ann")
    link = ann.headers["location"]
    assert ann.status_code == 303 and link.startswith("/me/") and live.web.player_of(link[len("/me/"):]) == "Ann"
    again = take(client, "Ann")
    assert again.status_code == 409 and "already taken" in again.text and link not in again.text
    page = client.get("/join").text
    assert "I am Ann<" not in page and "Seats taken: Ann" in page
    assert take(client, "Zed").status_code == 409
    public = [client.get(path).text for path in ("/", "/controls", "/history", "/history.jsonl", "/join",
                                                 "/api/state")]
    assert not any(link[len("/me/"):] in text for text in public)


def test_a_seat_given_up_kills_its_link_and_can_be_taken_again(live, client):
    link = take(client, "Ben").headers["location"]
    assert client.get(link).status_code == 200
    left = client.post(link + "/leave", headers=ORIGIN)
    assert left.status_code == 200 and "no longer holds Ben&#x27;s seat" in left.text
    assert client.get(link).status_code == 404
    again = take(client, "Ben")
    assert again.status_code == 303 and again.headers["location"] != link


def test_a_seat_taken_over_from_a_lost_phone_kills_the_old_link_and_the_box_tells_the_table(live, client):
    old = take(client, "Ann").headers["location"]
    page = client.get("/join").text
    assert "I am Ann: my phone is lost" in page and "I am Ben: my phone is lost" not in page
    moved = client.post("/join", data={"seq": seq_of(client), "takeover": "Ann"}, headers=ORIGIN,
                        follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] != old
    assert client.get(old).status_code == 404 and client.get(moved.headers["location"]).status_code == 200
    live.call(lambda loop: None)   # the loop turns: the box's screen says it to everyone
    shown = live.call(lambda loop: [s.title for s in live.screens.screens])
    assert "Ann's seat moved to another phone" in shown
    free = client.post("/join", data={"seq": seq_of(client), "takeover": "Ben"}, headers=ORIGIN)
    assert free.status_code == 409 and "free" in free.text


def test_joining_needs_the_same_origin(live, client):
    refused = client.post("/join", data={"seq": seq_of(client), "player": "Ann"},
                          headers={"origin": "http://evil.example"}, follow_redirects=False)
    assert refused.status_code == 403 and ("Ann", False) in live.web.seats()


def test_new_players_make_new_seats(live, client):
    take(client, "Ann")
    live.call(lambda loop: loop.new_game({"players": ["Cy", "Dee"], "target": 10}))
    client.get("/")
    assert live.web.seats() == [("Cy", False), ("Dee", False)]


def test_the_seats_survive_a_restart_and_no_other_phone_takes_one_quietly_meanwhile(tmp_path):
    """A power cut mid-game: the box comes back on the same game with the seats it had. Ann's
    phone link works again; Ben's phone cannot take Ann's seat as if it were free (only take
    it over, which the box tells the whole table)."""
    first = LiveTable(tmp_path / "s.db")
    try:
        client = TestClient(make_app(first.web, loopback=True, pin=None, reply_timeout=5.0))
        ann_link = take(client, "Ann").headers["location"]
        session = first.call(lambda loop: loop.table.id)
    finally:
        first.close()
    kept = (tmp_path / "s.db.seats.json")
    assert kept.stat().st_mode & 0o777 == 0o600 and ann_link[len("/me/"):] not in kept.read_text()
    again = LiveTable(tmp_path / "s.db", resume=session)
    try:
        client = TestClient(make_app(again.web, loopback=True, pin=None, reply_timeout=5.0))
        assert client.get(ann_link).status_code == 200 and "Ann's own view" in client.get(ann_link).text
        assert again.web.seats() == [("Ann", True), ("Ben", False)]
        assert take(client, "Ann").status_code == 409 and take(client, "Ben").status_code == 303
    finally:
        again.close()
    other_game = LiveTable(tmp_path / "s.db")          # a new game, even with the same players: new seats
    try:
        assert other_game.web.seats() == [("Ann", False), ("Ben", False)]
        assert other_game.web.player_of(ann_link[len("/me/"):]) is None
    finally:
        other_game.close()


def test_a_seat_file_that_cannot_be_read_or_written_costs_only_the_seats(tmp_path, caplog):
    from host.web.seats import SeatBook
    path = tmp_path / "s.db.seats.json"
    path.write_text('{"version": 1, "session": "x", "seats": {"Ann": "not a hash"}}')
    book = SeatBook(path)
    book.sit("x", ["Ann", "Ben"])
    assert book.seats() == [("Ann", False), ("Ben", False)] and "cannot be read" in caplog.text
    token = book.claim("Ann")
    assert SeatBook(path)._kept("x", ["Ben", "Ann"]) == {"Ann": book.held["Ann"], "Ben": None}
    caplog.clear()
    stuck = SeatBook(tmp_path / "no-such-folder" / "s.db.seats.json")
    stuck.sit("x", ["Ann"])
    held = stuck.claim("Ann")
    stuck.leave(held)
    assert stuck.seats() == [("Ann", False)] and caplog.text.count("cannot be kept") == 1
    assert token not in caplog.text and book.held["Ann"] not in caplog.text


def test_controls_resume_another_unfinished_game(tmp_path):
    path = tmp_path / "s.db"
    with SessionStore(path) as store:
        old = store.create(get_game("secret-pig"), {"players": ["Old", "Timer"], "target": 10})
        old.play({"type": "lucky", "player": "Old", "face": "3"})
        old_id = old.id
    live = LiveTable(path)
    try:
        client = TestClient(make_app(live.web, loopback=True, pin=None, reply_timeout=5.0))
        page = client.get("/controls").text
        assert "Resume a game" in page and f'value="{old_id}"' in page and "Old, Timer" in page
        bogus = client.post("/controls/resume", data={"seq": seq_of(client), "session": "nope"}, headers=ORIGIN)
        assert bogus.status_code == 400
        done = client.post("/controls/resume", data={"seq": seq_of(client), "session": old_id}, headers=ORIGIN,
                           follow_redirects=False)
        assert done.status_code == 303, done.text
        assert live.call(lambda loop: loop.table.id) == old_id
        assert live.call(lambda loop: [dict(e) for e in loop.table.session.events]) == [
            {"type": "lucky", "player": "Old", "face": "3"}]
        assert [p for p, _ in live.web.seats()] == ["Old", "Timer"]    # the resumed game's seats
        # the game left had nothing stored: it is not kept as a resumable game
        assert "Resume a game" not in client.get("/controls").text
    finally:
        live.close()


def test_the_loop_refuses_to_resume_what_is_not_an_unfinished_game_of_this_game(tmp_path):
    games.add_module(secret_pig_table)
    with SessionStore(tmp_path / "s.db") as store:
        other = store.create(get_game("dream-factory"), {"players": ["A", "B", "C"]})
        loop = TableLoop(store.create(get_game("secret-pig"), {"players": ["Ann", "Ben"]}))
        with pytest.raises(RuleError, match="no unfinished Secret Pig game"):
            loop.resume(other.id)
        with pytest.raises(RuleError):
            loop.resume(loop.table.id)


def test_controls_switch_the_die_set_among_those_that_fit(live, client):
    used = []

    def wire(loop):
        loop.dice_sets = lambda: ["d6-pips", "my-d6"]
        loop.use_dice = lambda name: used.append(name) or f"watcher for {name}"
        loop.dice_in_use = "d6-pips"
        loop.show_home()
    live.call(wire)
    live.web._elsewhere_at = 0.0     # (the lists are looked up again at most every 2 s)
    live.call(lambda loop: loop.show_home())
    page = client.get("/controls").text
    assert "Dice to use" in page and "my-d6" in page and "read with the d6-pips dice" in page
    assert client.post("/controls/dice", data={"seq": seq_of(client), "dice": "yours"},
                       headers=ORIGIN).status_code == 400
    done = client.post("/controls/dice", data={"seq": seq_of(client), "dice": "my-d6"}, headers=ORIGIN,
                       follow_redirects=False)
    assert done.status_code == 303 and used == ["my-d6"]
    assert live.call(lambda loop: (loop.dice_in_use, loop.watcher)) == ("my-d6", "watcher for my-d6")


def test_a_private_screen_reaches_the_panel_only(tmp_path):
    games.add_module(secret_pig_table)
    out = io.StringIO()
    panel, web = RecordingPresenter(), WebTable()
    with SessionStore(tmp_path / "s.db") as store:
        loop = TableLoop(store.create(get_game("secret-pig"), {"players": ["Ann", "Ben"]}),
                         presenters=[panel, web, TerminalPresenter(out)])
        loop.start()
        loop.show(Screen("prompt", title="Ann: your lucky face is 5", private="Ann"))
        assert panel.screens[-1].title == "Ann: your lucky face is 5"
        assert "Ann is looking at the box" in out.getvalue() and "lucky face is 5" not in out.getvalue()
        assert web.seen().screen.title == "Ann is looking at the box"


def test_the_pin_screen_carries_the_address_as_a_qr_code():
    url = "http://192.168.1.20:8080/"
    with_code = np.array(render(Screen("prompt", title="Phone page", lines=(url, "PIN 1234"), qr=url), (400, 300)))
    without = np.array(render(Screen("prompt", title="Phone page", lines=(url, "PIN 1234")), (400, 300)))
    right = slice(220, 400)
    assert (with_code[:, right] == 1).sum() > 5 * (without[:, right] == 1).sum()   # black modules on the right
    cv2 = pytest.importorskip("cv2")
    image = np.where(with_code == 1, 0, 255).astype(np.uint8)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(cv2.copyMakeBorder(image, 20, 20, 20, 20, cv2.BORDER_CONSTANT,
                                                                         value=255))
    assert text == url
