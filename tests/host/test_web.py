"""The phone page (host/web/) over HTTP: the pages, the API, the checks on every change
(same origin, the sequence number it was made on, the PIN and its rate limit), escaping,
the private links, and Secret Pig's lucky faces never reaching anything public."""
from __future__ import annotations

import json
import queue
import threading
import time
import warnings

import pytest

from host import games
from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from host.web.app import make_app
from host.web.server import parse_address, serve
from host.web.table import WebTable
from rules import get_game
from tests.games import secret_pig_table

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

EVIL = "<script>alert(1)</script>"
ORIGIN = {"origin": "http://testserver"}


@pytest.fixture(scope="module", autouse=True)
def plugged_in():
    games.add_module(secret_pig_table)
    yield


class LiveTable:
    """A Secret Pig table whose loop runs in its own thread (the store made there too), as at
    the box: the tests reach it only through the page, and ``call`` for what a player does
    at the box (run in the loop's thread)."""

    def __init__(self, path, players=("Ann", "Ben"), resume: str | None = None):
        self.resume = resume
        self.web = WebTable()
        self.links: dict[str, str] = {}
        self.screens = RecordingPresenter()
        self.calls: "queue.Queue" = queue.Queue()
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(path, list(players)), daemon=True)
        self.thread.start()
        assert self.ready.wait(30)

    def _run(self, path, players):
        with SessionStore(path) as store:
            table = store.open(self.resume, get_game) if self.resume else \
                store.create(get_game("secret-pig"), {"players": players, "target": 10})
            self.loop = TableLoop(table, presenters=[self.screens, self.web])
            self.loop.start()
            self.ready.set()
            while not self.stop.is_set():
                while not self.calls.empty():
                    fn, done = self.calls.get()
                    done.put(fn(self.loop))
                self.loop.step(look=False)
                time.sleep(0.005)
            self.loop.shutdown()

    def call(self, fn):
        done: "queue.Queue" = queue.Queue()
        self.calls.put((fn, done))
        return done.get(timeout=10)

    def events(self):
        return self.call(lambda loop: [dict(e) for e in loop.table.session.events])

    def token_of(self, player: str) -> str:
        """``player``'s private link token: the first time, their seat is taken here, as a phone
        would take it on /join."""
        if player not in self.links:
            self.links[player] = self.web.claim(player)
        return self.links[player]

    def close(self):
        self.stop.set()
        self.thread.join(10)


@pytest.fixture
def live(tmp_path):
    table = LiveTable(tmp_path / "s.db")
    yield table
    table.close()


@pytest.fixture
def client(live):
    return TestClient(make_app(live.web, loopback=True, pin=None, reply_timeout=5.0))


def seq_of(client) -> int:
    return client.get("/api/state").json()["seq"]


def pick_lucky(client, live, player: str, face: str):
    token = live.token_of(player)
    page = client.get(f"/me/{token}").text
    labels = [line.split(">", 1)[1] for line in page.split("<button name=choice value=")[1:]]
    index = next(i for i, label in enumerate(labels) if label.startswith(f"Lucky: player {player}: face {face}<"))
    return client.post(f"/me/{token}", data={"seq": seq_of(client), "choice": index}, headers=ORIGIN,
                       follow_redirects=False)


def test_the_table_page_shows_the_public_table_and_the_api_its_snapshot(live, client):
    page = client.get("/")
    assert page.status_code == 200 and "Secret Pig" in page.text
    assert "Ann: pick a lucky face" in page.text and "<td>Ann</td>" in page.text
    assert page.headers["x-frame-options"] == "DENY" and "script-src 'self'" in page.headers["content-security-policy"]
    state = client.get("/api/state").json()
    assert state["game"] == "secret-pig" and state["status"] == "Ann: pick a lucky face"
    assert state["state"] == get_game("secret-pig").view_of(live.call(lambda loop: loop.state), None)
    assert state["seq"] == 0
    for path in ("/controls", "/history", "/style.css", "/live.js"):
        assert client.get(path).status_code == 200, path


def test_a_private_choice_is_made_on_the_players_own_page_and_shown_to_them_alone(live, client):
    made = pick_lucky(client, live, "Ann", "5")
    assert made.status_code == 303, made.text
    assert live.events() == [{"type": "lucky", "player": "Ann", "face": "5"}]
    assert seq_of(client) == 1
    mine = client.get(f"/me/{live.token_of('Ann')}").text
    assert "&quot;Ann&quot;: &quot;5&quot;" in mine                         # Ann sees her lucky face
    ben = client.get(f"/me/{live.token_of('Ben')}").text
    assert "&quot;Ann&quot;: &quot;5&quot;" not in ben and "Lucky: player Ben" in ben
    assert "Lucky: player Ann" not in ben                                   # Ben cannot choose for Ann


