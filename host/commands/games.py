"""List the games the box knows: name, title, players, dice, options.

Each game is a rules module (rules/) plus its table at the box (host/games/); a game of
your own is added by naming its host module in $DICEWATCH_GAMES. The options are the keys
of the game's ``[<game-name>]`` table in the config file, with their defaults.
"""
from __future__ import annotations

import json

from host import games
from rules import get_game

NAME = "games"
HELP = "list the games the box knows, with their players, dice and options"


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print the list as JSON, for machines")


def describe(name: str) -> dict:
    """What ``dicewatch games`` says of one game."""
    game = get_game(name)
    return {"name": game.name, "title": game.title, "players": [game.min_players, game.max_players],
            "dice": game.dice, "options": [option.describe() for option in game.options]}


def as_text(about: dict) -> str:
    low, high = about["players"]
    players = f"{low} player" if low == high == 1 else f"{low}-{high} players" if low != high else f"{low} players"
    lines = [f"{about['name']}: {about['title']} ({players}; dice: {about['dice'] or 'none'})"]
    for option in about["options"]:
        choices = f" (one of: {', '.join(map(str, option['choices']))})" if "choices" in option else ""
        lines.append(f"    {option['name']} = {json.dumps(option['default'])}{choices}")
        lines.append(f"        {option['help']}")
    if not about["options"]:
        lines.append("    (no options)")
    return "\n".join(lines)


def run(args) -> int:
    known = [describe(name) for name in sorted(games.names())]
    if args.json:
        print(json.dumps(known, indent=2))
    else:
        print("\n\n".join(as_text(about) for about in known))
    return 0
