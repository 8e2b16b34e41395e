"""``dicewatch demo --game making-christmas``: a whole scripted game through the table loop.

Two players at the box with real cards (simulated: each card turned face up is drawn at
random from the part mix; the demo does not track a physical deck). They tell the box the
goals and parts laid with the knob, enter their own hand cards on their own devices
(``TableLoop.choose_privately``), and play a simple strategy: complete a goal when a toy is
on the workbench, else make a swap that assembles one, else a random swap. Every e-ink
screen is written as a PNG into ``--out``; the final ranking is printed.
"""
from __future__ import annotations

import random
import time
from pathlib import Path

from host.demo_table import play_at_the_knob
from host.games import turn_knob_to
from host.games.making_christmas import path_to
from rules import get_game
from rules.core import PUBLIC
from rules.making_christmas import UNKNOWN, complete_events

PLAYERS = ["Sally", "Jack"]
MAX_EVENTS = 5000      # a guard: a demo game takes a few hundred events


def drawn_part(state, rng: random.Random) -> str:
    """The part on a card turned face up (the demo's cards are random draws from the mix)."""
    parts, weights = zip(*state.parts)
    return rng.choices(parts, weights=weights)[0]


def enter_hands(loop, rng: random.Random) -> None:
    """Each player looks at a new hand card and enters it on their own device."""
    for player, hand in zip(loop.state.players, loop.state.hands):
        for card, part in enumerate(hand):
            if part == UNKNOWN:
                loop.choose_privately({"type": "hold", "player": player, "card": card,
                                       "part": drawn_part(loop.state, rng)})


def choose(loop, rng: random.Random) -> dict:
    """The event the players choose now (one of the knob menu's public events)."""
    game, state = loop.game, loop.state
    events = [e for e in game.legal_events(state) if game.event_view(e, PUBLIC) == e]
    kinds = {e["type"] for e in events}
    if "goal" in kinds:
        return rng.choice(events)               # the goal card flipped
    if "lay" in kinds:
        part = drawn_part(state, rng)
        return next(e for e in events if e["part"] == part)
    completes = [e for e in events if e["type"] == "complete"]
    if completes:
        return completes[0]
    swaps = [e for e in events if e["type"] in ("swap", "swap_hand")]
    useful = [e for e in swaps if complete_events(game.apply(state, e))]
    if useful:
        return rng.choice(useful)
    if state.step == "swap":
        return rng.choice(swaps + [e for e in events if e["type"] == "replace"])
    ends = [e for e in events if e["type"] == "end_turn"]
    return rng.choice(ends)


def press(loop, event: dict) -> None:
    """Push the knob, then turn it to each step to ``event`` (a swap: its kind, its first space) and push."""
    loop.close_menu()   # a menu left open from the phone page: the scripted players start afresh
    if loop.showing_notice:   # (a refusal said to a phone press) put away first
        loop.handle("next")
    loop.handle("push")
    for value in path_to(event):
        turn_knob_to(loop, [item.value for item in loop.menu.items].index(value))


def play(*, seed: int, out: Path, size: tuple[int, int], quiet: bool, options: dict | None = None):
    rng = random.Random(seed)

    def move(loop) -> None:
        enter_hands(loop, rng)
        press(loop, choose(loop, rng))

    return play_at_the_knob("making-christmas", {"players": PLAYERS, **(options or {})}, out=out, size=size,
                            quiet=quiet, move=move, seconds_per_move=1.0, max_moves=MAX_EVENTS)


def run(args, size: tuple[int, int], out: Path) -> int:
    started = time.perf_counter()
    game = get_game("making-christmas")
    print(f"dicewatch demo: {game.title}, {', '.join(PLAYERS)}; e-ink screens go to {out}/", flush=True)
    table, _ = play(seed=args.seed, out=out, size=size, quiet=args.quiet,
                    options={"short": True} if getattr(args, "short_game", None) else None)
    state = table.state
    print()
    print(f"{game.status(state)} after {len(table.session.events)} events "
          f"({time.perf_counter() - started:.1f} s)")
    print("Final ranking:")
    for rank, (name, points) in enumerate(sorted(zip(state.players, state.points), key=lambda r: -r[1]), start=1):
        print(f"  {rank}. {name:<8} {points} goals")
    return 0 if game.is_over(state) else 1
