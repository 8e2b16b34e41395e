"""The knob menus: what the camera cannot see, asked with a rotary encoder and its push.

A :class:`Menu` is a title and a list of items; turning the knob moves the highlight
(``left``/``right``), pushing it (or Score) chooses, Undo leaves. The builders here:

* :func:`face_menu`: confirm or correct a die the camera was unsure of (any game);
Each game's own menus are in its module in host/games/ (Jingle Bell Roll's score wizard,
Another Christmas Romance Movie's ways to start a turn ...).

Everything here is pure: menus are data, and choosing returns the next menu or a result.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence


DONE, SKIP, BACK = "__done__", "__skip__", "__back__"


@dataclass(frozen=True)
class MenuItem:
    label: str
    value: Any


@dataclass(frozen=True)
class Menu:
    """A list to pick from with the knob. ``kind`` tells the loop what a choice means."""

    kind: str
    title: str
    items: tuple[MenuItem, ...]
    highlight: int = 0
    context: Any = None
    private: str = ""      # for this player's eyes only (host.presenters.Screen.private)

    def turn(self, steps: int) -> "Menu":
        """The menu after ``steps`` knob detents (wraps around)."""
        if not self.items:
            return self
        return replace(self, highlight=(self.highlight + steps) % len(self.items))

    @property
    def chosen(self) -> MenuItem:
        return self.items[self.highlight]

    def pick(self, value: Any) -> "Menu":
        """Highlight the item whose value is ``value`` (for scripted use and defaults)."""
        for number, item in enumerate(self.items):
            if item.value == value:
                return replace(self, highlight=number)
        raise LookupError(f"{value!r} is not in the menu {self.title!r}")

    def labels(self) -> tuple[str, ...]:
        return tuple(item.label for item in self.items)


# -- a die the camera was unsure of ----------------------------------------------------------------

UNSEEN = "?"  # a die the camera did not see: its face is asked for


def face_menu(die_number: int, read_face: str, confidence: float, faces: Sequence[str]) -> Menu:
    """"Check die N": the read face first (push to confirm it), then the other faces.
    For a die the camera did not see (``read_face`` is UNSEEN): "Die N: which face?"."""
    if read_face == UNSEEN:
        return Menu("face", f"Die {die_number}: which face?", tuple(MenuItem(face, face) for face in faces),
                    context=die_number)
    items = [MenuItem(f"{read_face} (as read, {confidence:.0%} sure)", read_face)]
    items += [MenuItem(face, face) for face in faces if face != read_face]
    return Menu("face", f"Check die {die_number}", tuple(items), context=die_number)
