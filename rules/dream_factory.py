"""Dream Factory: film studios bid for production tiles, make movies and win trophies.

No dice: the table's only randomness is the real tiles the players turn up, which they
report to the box as events (``reveal``, one tile at a time). The box keeps the bank (the
auctions and their split), the party pick order, the tile placement rules, the ratings
and the trophies, and counts the final score.

The game, top to bottom (the digest with every assumption is seeds/dream-factory.md):

* setup: 2-5 players, each with three screenplays of their studio and 12 tokens (10 with
  five players: an option); the pile of seven studio-less screenplays (its order from
  the ``seed``); the four legendary directors; rating markers 0-22 with a second "+"
  marker on 8-14 ranking above its plain twin; trophies.
* a round visits the board's eight locations in order (the Legendary Director first).
  At each, the players reveal the tiles laid there; the Legendary Director and the cities
  are auctioned, the parties are picked in the order of actors plus stars. Won tiles are
  placed on screenplays or discarded before the next location.
* a screenplay whose required spaces are all filled is finished and rated at once; its
  owner takes the top of the pile. Trophies: the first finished of each genre, the best
  movie of rounds 1-3, and at the end the best of each genre, best director and worst movie.
* score: finished screenplays' value (their rating) + trophies + tokens left; ties go to
  the highest rating marker.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from typing import Any, Mapping

from rules.core import Game, Option, PUBLIC, RuleError, check_setup_keys, event_keys

NAME = "dream-factory"
ROUNDS = 4
GENRES = ("drama", "action", "comedy")
SPACE_KINDS = ("director", "actor", "camera", "music", "effects", "blank")
TILE_KINDS = ("director", "actor", "camera", "music", "effects", "contract", "star")
BLANK_TAKES = ("actor", "camera", "music", "effects")   # never a director on a blank space
STAR_SPACE = "star"
MARKER_TOP = 22
PLUS_MARKERS = range(8, 15)       # 8-14 carry a second, "+" marker that ranks above its twin
GENRE_TROPHY_POINTS = 5
BEST_MOVIE_POINTS = 5

# -- data the rulebook leaves to its pictures: defaults, each an option -------------------------
DEFAULT_BOARD = ("director", "city:3", "city:2", "party", "city:3", "city:2", "party", "city:2")
DEFAULT_LEGENDS = ("director4", "director4", "director5", "director5")
DEFAULT_TILES = {   # 89 production tiles: "<kind><yellow stars>"; director-1 is Reiner Knizia
    "director1": 2, "director2": 3, "director3": 2, "director-1": 1,
    "actor0": 4, "actor1": 8, "actor2": 8, "actor3": 4,
    "camera0": 3, "camera1": 5, "camera2": 4,
    "music0": 3, "music1": 5, "music2": 4,
    "effects0": 3, "effects1": 5, "effects2": 4,
    "contract0": 8,
    "star2": 5, "star3": 5, "star4": 3,
}
SMALL = ("director", "actor", "camera", "music")
MEDIUM = ("director", "actor", "actor", "camera", "blank", "effects")
LARGE = ("director", "actor", "actor", "blank", "camera", "music", "effects", "blank")


def _default_screenplays() -> dict[str, dict[str, Any]]:
    """Three per studio (1-5: a small, a medium and a large one, the genres rotating) and
    the seven of the pile (P1-P7)."""
    plays: dict[str, dict[str, Any]] = {}
    for studio in range(1, 6):
        for size, (letter, spaces) in enumerate((("a", SMALL), ("b", MEDIUM), ("c", LARGE))):
            plays[f"{studio}{letter}"] = {"genre": GENRES[(studio + size) % 3], "spaces": list(spaces),
                                          "studio": studio}
    for number, spaces in enumerate((SMALL, MEDIUM, LARGE, SMALL, MEDIUM, LARGE, MEDIUM), start=1):
        plays[f"P{number}"] = {"genre": GENRES[number % 3], "spaces": list(spaces), "studio": None}
    return plays


DEFAULT_SCREENPLAYS = _default_screenplays()
DEFAULT_END_TROPHIES = {"best drama": 5, "best action": 5, "best comedy": 5, "best director": 3, "worst movie": 2}
MIDDLE_RULES = ("with-next", "stays")


# -- tiles ---------------------------------------------------------------------------------------
TILE_CODE = re.compile(r"^([a-z]+)(-?\d+)$")


def tile_kind(code: str) -> str:
    return TILE_CODE.match(code).group(1)


def tile_stars(code: str) -> int:
    return int(TILE_CODE.match(code).group(2))


def is_tile_code(code: Any) -> bool:
    match = TILE_CODE.match(code) if isinstance(code, str) else None
    return bool(match) and match.group(1) in TILE_KINDS


def tile_words(code: str) -> str:
    """"actor2" -> "actor (2 stars)"; "star3" -> "star (3)"."""
    kind, stars = tile_kind(code), tile_stars(code)
    if code == "director-1":
        return "Reiner Knizia (-1)"
    return f"{kind} ({stars}*)"


# -- state ---------------------------------------------------------------------------------------
Marker = tuple  # (value, plus): (10, 1) is "10+", ranking above (10, 0)


def marker_words(marker: Marker | None) -> str:
    return "-" if marker is None else f"{marker[0]}{'+' if marker[1] else ''}"


@dataclass(frozen=True)
class Screenplay:
    id: str
    owner: int
    genre: str
    spaces: tuple[str, ...]                    # required spaces, by icon (or "blank")
    stacks: tuple[tuple[str, ...], ...]        # the tiles on each space, bottom first
    stars: tuple[str, ...] = ()                # the star space's tiles, bottom first
    marker: Marker | None = None
    finished_round: int | None = None

    @property
    def finished(self) -> bool:
        return self.marker is not None

    @property
    def complete(self) -> bool:
        return all(self.stacks)

    @property
    def top_tiles(self) -> tuple[str, ...]:
        """The tiles that count: the top of each stack (a tile on top replaces the one below)."""
        return tuple(stack[-1] for stack in self.stacks if stack) + ((self.stars[-1],) if self.stars else ())

    @property
    def rating(self) -> int:
        return sum(tile_stars(code) for code in self.top_tiles)

    @property
    def value(self) -> int:
        """Its worth at the end: the rating marker's number (an assumption: see the seeds digest)."""
        return self.marker[0] if self.marker else 0


