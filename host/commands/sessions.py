"""Check the stored games: the sessions database against its second record, the logs.

Every game is kept twice: in the sessions database (DATA/sessions.db) and in a log file
per session beside it (DATA/sessions.db.logs/<session>.jsonl, written and fsync'ed before
each database transaction). `run` and `export` check the two at start (the three newest
sessions whole, the others by their size and last log line) and repair what they find;
this command reads everything, on demand. While a box is running, the game it is writing
may show for a moment as "log ahead by one unconfirmed batch"; repairs wait for it to stop.

  dicewatch sessions check            say, per session, whether both records agree
  dicewatch sessions check --repair   ... and make them whole: a damaged database is rebuilt
                                      from the logs (the damaged file is kept, renamed
                                      sessions.db.damaged-<time>); a log that is behind or
                                      missing is written again from the database
  dicewatch sessions list             the stored sessions, newest first

Exit status: 0 both records agree (after --repair: they do now); 1 the file cannot be
checked (missing with no logs, unreadable, a folder, an SQLite file of something else, in
use by a running box while repairing); 2 bad usage; 3 damage or disagreement found and
not repaired (run again with --repair).
"""
from __future__ import annotations

import sys
from pathlib import Path

from host.cli import UsageError
from host.commands.export import format_list, sessions_db
from host.session_log import SessionLog, log_folder
from host.session_recovery import check, open_checked, repair
from host.session_store import StoreError

NAME = "sessions"
HELP = "check the stored games against their logs (and repair), or list them"
FOUND_DAMAGE = 3


def add_arguments(parser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    for name, text in (("check", "verify that the database and the logs agree, session by session"),
                       ("list", "list the stored sessions, newest first")):
        sub = actions.add_parser(name, help=text, description=text)
        sub.add_argument("--sessions", metavar="FILE", type=Path,
                         help="the sessions database (default: DATA/sessions.db)")
        if name == "check":
            sub.add_argument("--repair", action="store_true",
                             help="rebuild a damaged database from the logs; write missing or torn logs again")


def unusable(path: Path) -> str | None:
    """Why ``path`` cannot be checked at all, or None."""
    if path.is_dir():
        return f"{path} is a folder; expected a sessions database file"
    if not path.exists():
        if SessionLog(log_folder(path)).files():
            return None   # the logs are there: the database can be rebuilt from them
        return f"{path}: no such file, and no session logs beside it (expected a sessions database, " \
               f"such as {sessions_db()})"
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        return f"{path}: cannot be read ({exc.strerror})"
    return None


def run(args) -> int:
    if args.action is None:
        raise UsageError("give an action: check or list (see dicewatch sessions --help)")
    path = sessions_db(args.sessions)
    problem = unusable(path)
    if problem:
        print(f"dicewatch sessions: {problem}", file=sys.stderr)
        return 1
    try:
        if args.action == "list":
            with open_checked(path, lambda line: print(f"dicewatch sessions: {line}", file=sys.stderr)) as store:
                print(format_list(store))
            return 0
        found = repair(path) if args.repair else check(path)
    except StoreError as exc:   # (a file not ours; in use by a running box while repairing)
        print(f"dicewatch sessions: {exc}", file=sys.stderr)
        return 1
    print("\n".join(found.lines()))
    for line in found.done:
        print(f"repaired: {line}")
    if found.clean:
        return 0
    if args.repair:
        after = check(path)
        if not after.clean:
            print("\n".join(["still not whole after the repair:"] + after.lines()), file=sys.stderr)
            return FOUND_DAMAGE
        print("both records agree now")
        return 0
    print(f"dicewatch sessions: the records need repairing: dicewatch sessions check --repair"
          f"{'' if args.sessions is None else f' --sessions {args.sessions}'}", file=sys.stderr)
    return FOUND_DAMAGE
