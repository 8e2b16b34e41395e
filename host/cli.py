"""`dicewatch`: the command line. Subcommands live one per module in host/commands/.

Exit status: 0 success, 1 the command ran but something it was given was bad
(an unreadable image, an illegal replay line), 2 bad usage (unknown flag, missing argument).
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from host import commands
from host.errors import UsageError  # (defined there so library modules can raise it too)
from host.games import GameModuleError
from host.paths import DataDirError
from host.session_store import StoreError


def command_modules() -> list:
    """The subcommand modules, sorted by name."""
    found = []
    for info in pkgutil.iter_modules(commands.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"host.commands.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found.append(module)
    return sorted(found, key=lambda m: m.NAME)


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    parser = argparse.ArgumentParser(
        prog="dicewatch",
        description="Reads the real dice at your board game table, keeps the score and runs "
                    "the fate rounds. Run 'dicewatch COMMAND --help' for a command's options.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    by_name = {}
    for module in command_modules():
        doc = (module.__doc__ or "").strip()
        p = sub.add_parser(module.NAME, help=module.HELP, description=doc or module.HELP,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)
        by_name[module.NAME] = (module, p)
    return parser, by_name


def main(argv: list[str] | None = None) -> int:
    try:
        parser, by_name = build_parser()
    except GameModuleError as exc:
        print(f"dicewatch: {exc}", file=sys.stderr)
        return 2
    args, unknown = parser.parse_known_args(argv)
    if not args.command:
        if unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        parser.print_help()
        return 2
    module, sub_parser = by_name[args.command]
    if unknown:  # said with the command's own usage, not the top level's
        sub_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return int(module.run(args) or 0)
    except UsageError as exc:
        sub_parser.print_usage(sys.stderr)
        print(f"dicewatch {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (DataDirError, StoreError) as exc:
        print(f"dicewatch {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ndicewatch: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a file, folder or device the command could not use: said, not a traceback
        where = f"cannot use {exc.filename}: " if exc.filename else ""
        print(f"dicewatch {args.command}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - a bug: one line for the user, the traceback on request
        if os.environ.get("DICEWATCH_DEBUG"):
            raise
        print(f"dicewatch {args.command}: internal error ({type(exc).__name__}: {exc}); this is a bug in "
              "dicewatch: run again with DICEWATCH_DEBUG=1 to see where, and report it", file=sys.stderr)
        return 70


if __name__ == "__main__":
    # `python -m host.cli` loads this file as __main__; run the importable copy so the
    # exception classes the commands raise (UsageError) are the ones caught above.
    from host.cli import main as _main
    sys.exit(_main())
