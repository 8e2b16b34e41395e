"""``dicewatch demo --game dream-factory``: a whole scripted game through the table loop.

Three studios (Ann, Ben, Cy: the studio screens stand) play four rounds at the box with
real tiles (simulated: each tile turned up is drawn from what is left of the mix, by its
count). Everything goes through the shared knob: naming the tiles turned up, the bids and
passes, the party picks, where each tile goes. The players' strategy is simple: a tile is
worth what it adds to one of their screenplays (its stars, more when it fills a space, much
more when it finishes a screenplay); they bid up to about half of what the tiles are worth
to them, pick and place the best tile and discard the useless ones. Every e-ink screen is
written as a PNG into ``--out``; the final ranking is printed.
"""
from __future__ import annotations

import random
import time
from pathlib import Path

from host.demo_table import play_at_the_knob
from host.games import turn_knob_to
from rules import get_game
from rules.core import RuleError
from rules.dream_factory import (STAR_SPACE, is_over, marker_words, place_tile, points, ranking, tile_stars,
                                 trophy_points)

PLAYERS = ["Ann", "Ben", "Cy"]
MAX_EVENTS = 3000      # a guard: a demo game takes about five hundred events


def drawn_tile(state, rng: random.Random) -> str:
    """The tile turned up (a draw from what is left of the mix, by its count)."""
    pool = state.legends_left if state.location == "director" else state.tiles_left
    codes, counts = zip(*pool)
    return rng.choices(codes, weights=counts)[0]


def placement_worth(play, code: str, space) -> int:
    """What putting ``code`` on ``space`` of ``play`` adds (0: it does not fit or adds nothing)."""
    try:
        placed = place_tile(play, code, space)
    except RuleError:   # it does not fit there
        return 0
    stack = play.stars if space == STAR_SPACE else play.stacks[space]
    gain = tile_stars(code) - (tile_stars(stack[-1]) if stack else 0)
    if not stack:
        gain += 3
    if placed.complete:
        gain += 10
    return max(0, gain)


def best_placement(state, player: int, code: str) -> tuple[int, str | None, object]:
    """(worth, screenplay id, space) of the best place for ``code`` among ``player``'s screenplays."""
    best = (0, None, None)
    for play in state.owned(player):
        for space in list(range(len(play.spaces))) + [STAR_SPACE]:
            worth = placement_worth(play, code, space)
            if worth > best[0]:
                best = (worth, play.id, space)
    return best


def choose(state, rng: random.Random) -> dict:
    """The event the players choose now."""
    name = state.players.__getitem__
    if state.phase == "reveal":
        return {"type": "reveal", "tile": drawn_tile(state, rng)}
    if state.phase == "auction":
        auction = state.auction
        bidder = auction.turn
        worth = sum(best_placement(state, bidder, code)[0] for code in state.offer)
        lowest = 0 if auction.high_bid is None else auction.high_bid + 1
        limit = min(state.tokens[bidder], worth // 2 + rng.randint(0, 2))
        if worth > 0 and lowest <= limit:
            raise_by = 1 if lowest < limit and rng.random() < 0.3 else 0
            return {"type": "bid", "player": name(bidder), "amount": lowest + raise_by}
        return {"type": "pass", "player": name(bidder)}
    if state.phase == "pick":
        picker = state.pick_order[0]
        tile = max(state.offer, key=lambda code: best_placement(state, picker, code)[0])
        return {"type": "pick", "player": name(picker), "tile": tile}
    placer = state.placer
    code = max(state.hand, key=lambda c: best_placement(state, placer, c)[0])
    _, play, space = best_placement(state, placer, code)
    if play is None:
        return {"type": "discard", "player": name(placer), "tile": code}
    return {"type": "place", "player": name(placer), "tile": code, "screenplay": play, "space": space}


def press(loop, event: dict) -> None:
    """Push the knob, turn it to ``event`` and push again."""
    loop.close_menu()   # a menu left open from the phone page: the scripted players start afresh
    if loop.showing_notice:
        loop.handle("next")
    loop.handle("push")
    values = [item.value for item in loop.menu.items]
    turn_knob_to(loop, values.index(event))


def play(*, seed: int, out: Path, size: tuple[int, int], quiet: bool, options: dict | None = None):
    rng = random.Random(seed)
    return play_at_the_knob("dream-factory", {"players": PLAYERS, "seed": seed % (2**31), **(options or {})},
                            out=out, size=size, quiet=quiet, move=lambda loop: press(loop, choose(loop.table.state, rng)),
                            seconds_per_move=3.5, max_moves=MAX_EVENTS)


def run(args, size: tuple[int, int], out: Path) -> int:
    started = time.perf_counter()
    game = get_game("dream-factory")
    print(f"dicewatch demo: {game.title}, {', '.join(PLAYERS)}; e-ink screens go to {out}/", flush=True)
    table, _ = play(seed=args.seed, out=out, size=size, quiet=args.quiet)
    state = table.state
    print()
    print(f"{game.status(state)} after {len(table.session.events)} events ({time.perf_counter() - started:.1f} s)")
    print("Final ranking:")
    for rank, i in enumerate(ranking(state), start=1):
        films = ", ".join(f"{p.id} {marker_words(p.marker)}" for p in state.owned(i) if p.finished) or "none"
        print(f"  {rank}. {state.players[i]:<6} {points(state, i):>3} points  (films: {films}; "
              f"trophies {trophy_points(state, i)}; tokens {state.tokens[i]})")
    return 0 if is_over(state) else 1