@dataclass(frozen=True)
class Auction:
    high_bidder: int | None
    high_bid: int | None
    passed: tuple[bool, ...]
    turn: int


@dataclass(frozen=True)
class Trophy:
    name: str
    points: int
    screenplay: str
    owner: int


@dataclass(frozen=True)
class Rules:
    """The setup's settings that steer play."""
    board: tuple[str, ...]
    middle_rule: str
    end_trophies: tuple[tuple[str, int], ...]
    screens: bool                        # tokens behind studio screens (3-5 players)
    seed: int


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    rules: Rules
    tokens: tuple[int, ...]
    screenplays: tuple[Screenplay, ...]
    pile: tuple[str, ...]                     # ids, top first
    pile_data: tuple[tuple[str, str, tuple[str, ...]], ...]   # (id, genre, spaces) of the pile
    tiles_left: tuple[tuple[str, int], ...]   # the face-down tiles not yet turned up
    legends_left: tuple[tuple[str, int], ...]
    markers: tuple[Marker, ...]               # free rating markers
    middle: int = 0
    popcorn: int = 0
    round: int = 1
    stop: int = 0                             # index of the location on the board
    phase: str = "reveal"                     # reveal, auction, pick, place, over
    offer: tuple[str, ...] = ()               # the tiles turned up at this location
    auction: Auction | None = None
    pick_order: tuple[int, ...] = ()          # a party's pickers still to pick
    placer: int | None = None
    hand: tuple[str, ...] = ()
    trophies: tuple[Trophy, ...] = ()
    last: str = ""                            # what just happened, for the status line

    # -- where we are --------------------------------------------------------------------------
    @property
    def location(self) -> str:
        return self.rules.board[self.stop].split(":")[0]

    @property
    def location_name(self) -> str:
        kind = self.location
        if kind == "director":
            return "Legendary Director"
        same = [i for i, loc in enumerate(self.rules.board) if loc.split(":")[0] == kind]
        return f"{kind.capitalize()} {same.index(self.stop) + 1}"

    def tiles_due(self) -> int:
        """How many tiles lie at this location once all are turned up."""
        spot = self.rules.board[self.stop]
        if spot == "director":
            return min(1, _count(self.legends_left))
        wanted = len(self.players) if spot == "party" else int(spot.split(":")[1])
        return min(wanted, _count(self.tiles_left) + len(self.offer))

    def owned(self, player: int) -> tuple[Screenplay, ...]:
        return tuple(s for s in self.screenplays if s.owner == player)

    def screenplay(self, ident: str) -> Screenplay:
        for play in self.screenplays:
            if play.id == ident:
                return play
        raise RuleError(f"there is no screenplay {ident!r} on the table")


def _count(pool: tuple[tuple[str, int], ...]) -> int:
    return sum(n for _, n in pool)


