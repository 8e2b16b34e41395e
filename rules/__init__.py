"""The rules core: pure, deterministic game logic. See rules/core.py for the machinery.

Each game is one module exposing ``GAME`` (a :class:`rules.core.Game`). Add a new game
by adding its module name to ``GAME_MODULES``.
"""
from __future__ import annotations

import importlib
import importlib.util

from .core import PUBLIC, Chance, Game, Option, OptionError, ReplayError, RuleError, Session, fold, format_table, load_replay

GAME_MODULES = {
    "jingle-bell-roll": "rules.jingle_bell_roll",
    "christmas-romance": "rules.christmas_romance",
    "dream-factory": "rules.dream_factory",
    "making-christmas": "rules.making_christmas",
    "dark-romance": "rules.dark_romance",
}


_REGISTERED: dict[str, Game] = {}


def register_game(game: Game) -> None:
    """Make a game defined outside this package known by its name (a plug-in game's rules,
    the tests' example game). A built-in name cannot be taken."""
    if game.name in GAME_MODULES:
        if get_game(game.name) is not game:
            raise ValueError(f"{game.name!r} is a built-in game; give the new game another name")
        return
    _REGISTERED[game.name] = game


def game_names() -> list[str]:
    """Names of the games whose module is present, then the registered ones."""
    names = []
    for name, module in GAME_MODULES.items():
        if importlib.util.find_spec(module) is not None:
            names.append(name)
    return names + [name for name in _REGISTERED if name not in names]


def get_game(name: str) -> Game:
    """The game definition called ``name``; LookupError lists the valid names."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in GAME_MODULES or importlib.util.find_spec(GAME_MODULES[name]) is None:
        raise LookupError(f"unknown game {name!r}; choose one of: {', '.join(game_names())}")
    return importlib.import_module(GAME_MODULES[name]).GAME


__all__ = ["PUBLIC", "Chance", "Game", "Option", "OptionError", "ReplayError", "RuleError", "Session", "fold", "format_table", "game_names", "get_game",
           "load_replay", "register_game"]
