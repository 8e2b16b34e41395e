"""Dream Factory at the box: no dice, every choice on the knob.

The home screen follows the round: the scoreboard while the tiles of a location are turned
up (push: name the next tile), the auction with the high bid, the party with its pick
order, the placer's screenplay cards while won tiles are placed, and the final ranking.
The LED bar shows the location of the round (1-8). With 3-5 players the tokens stand
behind studio screens: no screen, menu or light of the shared table shows a player's
count, and the bids on the knob run up to what all players hold together (a public
figure), not to what the bidder holds; a bid over that is refused by the rules.
"""
from __future__ import annotations

from typing import Any, Mapping

from host.games import GameTable, describe_event
from host.menus import BACK, Menu, MenuItem
from host.presenters import ATTENTION, READ_OK, WAITING, Screen
from rules.core import PUBLIC
from rules.dream_factory import (NAME, STAR_SPACE, is_over, marker_words, ranking, scoreboard, tile_kind,
                                 tile_stars, tile_words, tokens_shown)

GAME = NAME
DEFAULT_PLAYERS = ["Ann", "Ben", "Cy"]
SPACE_LETTERS = {"director": "d", "actor": "a", "camera": "c", "music": "m", "effects": "x", "blank": "."}
TILE_LETTERS = {"director": "D", "actor": "A", "camera": "C", "music": "M", "effects": "X", "contract": "K",
                "star": "S"}


def tile_short(code: str) -> str:
    """"actor2" -> "A2": the letter of its kind and its yellow stars."""
    return f"{TILE_LETTERS[tile_kind(code)]}{tile_stars(code)}"


def screenplay_line(play) -> str:
    """One screenplay as a short line: "1b dra D2 a A1 c . x *S3 =6" (lower case: an empty
    space by its icon, "." a blank space; "=" the rating so far, or "rated" its marker)."""
    cells = [tile_short(stack[-1]) if stack else SPACE_LETTERS[kind] for kind, stack in zip(play.spaces, play.stacks)]
    cells.append("*" + (tile_short(play.stars[-1]) if play.stars else ""))
    end = f"rated {marker_words(play.marker)}" if play.finished else f"={play.rating}"
    return f"{play.id} {play.genre[:3]} {' '.join(cells)} {end}"


def pile_line(state) -> str:
    return f"pile: {state.pile[0]} on top, {len(state.pile)} left" if state.pile else "pile: empty"


class Table(GameTable):
    """Dream Factory's screens and menu words."""

    warns_of_light = False

    def bar(self) -> int:
        """The LED bar: the location of the round, 1 (Legendary Director) to 8; full at the end."""
        return 10 if is_over(self.state) else min(10, self.state.stop + 1)

    # -- screens ---------------------------------------------------------------------------------
    def home(self) -> None:
        state = self.state
        screens = {"auction": self.auction_screen, "pick": self.party_screen,
                   "place": self.screenplay_screen, "over": self.ranking_screen}
        screen = screens.get(state.phase, self.scoreboard_screen)()
        self.loop.show(screen)
        self.loop.status(READ_OK if is_over(state) else (ATTENTION if state.phase != "reveal" else WAITING))

    def scoreboard_screen(self) -> Screen:
        state = self.state
        rows = tuple(tuple(row) for row in scoreboard(state))
        laid = ", ".join(tile_words(c) for c in state.offer) or "none yet"
        return Screen("scoreboard", title=f"Round {state.round}: {state.location_name}", table=rows,
                      lines=(f"turned up: {laid}", pile_line(state)), footer=self.public_status() + " (push)")

    def auction_screen(self) -> Screen:
        state, auction = self.state, self.state.auction
        high = ("no bid yet" if auction.high_bid is None
                else f"high bid {auction.high_bid} by {state.players[auction.high_bidder]}")
        out = [state.players[i] for i, p in enumerate(auction.passed) if p]
        lines = (f"tiles: {', '.join(tile_words(c) for c in state.offer)}", high,
                 f"to bid: {state.players[auction.turn]}", f"passed: {', '.join(out) or 'nobody'}",
                 f"middle: {state.middle}  Popcorn: {state.players[state.popcorn]}")
        return Screen("prompt", title=f"Auction: {state.location_name}", lines=lines, footer="push: bid or pass")

    def party_screen(self) -> Screen:
        state = self.state
        lines = (f"tiles: {', '.join(tile_words(c) for c in state.offer)}",
                 "order: " + ", ".join(state.players[i] for i in state.pick_order))
        return Screen("prompt", title=f"Party: {state.players[state.pick_order[0]]} picks", lines=lines,
                      footer="push: pick a tile")

    def screenplay_screen(self) -> Screen:
        """The placer's screenplay cards and the tiles in hand."""
        state = self.state
        name = state.players[state.placer]
        lines = (f"in hand: {', '.join(tile_words(c) for c in state.hand)}",) + tuple(
            screenplay_line(play) for play in state.owned(state.placer) if not play.finished)
        return Screen("prompt", title=f"{name} places", lines=lines, footer="push: place or discard")

    def ranking_screen(self) -> Screen:
        state = self.state
        rows = tuple(tuple(row) for row in scoreboard(state))
        trophies = tuple(f"{t.name}: {state.players[t.owner]} ({t.screenplay}, {t.points})" for t in state.trophies)
        return Screen("scoreboard", title="Dream Factory: final ranking", table=rows, highlight=1,
                      lines=trophies, footer=self.public_status())

    # -- the knob --------------------------------------------------------------------------------
    def label(self, event: Mapping[str, Any]) -> str:
        kind = event.get("type")
        if kind == "bid":
            return f"{event['player']} bids {event['amount']}"
        if kind == "pass":
            return f"{event['player']} passes"
        if kind == "reveal":
            return f"Turned up: {tile_words(event['tile'])}"
        if kind == "pick":
            return f"{event['player']} takes {tile_words(event['tile'])}"
        if kind == "discard":
            return f"Discard {tile_words(event['tile'])}"
        if kind == "place":
            space = event["space"]
            where = "star space" if space == STAR_SPACE else f"space {space + 1}"
            return f"{tile_words(event['tile'])} on {event['screenplay']} {where}"
        return describe_event(event)

    def public_choices(self) -> list[dict]:
        """The legal events, except that behind studio screens the bids run up to what all
        players hold together: the menu must not tell the bidder's own count."""
        state = self.state
        events = [dict(e) for e in self.game.legal_events(state) if self.game.event_view(e, PUBLIC) == e]
        if state.phase != "auction" or tokens_shown(state, PUBLIC):
            return events
        auction = state.auction
        name = state.players[auction.turn]
        lowest = 0 if auction.high_bid is None else auction.high_bid + 1
        bids = [{"type": "bid", "player": name, "amount": n} for n in range(lowest, sum(state.tokens) + 1)]
        return bids + [{"type": "pass", "player": name}]

    def choices_menu(self) -> Menu:
        items = [MenuItem(self.label(event), event) for event in self.public_choices()]
        items += [MenuItem("Undo the last event", "undo"), MenuItem("Back", BACK)]
        return Menu("choices", self.public_status() or self.game.title, tuple(items))

    def closing_words(self) -> str:
        state = self.state
        if not is_over(state):
            return ""
        return "Final ranking: " + ", ".join(state.players[i] for i in ranking(state))


#: ``dicewatch demo --game dream-factory``: three studios, scripted (named, not imported)
DEMO = "host.dream_factory_demo"


def setup_options(args, players: list[str]) -> dict:
    """The players from --players (three by default: the studio screens stand)."""
    return {"players": list(players) if players else list(DEFAULT_PLAYERS)}
