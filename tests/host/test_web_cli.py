"""``--web`` on the command line: ``dicewatch demo --web PORT --pace 0`` plays Secret Pig while
serving the phone page, keeps serving the finished game, and stops cleanly on SIGTERM; a bad
``--web`` or ``--pace`` is a usage error naming what was expected."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


def take_seat(url: str, player: str) -> str:
    """Take ``player``'s seat on the Join page, as their phone would: their private link."""
    seq = re.search(r'name=seq value="(\d+)"', httpx.get(url + "join", timeout=10).text).group(1)
    taken = httpx.post(url + "join", data={"seq": seq, "player": player}, headers={"origin": url.rstrip("/")},
                       timeout=10)
    assert taken.status_code == 303, taken.text
    return url + taken.headers["location"].lstrip("/")


def printed_until(stream, text: str) -> str:
    """What a process printed on ``stream`` up to the first line holding ``text`` (or its end)."""
    lines = []
    for line in stream:
        lines.append(line)
        if text in line:
            break
    return "".join(lines)


def run_with_the_page(home: Path, *args: str) -> tuple[subprocess.Popen, str]:
    """``dicewatch run`` of Secret Pig serving the phone page (``--web`` and more in ``args``),
    and what it printed up to where the players take their seats."""
    process = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--game", "secret-pig", "--players", "Ann,Ben",
                                "--no-gpio", "--display", "none", "--camera", "synthetic", *args],
                               cwd=ROOT, env=environment(home), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    return process, printed_until(process.stderr, "their own seat")


def environment(home: Path) -> dict:
    return {**os.environ, "DICEWATCH_GAMES": "tests.games.secret_pig_table", "DICEWATCH_HOME": str(home),
            "PYTHONPATH": str(ROOT)}


def test_the_demo_serves_the_game_and_then_the_finished_game_until_sigterm(tmp_path):
    out = tmp_path / "demo"
    process = subprocess.Popen([sys.executable, "-m", "host.cli", "demo", "--game", "secret-pig", "--seed", "3",
                                "--quiet", "--out", str(out), "--web", "0", "--pace", "0"], cwd=ROOT,
                               env=environment(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        printed = printed_until(process.stdout, "serving the finished game")
        assert "serving the finished game" in printed, printed + process.stderr.read()
        url = re.search(r"the phone page is at (http://127\.0\.0\.1:\d+/)", printed).group(1)
        assert "/me/" not in printed and f"{url}join" in printed     # no private link on the terminal
        links = {player: take_seat(url, player) for player in ("Ann", "Ben")}
        assert (out / "phone-page-qr.png").stat().st_size > 0
        state = httpx.get(url + "api/state", timeout=10).json()
        assert state["over"] and "wins with" in state["status"]
        assert set(state["state"]["lucky"]) == {"Ann", "Ben"}          # over: the secrets are everyone's
        assert all(token.rsplit("/", 1)[1] not in httpx.get(url, timeout=10).text for token in links.values())
        assert httpx.get(links["Ann"], timeout=10).status_code == 200
        with httpx.stream("GET", url + "api/events", timeout=10) as events:
            data = next(line for line in events.iter_lines() if line.startswith("data: "))
        assert json.loads(data[6:])["seq"] == state["seq"] == 20
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("args, says", [
    (["demo", "--web", "nope"], "--web: expected [HOST:]PORT"),
    (["demo", "--web", "127.0.0.1:99999"], "--web: expected [HOST:]PORT"),
    (["demo", "--pace", "1"], "--pace: only with --web"),
    (["demo", "--web", "0", "--pace", "-1"], "--pace: expected seconds from 0 to 60"),
    (["run", "--web", "host:port", "--players", "Ann,Ben", "--no-gpio", "--display", "none"],
     "--web: expected [HOST:]PORT"),
])
def test_a_bad_web_address_or_pace_is_a_usage_error(tmp_path, args, says):
    result = subprocess.run([sys.executable, "-m", "host.cli", *args, "--config", str(tmp_path / "none.toml")]
                            if args[0] == "run" else [sys.executable, "-m", "host.cli", *args, "--out",
                                                      str(tmp_path / "out")],
                            cwd=ROOT, env=environment(tmp_path), capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stdout + result.stderr
    assert says in result.stderr and "Traceback" not in result.stderr


def test_run_serves_the_table_takes_a_private_choice_and_stops_on_sigterm(tmp_path):
    process, printed = run_with_the_page(tmp_path, "--quiet", "--web", "0")
    try:
        url = re.search(r"the phone page is at (http://127\.0\.0\.1:\d+/)", printed)
        assert url, printed
        url = url.group(1)
        ann = take_seat(url, "Ann")
        assert httpx.get(url + "api/state", timeout=10).json()["seq"] == 0
        page = httpx.get(ann, timeout=10).text
        index = re.findall(r'<button name=choice value="(\d+)">Lucky: player Ann: face 4<', page)[0]
        made = httpx.post(ann, data={"seq": "0", "choice": index}, headers={"origin": url.rstrip("/")}, timeout=10)
        assert made.status_code == 303, made.text
        state = httpx.get(url + "api/state", timeout=10).json()
        assert state["seq"] == 1 and state["state"]["lucky"] == {} and state["status"] == "Ben: pick a lucky face"
        assert "face 4" in httpx.get(ann, timeout=10).text or "&quot;Ann&quot;: &quot;4&quot;" in httpx.get(ann).text
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        rest = process.stderr.read()
        assert "stopped; session" in rest and "Traceback" not in rest
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_run_on_a_network_address_asks_the_pin_and_shows_it_on_the_box(tmp_path):
    process, printed = run_with_the_page(tmp_path, "--web", "0.0.0.0:0")
    try:
        found = re.search(r"the phone page is at (http://\S+/)  \(table PIN (\d{4})\)", printed)
        assert found, printed
        url, pin = found.groups()
        port = url.rsplit(":", 1)[1].rstrip("/")
        local = f"http://127.0.0.1:{port}/"
        assert httpx.get(local, timeout=10, follow_redirects=False).headers["location"] == "/pin"
        watchdog = threading.Timer(60, process.kill)     # (a box that never says it is stopped after 60 s)
        watchdog.start()
        try:
            shown = printed_until(process.stdout, f"PIN {pin}")   # the box's own screen, once it has started
        finally:
            watchdog.cancel()
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        out = shown + process.stdout.read()
        assert "Phone page" in out and url in out and f"PIN {pin}" in out, out     # the box's own screen said it
        assert out.count("Phone page") == 1
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_run_on_a_port_in_use_says_so_and_leaves_no_game(tmp_path):
    import socket
    from host.session_store import SessionStore
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "host.cli", "run", "--game", "secret-pig", "--players", "Ann,Ben",
                                 "--no-gpio", "--display", "none", "--camera", "synthetic", "--web", f"127.0.0.1:{port}"],
                                cwd=ROOT, env=environment(tmp_path), capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"cannot serve the phone page on 127.0.0.1:{port}: the port is in use" in result.stderr
    with SessionStore(tmp_path / "sessions.db") as store:
        assert store.list() == []           # the game never started: no empty session left to resume
