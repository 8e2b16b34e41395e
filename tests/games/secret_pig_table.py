"""Secret Pig's table at the box: nothing of its own. The plain host.games.GameTable shows
it from the rules' seam alone (the throw due, the public scoreboard, the legal events on
the knob). Loaded through $DICEWATCH_GAMES=tests.games.secret_pig_table."""
from __future__ import annotations

from host.games import GameTable
from tests.games.secret_pig_rules import GAME as RULES
from tests.games.secret_pig_rules import NAME

GAME = NAME
__all__ = ["GAME", "RULES", "Table"]


class Table(GameTable):
    """Secret Pig shown as any game is."""