def _take(pool: tuple[tuple[str, int], ...], code: str) -> tuple[tuple[str, int], ...]:
    return tuple((c, n - 1 if c == code else n) for c, n in pool if not (c == code and n == 1))


def _without_one(tiles: tuple[str, ...], code: str) -> tuple[str, ...]:
    index = tiles.index(code)
    return tiles[:index] + tiles[index + 1:]


# -- options and setup -----------------------------------------------------------------------------
def _check_int(low: int, high: int):
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"expected a whole number from {low} to {high}, got {value!r}")
        return value
    return check


def _check_board(value: Any) -> list[str]:
    if not isinstance(value, list) or not value or value[0] != "director":
        raise ValueError('expected a list of locations starting with "director", e.g. ["director", "city:3", "party"]')
    for spot in value:
        if spot not in ("director", "party") and not re.fullmatch(r"city:[1-9]", str(spot)):
            raise ValueError(f'a location is "director", "party" or "city:N", got {spot!r}')
    return list(value)


def _check_tiles(value: Any) -> dict[str, int]:
    if not isinstance(value, dict) or not value:
        raise ValueError('expected a table of tile counts, e.g. {"actor2" = 8}')
    for code, count in value.items():
        if not is_tile_code(code) or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"a tile is <kind><stars> with a count, kinds {', '.join(TILE_KINDS)}; "
                             f"got {code!r} = {count!r}")
    return dict(value)


def _check_screenplays(value: Any) -> dict[str, dict[str, Any]]:
    """id -> {"genre", "spaces", "studio"}: three for each studio 1-5, the rest (studio null) the pile."""
    if not isinstance(value, dict):
        raise ValueError('expected a table of screenplays: id = {genre, spaces, studio}')
    for ident, data in value.items():
        if (not isinstance(data, dict) or data.get("genre") not in GENRES or not isinstance(data.get("spaces"), list)
                or not data["spaces"] or any(k not in SPACE_KINDS for k in data["spaces"])
                or data["spaces"].count("director") != 1 or data.get("studio") not in (None, 1, 2, 3, 4, 5)):
            raise ValueError(f"screenplay {ident!r}: expected genre ({', '.join(GENRES)}), spaces (of "
                             f"{', '.join(SPACE_KINDS)}; one director) and studio (1-5, or null for the pile)")
    for studio in range(1, 6):
        if sum(1 for data in value.values() if data.get("studio") == studio) != 3:
            raise ValueError(f"studio {studio} needs exactly three screenplays")
    return {ident: {"genre": d["genre"], "spaces": list(d["spaces"]), "studio": d.get("studio")}
            for ident, d in value.items()}


def _check_end_trophies(value: Any) -> dict[str, int]:
    if not isinstance(value, dict) or set(value) != set(DEFAULT_END_TROPHIES):
        raise ValueError(f"expected points for each of: {', '.join(DEFAULT_END_TROPHIES)}")
    for points in value.values():
        _check_int(0, 20)(points)
    return dict(value)


def _check_middle(value: Any) -> str:
    if value not in MIDDLE_RULES:
        raise ValueError(f"expected one of {', '.join(MIDDLE_RULES)}")
    return value


OPTIONS = (
    Option("seed", 0, "Orders the pile of screenplays (lay the pile as the box shows it).", check=_check_int(0, 2**31)),
    Option("tokens_five_players", 10, "Tokens each with five players (the rulebook's figure is garbled).",
           check=_check_int(1, 30)),
    Option("middle", "with-next", "What becomes of the tokens an auction leaves in the middle: with-next = "
           "shared out with the next winning bid; stays = they stay there to the end.", check=_check_middle,
           choices=MIDDLE_RULES),
    Option("board", list(DEFAULT_BOARD), "The locations in order from the Legendary Director: director, "
           "party, city:N (N tiles).", check=_check_board),
    Option("tiles", dict(DEFAULT_TILES), "The production tiles: <kind><stars> = count.", check=_check_tiles),
    Option("screenplays", {k: dict(v) for k, v in DEFAULT_SCREENPLAYS.items()}, "The screenplays: id = {genre, "
           "spaces (director, actor, camera, music, effects, blank), studio (1-5; null: the pile)}.",
           check=_check_screenplays),
    Option("end_trophies", dict(DEFAULT_END_TROPHIES), "Points of the five trophies given at the end.",
           check=_check_end_trophies),
)
SETUP_KEYS = {"players"} | {o.name for o in OPTIONS}


