"""``dicewatch demo --game dark-romance``: a whole scripted game through the table loop.

Mary and Edgar play scenario 2 at the box with the knob alone. The box deals the roles
(seeded here, so the demo is the same every time; at a real table the deal's seed comes from
the OS and stays secret), then each player in turn "passes the box" to look at their own role
on a private screen (the terminal shows only a stand-in). A turn: the active player plays a
scene of a random category, the other reacts with the coins their own role needs most (as far
as they can tell from their row of the win board), the active player visits the Maidservant
when they can afford her and pushes their own coin, and ends the turn. Where the box's win
board lacks a cell, the players read it off "their board" (here: a random coin). Every e-ink
screen is written as a PNG into ``--out``; the revealed verdict is printed at the end.
"""
from __future__ import annotations

import random
import time
from pathlib import Path

from host.demo_table import play_at_the_knob
from host.games import turn_knob_to
from host.games.dark_romance import SEE, SHOW_ME
from rules import get_game
from rules.core import PUBLIC

PLAYERS = ["Mary", "Edgar"]
MAX_MOVES = 2000       # a guard: a demo game takes a few dozen moves


def press(loop, value) -> None:
    """Push the knob, turn it to the item ``value`` and push again."""
    loop.close_menu()   # a menu left open (from the phone page): the players start afresh
    if loop.showing_notice:
        loop.handle("next")
    loop.handle("push")
    turn_knob_to(loop, [item.value for item in loop.menu.items].index(value))


def look_at_own_role(loop, player: str) -> None:
    """Pass the box to ``player``: the others look away, the player looks, any button puts it away."""
    press(loop, (SEE, player))
    turn_knob_to(loop, [item.value for item in loop.menu.items].index((SHOW_ME, SEE, player)))
    loop.handle("next")


def wanted_coins(loop, player: str) -> list[str]:
    """The coins ``player``'s row of the win board names, most often named first."""
    own = next(p for p in loop.game.view_of(loop.state, player)["players"] if p["name"] == player)
    counts: dict[str, int] = {}
    for coin in (own.get("needs") or {}).values():
        if coin:
            counts[coin] = counts.get(coin, 0) + 1
    return sorted(counts, key=lambda c: -counts[c])


def choose(loop, rng: random.Random):
    """The menu item the players choose now."""
    game, state = loop.game, loop.state
    view = game.view_of(state, PUBLIC)
    events = [dict(e) for e in game.legal_events(state) if game.event_view(e, PUBLIC) == e]
    if view["phase"] == "roles":
        return {"type": "draw_roles"}
    kinds = {e["type"] for e in events}
    if "react" in kinds:
        wanted = wanted_coins(loop, view["reacting"])
        best = [e for e in events if e["type"] == "react" and wanted and e["coins"][0] == wanted[0]]
        return rng.choice(best or [e for e in events if e["type"] == "react"])
    if "push" in kinds:
        wanted = wanted_coins(loop, view["active"])
        pushes = [e for e in events if e["type"] == "push"]
        return next((e for e in pushes if wanted and e["coin"] == wanted[0]), rng.choice(pushes))
    maid = [e for e in events if e["type"] == "visit" and e["courtier"] == "Maidservant"]
    if maid and view["phase"] == "after":
        return maid[0]
    if "end_turn" in kinds:
        return next(e for e in events if e["type"] == "end_turn")
    scenes = [e for e in events if e["type"] == "scene"]
    if scenes:
        return rng.choice(scenes)
    return rng.choice(events)   # a cell of the win board read off the players' own board, or a courtier's end


def move(loop, rng: random.Random) -> None:
    value = choose(loop, rng)
    press(loop, value)
    if value == {"type": "draw_roles"}:
        for player in loop.state.players:
            look_at_own_role(loop, player)


def play(*, seed: int, out: Path, size: tuple[int, int], quiet: bool, scenario: int = 2):
    rng = random.Random(seed)
    deal = random.Random(seed + 1)
    return play_at_the_knob("dark-romance", {"players": PLAYERS, "scenario": scenario}, out=out, size=size,
                            quiet=quiet, move=lambda loop: move(loop, rng), seconds_per_move=4.0,
                            max_moves=MAX_MOVES, new_seed=lambda: deal.randrange(2**62))


def run(args, size: tuple[int, int], out: Path) -> int:
    started = time.perf_counter()
    game = get_game("dark-romance")
    scenario = getattr(args, "scenario", None) or 2
    print(f"dicewatch demo: {game.title}, {', '.join(PLAYERS)}, scenario {scenario}; the box deals the roles; "
          f"e-ink screens go to {out}/", flush=True)
    table, loop = play(seed=args.seed, out=out, size=size, quiet=args.quiet, scenario=scenario)
    state = table.state
    print()
    print(f"After {len(table.session.events)} events ({time.perf_counter() - started:.1f} s):")
    print(loop.plays.closing_words() or game.status(state))
    return 0 if game.is_over(state) else 1
