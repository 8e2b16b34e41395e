"""A scripted Jingle Bell Roll game through the real table loop, for the crash tests.

    python crash_child.py SESSIONS_DB SEED [PAUSE]

Resumes the last unfinished game in SESSIONS_DB (or starts one), as ``dicewatch run
--resume`` does (the store checked against its logs first), then plays on until the game
is over and prints {"game": 0, "state": <the final state>} as JSON. Every roll depends only
on the game state and SEED, so a run killed at any moment and started again plays the very
same game. The script is host/soak_crash.py's child (see there): some dice are read with
low confidence and confirmed or corrected with the knob, as at a real table. PAUSE
(seconds, default 0.005) is slept after each step so that a kill can land anywhere.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from host.soak_crash import child  # noqa: E402

if __name__ == "__main__":
    sys.exit(child(Path(sys.argv[1]), sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 0.005, games=1))