def setup(options: Mapping[str, Any]) -> State:
    check_setup_keys(options, SETUP_KEYS)
    players = _check_players(options.get("players"))
    values = {o.name: _checked(o, options) for o in OPTIONS}
    rng = random.Random(values["seed"])
    plays = values["screenplays"]
    studio = tuple(_new_screenplay(ident, data, owner)
                   for owner in range(len(players))
                   for ident, data in plays.items() if data["studio"] == owner + 1)
    pile_ids = sorted(ident for ident, data in plays.items() if data["studio"] is None)
    rng.shuffle(pile_ids)
    tokens = values["tokens_five_players"] if len(players) == 5 else 12
    return State(
        players=players,
        rules=Rules(board=tuple(values["board"]), middle_rule=values["middle"],
                    end_trophies=tuple(values["end_trophies"].items()), screens=len(players) >= 3,
                    seed=values["seed"]),
        tokens=(tokens,) * len(players), screenplays=studio, pile=tuple(pile_ids),
        pile_data=tuple((i, plays[i]["genre"], tuple(plays[i]["spaces"])) for i in pile_ids),
        tiles_left=tuple(sorted((c, n) for c, n in values["tiles"].items() if n > 0)),
        legends_left=tuple(sorted((c, DEFAULT_LEGENDS.count(c)) for c in set(DEFAULT_LEGENDS))),
        markers=all_markers(), last="the Popcorn is with " + players[0])


def _check_players(players: Any) -> tuple[str, ...]:
    if (not isinstance(players, list) or not 2 <= len(players) <= 5 or len(set(players)) != len(players)
            or not all(isinstance(p, str) and p for p in players)):
        raise RuleError('"players": expected 2 to 5 different names, the first holding the Popcorn')
    return tuple(players)


def _checked(option: Option, options: Mapping[str, Any]) -> Any:
    if option.name not in options:
        return option.default
    try:
        return option.check(options[option.name])
    except ValueError as exc:
        raise RuleError(f"{option.name}: {exc}") from None


def all_markers() -> tuple[Marker, ...]:
    """Every rating marker, best first: 22 .. 0, with 14+ above 14 and so on."""
    markers = []
    for value in range(MARKER_TOP, -1, -1):
        if value in PLUS_MARKERS:
            markers.append((value, 1))
        markers.append((value, 0))
    return tuple(markers)


def _new_screenplay(ident: str, data: Mapping[str, Any], owner: int) -> Screenplay:
    spaces = tuple(data["spaces"])
    return Screenplay(id=ident, owner=owner, genre=data["genre"], spaces=spaces, stacks=((),) * len(spaces))


# -- events ----------------------------------------------------------------------------------------
# the keys each event may carry besides "type"
EVENT_KEYS = event_keys(reveal=("tile",), bid=("player", "amount"), pass_=("player",), pick=("player", "tile"),
                        place=("player", "tile", "screenplay", "space"), discard=("player", "tile"))
