"""Durable sessions: write-before-show, undo and notes in the journal, resume, list, export."""
from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest

from host import cli
from host.history import to_csv, to_jsonl
from host.session_store import SessionStore, StoreError, effective_events
from rules import get_game
from rules.core import RuleError, load_replay

GAME = get_game("jingle-bell-roll")
ROLL = {"type": "roll", "faces": ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]}
SCORE = {"type": "score", "uses": [], "gift_recipients": ["Ben"]}


@pytest.fixture
def store(tmp_path):
    with SessionStore(tmp_path / "sessions.db") as s:
        yield s


def test_database_is_wal_with_full_sync(store):
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_events_are_on_disk_when_play_returns(store, tmp_path):
    table = store.create(GAME, {"players": ["Ann", "Ben"]})
    table.play(ROLL)
    # a second, independent connection sees it at once: it was committed
    other = sqlite3.connect(tmp_path / "sessions.db")
    assert other.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 1
    other.close()


def test_a_refused_event_is_not_stored_and_changes_nothing(store):
    table = store.create(GAME, {"players": ["Ann", "Ben"]})
    table.play(ROLL)
    before = table.state
    bells_gone = dict(ROLL, faces=["MILK"] * 7)
    with pytest.raises(RuleError, match="BELL"):
        table.play(bells_gone)
    assert table.state == before and len(store.entries(table.id)) == 1


def test_resume_replays_events_undos_and_ignores_notes(store):
    table = store.create(GAME, {"players": ["Ann", "Ben"]})
    table.play(ROLL)
    table.note({"type": "correction", "die": 3, "read": "GIFT", "face": "LIST"})
    table.play(SCORE)
    table.undo()
    reopened = store.open(table.id, get_game)
    assert reopened.state == table.state
    assert [e.kind for e in reopened.entries] == ["event", "note", "event", "undo"]
    assert effective_events(reopened.entries) == [ROLL]
    reopened.play(SCORE)
    assert store.open(table.id, get_game).state.players[0].points == 4 + 7 + 1 + 2


def test_a_journal_from_an_older_dicewatch_opens_though_new_events_must_use_known_keys(store):
    """An event stored with a key the rules now refuse (an older dicewatch wrote it) is replayed:
    nothing stored is lost. A new event with a key of no use (a typo) is refused, not stored."""
    table = store.create(GAME, {"players": ["Ann", "Ben"]})
    store.append(table.id, 1, "event", {**ROLL, "read_by": "an older reader"})
    reopened = store.open(table.id, get_game)
    assert reopened.state.turn.faces == tuple(ROLL["faces"])
    with pytest.raises(RuleError, match=r"a 'score' event has no key 'gift_recipient'; it takes gift_recipients"):
        reopened.play({"type": "score", "uses": [], "gift_recipient": ["Ben"]})
    assert len(store.entries(table.id)) == 1
    reopened.play(SCORE)
    assert store.open(table.id, get_game).state.players[0].points > 0


def test_list_latest_and_closed(store):
    first = store.create(GAME, {"players": ["Ann", "Ben"]})
    second = store.create(GAME, {"players": ["Cy", "Dee"]})
    assert [info.id for info in store.list()] == [second.id, first.id]
    assert store.latest("jingle-bell-roll") == second.id
    second.close()
    assert store.latest("jingle-bell-roll") == first.id
    assert store.list()[0].players == ("Cy", "Dee")


def test_unknown_session_and_bad_setup(store):
    with pytest.raises(StoreError, match="no session 'nope'"):
        store.open("nope", get_game)
    with pytest.raises(RuleError, match="2 to 6 players"):
        store.create(GAME, {"players": ["Ann"]})


def test_a_file_that_is_not_a_database(tmp_path):
    bad = tmp_path / "sessions.db"
    bad.write_text("this is not sqlite\n" * 100)
    with pytest.raises(StoreError, match="not a usable dicewatch sessions database"):
        SessionStore(bad)


def test_run_and_export_list_say_which_sessions_file_is_unusable(dicewatch_home, capsys):
    """A sessions.db that is not a database: exit 1 with its path, never a StoreError traceback."""
    bad = dicewatch_home / "sessions.db"
    bad.write_text("this is not sqlite\n" * 100)
    for argv in (["export", "--list"],
                 ["run", "--players", "Ann,Ben", "--camera", "synthetic", "--display", "none", "--no-gpio"]):
        assert cli.main(argv) == 1, argv
        err = capsys.readouterr().err
        assert f"{bad}: not a usable dicewatch sessions database" in err, (argv, err)


def test_a_run_that_fails_to_start_leaves_no_empty_session_for_resume(dicewatch_home, tmp_path, capsys):
    """A new game whose start-up fails (no such calibration, dice set, broken pin map) was never
    played: --resume and export latest must still find the game in progress, not an empty one."""
    with SessionStore(dicewatch_home / "sessions.db") as home_store:
        playing = home_store.create(GAME, {"players": ["Ann", "Ben"]})
        playing.play(ROLL)
    for key, value in (("calibration", "my-tray"), ("dice_set", "no-such-dice")):
        config = tmp_path / f"{key}.toml"
        config.write_text(f'[device]\n{key} = "{value}"\n')
        assert cli.main(["run", "--players", "Cy,Dee", "--camera", "synthetic", "--display", "none",
                         "--no-gpio", "--config", str(config)]) == 1
        assert value in capsys.readouterr().err
    with SessionStore(dicewatch_home / "sessions.db") as home_store:
        assert [info.id for info in home_store.list()] == [playing.id]
        assert home_store.latest("jingle-bell-roll") == playing.id


