"""Stored games under hostile conditions (issue 56's first class): a damaged sessions database,
a journal row that is not a JSON object, someone else's SQLite file, an export aimed at the
database it reads, a mistyped --sessions path. Each is a clear message and a non-zero exit,
never a traceback, and the box never writes into a file that is not its own."""
from __future__ import annotations

import random
import shutil
import sqlite3

import pytest

from host import cli
from host.session_log import log_folder
from host.session_store import SessionStore, StoreError
from rules import get_game

GAME = get_game("jingle-bell-roll")
ROLL = {"type": "roll", "faces": ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]}


@pytest.fixture
def stored(tmp_path):
    """A sessions database holding one game with a few events."""
    path = tmp_path / "sessions.db"
    with SessionStore(path) as store:
        for _ in range(3):
            table = store.create(GAME, {"players": ["Ann", "Ben"]})
            table.play(ROLL)
            table.note({"type": "correction", "die": 1, "read": "GIFT", "face": "MILK"})
    return path


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_someone_elses_sqlite_file_is_refused_and_left_as_it_was(tmp_path, capsys):
    other = tmp_path / "music.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE songs (title TEXT)")
    with pytest.raises(StoreError, match="an SQLite database of something else"):
        SessionStore(other)
    code, _, err = run_cli(capsys, "export", "latest", "--sessions", str(other))
    assert code == 1 and "something else (tables: songs)" in err and "Traceback" not in err
    with sqlite3.connect(other) as db:
        assert [row[0] for row in db.execute("SELECT name FROM sqlite_master")] == ["songs"]


def test_an_export_never_overwrites_the_database_it_reads(stored, capsys):
    before = stored.read_bytes()
    code, _, err = run_cli(capsys, "export", "latest", "--sessions", str(stored), "-o", str(stored))
    assert code == 2 and "is the sessions database being read" in err
    assert stored.read_bytes() == before


def test_a_mistyped_sessions_path_is_an_error_not_an_empty_list(tmp_path, capsys):
    for argv in (["export", "--list"], ["export", "latest"]):
        code, out, err = run_cli(capsys, *argv, "--sessions", str(tmp_path / "sesions.db"))
        assert code == 1 and "no such file" in err and "no sessions yet" not in out


@pytest.mark.parametrize("body, says", [("not json", "not valid JSON"), ("[1, 2]", "a JSON list, expected a JSON object"),
                                        ("42", "a JSON int, expected a JSON object")])
def test_a_journal_row_that_is_no_json_object_is_named(stored, capsys, body, says):
    with sqlite3.connect(stored) as db:
        db.execute("UPDATE journal SET body=? WHERE seq=1", (body,))
    shutil.rmtree(log_folder(stored))   # no second record to rebuild it from
    code, _, err = run_cli(capsys, "export", "latest", "--sessions", str(stored))
    assert code == 1 and "journal entry 1" in err and says in err and "Traceback" not in err
    with SessionStore(stored) as store, pytest.raises(StoreError, match="journal entry 1"):
        store.open(store.latest(), get_game)


@pytest.mark.parametrize("body, says", [("not json", "not valid JSON"), ("[1, 2]", "a JSON list, expected a JSON object")])
def test_a_journal_row_that_is_no_json_object_is_rebuilt_from_the_log(stored, capsys, body, says):
    with sqlite3.connect(stored) as db:
        db.execute("UPDATE journal SET body=? WHERE seq=1", (body,))
    code, out, err = run_cli(capsys, "export", "latest", "--sessions", str(stored))
    assert code == 0 and "journal entry 1" in err and says in err and "rebuilt" in err and "Traceback" not in err
    assert '"type": "roll"' in out or '"type":"roll"' in out
    with SessionStore(stored) as store:
        assert store.entries(store.latest())[0].body == ROLL


@pytest.mark.parametrize("with_logs", [False, True])
def test_damaged_pages_are_a_clear_message_everywhere(stored, tmp_path, capsys, with_logs):
    """Random bytes over random whole pages but the first (SQLite's header intact), several seeds.
    Without its logs the damage is a clear error; with them it is said, and repaired."""
    original = stored.read_bytes()
    said = 0
    for seed in range(5):
        damaged = bytearray(original)
        rng = random.Random(seed)
        pages = list(range(1, len(damaged) // 4096))
        for page in rng.sample(pages, max(1, len(pages) // 2)):
            damaged[page * 4096:(page + 1) * 4096] = bytes(rng.randrange(256) for _ in range(4096))
        if not with_logs:
            shutil.rmtree(log_folder(stored), ignore_errors=True)
        stored.write_bytes(bytes(damaged))
        for argv in (["export", "latest"], ["export", "--list"], ["export", "latest", "--format", "csv"]):
            code, _, err = run_cli(capsys, *argv, "--sessions", str(stored))
            assert code in (0, 1) and "Traceback" not in err, (seed, argv, err)
            if code == 1 or "damaged" in err:
                assert str(stored) in err and (code == 0) == with_logs, (seed, argv, err)
                said += 1
        try:
            with SessionStore(stored) as store:
                latest = store.latest()
                if latest is not None:
                    store.open(latest, get_game)
        except StoreError as exc:
            assert not with_logs and (str(stored) in str(exc) or "session" in str(exc))
    assert said, "the damage was never noticed: garble more of the file"
