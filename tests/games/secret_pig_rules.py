"""Secret Pig: a game written only for the tests, to prove that a game is a plug-in.

Pig with one six-sided pip die, for 2-4 players, plus a secret. Before the first roll each
player secretly picks a lucky face (2-6). On your turn you roll the die as often as you
like: a 1 ends your turn and loses what you rolled this turn; any other face is added to
your turn's total, twice over when it is your lucky face. "Hold" banks the turn's total and
passes the die on. The first to reach the target (option ``target``, default 30) wins, and
only then are the lucky faces shown to everyone.

The box needs no code of its own for it beyond this module and its (empty) table module:
the one loop reads the die the rules' ``chance`` asks for and offers ``legal_events``
(the lucky faces, "hold") on the knob; the public view never holds a lucky face before the
end, and neither does the public view of a ``lucky`` event.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from rules.core import PUBLIC, Chance, Game, Option, RuleError, event_keys

NAME = "secret-pig"
FACES = ("1", "2", "3", "4", "5", "6")
LUCKY = ("2", "3", "4", "5", "6")


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    target: int
    points: tuple[int, ...]
    lucky: tuple[str | None, ...]     # the secret
    player: int = 0
    turn_total: int = 0
    last_roll: str | None = None

    @property
    def current_player(self) -> str:
        return self.players[self.player]

    @property
    def winner(self) -> str | None:
        best = max(range(len(self.players)), key=lambda i: self.points[i])
        return self.players[best] if self.points[best] >= self.target else None

    @property
    def ready(self) -> bool:
        return all(face is not None for face in self.lucky)


def _check_target(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 10 <= value <= 100:
        raise ValueError(f"expected a whole number of points from 10 to 100, got {value!r}")
    return value


OPTIONS = (Option("target", 30, "Points to win.", check=_check_target),)


def setup(options: Mapping[str, Any]) -> State:
    unknown = sorted(set(options) - {"players", "target"})
    if unknown:
        raise RuleError(f"unknown setup option(s) {', '.join(unknown)}; valid: players, target")
    players = options.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 4 or len(set(players)) != len(players):
        raise RuleError('"players": expected 2 to 4 different names')
    target = _check_target(options.get("target", 30))
    return State(players=tuple(players), target=target, points=(0,) * len(players), lucky=(None,) * len(players))


def apply(state: State, event: Mapping[str, Any]) -> State:
    if state.winner is not None:
        raise RuleError("the game is over")
    kind = event.get("type")
    if kind == "lucky":
        return _lucky(state, event)
    if not state.ready:
        raise RuleError("every player picks a lucky face first")
    if kind == "roll":
        return _roll(state, event)
    if kind == "hold":
        if state.turn_total == 0:
            raise RuleError(f"{state.current_player} has nothing to hold yet: roll first")
        points = list(state.points)
        points[state.player] += state.turn_total
        return _next_player(replace(state, points=tuple(points)))
    raise RuleError(f"unknown event {kind!r}; expected lucky, roll or hold")


def _lucky(state: State, event: Mapping[str, Any]) -> State:
    player, face = event.get("player"), event.get("face")
    if player not in state.players:
        raise RuleError(f"{player!r} is not playing")
    index = state.players.index(player)
    if state.lucky[index] is not None:
        raise RuleError(f"{player} has picked a lucky face already")
    if face not in LUCKY:
        raise RuleError(f"a lucky face is one of {', '.join(LUCKY)}")
    lucky = list(state.lucky)
    lucky[index] = face
    return replace(state, lucky=tuple(lucky))


def _roll(state: State, event: Mapping[str, Any]) -> State:
    faces = event.get("faces")
    if not isinstance(faces, list) or len(faces) != 1 or faces[0] not in FACES:
        raise RuleError("a roll is one die: faces = [\"1\"] .. [\"6\"]")
    face = faces[0]
    if face == "1":
        return _next_player(replace(state, last_roll=face))
    gain = int(face) * (2 if face == state.lucky[state.player] else 1)
    return replace(state, turn_total=state.turn_total + gain, last_roll=face)


def _next_player(state: State) -> State:
    if state.winner is not None:
        return replace(state, turn_total=0)
    return replace(state, player=(state.player + 1) % len(state.players), turn_total=0)


def is_over(state: State) -> bool:
    return state.winner is not None


def chance(state: State, chosen=None) -> Chance | None:
    if chosen is not None or not state.ready or is_over(state):
        return None
    return Chance({"type": "roll"}, dice=1, face_set="d6-pips", thrower=state.current_player)


def legal_events(state: State) -> tuple[dict, ...]:
    if is_over(state):
        return ()
    for player, face in zip(state.players, state.lucky):
        if face is None:
            return tuple({"type": "lucky", "player": player, "face": f} for f in LUCKY)
    return ({"type": "hold"},) if state.turn_total else ()


def view(state: State, viewer: str | None) -> dict:
    """Scores for everyone; a lucky face only to its owner, or to everyone once the game is over."""
    shown = {}
    for player, face in zip(state.players, state.lucky):
        if is_over(state) or player == viewer:
            shown[player] = face
    return {"players": list(state.players), "points": list(state.points), "target": state.target,
            "turn": state.current_player, "turn_total": state.turn_total, "last_roll": state.last_roll,
            "lucky": shown, "winner": state.winner}


def event_view(event: Mapping[str, Any], viewer: str | None) -> Mapping[str, Any]:
    """A ``lucky`` event without its face for anyone but the player who picked it."""
    if event.get("type") == "lucky" and viewer != event.get("player"):
        return {k: v for k, v in event.items() if k != "face"}
    return event


def status(state: State) -> str:
    if is_over(state):
        return f"{state.winner} wins with {max(state.points)}"
    if not state.ready:
        waiting = next(p for p, f in zip(state.players, state.lucky) if f is None)
        return f"{waiting}: pick a lucky face"
    return f"{state.current_player} to roll (this turn {state.turn_total})"


def scoreboard(state: State) -> list[list[str]]:
    return [["Player", "Points"]] + [[p, str(n)] for p, n in zip(state.players, state.points)]


GAME = Game(name=NAME, title="Secret Pig", min_players=2, max_players=4, dice="d6-pips", setup=setup, apply=apply,
            is_over=is_over, scoreboard=scoreboard, to_json=lambda state: view(state, PUBLIC),
            event_types=("lucky", "roll", "hold"), event_keys=event_keys(lucky=("player", "face"), roll=("faces",), hold=()),
            status=status, options=OPTIONS, chance=chance,
            legal_events=legal_events, view=view, event_view=event_view)
