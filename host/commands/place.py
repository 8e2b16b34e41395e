"""Where may this roll go? For Another Christmas Romance Movie: lists every legal way to
place dice of a roll on a card, and suggests the one that fills the most locations.

CARD is a layout file describing your card (format below) or the name of a built-in
example layout. The built-in examples are invented by dicewatch (the rulebook has no card
pictures); describe your real cards in your own files.

examples:
  dicewatch place stage1-meet-cute --roll SNOWFLAKE,FACE-2,FACE-2
  dicewatch place my-card.layout --roll 2,2,3 --placed 1,1=SNOWFLAKE

layout file format (one card; '#' starts a comment):
  kind: stage            # stage | romance | element
  stage: 1               # stage cards: 1..5
  title: meet cute
  text: bump into each other at the Christmas tree farm
  needs: 4               # dice that complete it (stage default: stage + 3)
  reward: 2              # Christmas romance cards: deferred dice reward
  exchange: ? ? -> deferred   # movie elements: dice given -> dice received
  dice:
    SNOWFLAKE  ?       ?
    .          FACE-2  .

Grid tokens, one per column: '.' no location, '?' unmarked location (touching unmarked
locations take dice of one face, all in the same turn), a face name or a face number 1-6.
Face names come from [dice.christmas-romance] faces = [...] in the config file, if set.
"""
from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from pathlib import Path

from host import paths
from host.cli import UsageError
from host.config import ConfigError, game_options, load_config
from host.presenters import counted, how_many_dice
from rules import get_game, placement

NAME = "place"
HELP = "list the legal placements of a roll on a card, and suggest the best"
SHOWN = 10
MAX_GRID = 99   # rows or columns of a --placed location: no card is larger


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card", metavar="CARD",
                        help=f"a layout file, or a built-in example: {', '.join(builtin_layouts())}")
    parser.add_argument("--roll", required=True, metavar="FACES",
                        help="the dice you may place, comma-separated face names or numbers 1-6")
    parser.add_argument("--placed", action="append", default=[], metavar="ROW,COL=FACE",
                        help="a die already on the card (rows and columns count from 1); repeat as needed")
    parser.add_argument("--all", action="store_true", help=f"list every legal placement, not only the first {SHOWN}")
    parser.add_argument("--config", metavar="FILE", type=Path,
                        help="config file whose [dice.christmas-romance] faces renames the faces")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


class CardError(Exception):
    """A CARD argument that names no readable layout (exit 1)."""


def builtin_layouts() -> list[str]:
    folder = resources.files("rules") / "layouts"
    return sorted(p.name[:-len(".layout")] for p in folder.iterdir() if p.name.endswith(".layout"))


def configured_faces(config: Path | None, doc: dict | None = None) -> tuple[str, ...]:
    """The face names of Another Christmas Romance Movie's dice: the game's ``faces`` option as
    its own reader takes it from the config (``[christmas-romance] faces``, else the names given
    to the dice, ``[dice.christmas-romance] faces``), else the defaults. ``doc``: the config
    file already parsed (errors still name ``config`` and the line)."""
    game = get_game("christmas-romance")
    if config is None:
        return tuple(game.option("faces").default)
    values = game_options(game, load_config(config)[0] if doc is None else doc, config)
    return tuple(values["faces"])


def read_card(card: str) -> tuple[str, str]:
    """(text, source name) of a layout file or built-in example."""
    path = Path(card)
    if not path.is_file() and card in builtin_layouts():
        builtin = resources.files("rules") / "layouts" / f"{card}.layout"
        return builtin.read_text(encoding="utf-8"), f"{card} (built-in example)"
    if not path.exists():
        raise CardError(f"{card}: no such layout file, and no built-in example of that name; "
                        f"built-in examples: {', '.join(builtin_layouts())}")
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise CardError(f"{card}: cannot be read ({exc})") from None


def parse_roll(text: str, faces: tuple[str, ...]) -> list[str]:
    roll = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        face = placement.face_token(token, faces)
        if face is None:
            raise UsageError(f"--roll: {token!r} is not a face; faces are {', '.join(faces)} (or 1-6)")
        roll.append(face)
    if not roll:
        raise UsageError("--roll: give at least one face")
    return roll


