"""Write a stored game's history.

  jsonl  a replay file: the header line {"schema":1,"game":..,"setup":{..}} and one line per
         event still standing (undone events left out), as
         rules.core.load_replay reads it back.
  csv    the whole journal, one row per entry, including undos and notes (corrected dice,
         refused rolls, typed rolls): seq, time, kind, type, player, details (JSON). The
         table loop's bookkeeping notes (open answers, where the dice lie; kept only so that
         --resume continues exactly there) are left out unless --bookkeeping is given.

SESSION is a session id as listed by `dicewatch export --list`, or "latest".

An export is public: every event goes through its game's public view (``event_view(event,
None)``), so a secret (a hidden role, a lucky face) is left out. --with-secrets writes the
events whole, for the box's owner: such a file can be replayed, and gives the secrets away.
"""
from __future__ import annotations

import csv
import io
import json
import sys
import time
from pathlib import Path

from host.cli import UsageError
from host.paths import data_dir
from host.session_store import BOOKKEEPING, NOTE, UNDO, SessionStore, StoreError, effective_events
from rules import get_game
from rules.core import PUBLIC, SCHEMA_VERSION, Game


def known_game(name: str) -> Game | None:
    try:
        return get_game(name)
    except LookupError:
        return None

NAME = "export"
HELP = "write a stored game's history as JSON Lines or CSV"


def add_arguments(parser) -> None:
    parser.add_argument("session", nargs="?", metavar="SESSION",
                        help='session id (see --list) or "latest"')
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl",
                        help="jsonl: a replay file; csv: the full journal (default: jsonl)")
    parser.add_argument("--bookkeeping", action="store_true",
                        help="csv: also the table loop's own notes (open answers, dice places)")
    parser.add_argument("--with-secrets", action="store_true",
                        help="the events whole, secrets too (a hidden role...): a file to replay, not to share")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")
    parser.add_argument("--list", action="store_true", help="list the stored sessions and exit")
    parser.add_argument("--sessions", metavar="FILE", type=Path,
                        help="the sessions database (default: DATA/sessions.db; the demo's is DIR/demo-sessions.db)")


def sessions_db(given: Path | None = None) -> Path:
    return given if given is not None else data_dir() / "sessions.db"


def format_list(store: SessionStore) -> str:
    rows = store.list()
    if not rows:
        return f"no sessions yet in {store.path}"
    out = []
    for info in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created))
        state = "closed" if info.closed else "open"
        out.append(f"{info.id}  {info.game}  {', '.join(info.players)}  {when}  {info.entries} entries  {state}")
    return "\n".join(out)


def seen_by(game: Game | None, viewer: str | None):
    """What ``viewer`` may see of an event (None: the public; a game not known here: all of it
    is withheld but its kind, as a secret might be anywhere in it)."""
    def view(event: dict) -> dict | None:
        if game is None:
            return {"type": event.get("type")}
        return game.event_view(event, viewer)
    return view


def whole(event: dict) -> dict:
    return event


def to_jsonl(header: dict, entries, show=whole) -> str:
    lines = [{"schema": SCHEMA_VERSION, "game": header["game"], "setup": header["setup"]}]
    lines += [seen for seen in map(show, effective_events(entries)) if seen is not None]
    return "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines)


def _player_of(body: dict) -> str:
    for key in ("player", "by", "to"):
        if isinstance(body.get(key), (str, int)):
            return str(body[key])
    return ""


def is_bookkeeping(entry) -> bool:
    return entry.kind == NOTE and entry.body.get("type") in BOOKKEEPING


def shown_body(entry, show) -> dict | None:
    """A journal entry's body as ``show`` lets it be seen (the events in it, and in a refused
    roll's or an undo's note, through the game's view)."""
    body = dict(entry.body)
    if entry.kind == "event":
        return show(body)
    for key in ("event", "undoes"):
        if isinstance(body.get(key), dict):
            body[key] = show(body[key])
    return body


def to_csv(entries, bookkeeping: bool = False, show=whole) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["seq", "time", "kind", "type", "player", "details"])
    for entry in entries:
        if is_bookkeeping(entry) and not bookkeeping:
            continue
        body = shown_body(entry, show)
        if body is None:
            continue
        if entry.kind == UNDO:
            kind_type = (body.get("undoes") or {}).get("type", "")
        else:
            kind_type = body.get("type", "")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(entry.at)) + f".{int(entry.at * 1000) % 1000:03d}"
        details = {k: v for k, v in body.items() if k != "type"}
        writer.writerow([entry.seq, stamp, entry.kind, kind_type,
                         _player_of(body if entry.kind != UNDO else body.get("undoes") or {}),
                         json.dumps(details, sort_keys=True)])
    return buffer.getvalue()


def run(args) -> int:
    path = sessions_db(args.sessions)
    if args.list:
        if not path.exists():
            print(f"no sessions yet in {path}")
            return 0
        try:
            with SessionStore(path) as store:
                print(format_list(store))
        except StoreError as exc:
            print(f"dicewatch export: {exc}", file=sys.stderr)
            return 1
        return 0
    if not args.session:
        raise UsageError("give a SESSION id (see 'dicewatch export --list') or 'latest'")
    if args.bookkeeping and args.format != "csv":
        raise UsageError("--bookkeeping adds the loop's own notes to a csv export; "
                         "a jsonl replay file holds the events only")
    if not path.exists():
        print(f"dicewatch export: no sessions stored yet ({path} does not exist)", file=sys.stderr)
        return 1
    try:
        with SessionStore(path) as store:
            session_id = args.session
            if session_id == "latest":
                session_id = store.latest(open_only=False)
                if session_id is None:
                    print(f"dicewatch export: no sessions stored yet in {path}", file=sys.stderr)
                    return 1
            header = store.header(session_id)
            entries = store.entries(session_id)
    except StoreError as exc:
        print(f"dicewatch export: {exc}", file=sys.stderr)
        return 1
    show = whole if args.with_secrets else seen_by(known_game(header["game"]), PUBLIC)
    text = to_jsonl(header, entries, show) if args.format == "jsonl" else to_csv(entries, args.bookkeeping, show)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"dicewatch export: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
            return 1
        print(f"wrote {args.output} ({len(entries)} journal entries, session {session_id})", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0

