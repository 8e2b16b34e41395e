"""One module per `dicewatch` subcommand.

Each module defines ``NAME`` (the subcommand), ``HELP`` (one line for `dicewatch --help`),
``add_arguments(parser)`` and ``run(args) -> int``. host/cli.py finds them by itself, so a
new command is a new file here and nothing else.
"""