EVENT_TYPES = ("reveal", "bid", "pass", "pick", "place", "discard")


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The one way the state changes: a new state, or RuleError and nothing changed."""
    if state.phase == "over":
        raise RuleError("the game is over")
    kind = event.get("type")
    handlers = {"reveal": _reveal, "bid": _bid, "pass": _pass, "pick": _pick, "place": _place, "discard": _discard}
    if kind not in handlers:
        raise RuleError(f"unknown event {kind!r}; expected one of {', '.join(EVENT_TYPES)}")
    return handlers[kind](state, event)


def _expect_phase(state: State, phase: str, doing: str) -> None:
    if state.phase != phase:
        raise RuleError(f"not now: {doing} is not what the table does now ({status(state)})")


def _expect_player(state: State, event: Mapping[str, Any], whose: int) -> int:
    name = event.get("player")
    if name not in state.players:
        raise RuleError(f"{name!r} is not playing")
    if state.players.index(name) != whose:
        raise RuleError(f"it is {state.players[whose]}'s turn, not {name}'s")
    return whose


# reveal ---------------------------------------------------------------------------------------
def _reveal(state: State, event: Mapping[str, Any]) -> State:
    """One tile turned up at the current location (the players say which)."""
    _expect_phase(state, "reveal", "turning up a tile")
    code = event.get("tile")
    legendary = state.location == "director"
    pool = state.legends_left if legendary else state.tiles_left
    if not any(c == code for c, _ in pool):
        where = "legendary directors" if legendary else "tiles"
        raise RuleError(f"there is no {code!r} left among the {where}")
    state = replace(state, offer=state.offer + (code,),
                    **({"legends_left": _take(pool, code)} if legendary else {"tiles_left": _take(pool, code)}))
    return _open_location(state) if len(state.offer) >= state.tiles_due() else state


def _open_location(state: State) -> State:
    """All the tiles are turned up: the auction starts, or the party picks begin."""
    if state.location == "party":
        order = party_order(state)
        return replace(state, phase="pick", pick_order=order,
                       last=f"party order: {', '.join(state.players[i] for i in order)}")
    count = len(state.players)
    auction = Auction(high_bidder=None, high_bid=None, passed=(False,) * count, turn=state.popcorn)
    return replace(state, phase="auction", auction=auction, last=f"auction at {state.location_name}")


# auction --------------------------------------------------------------------------------------
def _bid(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, "auction", "a bid")
    auction = state.auction
    bidder = _expect_player(state, event, auction.turn)
    amount = event.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise RuleError("a bid is a whole number of tokens (0 is a bid; pass to drop out)")
    if auction.high_bid is not None and amount <= auction.high_bid:
        raise RuleError(f"a bid must beat {auction.high_bid}")
    if amount < 0:
        raise RuleError("a bid cannot be negative")
    if amount > state.tokens[bidder]:
        raise RuleError(f"{state.players[bidder]} cannot bid more tokens than they hold")
    auction = replace(auction, high_bidder=bidder, high_bid=amount)
    return _auction_goes_on(replace(state, auction=auction, last=f"{state.players[bidder]} bids {amount}"))


def _pass(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, "auction", "passing")
    auction = state.auction
    passer = _expect_player(state, event, auction.turn)
    passed = tuple(p or i == passer for i, p in enumerate(auction.passed))
    return _auction_goes_on(replace(state, auction=replace(auction, passed=passed),
                                    last=f"{state.players[passer]} passes"))


def _auction_goes_on(state: State) -> State:
    """The next bidder clockwise, or the end of the auction."""
    auction = state.auction
    still_in = [i for i, p in enumerate(auction.passed) if not p]
    if not still_in:
        return _advance(replace(state, auction=None, offer=(), last="everyone passed: the tiles leave the game"))
    if still_in == [auction.high_bidder]:
        return _auction_won(state)
    turn = _next_clockwise(state, auction.turn, lambda i: not auction.passed[i])
    return replace(state, auction=replace(auction, turn=turn))


def _next_clockwise(state: State, start: int, ok) -> int:
    count = len(state.players)
    for step in range(1, count + 1):
        candidate = (start + step) % count
        if ok(candidate):
            return candidate
    return start


def _auction_won(state: State) -> State:
    """The winner pays into the middle; the pot is shared among the others, the rest stays."""
    winner, bid = state.auction.high_bidder, state.auction.high_bid
    tokens, middle = pay_out(state.tokens, state.middle, winner, bid, state.rules.middle_rule)
    name = state.players[winner]
    return replace(state, tokens=tokens, middle=middle, popcorn=winner, auction=None, phase="place",
                   placer=winner, hand=state.offer, offer=(), last=f"{name} wins for {bid}, takes the Popcorn")


def pay_out(tokens: tuple[int, ...], middle: int, winner: int, bid: int, rule: str = "with-next"
            ) -> tuple[tuple[int, ...], int]:
    """``winner`` pays ``bid`` into the middle and the others share it equally; what cannot be
    shared stays in the middle. With "with-next" what lay there already is shared too."""
    others = len(tokens) - 1
    shared = bid + middle if rule == "with-next" else bid
    each = shared // others
    kept = middle + bid - each * others
    paid = tuple(n - bid if i == winner else n + each for i, n in enumerate(tokens))
    return paid, kept


# party ------------------------------------------------------------------------------------------
def actors_and_stars(state: State, player: int) -> int:
    """What a party counts: the actors and stars on a player's screenplays."""
    return sum(1 for play in state.owned(player) for code in play.top_tiles if tile_kind(code) in ("actor", "star"))


def party_order(state: State) -> tuple[int, ...]:
    """Most actors and stars first; ties to the first player or the nearest clockwise."""
    count = len(state.players)
    return tuple(sorted(range(count), key=lambda i: (-actors_and_stars(state, i), (i - state.popcorn) % count)))


def _pick(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, "pick", "a party pick")
    picker = _expect_player(state, event, state.pick_order[0])
    code = event.get("tile")
    if code not in state.offer:
        raise RuleError(f"there is no {code!r} at the party; there are {', '.join(state.offer)}")
    return replace(state, offer=_without_one(state.offer, code), pick_order=state.pick_order[1:], phase="place",
                   placer=picker, hand=(code,), last=f"{state.players[picker]} picks {tile_words(code)}")


# placing -------------------------------------------------------------------------------------------
def _discard(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, "place", "discarding")
    player = _expect_player(state, event, state.placer)
    code = _tile_in_hand(state, event)
    state = replace(state, hand=_without_one(state.hand, code),
                    last=f"{state.players[player]} discards {tile_words(code)}")
    return _hand_done(state) if not state.hand else state


