"""A damaged sessions database loses at most the last event, never a game (issue 56, item 2).

Every session is kept twice: the SQLite database and a checksummed log per session
(host/session_log.py). These tests garble the database (random pages, many times, several
seeds), tear the log's last line, and kill the crash child, and show that every game comes
back from the other record."""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from host import cli
from host.session_log import (AGREE, DATABASE_RIGHT, LOG_BEHIND, UNCONFIRMED, SessionLog, encode, entries_line,
                              log_folder, read_log)
from host.session_recovery import StoreBusy, check, open_checked, repair
from host.session_store import EVENT, NOTE, SessionStore, StoreError
from rules import get_game

GAME = get_game("jingle-bell-roll")
CHILD = Path(__file__).with_name("crash_child.py")
PAGE = 4096
FACES = ("MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL")


def roll(rng: random.Random, state) -> dict:
    """A legal throw: BELLS stay standing after the first roll of a turn."""
    before = list(state.faces) if state.roll_number else [None] * 7
    faces = [face if face == "BELL" else rng.choice(FACES) for face in before]
    if faces == before:
        faces[before.index(next(f for f in before if f != "BELL"))] = "GIFT" if "GIFT" not in before else "LIST"
    return {"type": "roll", "faces": faces}


def fill(path: Path, games: int = 3, batches: int = 12, seed: int = 0) -> dict[str, list]:
    """A small sessions database: ``games`` games of ``batches`` stored batches each (a roll with
    a note padded to spread the rows over several pages, or an undo). Returns each
    session's journal as (seq, kind, body) tuples."""
    rng = random.Random(seed)
    with SessionStore(path) as store:
        for g in range(games):
            table = store.create(GAME, {"players": ["Ann", "Ben", f"P{g}"]})
            for b in range(batches):
                if table.state.roll_number == 3 or (b % 5 == 4 and table.session.events):
                    table.undo()
                else:
                    table.record([(EVENT, roll(rng, table.state)), (NOTE, {"type": "dice-places", "pad": "x" * rng.randrange(300)})])
            if g == 0:
                table.close()
        return {info.id: journal(store, info.id) for info in store.list()}


def journal(store: SessionStore, session_id: str) -> list[tuple]:
    return [(e.seq, e.kind, e.body) for e in store.entries(session_id)]


