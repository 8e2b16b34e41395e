"""Standings from the tables' results: pure functions, no I/O.

A finished table (its last standing says ``over``) is one game played by each of its players.
For each player, per game and across the whole tournament: games played, wins (named among
the winners), points (the game's own points, added up) and the tournament score, by the
scoring chosen:

* ``3/1/0`` (the default; any ``W/D/L``): a sole winner gets W, winners who share the win D
  each, the others L. A game with no winner (one played against fate) gives nobody anything.
* ``rank:10/6/4/2/1``: points by finishing place (the winners first, then by the game's
  points); players level share the better place; places beyond the list get 0.

Assumption (the rulebooks say nothing about leagues): a player is the same player at every
table when the name is the same, spelled the same way.
"""
from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SCORING = "3/1/0"
SCORING_EXPECTED = "W/D/L such as 3/1/0, or rank:P1/P2/... such as rank:10/6/4/2/1"


@dataclass(frozen=True)
class Scoring:
    kind: str                          # "wdl" or "rank"
    values: tuple[float, ...]

    @property
    def text(self) -> str:
        numbers = "/".join(f"{v:g}" for v in self.values)
        return f"rank:{numbers}" if self.kind == "rank" else numbers


def parse_scoring(text: str) -> Scoring:
    """``3/1/0`` or ``rank:10/6/4``; ValueError says what was expected."""
    body = text.strip()
    kind = "wdl"
    if body.startswith("rank:"):
        kind, body = "rank", body[len("rank:"):]
    try:
        values = tuple(float(part) for part in body.split("/"))
    except ValueError:
        raise ValueError(f"expected {SCORING_EXPECTED}, got {text!r}") from None
    if (kind == "wdl" and len(values) != 3) or not values or any(v != v or abs(v) > 1e6 for v in values):
        raise ValueError(f"expected {SCORING_EXPECTED}, got {text!r}")
    return Scoring(kind, values)


@dataclass
class Record:
    """One player's line: per game or across the tournament."""

    player: str
    played: int = 0
    wins: int = 0
    points: float = 0
    score: float = 0

    def as_json(self) -> dict:
        return {"player": self.player, "played": self.played, "wins": self.wins,
                "points": _number(self.points), "score": _number(self.score)}


@dataclass(frozen=True)
class TableResult:
    """What the league knows of one table: its game and its last standing."""

    table: str
    game: str
    standing: dict
    entries: int = 0


def tournament_points(standing: dict, scoring: Scoring) -> dict[str, float]:
    """Each player's tournament points for one finished game."""
    players, winners = standing["players"], standing["winners"]
    if scoring.kind == "wdl":
        win, shared, loss = scoring.values
        if not winners:
            return {p: 0.0 for p in players}
        each = win if len(winners) == 1 else shared
        return {p: (each if p in winners else loss) for p in players}
    points = standing["points"] or [0] * len(players)
    keys = {p: (p in winners, points[i]) for i, p in enumerate(players)}
    out = {}
    for p in players:
        place = sum(1 for q in players if keys[q] > keys[p])      # players level share the better place
        out[p] = scoring.values[place] if place < len(scoring.values) else 0.0
    return out


def standings(results: list[TableResult], scoring: Scoring) -> dict:
    """Per game and overall, best first; and the tables still being played."""
    per_game: dict[str, dict[str, Record]] = {}
    overall: dict[str, Record] = {}
    live = []
    for result in sorted(results, key=lambda r: r.table):
        standing = result.standing
        if not standing.get("over"):
            live.append({"table": result.table, "game": result.game, "players": standing["players"],
                         "points": standing["points"]})
            continue
        awarded = tournament_points(standing, scoring)
        for i, player in enumerate(standing["players"]):
            for book in (per_game.setdefault(result.game, {}), overall):
                record = book.setdefault(player, Record(player))
                record.played += 1
                record.wins += player in standing["winners"]
                record.points += standing["points"][i] if standing["points"] else 0
                record.score += awarded[player]
    return {"scoring": scoring.text,
            "games": {game: ranked(book) for game, book in sorted(per_game.items())},
            "overall": ranked(overall), "live": live,
            "finished": sum(1 for r in results if r.standing.get("over")), "tables": len(results)}


def ranked(book: dict[str, Record]) -> list[dict]:
    order = sorted(book.values(), key=lambda r: (-r.score, -r.wins, -r.points, r.player))
    return [record.as_json() for record in order]


def _number(value: float):
    return int(value) if float(value).is_integer() else round(value, 3)