def parse_placed(items: list[str], faces: tuple[str, ...]) -> dict[tuple[int, int], str]:
    placed = {}
    for item in items:
        where, sep, token = item.partition("=")
        parts = where.split(",")
        face = placement.face_token(token.strip(), faces)
        if (not sep or len(parts) != 2 or not all(p.strip().isdigit() and 1 <= int(p) <= MAX_GRID for p in parts)
                or face is None):
            raise UsageError(f"--placed {item!r}: expected ROW,COL=FACE (1 to {MAX_GRID}), e.g. 1,2=SNOWFLAKE")
        cell = (int(parts[0]) - 1, int(parts[1]) - 1)
        if cell in placed:
            raise UsageError(f"--placed {item!r}: row {parts[0].strip()}, column {parts[1].strip()} is given "
                             f"twice (it already holds a {placed[cell]}); one die per location")
        placed[cell] = face
    return placed


def describe(option: dict) -> str:
    return ", ".join(f"{face} at row {r + 1} col {c + 1}" for (r, c), face in sorted(option.items()))


def run(args: argparse.Namespace) -> int:
    try:
        faces = configured_faces(args.config if args.config else paths.default_config_file())
    except ConfigError as exc:
        print(f"dicewatch place: {exc}", file=sys.stderr)
        return 1
    roll = parse_roll(args.roll, faces)
    placed = parse_placed(args.placed, faces)
    try:
        text, source = read_card(args.card)
        layout = placement.parse_layout(text, source, faces)
    except (CardError, placement.LayoutError) as exc:
        print(f"dicewatch place: {exc}", file=sys.stderr)
        return 1
    try:
        placement.check_on_card(layout, placed)
    except placement.PlacementError as exc:
        print(f"dicewatch place: --placed: {exc}", file=sys.stderr)
        return 1
    if layout.kind == "element":
        return show_element(layout, roll, args.json)
    options = placement.legal_placements(layout, placed, roll)
    best = options[0] if options else None
    if args.json:
        print(json.dumps({
            "card": layout.title, "roll": roll,
            "placements": [[{"row": r + 1, "col": c + 1, "face": f} for (r, c), f in sorted(o.items())]
                           for o in options],
            "suggestion": None if best is None else
            [{"row": r + 1, "col": c + 1, "face": f} for (r, c), f in sorted(best.items())],
        }, indent=2))
        return 0
    print(f"{layout.title} ({layout.kind}{f' {layout.stage}' if layout.stage else ''}, "
          f"{len(placed)}/{layout.needs} dice placed)")
    print(placement.render(layout, placed))
    print(f"\nroll: {', '.join(roll)}")
    if not options:
        print("no legal placement: none of these dice fits a location touching the dice on the card")
        return 0
    if len(options) >= placement.MAX_RESULTS:
        print(f"(stopped after {placement.MAX_RESULTS} placements; the suggestion is the best among them)")
    shown = options if args.all else options[:SHOWN]
    print(f"{counted(len(options), 'legal placement', 'legal placements')}{'' if len(shown) == len(options) else f', the first {len(shown)}'}:")
    for number, option in enumerate(shown, start=1):
        print(f"  {number:>2}. {how_many_dice(len(option))}: {describe(option)}")
    print(f"\nsuggested (fills the most locations, {len(best)}): {describe(best)}")
    print(placement.render(layout, placed, best))
    return 0


def show_element(layout: placement.Layout, roll: list[str], as_json: bool) -> int:
    """Movie elements take no rolled dice: a bag die goes on them each time their trade is used."""
    exchange = layout.exchange
    ways = placement.ways_to_pay(exchange, roll) if exchange else []
    if as_json:
        print(json.dumps({"card": layout.title, "roll": roll, "locations": layout.needs,
                          "exchange": exchange.describe() if exchange else None,
                          "ways_to_pay": [list(w) for w in ways]}, indent=2))
        return 0
    print(f"{layout.title} (movie element, {layout.needs} locations for Santa's bag dice, one per use)")
    if exchange is None:
        print("this layout has no 'exchange:' line, so there is nothing to check")
        return 0
    print(f"trade: {exchange.describe()}")
    print(f"roll: {', '.join(roll)}")
    if exchange.give and not ways:
        print("this roll cannot pay the trade")
    for way in ways:
        extra = f" + {exchange.give_deferred} deferred" if exchange.give_deferred else ""
        print(f"  pay with {', '.join(way) or 'no rolled dice'}{extra}")
    return 0
