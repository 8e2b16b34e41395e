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

import sys
import time
from pathlib import Path

from host.cli import UsageError
from host.history import known_game, seen_by, to_csv, to_jsonl, whole
from host.paths import data_dir
from host.session_recovery import open_checked
from host.session_store import SessionStore, StoreError
from rules.core import PUBLIC

NAME = "export"
HELP = "write a stored game's history as JSON Lines or CSV"


def same_files(database: Path) -> set[Path]:
    """The sessions database and the files SQLite keeps beside it (WAL, shared memory)."""
    base = database.resolve()
    return {base, base.with_name(base.name + "-wal"), base.with_name(base.name + "-shm")}


def add_arguments(parser) -> None:
    parser.add_argument("session", nargs="?", metavar="SESSION",
                        help='session id (see --list) or "latest"')
    parser.add_argument("--format", choices=("jsonl", "csv"), default=None,
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


def say(line: str) -> None:
    print(f"dicewatch export: {line}", file=sys.stderr)


def run(args) -> int:
    if args.list:   # what only an export uses would be silently ignored by the list
        extra = [flag for flag, given in (("SESSION", args.session), ("--format", args.format), ("--bookkeeping",
                 args.bookkeeping), ("--with-secrets", args.with_secrets), ("-o", args.output)) if given]
        if extra:
            raise UsageError(f"{', '.join(extra)}: only for an export, not with --list (it lists the sessions)")
    args.format = args.format or "jsonl"
    path = sessions_db(args.sessions)
    if args.sessions is not None and not path.is_file():
        print(f"dicewatch export: --sessions {args.sessions}: no such file (expected a sessions database, "
              f"such as {sessions_db()})", file=sys.stderr)
        return 1
    if args.output and Path(args.output).resolve() in same_files(path):
        raise UsageError(f"-o {args.output} is the sessions database being read; write the export elsewhere")
    if args.list:
        if not path.exists():
            print(f"no sessions yet in {path}")
            return 0
        try:
            with open_checked(path, say) as store:
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
        with open_checked(path, say) as store:
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

