"""Soak test of the crash guarantee: SIGKILL the table loop at many random moments, resume each
time, and check that no finished game changed. Not part of the test suite (it takes a while):

    python -m host.soak_crash --kills 1000             # the figure quoted in the README
    python -m host.soak_crash --kills 50 --keep DIR    # a quick look, its databases kept in DIR

A *child* process (``python -m host.soak_crash child DB SEED PAUSE GAMES``) plays scripted
Jingle Bell Roll games through the real table loop (host/loop.py) in one sessions database,
as ``dicewatch run --resume`` would: the store is checked against its logs and repaired
(host/session_recovery.py), the last unfinished game is resumed, or the next one started,
until GAMES games are over. Every roll depends only on SEED, the game's number in the
database and the game state, so a game killed any number of times plays the very same
game as one never killed. Some dice are read with low confidence and confirmed or
corrected with the knob, as at a real table; PAUSE seconds are slept after each step.

The driver starts a child, kills it with SIGKILL at a random moment (most of them after 0
to --steps steps of the resumed game and a random part of the next, some while it is still
starting: opening, checking and repairing the store), and starts it again, until --kills
kills; then lets the last game finish. It plays the same number of games again in a fresh database without a single
kill, and compares every game: the rules events still standing in the journal, and the
final state. It also checks the killed database against its logs. Exit status 0 when
no game changed, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import random
import select
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

FACES = ("MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL")
PLAYERS = ["Ann", "Ben", "Cy"]
GAME = "jingle-bell-roll"


# -- the child: scripted games at the real table loop ------------------------------------------
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


def next_roll(state, rng: random.Random) -> list[str] | None:
    """The faces of the next throw, or None when the turn is to be scored."""
    if not (state.roll_number == 0 or (state.roll_number < 3 and len(keep(list(state.faces))) < 5)):
        return None
    kept = keep(list(state.faces)) if state.roll_number else []
    faces = [state.faces[i] if i in kept else rng.choice(FACES) for i in range(7)]
    if state.roll_number and Counter(faces) == Counter(state.faces):   # a throw must change something
        moved = [i for i in range(7) if i not in kept][0]
        faces[moved] = FACES[(FACES.index(faces[moved]) + 1) % len(FACES)]
    return faces


def spots(loop, faces: list[str]) -> list[tuple[float, float]]:
    """Where the dice lie after a throw: a kept die where it lay (as the box noted it), a die
    thrown somewhere new (a row of the tray of its own for each throw of the game)."""
    state, known = loop.state, loop.known_spots
    kept = set(keep(list(state.faces))) if state.roll_number else set()
    row = 20.0 * (3 * (10 * state.round + state.turn.player) + state.roll_number + 1)
    return [(known[i][0], known[i][1]) if i in kept and len(known) == len(faces) else (10.0 * i, row)
            for i in range(len(faces))]


def throw(loop, faces: list[str], rng: random.Random) -> None:
    """The camera reads ``faces``, one die with low confidence (sometimes misread); the player
    turns the knob to the true face and pushes."""
    from vision.roll import Die, Roll
    shaky = rng.randrange(7)
    read = list(faces)
    if rng.random() < 0.5:   # misread as another face, but not so that the throw looks like no throw at all
        for step in range(1, 6):
            read[shaky] = FACES[(FACES.index(faces[shaky]) + step) % 6]
            if loop.state.roll_number == 0 or Counter(read) != Counter(loop.state.faces):
                break
    dice = tuple(Die(face, 0.5 if i == shaky else 0.99, x, y, 8.0, 8.0)
                 for i, (face, (x, y)) in enumerate(zip(read, spots(loop, faces))))
    loop.on_read(Roll(dice=dice, dice_set=GAME))
    while loop.pending is not None:  # "Check die N"
        die = loop.pending.flagged[0]
        menu = loop.menu
        target = [item.value for item in menu.items].index(faces[die])
        for _ in range(target - menu.highlight):
            loop.handle("right")
        loop.handle("push")


def play_game(store, table, seed: str, number: int, pause: float):
    """Play one game on to its end at the table loop; returns its final state."""
    from host.loop import TableLoop
    loop = TableLoop(table, presenters=[], ask_setup=False)
    loop.start()
    print("ready", file=sys.stderr, flush=True)  # the driver (and tests/host/test_crash.py) strike after this
    while not loop.state.is_over:
        state = loop.state
        rng = random.Random(f"{seed}-{number}-{state.round}-{state.turn.player}-{state.roll_number}")
        faces = next_roll(state, rng)
        if faces is not None:
            throw(loop, faces, rng)
            if loop.same_read is not None:   # a script that would wait forever is a failure, said
                raise SystemExit(f"the scripted throw {faces} read as the dice already on the table")
        else:
            loop.handle("score")
            while loop.wizard is not None:
                loop.handle("push")
        print("step", file=sys.stderr, flush=True)   # the driver counts steps to strike between them
        time.sleep(pause)
    if loop.table.store.session_record(loop.table.id).closed is None:
        loop.table.close()   # (the loop closes an ended game in a write of its own, after the last event)
    state = loop.state
    loop.shutdown()
    return state


def child(db: Path, seed: str, pause: float, games: int) -> int:
    """Resume or start games in ``db`` until ``games`` of them are over; print each final state."""
    from host.session_recovery import open_checked
    from rules import get_game
    game = get_game(GAME)
    with open_checked(db, lambda line: print(f"soak child: {line}", file=sys.stderr)) as store:
        while True:
            sessions = list(reversed(store.list()))   # oldest first: a game's number is its place here
            if sum(info.closed is not None for info in sessions) >= games:
                return 0
            unfinished = [n for n, info in enumerate(sessions) if info.closed is None]
            if unfinished:
                number = unfinished[0]
                table = store.open(sessions[number].id, get_game)
            else:
                number = len(sessions)
                table = store.create(game, {"players": PLAYERS})
            state = play_game(store, table, seed, number, pause)
            print(json.dumps({"game": number, "state": game.to_json(state)}, sort_keys=True), flush=True)


# -- the driver ------------------------------------------------------------------------------
def start_child(db: Path, seed: str, pause: float, games: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "host.soak_crash", "child", str(db), seed, str(pause), str(games)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[1])


def finished_and_current(db: Path) -> tuple[int, str | None]:
    """How many games are over in ``db``, and the id of the one being played (read-only)."""
    if not db.exists():
        return 0, None
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT id, closed FROM sessions ORDER BY created, rowid").fetchall()
    finally:
        con.close()
    open_ones = [sid for sid, closed in rows if closed is None]
    return len(rows) - len(open_ones), (open_ones[0] if open_ones else None)


def wait_for_ready(child_process: subprocess.Popen, timeout: float = 300) -> bool:
    """Read the child's messages (what its store check repaired) up to its "ready"; False when
    it ended first. SystemExit when it neither ends nor gets ready in ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([child_process.stderr], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = child_process.stderr.readline()
        if line.strip() == "ready":
            return True
        if not line:
            return False
    child_process.kill()
    raise SystemExit("the soak child did not get ready in time")


def strike(child_process: subprocess.Popen, rng: random.Random, early: float, steps: int, late: float) -> str:
    """Kill the child at a random moment: while it starts (1 in 8), or after it resumed and
    played 0 to ``steps`` steps (a throw checked and stored, or a turn scored), up to
    ``late`` seconds into the next one: a game is struck as often however fast the machine
    is. Returns where the kill fell ("starting", "playing"), or "finished" when the child
    ended first."""
    if rng.random() < 0.125:
        time.sleep(rng.uniform(0.0, early))
        where = "starting"
    else:
        if not wait_for_ready(child_process):
            return "finished"
        for _ in range(rng.randint(0, steps)):
            if not child_process.stderr.readline():
                return "finished"
        time.sleep(rng.uniform(0.0, late))
        where = "playing"
    if child_process.poll() is not None:
        return "finished"
    child_process.send_signal(signal.SIGKILL)
    child_process.wait(timeout=60)
    return where


def run_to_end(db: Path, seed: str, pause: float, games: int) -> None:
    done = subprocess.run([sys.executable, "-m", "host.soak_crash", "child", str(db), seed, str(pause), str(games)],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    if done.returncode != 0:
        raise SystemExit(f"a soak child failed (exit {done.returncode}):\n{done.stderr}")


def games_in(db: Path) -> list[tuple[str, list, dict]]:
    """Every finished game in ``db``, oldest first: (id, rules events standing, final state)."""
    from host.session_store import SessionStore, effective_events
    from rules import get_game
    out = []
    with SessionStore(db) as store:
        for info in reversed(store.list()):
            if info.closed is None:
                continue
            table = store.open(info.id, get_game)
            out.append((info.id, effective_events(table.entries), table.game.to_json(table.state)))
    return out


def soak(folder: Path, kills: int, seed: str, pause: float, steps: int, late: float, early: float, say) -> dict:
    killed_db, calm_db = folder / "killed.db", folder / "calm.db"
    rng = random.Random(seed)
    struck: Counter = Counter()
    where: Counter = Counter()
    started = time.monotonic()
    endless = 10 ** 6
    while sum(struck.values()) < kills:
        _, current = finished_and_current(killed_db)
        process = start_child(killed_db, seed, pause, endless)
        landed = strike(process, rng, early, steps, late)
        if landed == "finished":
            raise SystemExit(f"the soak child ended by itself: {process.stderr.read()}")
        process.stderr.close()
        where[landed] += 1
        _, after = finished_and_current(killed_db)
        struck[after or current or "(before the first game)"] += 1
        total = sum(struck.values())
        if total % 50 == 0:
            say(f"{total} kills, {finished_and_current(killed_db)[0]} games over, "
                f"{time.monotonic() - started:.0f} s")
    finished, current = finished_and_current(killed_db)
    games = finished + (1 if current else 0)
    run_to_end(killed_db, seed, pause, games)          # the last game, without a kill
    run_to_end(calm_db, seed, 0.0, games)              # the same games, never killed
    killed, calm = games_in(killed_db), games_in(calm_db)
    changed = [k[0] for k, c in zip(killed, calm) if k[1:] != c[1:]]
    from host.session_recovery import check
    found = check(killed_db)
    per_game = [struck[sid] for sid, _, _ in killed]
    return {"kills": sum(struck.values()), "kills_timed_from_start": where["starting"], "games": len(killed),
            "calm_games": len(calm), "games_changed": len(changed) + abs(len(killed) - len(calm)),
            "changed": changed, "kills_per_game_min": min(per_game), "kills_per_game_median":
            sorted(per_game)[len(per_game) // 2], "kills_per_game_max": max(per_game),
            "records_agree": found.clean,
            "seconds": round(time.monotonic() - started)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["child"]:
        if len(argv) != 5:
            print("usage: python -m host.soak_crash child DB SEED PAUSE GAMES", file=sys.stderr)
            return 2
        return child(Path(argv[1]), argv[2], float(argv[3]), int(argv[4]))
    parser = argparse.ArgumentParser(prog="python -m host.soak_crash", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=1000, help="how many SIGKILLs (default 1000)")
    parser.add_argument("--seed", default="2026", help="the games' and the kills' seed")
    parser.add_argument("--pause", type=float, default=0.01, help="seconds slept after each step (default 0.01)")
    parser.add_argument("--steps", type=int, default=1,
                        help="a kill falls after 0 to STEPS steps of a resumed child (default 1) ...")
    parser.add_argument("--late", type=float, default=0.02,
                        help="... and up to this long into the next (default 0.02 s)")
    parser.add_argument("--early", type=float, default=0.6,
                        help="... or up to this long after it was started (default 0.6 s)")
    parser.add_argument("--keep", metavar="DIR", type=Path, help="keep the two databases here (default: a temporary folder)")
    args = parser.parse_args(argv)
    if not 1 <= args.kills <= 100_000:
        parser.error("--kills: expected 1 to 100000")
    if not 0 <= args.steps <= 1000 or not 0 <= args.late <= 60 or not 0 <= args.early <= 60 or not 0 <= args.pause <= 10:
        parser.error("--steps 0 to 1000; --late, --early 0 to 60 s; --pause 0 to 10 s")

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = soak(args.keep, args.kills, args.seed, args.pause, args.steps, args.late, args.early, say)
    else:
        with tempfile.TemporaryDirectory(prefix="dicewatch-soak-") as folder:
            result = soak(Path(folder), args.kills, args.seed, args.pause, args.steps, args.late, args.early, say)
    print(json.dumps(result, indent=1))
    return 0 if result["games_changed"] == 0 and result["records_agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
