"""The dice face sets the games use. Plain data: the camera, a person or the device's RNG
reports faces by these names.

Another Christmas Romance Movie's rulebook names only one of its six faces (the
SNOWFLAKE); the other five are placeholders (``FACE-2`` .. ``FACE-6``) that a user can
rename in the config file (``[dice.christmas-romance] faces = [...]``). See seeds/.
"""
from __future__ import annotations

FACE_SETS: dict[str, tuple[str, ...]] = {
    "d6-pips": ("1", "2", "3", "4", "5", "6"),
    "jingle-bell-roll": ("MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL"),
    # ASSUMPTION: five placeholder names; the rulebook shows the faces only as pictures.
    "christmas-romance": ("SNOWFLAKE", "FACE-2", "FACE-3", "FACE-4", "FACE-5", "FACE-6"),
}


def faces_of(face_set: str) -> tuple[str, ...]:
    """The face names of a built-in set; LookupError lists the valid sets."""
    try:
        return FACE_SETS[face_set]
    except KeyError:
        raise LookupError(f"unknown dice {face_set!r}; built-in sets: {', '.join(FACE_SETS)}") from None
