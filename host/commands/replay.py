"""Replay a saved game: checks every event of a replay file by the rules and prints the
final scoreboard.

A replay file is JSON Lines: the first line is the header
{"schema": 1, "game": "jingle-bell-roll", "setup": {"players": ["Ann", "Ben"]}}, every
further line one event, e.g. {"type": "roll", "faces": ["MILK", ...]}. A line that is not
valid JSON or that the rules refuse is reported as FILE:LINE: reason (exit status 1).

examples:
  dicewatch replay game.jsonl
  dicewatch replay game.jsonl --undo 2      # the state two events before the end
  dicewatch replay game.jsonl --json
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from host.cli import UsageError
from host.errors import InputFileError, read_text
from host.presenters import counted
from rules import get_game
from rules.core import ReplayError, RuleError, format_table, load_replay

NAME = "replay"
HELP = "check a saved game file event by event and print the final scoreboard"
MAX_LINE = 1_000_000   # characters in one line: an event is a few hundred


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", type=Path, help="a replay file (JSON Lines)")
    parser.add_argument("--undo", type=int, default=0, metavar="N",
                        help="show the state with the last N events undone")
    parser.add_argument("--json", action="store_true", help="print the final state as JSON")


def run(args: argparse.Namespace) -> int:
    if args.undo < 0:
        raise UsageError(f"--undo: expected a number of events >= 0, got {args.undo}")
    try:
        text = read_text(args.file)
    except InputFileError as exc:
        print(exc, file=sys.stderr)
        return 1
    for number, line in enumerate(text.splitlines(), start=1):
        if len(line) > MAX_LINE:
            print(f"{args.file}:{number}: a line of {len(line):,} characters; expected a header or an event "
                  f"(at most {MAX_LINE:,})", file=sys.stderr)
            return 1
    try:
        session = load_replay(text, get_game, source=str(args.file))
    except ReplayError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except ValueError as exc:  # what json itself refuses beyond its syntax (a number of 5,000 digits)
        print(f"{args.file}: not a replay file: {exc}", file=sys.stderr)
        return 1
    if args.undo > len(session.events):
        print(f"{args.file}: --undo {args.undo}, but the file holds only {len(session.events)} event(s)",
              file=sys.stderr)
        return 1
    for _ in range(args.undo):
        try:
            session.undo()
        except RuleError as exc:  # pragma: no cover - guarded by the count check above
            print(f"{args.file}: {exc}", file=sys.stderr)
            return 1
    game, state = session.game, session.state
    status = game.status(state) if game.status else ("game over" if game.is_over(state) else "in play")
    if args.json:
        print(json.dumps({"file": str(args.file), "game": game.name, "events": len(session.events),
                          "status": status, "state": game.to_json(state)}, indent=2))
        return 0
    print(f"{game.title}, {counted(len(session.events), 'event', 'events')} from {args.file}")
    print(status)
    print()
    print(format_table(game.scoreboard(state)))
    return 0
