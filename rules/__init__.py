"""The rules core: pure, deterministic game logic. See rules/core.py for the machinery.

Each game is one module exposing ``GAME`` (a :class:`rules.core.Game`). Add a new game
by adding its module name to ``GAME_MODULES``.
"""
from __future__ import annotations

import importlib
import importlib.util

from .core import Game, ReplayError, RuleError, Session, fold, format_table, load_replay

GAME_MODULES = {
    "jingle-bell-roll": "rules.jingle_bell_roll",
    "christmas-romance": "rules.christmas_romance",
}


def game_names() -> list[str]:
    """Names of the games whose module is present."""
    names = []
    for name, module in GAME_MODULES.items():
        if importlib.util.find_spec(module) is not None:
            names.append(name)
    return names


def get_game(name: str) -> Game:
    """The game definition called ``name``; LookupError lists the valid names."""
    if name not in GAME_MODULES or importlib.util.find_spec(GAME_MODULES[name]) is None:
        raise LookupError(f"unknown game {name!r}; choose one of: {', '.join(game_names())}")
    return importlib.import_module(GAME_MODULES[name]).GAME


__all__ = ["Game", "ReplayError", "RuleError", "Session", "fold", "format_table", "game_names", "get_game",
           "load_replay"]
