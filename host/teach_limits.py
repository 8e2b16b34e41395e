"""How many pictures teaching a die set takes (host/teaching.py, ``dicewatch teach``).

Kept apart from host/teaching.py, which loads OpenCV, the dice models and gpiozero: the
teach command's ``--help`` names these numbers, and ``dicewatch --help`` must stay fast.
"""
from __future__ import annotations

MIN_PHOTOS = 5  # per face
MAX_SHOTS = 100  # per face: more only makes the teaching long (40 already read 97 % on real photos)
DEFAULT_SHOTS = 8  # pictures per face taken at the camera
