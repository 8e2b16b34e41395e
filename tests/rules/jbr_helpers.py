"""Small helpers shared by the Jingle Bell Roll tests."""
from __future__ import annotations

from rules import get_game
from rules.core import Session

GAME = get_game("jingle-bell-roll")
PLAYERS = ["Chris", "Rebecca", "Jess"]


def dice(text: str) -> list[str]:
    """'MILK COOKIE LIST ...' -> a list of faces."""
    return text.split()


def new_session(players=PLAYERS, **options) -> Session:
    return Session(GAME, {"players": list(players), **options})


def play_turn(session: Session, faces: str, uses=(), recipients=None, letter=None) -> None:
    """One roll, then score it (recipients default to the next players round the table)."""
    session.play({"type": "roll", "faces": dice(faces)})
    score(session, uses, recipients, letter)


def score(session: Session, uses=(), recipients=None, letter=None) -> None:
    state = session.state
    if recipients is None:
        from rules.jingle_bell_roll import parse_uses, score_roll
        result = score_roll(state.faces, parse_uses(list(uses), state.player.character), state.rules,
                            state.player.letter_faces)
        others = [p.name for p in state.players if p.name != state.current_player]
        recipients = [others[i % len(others)] for i in range(result.gift_cards_to_deal)]
    event = {"type": "score", "uses": list(uses), "gift_recipients": list(recipients)}
    if letter is not None:
        event["letter"] = letter
    session.play(event)
