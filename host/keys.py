"""The terminal as the box's buttons and knob, for ``dicewatch run`` on a laptop or a Pi
with nothing wired to its GPIO.

Every question the table asks (a character card, "Check die 3", the menus) is answered with
Score, Undo, Next and the knob. When ``run`` is started from a terminal, :class:`TerminalKeys`
reads the lines typed there and posts the same commands a button would (an *input* in the
sense of :mod:`host.presenters`); the screens are printed on the same terminal. A line is
one key, then Enter:

=============== ==============================================================
typed           does
=============== ==============================================================
``s``           Score (confirm a flagged die, choose the highlighted item)
``u``           Undo (take back the last event, leave a menu)
``n``           Next (skip an optional choice, go on to the next player)
``<`` / ``>``   turn the knob one detent left / right (``<<<``: three detents)
Enter           push the knob (open the menu, choose the highlighted item)
``face:N:NAME`` die N is NAME (as a panel's face picker does)
``roll:F1,F2``  type in a whole roll the camera cannot see
``?``           this list
=============== ==============================================================

The whole words (``score``, ``undo``, ``next``, ``left``, ``right``, ``push``) work too. A
line that is none of these is answered with what was expected; the game is not touched.
"""
from __future__ import annotations

import sys
import threading
from typing import Callable, TextIO

from host.presenters import COMMANDS

LETTERS = {"s": "score", "u": "undo", "n": "next", "p": "push", "": "push"}
HELP = ("keys, then Enter: s Score, u Undo, n Next, < or > turn the knob (<<< for three), "
        "Enter push the knob, face:N:NAME or roll:F1,F2,... to name dice, ? this list")


def commands_of_line(line: str) -> list[str]:
    """The box commands a typed line stands for (several for ``<<<``); ValueError saying
    what was expected for anything else."""
    text = line.strip()
    if text.startswith(("face:", "roll:")):
        return [text]   # checked by the table loop, which says what is wrong with it
    word = text.lower()
    if word in COMMANDS:
        return [word]
    if word in LETTERS:
        return [LETTERS[word]]
    if set(word) == {"<"}:
        return ["left"] * len(word)
    if set(word) == {">"}:
        return ["right"] * len(word)
    raise ValueError(f"unknown key {text!r}; {HELP}")


class TerminalKeys:
    """Posts the commands typed on a terminal to the table loop, from a thread of its own.

    :param post: where commands go (``TableLoop.post``; thread-safe).
    :param stream: the lines typed (default ``sys.stdin``).
    :param out: where the list of keys and the answer to a wrong key go (default stderr).

    ``start()`` prints the list of keys and starts reading; reading ends at the end of the
    input (Ctrl-D), and the game goes on with the other inputs. The thread is a daemon, so
    it never holds up shutdown.
    """

    def __init__(self, post: Callable[[str], None], stream: TextIO | None = None, out: TextIO | None = None):
        self.post = post
        self.stream = stream if stream is not None else sys.stdin
        self.out = out if out is not None else sys.stderr
        self.thread: threading.Thread | None = None

    def start(self) -> "TerminalKeys":
        print(f"dicewatch run: {HELP}", file=self.out, flush=True)
        self.thread = threading.Thread(target=self.read_all, name="terminal-keys", daemon=True)
        self.thread.start()
        return self

    def read_all(self) -> None:
        for line in self.stream:
            if line.strip() in ("?", "h", "help"):
                print(HELP, file=self.out, flush=True)
                continue
            try:
                commands = commands_of_line(line)
            except ValueError as exc:
                print(f"dicewatch run: {exc}", file=self.out, flush=True)
                continue
            for command in commands:
                self.post(command)
