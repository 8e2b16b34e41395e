"""What is this roll worth? Scores a final roll of Jingle Bell Roll with the best use of
your character ability and the gift cards you hold, and says which to play.

examples:
  dicewatch score jingle-bell-roll --dice MILK,COOKIE,LIST,LIST,LIST,BELL,BELL --cards "Nice List"
  dicewatch score jingle-bell-roll --dice STOCKING,STOCKING,GIFT,GIFT,GIFT,BELL,MILK \\
      --character "Chris Cringle" --cards "Secret Santa,Treat Yo'Self" --letters STOCKING --json

The Score Chart values for STOCKINGS and GIFTS are our defaults (the rulebook does not
print them); set your own in the [jingle-bell-roll] table of the config file.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from host import paths
from host.cli import UsageError
from host.config import ConfigError, load_config
from host.config import game_options as config_game_options
from host.presenters import counted
from rules import jingle_bell_roll as jbr
from rules.jingle_bell_roll_cards import CHARACTERS, FACES, GIFT_CARDS, lookup

NAME = "score"
HELP = "score a final roll: points, breakdown, and which ability or cards to use"
GAMES = ("jingle-bell-roll",)
LETTER_EFFECTS = tuple(f for f in FACES if f != "BELL") + (jbr.REROLL,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help=f"the game; one of: {', '.join(GAMES)}")
    parser.add_argument("--dice", required=True, metavar="FACES",
                        help=f"the seven faces, comma-separated; faces: {', '.join(FACES)}")
    parser.add_argument("--character", metavar="NAME", help="your character card, e.g. \"Chris Pine Tree\"")
    parser.add_argument("--cards", metavar="NAMES", default="",
                        help="gift cards in your hand, comma-separated (repeat a name for two copies)")
    parser.add_argument("--letters", metavar="EFFECTS", default="",
                        help=f"your visible Letters to Santa (up to 3), comma-separated: {', '.join(LETTER_EFFECTS)}")
    parser.add_argument("--config", metavar="FILE", type=Path,
                        help="config file whose [jingle-bell-roll] table overrides the Score Chart defaults")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def run(args: argparse.Namespace) -> int:
    if args.game not in GAMES:
        raise UsageError(f"cannot score {args.game!r}; games with a dice score: {', '.join(GAMES)}")
    faces = parse_faces(args.dice)
    character = _lookup_or_usage(args.character, CHARACTERS, "--character", "character") if args.character else None
    cards = [_lookup_or_usage(name, GIFT_CARDS, "--cards", "gift card") for name in split_list(args.cards)]
    letters = parse_letters(args.letters)
    try:
        rules = game_rules(args.config if args.config else paths.default_config_file())
    except ConfigError as exc:
        print(f"dicewatch score: {exc}", file=sys.stderr)
        return 1
    result = jbr.best_scoring(faces, rules, character=character, cards=cards,
                              letter_faces=[e for e in letters if e != jbr.REROLL])
    if args.json:
        out = {"game": args.game, "dice": list(faces), **result.to_json(),
               "zero_score_draw": result.points == 0 and not result.instant_win}
        print(json.dumps(out, indent=2))
    else:
        print(describe(faces, result, stacks=[s for s, _ in rules.letter_stacks]))
        for name in [character, *dict.fromkeys(cards)]:
            ability = {**CHARACTERS, **GIFT_CARDS}.get(name or "")
            if ability and ability.effect == "reroll":
                print(f"({ability.name} re-rolls a die while rolling; it does not change a final roll's score.)")
    return 0


# --- parsing the flags ----------------------------------------------------------------

def split_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def parse_faces(text: str) -> tuple[str, ...]:
    faces = [f.upper() for f in split_list(text)]
    bad = [f for f in faces if f not in FACES]
    if bad:
        raise UsageError(f"--dice: unknown face(s) {', '.join(bad)}; faces are {', '.join(FACES)}")
    if len(faces) != jbr.DICE:
        raise UsageError(f"--dice: expected the {jbr.DICE} faces of all dice, got {len(faces)}")
    return tuple(faces)


def parse_letters(text: str) -> list[str]:
    letters = [e.upper() for e in split_list(text)]
    bad = [e for e in letters if e not in LETTER_EFFECTS]
    if bad:
        raise UsageError(f"--letters: unknown effect(s) {', '.join(bad)}; letters show one of "
                         f"{', '.join(LETTER_EFFECTS)}")
    if len(letters) > jbr.MAX_VISIBLE_LETTERS:
        raise UsageError(f"--letters: at most {jbr.MAX_VISIBLE_LETTERS} letters are visible on a mailbox, "
                         f"got {len(letters)}")
    return letters


def _lookup_or_usage(name: str, table: dict, flag: str, what: str) -> str:
    try:
        return lookup(name, table, what).name
    except LookupError:
        raise UsageError(f"{flag}: unknown {what} {name!r}; valid: {', '.join(table)}") from None


def game_options(doc: dict[str, Any], path: Path | str = "<config>") -> dict[str, Any]:
    """The keys the config file's ``[jingle-bell-roll]`` table gives, each checked by the game's
    own reader (``Game.read_options``, through host.config.game_options), ready to merge into
    the game's setup options. ConfigError names the file, the line and what was expected."""
    table = doc.get(jbr.NAME)
    values = config_game_options(jbr.GAME, doc, path)
    return {key: values[key] for key in (table or {})}


def game_rules(path: Path | str | None) -> jbr.Rules:
    """The Rules with the config file's overrides (none when ``path`` is None)."""
    if path is None:
        return jbr.Rules()
    return jbr.make_rules(game_options(load_config(path)[0], path))


# --- the answer, for people -----------------------------------------------------------

def describe(faces: tuple[str, ...], result: jbr.Scoring, stacks=(2, 3, 4, 5)) -> str:
    lines = [f"Dice: {' '.join(faces)}"]
    if result.instant_win:
        lines.append("7 BELLS: you win the game at once!")
        return "\n".join(lines)
    if result.uses:
        lines.append("Play: " + "; ".join(u.label for u in result.uses))
    else:
        lines.append("Play: nothing (no ability or card adds points)")
    width = max([len(what) for what, _ in result.breakdown] + [len("total")])
    for what, points in result.breakdown:
        lines.append(f"  {what.ljust(width)}  {points:>3}")
    lines.append(f"  {'total'.ljust(width)}  {result.points:>3}")
    if result.points == 0:
        lines.append("A score of 0: draw two gift cards and keep one.")
    if result.gift_cards_to_deal:
        lines.append(f"Deal {counted(result.gift_cards_to_deal, 'gift card', 'gift cards')} to other players (one per GIFT).")
    if result.draws:
        lines.append(f"Draw {counted(result.draws, 'gift card', 'gift cards')} for yourself.")
    if result.stamps in stacks:
        lines.append(f"{result.stamps} stamps: you may take the top letter of the {result.stamps}-stamp stack.")
    elif result.stamps:
        lines.append(f"{counted(result.stamps, 'stamp', 'stamps')}: no letter (a letter needs exactly "
                     f"{', '.join(map(str, stacks))} stamps).")
    return "\n".join(lines)