def public_answers(client) -> dict[str, str]:
    return {path: client.get(path).text for path in
            ("/", "/api/state", "/history", "/history.jsonl", "/history.csv", "/controls", "/nowhere",
             "/me/not-a-token")}


def assert_no_lucky_face(texts: dict[str, str]) -> None:
    for path, text in texts.items():
        assert "face 5" not in text and "face 3" not in text, path
        assert '"face"' not in text and "&quot;face&quot;" not in text and '""face""' not in text, path


def test_no_public_page_api_or_file_shows_a_lucky_face_before_the_end(live, client):
    pick_lucky(client, live, "Ann", "5")
    pick_lucky(client, live, "Ben", "3")
    assert len(live.events()) == 2
    texts = public_answers(client)
    assert_no_lucky_face(texts)
    assert json.loads(texts["/api/state"])["state"]["lucky"] == {}
    lucky_lines = [json.loads(line) for line in texts["/history.jsonl"].splitlines()[1:]]
    assert lucky_lines == [{"type": "lucky", "player": "Ann"}, {"type": "lucky", "player": "Ben"}]
    # the checks can fail: the owner's page does show it, and only the owner's
    assert "&quot;Ann&quot;: &quot;5&quot;" in client.get(f"/me/{live.token_of('Ann')}").text
    assert "&quot;Ann&quot;: &quot;5&quot;" not in client.get(f"/me/{live.token_of('Ben')}").text
    # an illegal or repeated private choice is refused without naming the face
    again = client.post(f"/me/{live.token_of('Ann')}", data={"seq": seq_of(client), "choice": 0}, headers=ORIGIN)
    assert again.status_code == 400 and "face" not in again.text
    assert all("face 5" not in screen.text() for screen in live.screens.screens)


def test_a_change_on_a_stale_move_is_refused_and_one_choice_is_never_applied_twice(live, client):
    token = live.token_of("Ann")
    seq = seq_of(client)
    first = client.post(f"/me/{token}", data={"seq": seq, "choice": 0}, headers=ORIGIN, follow_redirects=False)
    second = client.post(f"/me/{token}", data={"seq": seq, "choice": 1}, headers=ORIGIN, follow_redirects=False)
    assert first.status_code == 303 and second.status_code in (400, 409)
    assert len(live.events()) == 1
    stale = client.post("/controls", data={"seq": seq, "command": "push"}, headers=ORIGIN)
    assert stale.status_code == 409 and "the table has changed since your page was loaded" in stale.text
    assert "nothing was done" in stale.text