def _tile_in_hand(state: State, event: Mapping[str, Any]) -> str:
    code = event.get("tile")
    if code not in state.hand:
        raise RuleError(f"{state.players[state.placer]} holds no {code!r}; in hand: {', '.join(state.hand)}")
    return code


def _place(state: State, event: Mapping[str, Any]) -> State:
    _expect_phase(state, "place", "placing a tile")
    player = _expect_player(state, event, state.placer)
    code = _tile_in_hand(state, event)
    play = state.screenplay(event.get("screenplay"))
    if play.owner != player:
        raise RuleError(f"screenplay {play.id} is {state.players[play.owner]}'s, not {state.players[player]}'s")
    space = event.get("space")
    placed = place_tile(play, code, space)
    state = replace(state, hand=_without_one(state.hand, code),
                    last=f"{state.players[player]} puts {tile_words(code)} on {play.id}")
    state = _put(state, placed)
    if placed.complete:
        state = _finish(state, placed)
    return _hand_done(state) if not state.hand else state


def place_tile(play: Screenplay, code: str, space: Any) -> Screenplay:
    """``play`` with tile ``code`` on ``space`` (an index of its spaces, or "star")."""
    if play.finished:
        raise RuleError(f"screenplay {play.id} is finished: it cannot change")
    kind = tile_kind(code)
    if space == STAR_SPACE:
        if kind != "star":
            raise RuleError("only star tiles go on the star space")
        return replace(play, stars=play.stars + (code,))
    if isinstance(space, bool) or not isinstance(space, int) or not 0 <= space < len(play.spaces):
        raise RuleError(f"screenplay {play.id} has spaces 0-{len(play.spaces) - 1} and the star space")
    _check_fits(play.spaces[space], play.stacks[space], code)
    stacks = tuple(stack + (code,) if i == space else stack for i, stack in enumerate(play.stacks))
    return replace(play, stacks=stacks)


def _check_fits(space_kind: str, stack: tuple[str, ...], code: str) -> None:
    kind = tile_kind(code)
    if kind == "star":
        raise RuleError("a star goes only on the star space")
    if stack and tile_kind(stack[-1]) == "contract" and kind != "contract":
        raise RuleError("a contract lies there: only another contract may follow")
    if kind == "contract":
        return
    if space_kind == "blank":
        if kind not in BLANK_TAKES:
            raise RuleError("a blank space takes an actor, camera, music or special effects, never a director")
        if stack and tile_kind(stack[-1]) != kind:
            raise RuleError(f"that blank space holds a {tile_kind(stack[-1])}: only the same or a contract may follow")
        return
    if kind != space_kind:
        raise RuleError(f"a {kind} does not go on the {space_kind} space")


def _put(state: State, play: Screenplay) -> State:
    return replace(state, screenplays=tuple(play if p.id == play.id else p for p in state.screenplays))


def _finish(state: State, play: Screenplay) -> State:
    """Rate a completed screenplay, give the first-of-genre trophy, draw from the pile."""
    marker, markers = take_marker(state.markers, play.rating)
    play = replace(play, marker=marker, finished_round=state.round)
    state = _put(replace(state, markers=markers), play)
    name = state.players[play.owner]
    note = f"{name} finishes {play.id}, rated {marker_words(marker)}"
    first = f"first {play.genre}"
    if not any(t.name == first for t in state.trophies):
        state = replace(state, trophies=state.trophies + (Trophy(first, GENRE_TROPHY_POINTS, play.id, play.owner),))
        note += f", trophy {first}"
    if state.pile:
        ident, genre, spaces = next(d for d in state.pile_data if d[0] == state.pile[0])
        fresh = Screenplay(id=ident, owner=play.owner, genre=genre, spaces=spaces, stacks=((),) * len(spaces))
        state = replace(state, pile=state.pile[1:], screenplays=state.screenplays + (fresh,))
        note += f", takes {ident}"
    return replace(state, last=note)


def take_marker(free: tuple[Marker, ...], rating: int) -> tuple[Marker, tuple[Marker, ...]]:
    """The marker of the rating, or the next lowest free one ("+" before its plain twin). Below
    0 nothing is left: the lowest free one above (an assumption)."""
    wanted = max(0, min(MARKER_TOP, rating))
    at_or_below = [m for m in free if m[0] <= wanted]
    marker = max(at_or_below) if at_or_below else min(free)
    return marker, tuple(m for m in free if m != marker)


def _hand_done(state: State) -> State:
    state = replace(state, placer=None, hand=())
    if state.pick_order:
        return replace(state, phase="pick")
    return _advance(state)


