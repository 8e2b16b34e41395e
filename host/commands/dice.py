"""List, show, delete and rename the die sets dicewatch can read.

examples:
  dicewatch dice list
  dicewatch dice show jingle-bell-roll --out jbr.png     # the example crops of every face
  dicewatch dice rename christmas-romance FACE-2 HEART
  dicewatch dice forget my-dice --session 20261207-1402-7f3a   # what one game taught
  dicewatch dice delete my-dice

d6-pips (standard pip dice) needs no teaching. jingle-bell-roll and christmas-romance are
built in, taught from drawn stand-in icons until you teach them with your real dice
(`dicewatch teach --dice NAME --from DIR --replace`); deleting a re-taught built-in set
brings its default back. christmas-romance's faces other than SNOWFLAKE are placeholders
FACE-2..FACE-6 (the rulebook does not name them): rename them to what your dice show.

A taught set learns at the table: each die you score without a correction, and each die you
correct, becomes an example of its face (at most 24 per face; look-alikes give way). `show`
says how many each face has and which games taught them; `forget` takes back what one game
taught (`dicewatch export --list` lists the games).
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
    forget = sub.add_parser("forget", help="remove the examples one game taught a set at the table")
    forget.add_argument("name", metavar="NAME")
    forget.add_argument("--session", required=True, metavar="ID",
                        help="the game (session id) whose examples go; 'dicewatch dice show NAME' lists them")


def run(args: argparse.Namespace) -> int:
    from host import paths
    from vision import dicesets, learning, taught

    if not getattr(args, "action", None):
        raise UsageError("say what to do: list, show NAME, delete NAME, rename NAME OLD NEW "
                         "or forget NAME --session ID")
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
        if args.action == "forget":
            return forget(args.name, args.session, data)
        if args.action == "rename":
            fixed = games_with_fixed_faces(args.name) if args.name != dicesets.PIPS else []   # (pips: said below)
            if fixed:
                print(f"dicewatch dice rename: the rules of {' and '.join(g.title for g in fixed)} score the "
                      f"{args.name} faces by their names ({', '.join(dicesets.FACE_SETS.get(args.name, ()))}), so a renamed "
                      f"{args.old} could never be scored; keep these names for those dice, or teach yours as "
                      f"a set of another name (dicewatch teach --dice NAME ...)", file=sys.stderr)
                return 1
            stored = dicesets.rename_face(args.name, args.old, args.new, data)
            print(f"{args.name}: {args.old} is now {args.new}; faces: {', '.join(stored.faces)}")
            if args.name in dicesets.FACE_SETS:
                names = ", ".join(f'"{f}"' for f in stored.faces)
                print(f"the game must use the same names: in the config file put "
                      f"[dice.{args.name}] faces = [{names}]")
            return 0
    except (dicesets.DiceSetError, taught.TeachError, learning.LearningError) as exc:
        print(f"dicewatch dice {args.action}: {exc}", file=sys.stderr)
        return 1
    raise UsageError(f"unknown action {args.action!r}")


def games_with_fixed_faces(dice_set: str) -> list:
    """The games that read ``dice_set`` and know its faces only by their built-in names (no
    ``faces`` option to rename them with)."""
    from rules import game_names, get_game
    reading = [get_game(name) for name in game_names() if get_game(name).dice == dice_set]
    return [game for game in reading if "faces" not in {option.name for option in game.options}]


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
    out = out or Path(f"{name}.png")
    if out.suffix.lower() != ".png":
        raise UsageError(f"--out {out}: the picture is a PNG; give a file name ending in .png")
    if out.is_dir():
        raise UsageError(f"--out {out}: is a folder; give a file name ending in .png")
    from host.commands._writable import check_writable
    check_writable(out.parent, "the picture")
    dice_set = dicesets.load_set(name, data)
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
    for line in learned_lines(dice_set):
        print(line)
    return 0


def learned_lines(dice_set) -> list[str]:
    """What the set learned at the table: per face, its examples by where they came from, the
    examples kept aside, and the games that taught them."""
    from vision import learning
    store = learning.ExampleStore.of_set(dice_set.folder)
    if not store.examples and not store.outcomes:
        return ["learned at the table: nothing yet (each die scored or corrected in a game becomes an example)"]
    lines = ["examples per face (taught / scored at the table without a correction / corrected at the table):"]
    for face in dice_set.faces:
        mine = [e for e in store.examples.values() if e.face == face and not e.aside]
        accepted = sum(e.source == learning.ACCEPTED for e in mine)
        lines.append(f"  {face}: {len(dice_set.examples[face])} taught, {accepted} scored, "
                     f"{len(mine) - accepted} corrected")
    aside = [e for e in store.examples.values() if e.aside]
    if aside:
        lines.append(f"kept aside: {len(aside)} (they made the check of the taught examples worse; "
                     f"not read with)")
    strange = [e for e in store.examples.values() if e.face not in dice_set.faces]
    if strange:
        lines.append(f"of faces the set no longer has: {len(strange)} (not read with)")
    lines += table_word_lines(store.record())
    lines.append("games that taught it: " + ", ".join(f"{session} ({count})" for session, count
                                                      in store.sessions().items()))
    lines.append(f"take one game's back with: dicewatch dice forget {dice_set.name} --session ID")
    return lines


def table_word_lines(record) -> list[str]:
    """How the dice stored at the table turned out, and what that makes of a read's confidence
    (vision.learning.TableRecord): the box asks about reads below the ``confidence`` setting."""
    if not len(record):
        return []
    right = int(record.rights.sum())
    lines = [f"dice stored at the table (the last {len(record)}): {right} read right, "
             f"{len(record) - right} corrected; the reader's confidence as the table now weighs it:"]
    lines.append("  " + ", ".join(f"{raw:.2f} -> {record.confidence(raw):.2f}" for raw in (0.5, 0.7, 0.8, 0.9, 0.95)))
    return lines


def forget(name: str, session: str, data) -> int:
    from vision import dicesets, learning
    if name == dicesets.PIPS:
        print(f"dicewatch dice forget: {name} is the built-in pip reader; it learns nothing", file=sys.stderr)
        return 1
    dice_set = dicesets.load_set(name, data)
    store = learning.ExampleStore.of_set(dice_set.folder)
    keys = store.of_session(session)
    outcomes = store.outcomes_of_session(session)
    if not keys and not outcomes:
        known = ", ".join(store.sessions()) or "none"
        print(f"dicewatch dice forget: no examples of {name} came from session {session!r}; "
              f"the games that taught it: {known}", file=sys.stderr)
        return 1
    store.change(dropped=keys, unsaid=outcomes)
    print(f"{name}: forgot the {len(keys)} example(s) session {session} taught and how its "
          f"{len(outcomes)} stored dice were read; a box playing now leaves them out from the next roll it stores")
    return 0