def test_two_phones_at_once_apply_one_choice_once(live, client):
    pick_lucky(client, live, "Ann", "5")
    token = live.token_of("Ben")
    seq = seq_of(client)
    answers = []

    def choose(index):
        answers.append(client.post(f"/me/{token}", data={"seq": seq, "choice": index}, headers=ORIGIN,
                                   follow_redirects=False).status_code)

    threads = [threading.Thread(target=choose, args=(i,)) for i in (0, 1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert sorted(answers)[0] == 303 and answers.count(303) == 1, answers
    assert [e["type"] for e in live.events()] == ["lucky", "lucky"]


@pytest.mark.parametrize("headers", [{}, {"origin": "http://evil.example"}, {"referer": "http://evil.example/x"},
                                     {"origin": "null"}])
def test_a_change_from_another_site_is_refused(live, client, headers):
    answer = client.post(f"/me/{live.token_of('Ann')}", data={"seq": 0, "choice": 0}, headers=headers)
    assert answer.status_code == 403 and "not sent from this box&#x27;s own page" in answer.text
    answer = client.post("/controls", data={"seq": 0, "command": "push"}, headers=headers)
    assert answer.status_code == 403
    assert live.events() == []
    ok = client.post("/controls", data={"seq": 0, "command": "push"},
                     headers={"referer": "http://testserver/controls"}, follow_redirects=False)
    assert ok.status_code == 303


def test_the_buttons_the_knob_the_public_choices_and_a_corrected_die(live, client):
    pick_lucky(client, live, "Ann", "5")
    pick_lucky(client, live, "Ben", "3")
    assert client.post("/controls", data={"seq": seq_of(client), "command": "roll:9"}, headers=ORIGIN).status_code == 400
    typed = live.call(lambda loop: loop.handle("roll:4"))               # Ann throws a 4 at the box
    assert typed is None and live.call(lambda loop: loop.state.turn_total) == 4
    page = client.get("/")
    assert "<span class=face>4</span>" in page.text and "100% sure" in page.text
    controls = client.get("/controls").text
    assert 'name=choice value="0">Hold<' in controls
    fixed = client.post("/controls", data={"seq": seq_of(client), "die": "1", "face": "6"}, headers=ORIGIN,
                        follow_redirects=False)
    assert fixed.status_code == 303, fixed.text
    assert live.call(lambda loop: loop.state.turn_total) == 6
    held = client.post("/controls", data={"seq": seq_of(client), "choice": "0"}, headers=ORIGIN,
                       follow_redirects=False)
    assert held.status_code == 303
    assert live.call(lambda loop: loop.state.points) == (6, 0)
    history = client.get("/history").text
    assert "(undone)" in history and "took back: roll" in history      # the correction: undo and replay
    pushed = client.post("/controls", data={"seq": seq_of(client), "command": "push"}, headers=ORIGIN,
                         follow_redirects=False)
    assert pushed.status_code == 303 and live.screens.screens[-1].kind == "menu"


def test_a_refused_action_says_what_the_box_said(live, client):
    answer = client.post("/controls", data={"seq": 0, "die": "1", "face": "6"}, headers=ORIGIN)
    assert answer.status_code == 409 and "the box said" in answer.text


def test_names_players_typed_are_shown_as_text(tmp_path):
    table = LiveTable(tmp_path / "s.db", players=(EVIL, "Ben"))
    try:
        client = TestClient(make_app(table.web, loopback=True, pin=None))
        table.call(lambda loop: loop.handle("choose:" + json.dumps({"type": "lucky", "player": EVIL, "face": "2"})))
        assert len(table.events()) == 1
        for path in ("/", "/controls", "/history", f"/me/{table.token_of(EVIL)}"):
            text = client.get(path).text
            assert EVIL not in text, path
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text or path == "/controls", path
    finally:
        table.close()


def test_a_wrong_private_link_is_not_found_and_says_nothing_of_it(live, client):
    answer = client.get("/me/guessed-token-123")
    assert answer.status_code == 404 and "guessed-token-123" not in answer.text
    tokens = [live.token_of(player) for player in ("Ann", "Ben")]
    assert all(token not in text for token in tokens for text in public_answers(client).values())


def test_away_from_loopback_the_pin_is_needed_and_its_tries_are_limited(live):
    now = [0.0]
    app = make_app(live.web, loopback=False, pin="4821", clock=lambda: now[0])
    client = TestClient(app, base_url="http://192.168.1.20:8080")
    origin = {"origin": "http://192.168.1.20:8080"}
    assert client.get("/", follow_redirects=False).headers["location"] == "/pin"
    assert client.get("/api/state").status_code == 401
    link = f"/me/{live.token_of('Ann')}"
    asked = client.get(link, follow_redirects=False)
    assert asked.status_code == 303 and asked.headers["location"] == f"/pin?next={link}"
    assert f'name=next value="{link}"' in client.get(asked.headers["location"]).text
    for elsewhere in ("https://evil.example/", "//evil.example/me", "/me/x?y=<script>", "/\\evil.example"):
        assert 'name=next value="/"' in client.get("/pin", params={"next": elsewhere}).text
    for _ in range(5):
        assert client.post("/pin", data={"pin": "0000"}, headers=origin).status_code == 403
    limited = client.post("/pin", data={"pin": "4821"}, headers=origin)
    assert limited.status_code == 429 and "wait a minute" in limited.text
    assert client.get("/api/state").status_code == 401
    now[0] += 61
    entered = client.post("/pin", data={"pin": "4821", "next": link}, headers=origin, follow_redirects=False)
    assert entered.status_code == 303 and "dicewatch_pass" in entered.headers["set-cookie"]
    assert entered.headers["location"] == link                      # back to the page the phone asked for
    assert "httponly" in entered.headers["set-cookie"].lower()
    assert client.get("/api/state").status_code == 200
    assert client.get("/pin", params={"next": link}, follow_redirects=False).headers["location"] == link
    away = TestClient(app, base_url="http://192.168.1.20:8080")
    sent_off = away.post("/pin", data={"pin": "4821", "next": "//evil.example/"}, headers=origin, follow_redirects=False)
    assert sent_off.headers["location"] == "/"
    other = TestClient(app, base_url="http://192.168.1.20:8080", cookies={"dicewatch_pass": "made-up"})
    assert other.get("/api/state").status_code == 401


def test_wrong_private_links_are_rate_limited_too(live, client):
    for _ in range(5):
        assert client.get("/me/nope").status_code == 404
    assert client.get(f"/me/{live.token_of('Ann')}").status_code == 429


def test_on_loopback_a_foreign_host_name_is_refused(live, client):
    assert client.get("/api/state", headers={"host": "evil.example"}).status_code == 403


@pytest.mark.parametrize("text, expected", [("8080", ("127.0.0.1", 8080)), ("0.0.0.0:80", ("0.0.0.0", 80)),
                                            ("[::1]:8080", ("::1", 8080)), ("localhost:0", ("localhost", 0))])
def test_web_addresses(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", "http", "host:", "1:2:3", "70000", "x:-1"])
def test_bad_web_addresses_say_what_was_expected(text):
    with pytest.raises(ValueError, match=r"expected \[HOST:\]PORT"):
        parse_address(text)


def test_the_event_stream_of_a_real_server_brings_each_stored_event(live):
    import httpx
    served = serve(make_app(live.web, loopback=True, pin=None), "127.0.0.1", 0)
    try:
        url = f"http://127.0.0.1:{served.port}"
        got: "queue.Queue" = queue.Queue()
        streamed: list[str] = []

        def listen():
            with httpx.stream("GET", url + "/api/events", timeout=10) as answer:
                assert answer.headers["content-type"].startswith("text/event-stream")
                kind = None
                for line in answer.iter_lines():
                    streamed.append(line)
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        got.put((kind, json.loads(line[6:])))

        threading.Thread(target=listen, daemon=True).start()
        kind, first = got.get(timeout=10)
        assert kind == "stored" and first["seq"] == 0
        live.call(lambda loop: loop.handle('choose:{"type": "lucky", "player": "Ann", "face": "5"}'))
        while True:
            kind, message = got.get(timeout=10)
            if kind == "stored":
                break
        assert message["seq"] == 1 and message["snapshot"]["state"]["lucky"] == {}
        assert "5" not in json.dumps(message["snapshot"]["state"]["lucky"])
        assert httpx.get(url + "/api/state").json()["seq"] == 1
        live.call(lambda loop: loop.handle('choose:{"type": "lucky", "player": "Ben", "face": "3"}'))
        while got.get(timeout=10)[1]["seq"] != 2:
            pass
        assert '"face"' not in "\n".join(streamed) and "Ben" in "\n".join(streamed)   # nothing of the secret
        assert httpx.put(url + "/me/" + live.token_of("Ann")).status_code == 405
        assert live.token_of("Ann") not in httpx.put(url + "/me/" + live.token_of("Ann")).text
        assert "server" not in httpx.get(url + "/api/state").headers
    finally:
        served.stop()
    assert not served.thread.is_alive()


def test_the_loop_takes_a_choice_posted_from_any_thread(tmp_path):
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(get_game("secret-pig"), {"players": ["Ann", "Ben"], "target": 10})
        screens = RecordingPresenter()
        loop = TableLoop(table, presenters=[screens])
        loop.start()
        loop.post('choose:{"type": "lucky", "player": "Ann", "face": "5"}')   # a secret one
        loop.post('choose:{"type": "hold"}')                                  # not open now
        loop.post("choose:not json")
        loop.step(look=False)
        assert table.session.events == [{"type": "lucky", "player": "Ann", "face": "5"}]
        errors = [s for s in screens.screens if s.kind == "error"]
        assert len(errors) == 2 and "not open now" in errors[0].text() and "expected choose:" in errors[1].text()
        loop.handle('choose:{"type": "lucky", "player": "Ben", "face": "3"}')
        loop.handle("roll:4")
        loop.handle('choose:{"type": "hold"}')                                # a public one, open now
        assert table.state.points == (4, 0) and table.session.events[-1] == {"type": "hold"}


def test_the_web_benchmark_runs_and_says_what_it_measured(capsys):
    from host import bench_web
    assert bench_web.main(["--events", "4"]) == 0
    printed = capsys.readouterr().out
    assert "4 events of dream-factory" in printed and "95th percentile" in printed and "MiB" in printed
