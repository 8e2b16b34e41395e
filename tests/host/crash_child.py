"""A scripted Jingle Bell Roll game through the real table loop, for the crash test.

    python crash_child.py SESSIONS_DB SEED [PAUSE]

Resumes the last unfinished game in SESSIONS_DB (or starts one), then plays on until the
game is over and prints the final state as JSON. Every roll depends only on the game state
(round, player, roll number) and SEED, so a run killed at any moment and started again
plays the very same game. Some dice are read with low confidence and confirmed or
corrected with the knob, as at a real table. PAUSE (seconds, default 0.005) is slept
after each step so that a kill can land anywhere in the game.
"""
from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from host.loop import TableLoop  # noqa: E402
from host.session_store import SessionStore  # noqa: E402
from rules import get_game  # noqa: E402
from vision.roll import Die, Roll  # noqa: E402

FACES = ("MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL")
PLAYERS = ["Ann", "Ben", "Cy"]


def keep(faces: list[str]) -> list[int]:
    """Keep BELLS (required) and MILK & COOKIE pairs; re-roll the rest."""
    counts = Counter(faces)
    pairs = min(counts["MILK"], counts["COOKIE"])
    want = Counter(BELL=counts["BELL"], MILK=pairs, COOKIE=pairs)
    kept = []
    for i, face in enumerate(faces):
        if want[face] > 0:
            kept.append(i)
            want[face] -= 1
    return kept


def main() -> int:
    db, seed = Path(sys.argv[1]), int(sys.argv[2])
    pause = float(sys.argv[3]) if len(sys.argv) > 3 else 0.005
    game = get_game("jingle-bell-roll")
    store = SessionStore(db)
    session_id = store.latest(game.name)
    table = store.open(session_id, get_game) if session_id else store.create(game, {"players": PLAYERS})
    loop = TableLoop(table, presenters=[], ask_setup=False)
    loop.start()
    print("ready", file=sys.stderr, flush=True)  # the test strikes only after this
    while not loop.state.is_over:
        state = loop.state
        rng = random.Random(f"{seed}-{state.round}-{state.turn.player}-{state.roll_number}")
        if state.roll_number == 0 or (state.roll_number < 3 and len(keep(list(state.faces))) < 5):
            kept = keep(list(state.faces)) if state.roll_number else []
            faces = [state.faces[i] if i in kept else rng.choice(FACES) for i in range(7)]
            if state.roll_number and Counter(faces) == Counter(state.faces):
                faces[[i for i in range(7) if i not in kept][0]] = "GIFT" if faces[0] != "GIFT" else "LIST"
            shaky = rng.randrange(7)  # one die read with low confidence, sometimes misread
            misread = rng.random() < 0.5
            read = list(faces)
            if misread:
                read[shaky] = FACES[(FACES.index(faces[shaky]) + 1) % 6]
            dice = tuple(Die(face, 0.5 if i == shaky else 0.99, 10.0 * i, 0.0, 8.0, 8.0) for i, face in enumerate(read))
            loop.on_read(Roll(dice=dice, dice_set="jingle-bell-roll"))
            while loop.pending is not None:  # "Check die N": turn the knob to the true face, push
                die = loop.pending.flagged[0]
                menu = loop.menu
                target = [item.value for item in menu.items].index(faces[die])
                for _ in range(target - menu.highlight):
                    loop.handle("right")
                loop.handle("push")
        else:
            loop.handle("score")
            while loop.wizard is not None:
                loop.handle("push")
        time.sleep(pause)
    print(json.dumps(game.to_json(loop.state), sort_keys=True))
    loop.shutdown()
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