# the board -------------------------------------------------------------------------------------------
def _advance(state: State) -> State:
    """On to the next location, or the end of the round."""
    state = replace(state, phase="reveal", offer=(), auction=None, pick_order=())
    if state.stop + 1 < len(state.rules.board):
        moved = replace(state, stop=state.stop + 1)
        return moved if moved.tiles_due() else _advance(moved)   # no tiles left to lay there
    return _end_round(state)


def _end_round(state: State) -> State:
    if state.round < ROUNDS:
        state = _best_movie(state)
        return replace(state, round=state.round + 1, stop=0)
    return replace(_end_trophies(state), phase="over", last="the game is over")


def _best_movie(state: State) -> State:
    """Rounds 1-3: the best movie is the highest marker among the screenplays finished this
    round (an assumption: see the digest); none finished, no trophy."""
    this_round = [p for p in state.screenplays if p.finished_round == state.round]
    if not this_round:
        return state
    best = max(this_round, key=lambda p: p.marker)
    trophy = Trophy(f"best movie {state.round}", BEST_MOVIE_POINTS, best.id, best.owner)
    return replace(state, trophies=state.trophies + (trophy,))


def _end_trophies(state: State) -> State:
    points = dict(state.rules.end_trophies)
    finished = [p for p in state.screenplays if p.finished]
    won = []
    for genre in GENRES:
        of_genre = [p for p in finished if p.genre == genre]
        if of_genre:
            won.append((f"best {genre}", max(of_genre, key=lambda p: p.marker)))
    director = best_director(finished)
    if director is not None:
        won.append(("best director", director))
    if finished:
        won.append(("worst movie", min(finished, key=lambda p: p.marker)))
    trophies = tuple(Trophy(name, points[name], play.id, play.owner) for name, play in won)
    return replace(state, trophies=state.trophies + trophies)


def best_director(finished: list[Screenplay]) -> Screenplay | None:
    """The finished screenplay whose director has the most stars (a contract there is no
    director); a tie gives none."""
    scored = [(tile_stars(p.stacks[i][-1]), p) for p in finished for i, kind in enumerate(p.spaces)
              if kind == "director" and tile_kind(p.stacks[i][-1]) == "director"]
    if not scored:
        return None
    top = max(stars for stars, _ in scored)
    best = [p for stars, p in scored if stars == top]
    return best[0] if len(best) == 1 else None


# -- the end ------------------------------------------------------------------------------------------
def is_over(state: State) -> bool:
    return state.phase == "over"


def trophy_points(state: State, player: int) -> int:
    return sum(t.points for t in state.trophies if t.owner == player)


def film_points(state: State, player: int) -> int:
    return sum(p.value for p in state.owned(player) if p.finished)


def points(state: State, player: int) -> int:
    """Finished screenplays + trophies + tokens left (unfinished screenplays count nothing)."""
    return film_points(state, player) + trophy_points(state, player) + state.tokens[player]


def best_marker(state: State, player: int) -> Marker:
    markers = [p.marker for p in state.owned(player) if p.finished]
    return max(markers) if markers else (-1, -1)


def ranking(state: State) -> list[int]:
    """Players by points, ties by their highest rating marker."""
    def rank(i: int) -> tuple:
        return (-points(state, i),) + tuple(-x for x in best_marker(state, i))
    return sorted(range(len(state.players)), key=rank)


def winners(state: State) -> list[str]:
    if not is_over(state):
        return []
    order = ranking(state)
    top = (points(state, order[0]), best_marker(state, order[0]))
    return [state.players[i] for i in order if (points(state, i), best_marker(state, i)) == top]


# -- the seam: choices and views -----------------------------------------------------------------------
def legal_events(state: State) -> tuple[dict, ...]:
    """Every choice open now, as complete events."""
    if state.phase == "reveal":
        pool = state.legends_left if state.location == "director" else state.tiles_left
        return tuple({"type": "reveal", "tile": code} for code, _ in pool)
    if state.phase == "auction":
        return _auction_choices(state)
    if state.phase == "pick":
        picker = state.players[state.pick_order[0]]
        return tuple({"type": "pick", "player": picker, "tile": code} for code in dict.fromkeys(state.offer))
    if state.phase == "place":
        return _placing_choices(state)
    return ()


def _auction_choices(state: State) -> tuple[dict, ...]:
    auction = state.auction
    name = state.players[auction.turn]
    lowest = 0 if auction.high_bid is None else auction.high_bid + 1
    bids = tuple({"type": "bid", "player": name, "amount": n} for n in range(lowest, state.tokens[auction.turn] + 1))
    return bids + ({"type": "pass", "player": name},)


