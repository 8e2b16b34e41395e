"""The demo of a game that brings no scripted demo of its own: scripted players at the one
table loop, on the synthetic camera, choosing at random among the game's legal events.

They throw what the game's ``chance`` asks for (the synthetic camera films it and the
reader reads it, as at a real table), answer every "Check die N" with the die that lies
there, pick a knob menu item that is one of the game's events, and make their secret
choices on their own device (``TableLoop.choose_privately``), never on the shared knob.
"""
from __future__ import annotations

import math
import random
import time
from pathlib import Path

from host.demo_table import SimClock, demo_presenters
from host.loop import TableLoop
from host.session_store import SessionStore
from host.watcher import FrameWatcher, dice_reader
from rules import get_game
from rules.core import PUBLIC

MAX_FRAMES = 20000     # a guard: a demo game takes a few thousand frames at 10 per second
WAIT_FRAMES = 15       # the table waits for a button this long before a player pushes the knob
PLAYERS = ["Ann", "Ben"]
CHOOSE_INSTEAD = 0.4   # after a stored event, how often a player makes a choice rather than throw again


def answer_check(loop, on_table) -> None:
    """Answer "Check die N" with the face of the die lying there (nearest to the read)."""
    check = loop.pending
    die = check.flagged[0]
    face = check.faces[die]
    if check.spots is not None and on_table:
        x, y, _ = check.spots[die]
        face = min(on_table, key=lambda d: math.hypot(d.x - x, d.y - y)).face
    loop.handle(f"face:{die + 1}:{face}")


def secret_choice(loop, rng: random.Random) -> dict | None:
    """A legal event only its owner may see (the game's public view hides part of it)."""
    game = loop.game
    secret = [e for e in game.legal_events(loop.state) if game.event_view(e, PUBLIC) != e]
    return rng.choice(secret) if secret else None


def public_choices(loop) -> list[dict]:
    game = loop.game
    return [e for e in game.legal_events(loop.state) if game.event_view(e, PUBLIC) == e]


def press_menu(loop, rng: random.Random) -> None:
    events = [i for i, item in enumerate(loop.menu.items) if isinstance(item.value, dict)]
    target = rng.choice(events) if events else len(loop.menu.items) - 1
    while loop.menu is not None and loop.menu.highlight != target:
        loop.handle("right")
    loop.handle("push")


def play(game_name: str, *, seed: int, out: Path, size: tuple[int, int], quiet: bool,
         players: list[str] | None = None, options: dict | None = None) -> tuple[object, TableLoop]:
    """Play one whole game of ``game_name``; returns (the stored session, the loop)."""
    from vision.synthetic_camera import SyntheticCamera  # the synthetic camera: only for demos
    game = get_game(game_name)
    rng = random.Random(seed)
    clock = SimClock()
    _, eink, _, presenters = demo_presenters(out, size, clock, quiet)
    store = SessionStore(out / "demo-sessions.db")
    table = store.create(game, {"players": players or PLAYERS, **(options or {})})
    dice_set = game.dice or "d6-pips"
    watcher = FrameWatcher(dice_reader(dice_set, out / "data"))
    loop = TableLoop(table, presenters=presenters, watcher=watcher, clock=clock, new_seed=lambda: rng.randrange(1 << 31))
    camera = SyntheticCamera(seed, dice_set=dice_set, fps=10, lead_in=0.5, hold=1.5, dice_count=loop.dice_wanted)
    loop.open_camera = lambda: camera
    loop.start()
    waited, events = 0, 0
    try:
        for _ in range(MAX_FRAMES):
            if game.is_over(table.state):
                break
            secret = secret_choice(loop, rng)
            if secret is not None:
                loop.choose_privately(secret)
            elif loop.pending is not None:
                answer_check(loop, camera.truth.dice if camera.truth else [])
            elif loop.showing_notice:
                loop.handle("next")
            elif loop.menu is not None:
                press_menu(loop, rng)
            elif loop.dice_wanted().count == 0 and waited > WAIT_FRAMES:
                loop.handle("push")
            elif waited == 1 and public_choices(loop) and rng.random() < CHOOSE_INSTEAD:
                loop.handle("push")  # a choice instead of another throw (Pig: hold)
            loop.step()
            clock.advance(0.1)
            if len(table.session.events) != events:
                events, waited = len(table.session.events), 0
            else:
                waited += 1
        eink.flush()
    finally:
        loop.shutdown()
        camera.close()
        store.close()
    return table, loop


def run(args, size: tuple[int, int], out: Path) -> int:
    """``dicewatch demo --game NAME`` for a game with no scripted demo of its own."""
    started = time.perf_counter()
    game = get_game(args.game)
    print(f"dicewatch demo: {game.title}, {', '.join(PLAYERS)}, on the synthetic camera; e-ink screens go to "
          f"{out}/", flush=True)
    table, loop = play(args.game, seed=args.seed, out=out, size=size, quiet=args.quiet)
    state = table.state
    print()
    print(f"{game.status(state) if game.status else ''} after {len(table.session.events)} events "
          f"({time.perf_counter() - started:.1f} s)")
    for row in game.scoreboard(state):
        print("  " + "  ".join(f"{cell:<10}" for cell in row))
    return 0 if game.is_over(state) else 1