def test_export_jsonl_is_a_replay_file_and_csv_has_the_whole_journal(store):
    table = store.create(GAME, {"players": ["Ann", "Ben"]})
    table.play(ROLL)
    table.note({"type": "correction", "die": 3, "read": "GIFT", "face": "LIST", "player": "Ann"})
    table.play(SCORE)
    table.undo()
    table.play(SCORE)
    text = to_jsonl(store.header(table.id), store.entries(table.id))
    replayed = load_replay(text, get_game, "export.jsonl")
    assert replayed.state == table.state
    rows = list(csv.DictReader(io.StringIO(to_csv(store.entries(table.id)))))
    assert [r["kind"] for r in rows] == ["event", "note", "event", "undo", "event"]
    assert rows[1]["type"] == "correction" and rows[1]["player"] == "Ann"
    assert json.loads(rows[1]["details"])["face"] == "LIST"
    assert rows[3]["type"] == "score"



def test_export_csv_leaves_out_the_loops_bookkeeping_unless_asked(store, dicewatch_home, capsys):
    with SessionStore(dicewatch_home / "sessions.db") as home_store:
        table = home_store.create(GAME, {"players": ["Ann", "Ben"]})
        table.play(ROLL)
        table.note({"type": "dice-places", "dice": [[10.0, 20.0, 30.0, "BELL"]]})
        table.note({"type": "answers", "no_character": [], "characters_done": True, "reroll_with": None,
                    "wizard": None})
        table.note({"type": "correction", "die": 3, "read": "GIFT", "face": "LIST", "player": "Ann"})
    assert cli.main(["export", "latest", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["kind"], r["type"]) for r in rows] == [("event", "roll"), ("note", "correction")]
    assert cli.main(["export", "latest", "--format", "csv", "--bookkeeping"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["type"] for r in rows] == ["roll", "dice-places", "answers", "correction"]
    assert cli.main(["export", "latest", "--bookkeeping"]) == 2
    assert "--bookkeeping" in capsys.readouterr().err


def test_export_command(store, dicewatch_home, capsys, tmp_path):
    with SessionStore(dicewatch_home / "sessions.db") as home_store:
        table = home_store.create(GAME, {"players": ["Ann", "Ben"]})
        table.play(ROLL)
    assert cli.main(["export", "latest"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[0])["game"] == "jingle-bell-roll" and json.loads(lines[1]) == ROLL
    out = tmp_path / "game.csv"
    assert cli.main(["export", table.id, "--format", "csv", "-o", str(out)]) == 0
    assert out.read_text().startswith("seq,time,kind,type,player,details")
    assert cli.main(["export", "--list"]) == 0
    assert table.id in capsys.readouterr().out
    assert cli.main(["export", "no-such-session"]) == 1
    assert "no session 'no-such-session'" in capsys.readouterr().err
    assert cli.main(["export"]) == 2
    other = tmp_path / "elsewhere.db"
    with SessionStore(other) as elsewhere:
        elsewhere.create(GAME, {"players": ["Cy", "Dee"]})
    assert cli.main(["export", "latest", "--sessions", str(other)]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["setup"]["players"] == ["Cy", "Dee"]
    assert cli.main(["export", "latest", "--sessions", str(tmp_path / "none.db")]) == 1


def journal_rows(path) -> int:
    other = sqlite3.connect(path)
    try:
        return other.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
    finally:
        other.close()


def test_a_record_of_several_changes_is_written_whole_or_not_at_all(store, tmp_path, monkeypatch):
    """A die corrected is the roll undone, played again and noted: one transaction. The rules
    refusing any step, or the disk failing, leaves both the journal and the state untouched."""
    from host.session_store import EVENT, NOTE, UNDO
    table = store.create(GAME, {"players": ["Ann", "Ben"]})
    table.play(ROLL)
    fixed = {**ROLL, "faces": ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "GIFT"]}
    table.record([(UNDO, None), (EVENT, fixed), (NOTE, {"type": "correction", "die": 7})])
    assert journal_rows(tmp_path / "sessions.db") == 4 and table.state.faces[-1] == "GIFT"
    with pytest.raises(RuleError):
        table.record([(UNDO, None), (EVENT, {"type": "roll", "faces": ["MILK"]}), (NOTE, {"type": "x"})])
    assert journal_rows(tmp_path / "sessions.db") == 4 and table.state.faces[-1] == "GIFT"

    def full_disk(*_args, **_kw):
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(store, "append_all", full_disk)
    with pytest.raises(sqlite3.OperationalError):
        table.record([(UNDO, None), (EVENT, ROLL)])
    assert table.state.faces[-1] == "GIFT" and len(table.session.events) == 1
    monkeypatch.undo()
    reopened = store.open(table.id, lambda name: GAME)
    assert reopened.state.faces == table.state.faces and len(reopened.entries) == 4


def test_a_roll_and_where_its_dice_lie_are_stored_together(store, monkeypatch):
    """The table loop writes a camera's roll and its dice-places note in one transaction, so a
    power cut cannot keep the roll and lose where its dice lay (the resumed box would guess)."""
    from host.loop import TableLoop
    from vision.roll import Die, Roll
    table = store.create(GAME, {"players": ["Ann", "Ben"]})
    loop = TableLoop(table, ask_setup=False)
    loop.start()
    batches = []
    real = store.append_all
    monkeypatch.setattr(store, "append_all", lambda *a: batches.append([k for k, _ in a[2]]) or real(*a))
    faces = ROLL["faces"]
    loop.on_read(Roll(dice=tuple(Die(f, 0.99, 40.0 * i, 30.0, 20.0, 20.0) for i, f in enumerate(faces)),
                      dice_set="jingle-bell-roll"))
    assert ["event", "note"] in batches
    assert [e.body.get("type") for e in table.entries[-2:]] == ["roll", "dice-places"]