def garble(path: Path, rng: random.Random) -> list[int]:
    """Random bytes over 1 to half of the file's pages (page 0, SQLite's header, now and then)."""
    data = bytearray(path.read_bytes())
    pages = len(data) // PAGE
    hit = rng.sample(range(pages), rng.randint(1, max(1, pages // 2)))
    for page in hit:
        data[page * PAGE:(page + 1) * PAGE] = rng.randbytes(PAGE)
    path.write_bytes(bytes(data))
    return hit


@pytest.fixture
def stored(tmp_path):
    path = tmp_path / "sessions.db"
    return path, fill(path)


def test_every_write_reaches_both_records(stored):
    path, games = stored
    found = check(path)
    assert found.problem is None and found.clean
    assert [s.verdict for s in found.sessions] == [AGREE] * 3
    for state in found.sessions:
        assert [(e.seq, e.kind, e.body) for e in state.log.record.entries] == games[state.id]
    assert sum(s.log.record.closed is not None for s in found.sessions) == 1


@pytest.mark.parametrize("seed", range(4))
def test_garbled_pages_many_times_every_game_recovered(tmp_path, seed):
    """Garble random pages of a small database 12 times per seed; each time the repair rebuilds
    every game, missing at most its last event, and keeps the damaged file."""
    path = tmp_path / "sessions.db"
    games = fill(path, games=3, batches=10 + seed, seed=seed)
    pristine = path.read_bytes()
    rng = random.Random(1000 + seed)
    noticed = 0
    for trial in range(12):
        for old in tmp_path.glob("sessions.db*"):
            if old.is_file():
                old.unlink()
        path.write_bytes(pristine)
        hit = garble(path, rng)
        found = repair(path)
        noticed += found.damaged
        with SessionStore(path) as store:
            assert {info.id for info in store.list()} == set(games), (seed, trial, hit)
            for sid, entries in games.items():
                got = journal(store, sid)
                assert got == entries[:len(got)] and len(got) >= len(entries) - 1, (seed, trial, hit, sid)
                store.open(sid, get_game)   # and it replays through the rules
        assert check(path).clean
        if found.damaged:
            assert list(tmp_path.glob("sessions.db.damaged-*")), "the damaged file was not kept"
    assert noticed >= 6, f"only {noticed} of 12 garblings were noticed: garble more"


def test_a_database_garbled_while_the_box_runs_is_refused_not_repaired(stored):
    path, _ = stored
    garble(path, random.Random(3))
    with SessionStore(path):    # a box holding the store open
        with pytest.raises(StoreBusy, match="in use by a running dicewatch"):
            repair(path)
        with pytest.raises(StoreError, match="damaged .* sessions check --repair"):
            open_checked(path, print)


def test_a_torn_last_log_line_is_dropped_and_the_log_written_again(stored):
    path, games = stored
    sid = next(iter(games))
    log = SessionLog(log_folder(path)).path(sid)
    whole = read_log(log)
    line = encode(entries_line(whole.record.entries[-1:]))
    with open(log, "ab") as out:
        out.write(line[:len(line) // 2])   # a kill in the middle of a write
    torn = read_log(log)
    assert torn.torn and torn.record == whole.record and torn.damaged_at is None
    assert {s.id: s.verdict for s in check(path).sessions}[sid] == LOG_BEHIND
    with SessionStore(path) as store:   # the next write puts the log right first, then appends
        store.open(sid, get_game).note({"type": "after-the-tear"})
    after = read_log(log)
    assert not after.torn and after.record.entries[-1].body == {"type": "after-the-tear"}
    assert check(path).clean


def test_a_torn_last_batch_is_the_only_thing_lost_when_the_database_is_gone(stored):
    path, games = stored
    sid = next(iter(games))
    log = SessionLog(log_folder(path)).path(sid)
    data = log.read_bytes()
    log.write_bytes(data[:data.rstrip(b"\n").rfind(b"\n") + 1 + 40])   # the last line cut after 40 bytes
    path.write_bytes(b"")    # and the database lost
    found = repair(path)
    assert found.damaged
    with SessionStore(path) as store:
        got = journal(store, sid)
        last_batch = len(read_log(log).record.entries)
        assert got == games[sid][:len(got)] and len(got) == last_batch < len(games[sid])
        for other in set(games) - {sid}:
            assert journal(store, other) == games[other]


def test_a_damaged_log_line_is_kept_aside_and_the_log_rebuilt_from_the_database(stored):
    path, games = stored
    sid = list(games)[1]
    log = SessionLog(log_folder(path)).path(sid)
    lines = log.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"roll", b"rolL")   # a bit flipped in the middle of the file
    log.write_bytes(b"\n".join(lines))
    reading = read_log(log)
    assert reading.damaged_at == 3 and "line 3 is damaged" in reading.problems[0]
    found = repair(path)
    assert not found.damaged and any("damaged session log" in line for line in found.done)
    assert list(log.parent.glob(f"{log.name}.damaged-*")) and check(path).clean


def test_a_database_from_before_the_logs_gets_them(stored):
    path, games = stored
    shutil.rmtree(log_folder(path))
    found = check(path)
    assert not found.damaged and {s.verdict for s in found.sessions} == {LOG_BEHIND}
    with open_checked(path, print) as store:
        assert len(store.list()) == 3
    assert check(path).clean


# -- the command ---------------------------------------------------------------------------------
def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_sessions_check_reports_repairs_and_exits_as_documented(stored, capsys, tmp_path):
    path, games = stored
    code, out, _ = run_cli(capsys, "sessions", "check", "--sessions", str(path))
    assert code == 0 and "reads and checks out" in out and out.count(": agree (") == 3
    garble(path, random.Random(7))
    code, out, err = run_cli(capsys, "sessions", "check", "--sessions", str(path))
    assert code == 3 and "damaged" in out.lower() and "--repair" in err
    code, out, err = run_cli(capsys, "sessions", "check", "--sessions", str(path), "--repair")
    assert code == 0 and "rebuilt" in out and "both records agree now" in out, err
    code, out, _ = run_cli(capsys, "sessions", "list", "--sessions", str(path))
    assert code == 0 and len(out.strip().splitlines()) == 3
    for argv, says in ((["--sessions", str(tmp_path / "nope.db")], "no such file"),
                       (["--sessions", str(tmp_path)], "is a folder")):
        code, _, err = run_cli(capsys, "sessions", "check", *argv)
        assert code == 1 and says in err and "Traceback" not in err
    other = tmp_path / "music.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE songs (title TEXT)")
    code, _, err = run_cli(capsys, "sessions", "check", "--sessions", str(other), "--repair")
    assert code == 1 and "something else" in err and not log_folder(other).exists()


def test_run_resume_recovers_a_damaged_database(tmp_path, monkeypatch, capsys):
    from host.commands import run
    monkeypatch.setenv("DICEWATCH_HOME", str(tmp_path))
    path = tmp_path / "sessions.db"
    games = fill(path)
    garble(path, random.Random(11))
    args = argparse.Namespace(game=None, resume="latest", players=None)
    monkeypatch.setattr(run.games, "check_setup_flags", lambda *a: None)
    store, _, table, setup = run.open_table(args, {}, None)
    try:
        assert setup is None and journal(store, table.id) == games[table.id]
    finally:
        store.close()
    err = capsys.readouterr().err
    assert f"{path} was damaged" in err and "rebuilt" in err and "kept as sessions.db.damaged-" in err


# -- the crash child writes both records ----------------------------------------------------------
@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_the_crash_childs_game_is_in_both_records_even_when_killed(tmp_path):
    db = tmp_path / "sessions.db"
    child = subprocess.Popen([sys.executable, str(CHILD), str(db), "5", "0.02"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stderr.readline().strip() == "ready"
    time.sleep(0.4)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    found = check(db)
    assert not found.damaged and all(s.verdict in DATABASE_RIGHT for s in found.sessions)
    assert len(found.sessions) == 1 and found.sessions[0].log.record.entries, "killed before anything was stored"
    done = subprocess.run([sys.executable, str(CHILD), str(db), "5", "0"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = check(db)
    assert found.clean and [s.verdict for s in found.sessions] == [AGREE]
    assert found.sessions[0].log.record == found.sessions[0].database   # header, every entry, closed
    # the log alone rebuilds the very game the child printed
    db.unlink()
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    assert repair(db).damaged
    with SessionStore(db) as store:
        table = store.open(store.list()[0].id, get_game)
        assert GAME.to_json(table.state) == json.loads(done.stdout.splitlines()[-1])["state"]
        assert store.list()[0].closed is not None


def test_unconfirmed_batch_in_the_log_is_dropped(stored):
    """A kill between the log line and the database commit: the log holds one batch more."""
    path, games = stored
    sid = list(games)[2]
    logs = SessionLog(log_folder(path))
    logs.append(sid, entries_line([]) | {"entries": [[len(games[sid]) + 1, "note", {"type": "never-confirmed"}, 0.0]]})
    assert {s.id: s.verdict for s in check(path).sessions}[sid] == UNCONFIRMED
    with SessionStore(path) as store:
        store.open(sid, get_game).note({"type": "confirmed"})
        assert journal(store, sid)[-1][2] == {"type": "confirmed"}
    assert check(path).clean


def test_the_check_at_start_reads_old_games_by_size_and_still_sees_rows_lost(stored):
    """run and export read the newest sessions whole, the older ones by their log's last line
    against the database's count: rows lost from an old game are seen, and rebuilt."""
    path, games = stored
    oldest = list(games)[-1]
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM journal WHERE session_id=? AND seq > 3", (oldest,))
    found = check(path, newest=1)
    assert found.damaged and {s.id: s.verdict for s in found.sessions}[oldest] not in DATABASE_RIGHT
    with open_checked(path, print) as store:
        assert journal(store, oldest) == games[oldest]


def test_the_check_at_start_leaves_an_old_logs_middle_to_sessions_check(stored):
    """The cheap check's limit, said: a damaged line in the middle of an old game's log whose
    last line is good is found by sessions check (which reads everything), not at start."""
    path, games = stored
    oldest = list(games)[-1]
    log = SessionLog(log_folder(path)).path(oldest)
    lines = log.read_bytes().split(b"\n")
    lines[1] = lines[1][:-3] + b"0}}"
    log.write_bytes(b"\n".join(lines))
    assert check(path, newest=1).clean
    full = check(path)
    assert not full.clean and not full.damaged
    repair(path)
    assert check(path).clean


def test_a_logs_last_line_is_read_from_its_end_long_or_short(tmp_path):
    from host.session_log import SessionRecord, log_tail
    from host.session_store import Entry
    logs = SessionLog(tmp_path)
    record = SessionRecord("s1", "jingle-bell-roll", {"players": ["Ann", "Ben"]}, 1.0, None,
                           (Entry(1, "note", {"pad": "x" * 10_000}, 2.0),))
    logs.rewrite(record)
    assert log_tail(logs.path("s1")).upto == 1          # a last line longer than the first read
    logs.append("s1", entries_line([Entry(2, "note", {}, 3.0)]))
    assert log_tail(logs.path("s1")).upto == 2
    with open(logs.path("s1"), "ab") as out:
        out.write(b'{"t": "entr')                          # torn
    assert log_tail(logs.path("s1")) is None


def test_a_log_folder_that_cannot_be_written_is_a_clear_error(stored, capsys):
    path, _ = stored
    shutil.rmtree(log_folder(path))
    log_folder(path).write_text("not a folder")
    code, _, err = run_cli(capsys, "sessions", "check", "--repair", "--sessions", str(path))
    assert code == 1 and f"{log_folder(path)} cannot be written" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "export", "latest", "--sessions", str(path))
    assert code == 1 and str(log_folder(path)) in err and "Traceback" not in err


def test_a_log_rewrite_killed_before_its_rename_leaves_nothing_behind(stored):
    path, games = stored
    log = SessionLog(log_folder(path)).path(next(iter(games)))
    half = log.with_name(log.name + ".tmp")
    half.write_bytes(log.read_bytes()[:100])
    found = check(path)
    assert not found.damaged and not found.clean and any(".tmp: a log rewrite" in line for line in found.lines())
    repair(path)
    assert not half.exists() and check(path).clean


def test_a_log_write_that_fails_stores_nothing_and_leaves_no_half_line(stored, monkeypatch):
    path, games = stored
    sid = next(iter(games))
    log = SessionLog(log_folder(path)).path(sid)
    before = log.read_bytes()
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, data[:len(data) // 2]))   # the disk fills up
    with SessionStore(path) as store:
        table = store.open(sid, get_game)
        with pytest.raises(StoreError, match="cannot be written"):
            table.note({"type": "lost"})
        monkeypatch.setattr(os, "write", real_write)
        assert journal(store, sid) == games[sid] and log.read_bytes() == before
        table.note({"type": "kept"})
    assert check(path).clean


def test_a_log_begun_for_a_session_never_stored_is_removed(stored):
    """A kill between a new session's first log line and its database row."""
    from host.session_log import SessionRecord
    path, games = stored
    logs = SessionLog(log_folder(path))
    logs.start(SessionRecord("20261207-0000-never", "jingle-bell-roll", {"players": ["Ann", "Ben"]}, 5.0))
    found = check(path)
    assert not found.damaged and not found.clean
    repair(path)
    assert not logs.path("20261207-0000-never").exists() and check(path).clean
    with SessionStore(path) as store:
        assert {info.id for info in store.list()} == set(games)