def _placing_choices(state: State) -> tuple[dict, ...]:
    name = state.players[state.placer]
    choices = []
    for code in dict.fromkeys(state.hand):
        for play in state.owned(state.placer):
            for space in list(range(len(play.spaces))) + [STAR_SPACE]:
                if _fits(play, code, space):
                    choices.append({"type": "place", "player": name, "tile": code, "screenplay": play.id,
                                    "space": space})
        choices.append({"type": "discard", "player": name, "tile": code})
    return tuple(choices)


def _fits(play: Screenplay, code: str, space: Any) -> bool:
    try:
        place_tile(play, code, space)
    except RuleError:
        return False
    return True


def tokens_shown(state: State, viewer: str | None) -> bool:
    """Tokens are public with two players, behind the studio screens with more."""
    return not state.rules.screens or is_over(state)


def _screenplay_view(play: Screenplay) -> dict:
    return {"id": play.id, "genre": play.genre, "spaces": list(play.spaces),
            "tiles": [list(stack) for stack in play.stacks], "stars": list(play.stars),
            "rating": play.rating, "marker": marker_words(play.marker) if play.marker else None,
            "finished": play.finished}


def view(state: State, viewer: str | None = PUBLIC) -> dict:
    """What ``viewer`` sees: everything but the other players' tokens while screens stand. A
    player's ``points`` leave out the tokens the viewer may not see (films and trophies only)."""
    players = []
    for i, name in enumerate(state.players):
        shown = tokens_shown(state, viewer) or viewer == name
        players.append({
            "name": name, "tokens": state.tokens[i] if shown else None,
            "points": (points(state, i) if shown else film_points(state, i) + trophy_points(state, i)),
            "screenplays": [_screenplay_view(p) for p in state.owned(i)],
            "trophies": [t.name for t in state.trophies if t.owner == i]})
    auction = state.auction
    return {
        "players": players, "round": state.round, "location": state.location_name, "phase": state.phase,
        "popcorn": state.players[state.popcorn], "middle": state.middle, "offer": list(state.offer),
        "high_bid": None if auction is None else auction.high_bid,
        "high_bidder": None if auction is None or auction.high_bidder is None else state.players[auction.high_bidder],
        "hand": list(state.hand), "placer": None if state.placer is None else state.players[state.placer],
        "pile_top": state.pile[0] if state.pile else None, "pile": len(state.pile),
        "trophies": [{"name": t.name, "points": t.points, "screenplay": t.screenplay, "player": state.players[t.owner]}
                     for t in state.trophies],
        "winners": winners(state), "status": status(state)}


def to_json(state: State) -> dict:
    return view(state, PUBLIC)


# -- for people -----------------------------------------------------------------------------------------
def status(state: State) -> str:
    where = f"R{state.round} {state.location_name}"
    if state.phase == "over":
        names = winners(state)
        best = points(state, state.players.index(names[0]))
        return f"{' and '.join(names)} win{'s' if len(names) == 1 else ''} with {best}"
    if state.phase == "reveal":
        return f"{where}: turn up tile {len(state.offer) + 1} of {state.tiles_due()}"
    if state.phase == "auction":
        auction = state.auction
        high = ("no bid yet" if auction.high_bid is None
                else f"high {auction.high_bid} by {state.players[auction.high_bidder]}")
        return f"{where}: {state.players[auction.turn]} to bid ({high})"
    if state.phase == "pick":
        return f"{where}: {state.players[state.pick_order[0]]} picks a tile"
    return f"{where}: {state.players[state.placer]} places {', '.join(tile_words(c) for c in state.hand)}"


def scoreboard(state: State) -> list[list[str]]:
    """Public: tokens only where no screen hides them; points without hidden tokens."""
    shown = tokens_shown(state, PUBLIC)
    order = ranking(state) if is_over(state) else range(len(state.players))
    rows = [["Player", "Points", "Tokens", "Trophies", "Films"]]
    for i in order:
        films = " ".join(f"{p.id}:{marker_words(p.marker)}" for p in state.owned(i) if p.finished) or "-"
        score = points(state, i) if shown else film_points(state, i) + trophy_points(state, i)
        rows.append([state.players[i], str(score), str(state.tokens[i]) if shown else "hidden",
                     str(trophy_points(state, i)), films])
    return rows


GAME = Game(name=NAME, title="Dream Factory", min_players=2, max_players=5, dice=None, setup=setup, apply=apply,
            is_over=is_over, scoreboard=scoreboard, to_json=to_json, event_types=EVENT_TYPES, event_keys=EVENT_KEYS,
            status=status, options=OPTIONS, legal_events=legal_events, view=view)
