"""How teaching at the camera talks with the player: the terminal, and the box's e-ink
screen, status light, buzzer and buttons when it has them.

`dicewatch teach --camera` asks for each face in turn, says how many pictures it has, and
ends with a mixed roll read back for checking. On a terminal a question is a line, answered
with Enter (go on, yes) or q (stop, no). On the box the question is an e-ink screen
(:class:`host.presenters.Screen`), the status light blinks for attention while it waits, and
the buttons answer: Score or the knob's push = go on / yes, Undo = stop / no. Whichever
answers first counts. Each picture taken ticks the buzzer, so the player need not look up.

>>> console = TeachConsole([EinkScreen(PngPanel("screens"))], wait=True)   # doctest: +SKIP
>>> devices = TableDevices(pins_for(), on_command=console.post)             # doctest: +SKIP
>>> console.ask("Face 1 of 6: MILK", ["Put ONE die in the tray, MILK on top"])  # doctest: +SKIP
True
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from typing import Callable, Sequence, TextIO

from host.games import red_faces_of
from host.presenters import ATTENTION, PROMPT, READ_OK, ROLL, WAITING, DieView, Screen, Status, how_many_dice, tell

GO, STOP = True, False
#: what each button or knob command (host.presenters.COMMANDS) answers; turning the knob and
#: Next answer nothing here
ANSWERS = {"score": GO, "push": GO, "undo": STOP}
ASK_FOOTER = "Score: ready   Undo: stop"
CONFIRM_FOOTER = "Score: yes   Undo: no"
BACK_TO_GAME = "Next: back to the game"


def answer_of_line(line: str) -> str:
    """A line typed on the terminal as a button command: q or n = Undo, anything else = Score."""
    return "undo" if line.strip().lower()[:1] in ("q", "n") else "score"


class TeachConsole:
    """The prompts and answers of teaching at the camera.

    :param presenters: outputs in the :mod:`host.presenters` sense (the e-ink screen, the GPIO
        lights and buzzer, the serial panel); each gets every screen and status.
    :param wait: whether questions wait for an answer. False for the synthetic camera, which
        plays its script whatever is pressed, and where nobody can answer.
    :param out: where the terminal lines go (default stdout; ``False``: nowhere).
    :param read_terminal: also take answers typed on the terminal (stdin is a tty).
    :param clock: time source for the presenters' ``tick``.
    :param stop: an event that, once set (the table loop's SIGTERM), answers every question
        with "stop" and ends the picture taking (``stopping``).
    :param at_table: teaching from the table loop's menu: the last screen says how to get
        back to the game.
    :param commands: the queue answers arrive in (default: its own, fed by ``post``; the
        table loop passes its own queue, which its buttons and panel already post to).
    """

    def __init__(self, presenters: Sequence = (), *, wait: bool = False, out: TextIO | bool | None = None,
                 read_terminal: bool = False, clock: Callable[[], float] = time.monotonic,
                 stop: threading.Event | None = None, at_table: bool = False,
                 commands: "queue.Queue[str] | None" = None):
        self.presenters = list(presenters)
        self.at_table = at_table
        self.stop = stop or threading.Event()
        self.wait = wait
        self.out = None if out is False else (out or sys.stdout)
        self.read_terminal = read_terminal
        self.clock = clock
        self.commands: queue.Queue[str] = commands if commands is not None else queue.Queue()
        self._screen: Screen | None = None
        self._reader: threading.Thread | None = None
        self._stdin_closed = False

    @classmethod
    def silent(cls) -> "TeachConsole":
        """Says nothing and never waits (the demo teaching its dice before a game)."""
        return cls(out=False)

    # -- inputs ------------------------------------------------------------------------------------

    def post(self, command: str) -> None:
        """A button, the knob or the panel was used (thread-safe: gpiozero calls this from its
        own thread)."""
        self.commands.put(command)

    def _read_stdin(self) -> None:
        for line in sys.stdin:
            self.post(answer_of_line(line))
        # end of input (Ctrl-D): this and every later question goes on, as an empty answer would
        self._stdin_closed = True
        self.post("score")

    def _answer(self, poll: float = 0.05) -> bool:
        """Wait for Score/push (True) or Undo (False), keeping the presenters ticking."""
        while not self.commands.empty():  # presses made before the question do not answer it
            self.commands.get_nowait()
        if self._stdin_closed:
            return GO
        if self.read_terminal and self._reader is None:
            self._reader = threading.Thread(target=self._read_stdin, name="teach-stdin", daemon=True)
            self._reader.start()
        self._status(Status(light=ATTENTION, sound="attention"))
        while True:
            self._tick()
            if self.stopping:
                return STOP
            try:
                command = self.commands.get(timeout=poll)
            except queue.Empty:
                continue
            if command in ANSWERS:
                self._status(Status(light=WAITING))
                return ANSWERS[command]

    @property
    def stopping(self) -> bool:
        """The box is shutting down: stop taking pictures, answer nothing more."""
        return self.stop.is_set()

    # -- outputs -----------------------------------------------------------------------------------

    def _print(self, text: str) -> None:
        if self.out is not None:
            print(text, file=self.out, flush=True)

    def _show(self, screen: Screen) -> None:
        self._screen = screen
        tell(self.presenters, "show", screen)
        self._tick()

    def _status(self, status: Status) -> None:
        tell(self.presenters, "status", status)

    def _tick(self) -> None:
        tell(self.presenters, "tick", self.clock())

    def ask(self, title: str, lines: Sequence[str] = ()) -> bool:
        """Show a question; True to go on, False if the player stopped. Without ``wait``
        (the synthetic camera) it only shows the question and goes on."""
        self._print(f"{title}. {' '.join(lines)}" if lines else title)
        self._show(Screen(PROMPT, title=title, lines=tuple(lines), footer=ASK_FOOTER if self.wait else ""))
        if not self.wait:
            return GO
        if self.read_terminal:
            self._print("  press Enter when ready (or type q to stop), or Score on the box")
        return self._answer()

    def say(self, line: str, *, picture: bool = False) -> None:
        """Progress under the current question ("MILK: picture 3 of 8"); ``picture``: a picture
        was just taken (the buzzer ticks, the light flashes green)."""
        self._print("  " + line)
        screen = self._screen or Screen(PROMPT)
        first = screen.lines[:1] if screen.lines else ()
        self._show(Screen(PROMPT, title=screen.title, lines=(*first, line), footer=screen.footer))
        if picture:
            self._status(Status(light=READ_OK, sound="scored"))

    def confirm(self, title: str, faces: Sequence[str], confidences: Sequence[float], dice_set: str,
                unsure_below: float = 0.9) -> bool | None:
        """Show a read (the self-check's mixed roll) and ask whether it is right: True / False,
        or None when nobody can answer (``wait`` off)."""
        marks = " ".join(f + ("?" if c < unsure_below else "") for f, c in zip(faces, confidences))
        unsure = sum(c < unsure_below for c in confidences)
        self._print(f"read: {marks}  ({how_many_dice(len(faces))}, {unsure} unsure)")
        red = red_faces_of(dice_set)
        dice = tuple(DieView(face, confidence=c, flagged=c < unsure_below, red=face in red)
                     for face, c in zip(faces, confidences))
        self._show(Screen(ROLL, title=title, dice=dice, dice_set=dice_set,
                          footer=CONFIRM_FOOTER if self.wait else f"{how_many_dice(len(faces))}, {unsure} unsure"))
        if not self.wait:
            return None
        if self.read_terminal:
            self._print("  is that right? [y/n] (or Score = yes, Undo = no on the box)")
        return self._answer()

    def finish(self, title: str, lines: Sequence[str] = (), *, terminal: bool = True) -> None:
        """The last screen: what was taught (or why not); ``terminal=False`` when the terminal
        has already been told."""
        if terminal:
            self._print(": ".join((title, "; ".join(lines))) if lines else title)
        self._show(Screen(PROMPT, title=title, lines=tuple(lines),
                          footer=BACK_TO_GAME if self.at_table else ""))
        self._status(Status(light=WAITING))

    def close(self) -> None:
        """Close every presenter: the display shows its last screen and sleeps, the lights go
        off (as the table loop's shutdown does)."""
        tell(self.presenters, "close")
