"""List, show, delete and rename the die sets dicewatch can read.

examples:
  dicewatch dice list
  dicewatch dice show jingle-bell-roll --out jbr.png     # the example crops of every face
  dicewatch dice rename christmas-romance FACE-2 HEART
  dicewatch dice delete my-dice

d6-pips (standard pip dice) needs no teaching. jingle-bell-roll and christmas-romance are
built in, taught from drawn stand-in icons until you teach them with your real dice
(`dicewatch teach --dice NAME --from DIR --replace`); deleting a re-taught built-in set
brings its default back. christmas-romance's faces other than SNOWFLAKE are placeholders
FACE-2..FACE-6 (the rulebook does not name them): rename them to what your dice show.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from host.cli import UsageError

NAME = "dice"
HELP = "list, show, delete or rename die sets (taught and built-in)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.add_parser("list", help="every die set and its faces")
    show = sub.add_parser("show", help="write a picture of a set's example crops per face")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--out", type=Path, metavar="PNG",
                      help="where to write the picture (default: NAME.png here)")
    delete = sub.add_parser("delete", help="delete a taught die set")
    delete.add_argument("name", metavar="NAME")
    rename = sub.add_parser("rename", help="rename one face of a set")
    rename.add_argument("name", metavar="NAME")
    rename.add_argument("old", metavar="OLD")
    rename.add_argument("new", metavar="NEW")


def run(args: argparse.Namespace) -> int:
    from host import paths
    from vision import dicesets, taught

    if not getattr(args, "action", None):
        raise UsageError("say what to do: list, show NAME, delete NAME or rename NAME OLD NEW")
    data = paths.data_dir()
    try:
        if args.action == "list":
            return list_sets(data)
        _check_name(args.name)
        if args.action == "show":
            return show(args.name, args.out, data)
        if args.action == "delete":
            after = dicesets.delete_set(args.name, data)
            print(f"deleted {args.name}" + (f"; it now reads with {after}" if after != "nothing" else ""))
            return 0
        if args.action == "rename":
            stored = dicesets.rename_face(args.name, args.old, args.new, data)
            print(f"{args.name}: {args.old} is now {args.new}; faces: {', '.join(stored.faces)}")
            if args.name in dicesets.FACE_SETS:
                names = ", ".join(f'"{f}"' for f in stored.faces)
                print(f"the game must use the same names: in the config file put "
                      f"[dice.{args.name}] faces = [{names}]")
            return 0
    except (dicesets.DiceSetError, taught.TeachError) as exc:
        print(f"dicewatch dice {args.action}: {exc}", file=sys.stderr)
        return 1
    raise UsageError(f"unknown action {args.action!r}")


def _check_name(name: str) -> None:
    from vision import dicesets
    try:
        dicesets.check_set_name(name)
    except dicesets.DiceSetError as exc:
        raise UsageError(str(exc)) from None


def list_sets(data) -> int:
    from vision import dicesets
    origin_text = {"pips": "built in, no teaching", "built-in": "built in (drawn stand-in icons)",
                   "taught": "taught", "damaged": "damaged (see 'dicewatch dice show NAME')"}
    for dice_set in dicesets.list_sets(data):
        origin = origin_text.get(dice_set.origin, dice_set.origin)
        if dice_set.origin == "built-in" and dice_set.folder is not None:
            origin = "built in (drawn stand-in icons)"
        elif dice_set.name in dicesets.FACE_SETS and dice_set.origin == "taught":
            origin = "taught (replaces the built-in default)"
        count = sum(len(v) for v in dice_set.examples.values())
        examples = f", {count} examples" if count else ""
        print(f"{dice_set.name:<20} {origin}{examples}: {', '.join(dice_set.faces)}")
    return 0


def show(name: str, out: Path | None, data) -> int:
    import cv2
    from vision import dicesets
    if name == dicesets.PIPS:
        print(f"dicewatch dice show: {name} is the built-in pip reader; it has no taught "
              f"examples to show", file=sys.stderr)
        return 1
    dice_set = dicesets.load_set(name, data)
    out = out or Path(f"{name}.png")
    if out.suffix.lower() != ".png":
        raise UsageError(f"--out {out}: the picture is a PNG; give a file name ending in .png")
    if out.is_dir():
        raise UsageError(f"--out {out}: is a folder; give a file name ending in .png")
    sheet = dicesets.contact_sheet(dice_set)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        ok = cv2.imwrite(str(out), sheet)
    except (OSError, cv2.error) as exc:
        ok, reason = False, str(exc)
    else:
        reason = "OpenCV could not write it"
    if not ok:
        print(f"dicewatch dice show: cannot write {out}: {reason}", file=sys.stderr)
        return 1
    counts = ", ".join(f"{f} {len(dice_set.examples[f])}" for f in dice_set.faces)
    print(f"{name}: {counts}; picture written to {out}")
    return 0
