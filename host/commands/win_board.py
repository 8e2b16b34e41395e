"""Dark Romance's win-condition board: which cells a board file still lacks, and whether a
completed one is right.

The rulebook's board is a picture; dicewatch ships only the cells its text states
(rules/data/dark-romance-win-board.toml). Copy that file, fill in the missing cells from
your own board once (row = the role you hold, column = the other player's, cell = the coin
you need), and check it here. A bad file is reported as FILE:LINE: key: what was expected
(exit status 1). --config prints the board as the [dark-romance] table of the config file,
which is where a game takes it from.

examples:
  dicewatch win-board                      # the shipped board: what is still missing
  dicewatch win-board my-board.toml --side advanced
  dicewatch win-board my-board.toml --complete     # exit 1 unless every cell is filled
  dicewatch win-board my-board.toml --config >> ~/.dicewatch/config.toml
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from importlib import resources
from pathlib import Path

from host.errors import InputFileError, read_text
from rules.dark_romance_board import COINS, SIDES, BoardError, check_board, family_words, missing

NAME = "win-board"
HELP = "Dark Romance: list the win-board cells a board file still lacks, and check a completed one"
SHIPPED = "dark-romance-win-board.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", type=Path, nargs="?",
                        help=f"a win board file (default: the one dicewatch ships, {SHIPPED})")
    parser.add_argument("--side", choices=tuple(SIDES), help="only this side (tutorial: scenario 1; advanced: 2 and up)")
    parser.add_argument("--complete", action="store_true", help="exit 1 unless every cell of the side(s) is filled")
    parser.add_argument("--config", action="store_true",
                        help="print the board as the [dark-romance] win_board of a config file")
    parser.add_argument("--json", action="store_true", help="print the missing cells as JSON, for machines")


def read_board(text: str, source: str) -> dict:
    """A board file's text, checked. ValueError says ``source:LINE: key: what was expected``."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: not valid TOML: {exc}") from None
    try:
        return check_board(table)
    except BoardError as exc:
        line = key_lines(text).get(exc.key)
        raise ValueError(f"{source}:{line}: {exc}" if line else f"{source}: {exc}") from None


HEADER = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")
KEY = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def key_lines(text: str) -> dict[str, int]:
    """Each dotted key of a TOML text (``advanced.swindlers.vampires``) -> its line (1-based):
    where its table header or its ``key =`` line is."""
    found: dict[str, int] = {}
    table = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header, key = HEADER.match(line), KEY.match(line)
        if header:
            table = _dotted(header.group(1))
            found.setdefault(table, number)
        elif key:
            found.setdefault(".".join(p for p in (table, _dotted(key.group(1))) if p), number)
    return found


def _dotted(key: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in key.split("."))


def missing_cells(board: dict, sides: tuple[str, ...]) -> list[dict]:
    return [{"side": side, "row": row, "column": column} for side in sides for row, column in missing(board, side)]


def as_text(board: dict, sides: tuple[str, ...], source: str) -> str:
    """What the board has and lacks, the missing cells ready to fill in under their headers."""
    lines = [f"{source}: a valid win board"]
    for side in sides:
        size = len(SIDES[side]) ** 2
        lacking = missing(board, side)
        lines.append(f"\n{side} side ({'scenario 1' if side == 'tutorial' else 'scenario 2 and up'}): "
                     f"{size - len(lacking)} of {size} cells filled" + (", complete" if not lacking else
                                                                         f", {len(lacking)} missing:"))
        for row in SIDES[side]:
            columns = [column for r, column in lacking if r == row]
            if columns:
                lines.append(f"[{side}.{row}]")
                lines += [f"{column} = ?    # what the {family_words(row)} needs against the {family_words(column)}"
                          for column in columns]
    if any(missing(board, side) for side in sides):
        lines.append(f"\nFill each in with one of: {', '.join(COINS)} (no manipulation on the tutorial side).")
    return "\n".join(lines)


def as_config(board: dict, sides: tuple[str, ...]) -> str:
    """The board as the ``win_board`` of a config file's ``[dark-romance]`` table."""
    lines = ["# Dark Romance's win board (dicewatch win-board --config)"]
    for side in sides:
        for row, cells in board.get(side, {}).items():
            lines.append(f"[dark-romance.win_board.{side}.{row}]")
            lines += [f'{column} = "{coin}"' for column, coin in cells.items()]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    path = args.file or resources.files("rules") / "data" / SHIPPED
    source = str(path)
    try:
        text = read_text(path)
    except InputFileError as exc:
        print(exc, file=sys.stderr)
        return 1
    try:
        board = read_board(text, source)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    sides = (args.side,) if args.side else tuple(SIDES)
    lacking = missing_cells(board, sides)
    if args.config:
        print(as_config(board, sides), end="")
    elif args.json:
        print(json.dumps({"file": source, "missing": lacking}, indent=2))
    else:
        print(as_text(board, sides, source))
    if args.complete and lacking:
        print(f"{source}: {len(lacking)} cell(s) missing", file=sys.stderr)
        return 1
    return 0
