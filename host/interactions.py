"""What the table is asking right now: one stack of interactions, the top one takes the buttons.

The table loop used to keep a flag for each kind of question (a menu open, a read waiting
for its check, a score being answered, a notice up, a re-roll announced). They are now one
stack, so that what a button press means is always "what the top of the stack says", and
Undo takes the top away:

* :class:`Notice`: an error or a notice is on the screen; the first Next or Undo puts it
  away. ``unusable``: the read it is about could not be used; a push enters it die by die.
* :class:`Choosing`: a knob menu (turn to move, push or Score to choose, Undo to leave).
* :class:`Checking`: a settled read waiting for its unsure dice (host.dice_check.DiceCheck),
  with the face menu of the die asked now.
* :class:`Answering`: a choice made in several steps (a score with its gift cards, their
  recipients and a letter): one menu per step, Undo goes back a step.
* :class:`Awaiting`: a throw the players announced (a re-roll with an ability): the next
  settled read is that throw.

Everything here is plain data; the loop (host.loop) acts on it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence, TypeVar

from host.dice_check import DiceCheck
from host.menus import Menu


@dataclass
class UnusableRead:
    """A read the loop could not use (too few or too many dice, or refused by the rules):
    ``faces`` and ``confidences`` as seen; ``ask_all``: every die is asked when it is
    entered by hand (too many dice, or refused), else only the unseen and unsure ones."""

    faces: list[str]
    confidences: list[float]
    ask_all: bool


@dataclass
class Notice:
    unusable: UnusableRead | None = None


@dataclass
class Choosing:
    menu: Menu


@dataclass
class Checking:
    check: DiceCheck
    menu: Menu


@dataclass
class Answering:
    """``steps`` asks the questions: ``menu()`` (the next question, None when done),
    ``choose(value)``, ``back()`` (False when there is nothing to go back to), ``event()``,
    ``answers()`` (JSON, to take up again after --resume). ``menu`` is the current question
    with the knob's highlight (None: not turned yet)."""

    steps: Any
    menu: Menu | None = None
    busy: str = "a choice is being answered (Undo goes back)"


@dataclass
class Awaiting:
    event: dict


Interaction = Notice | Choosing | Checking | Answering | Awaiting
T = TypeVar("T")


@dataclass
class Interactions:
    """The stack. ``top`` is the interaction that takes the next button press; a Notice
    lies over whatever it interrupted and is put away first."""

    items: list = field(default_factory=list)

    def __iter__(self) -> Iterator:
        return iter(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def push(self, item) -> None:
        self.items.append(item)

    def top(self, skip_notice: bool = True):
        """The interaction on top (below a Notice, when ``skip_notice``), or None."""
        for item in reversed(self.items):
            if skip_notice and isinstance(item, Notice):
                continue
            return item
        return None

    def find(self, kind: type[T]) -> T | None:
        """The topmost interaction of ``kind``, or None."""
        for item in reversed(self.items):
            if isinstance(item, kind):
                return item
        return None

    def remove(self, *kinds: type) -> None:
        """Take every interaction of ``kinds`` off the stack."""
        self.items = [item for item in self.items if not isinstance(item, kinds)]

    def drop(self, item) -> None:
        self.items = [other for other in self.items if other is not item]

    def notice(self) -> Notice | None:
        """The notice on top of the stack, if one is up."""
        return self.items[-1] if self.items and isinstance(self.items[-1], Notice) else None

    def clear(self) -> None:
        self.items = []


def kinds(stack: Interactions) -> Sequence[str]:
    """The stack's kinds from bottom to top, for logs and tests."""
    return tuple(type(item).__name__ for item in stack)
