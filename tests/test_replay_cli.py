"""`dicewatch replay` and the whole 3-player game file: replayed, undone and resumed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from host import cli
from rules import get_game
from rules.core import fold, load_replay

GAME_FILE = Path(__file__).resolve().parent / "data" / "jbr-3p-game.jsonl"
JBR = get_game("jingle-bell-roll")


def replay(capsys, *args):
    code = cli.main(["replay", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_whole_game_replays_to_its_final_scoreboard(capsys):
    code, out, err = replay(capsys, GAME_FILE)
    assert code == 0, err
    assert "Game over after 5 rounds: Chris wins with 76 points" in out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("Player"))
    assert "Points" in header and "Letters" in header
    chris = next(line for line in lines if line.startswith("Chris "))
    assert "76" in chris and "50+26" in chris and "winner" in chris


def test_json_output(capsys):
    code, out, _ = replay(capsys, GAME_FILE, "--json")
    data = json.loads(out)
    assert code == 0 and data["game"] == "jingle-bell-roll" and data["state"]["over"]
    assert [p["points"] for p in data["state"]["players"]] == [76, 75, 52]
    assert data["state"]["winners"] == ["Chris"] and len(data["state"]["history"]) == 15


def test_undo_flag_shows_an_earlier_state(capsys):
    code, out, _ = replay(capsys, GAME_FILE, "--undo", "1")
    assert code == 0 and "Round 5 of 5 (December 24): Jess, roll" in out
    code, _, err = replay(capsys, GAME_FILE, "--undo", "999")
    assert code == 1 and "holds only" in err
    assert replay(capsys, GAME_FILE, "--undo", "-1")[0] == 2


def test_the_game_file_undone_step_by_step_and_resumed():
    text = GAME_FILE.read_text()
    session = load_replay(text, get_game, source=str(GAME_FILE))
    final, events = session.state, list(session.events)
    assert final.is_over and len(events) == 39
    # undo every event: each state equals the replay of the shorter file
    for kept in range(len(events) - 1, -1, -1):
        session.undo()
        if kept % 7 == 0:
            assert session.state == fold(JBR, session.setup_options, events[:kept])
    assert session.state == JBR.setup(session.setup_options)
    # resume: play the events again, save half way, reload, finish
    for event in events[:20]:
        session.play(event)
    resumed = load_replay(session.to_jsonl(), get_game)
    for event in events[20:]:
        resumed.play(event)
    assert resumed.state == final and resumed.to_jsonl() == text


def write(tmp_path, lines):
    path = tmp_path / "game.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return path


HEADER = '{"schema": 1, "game": "jingle-bell-roll", "setup": {"players": ["Ann", "Ben"]}}'
ROLL = '{"type": "roll", "faces": ["BELL", "MILK", "MILK", "MILK", "MILK", "MILK", "MILK"]}'


@pytest.mark.parametrize("lines, where, reason", [
    ([HEADER, ROLL, '{"type": "roll", "faces": ["GIFT", "MILK", "MILK", "MILK", "MILK", "MILK", "MILK"]}'],
     3, "illegal event: a BELL cannot be re-rolled without a re-roll card"),
    ([HEADER, ROLL, '{"type": "score", "uses": ["Nice List"]}'], 3, "there is no LIST die to change"),
    ([HEADER, "{not json"], 2, "not valid JSON"),
    ([HEADER, "", ROLL, '{"type": "dance"}'], 4, "unknown event type 'dance'"),
    (['{"schema": 1, "game": "jingle-bell-roll", "setup": {"players": ["Ann"]}}'], 1, "bad setup: Jingle Bell Roll is for 2 to 6"),
    (['{"schema": 7, "game": "jingle-bell-roll"}'], 1, "unsupported schema version 7"),
    (['{"schema": 1, "game": "ludo", "setup": {}}'], 1, "unknown game 'ludo'"),
    ([], 1, "the file is empty"),
    ([HEADER, "[" * 100000 + "]" * 100000], 2, "JSON nested too deeply"),
])
def test_bad_files_are_reported_with_line_and_reason(capsys, tmp_path, lines, where, reason):
    path = write(tmp_path, lines)
    code, out, err = replay(capsys, path)
    assert code == 1 and out == ""
    assert err.startswith(f"{path}:{where}: ") and reason in err
    assert "Traceback" not in err


def test_missing_and_unreadable_files(capsys, tmp_path):
    code, _, err = replay(capsys, tmp_path / "nope.jsonl")
    assert code == 1 and "no such file" in err
    binary = tmp_path / "photo.jsonl"
    binary.write_bytes(b"\xff\xd8\xff\xe0")
    code, _, err = replay(capsys, binary)
    assert code == 1 and "cannot be read" in err
