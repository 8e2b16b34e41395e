"""Dark Romance's roles, coins and win-condition board, as data.

The printed win-condition board is a picture the rulebook transcription lacks. It is a
grid: a row for each pair of roles (the Counts: Count and Countess; the Vampires; the
Demon Hunters; the Swindlers; the Tragic Poets), a column for each pair of opponents, and
in each cell the coin the row's role needs to win against the column's. The tutorial side
(scenario 1) is 3x3, the advanced side (scenario 2 and up) 5x5: 9 and 25 cells, the
rulebook's "16 combinations with 8 roles, 25 with the Poets".

A board here is ``{side: {row family: {column family: coin}}}``, the shape of
``rules/data/dark-romance-win-board.toml``. A cell nobody has filled in is simply absent:
the box never guesses one (``dicewatch win-board`` lists them; a game that needs one asks
the players to read it off their board). :data:`STATED` holds only the cells the rulebook's
text states; :data:`RULES_OF_THE_TEXT` the facts it states that constrain other cells.
"""
from __future__ import annotations

from typing import Any, Mapping

COINS = ("romance", "temptation", "rejection", "boldness", "manipulation")
COIN_NAMES = {coin: coin.capitalize() for coin in COINS}

# family id -> (its two roles, as id and printed name)
FAMILIES = {
    "counts": (("count", "Count"), ("countess", "Countess")),
    "vampires": (("vampire", "Vampire"), ("vampiress", "Vampiress")),
    "demon-hunters": (("demon-hunter", "Demon Hunter"), ("demon-huntress", "Demon Huntress")),
    "swindlers": (("swindler", "Swindler"), ("swindleress", "Swindleress")),
    "tragic-poets": (("tragic-poet", "Tragic Poet"), ("tragic-poetess", "Tragic Poetess")),
}
ROLE_NAMES = {role: name for pair in FAMILIES.values() for role, name in pair}
ROLES = tuple(ROLE_NAMES)
FAMILY_OF = {role: family for family, pair in FAMILIES.items() for role, _ in pair}
POETS = "tragic-poets"

SIDES = {"tutorial": ("counts", "vampires", "demon-hunters"),
         "advanced": ("counts", "vampires", "demon-hunters", "swindlers", "tragic-poets")}
SIDE_COINS = {"tutorial": COINS[:4], "advanced": COINS}   # no Manipulation coin in the tutorial

# Only what the text says (see seeds/dark-romance.md). The examples do not say which side of
# the board they read; the cells they state are put on every side that has both families
# (an assumption, listed in the digest).
_TEXT_CELLS = {
    ("vampires", "counts"): "temptation",        # the Vampiress, Win Condition Board anatomy
    ("vampires", "demon-hunters"): "rejection",  # the same example
    ("vampires", "vampires"): "romance",         # the same, and the two Vampires' example
    ("counts", "counts"): "romance",             # "both of you would win with Romance (Count vs. Countess)"
    ("demon-hunters", "counts"): "rejection",    # the Demon Huntress beats the Countess with Rejection
    ("vampires", "swindlers"): "temptation",     # the Swindler and the Vampiress's indirect victory
    ("tragic-poets", "swindlers"): "manipulation",  # "e.g., Manipulation against the Swindler/Swindleress"
}
STATED = {side: {row: {column: coin for (r, column), coin in _TEXT_CELLS.items()
                       if r == row and column in families}
                 for row in families if any(r == row and c in families for r, c in _TEXT_CELLS)}
          for side, families in SIDES.items()}

# (row, column, coins the cell cannot hold, why)
RULES_OF_THE_TEXT = (
    ("swindlers", "vampires", ("manipulation",),
     "Manipulation gives neither the Swindler nor the Vampiress a direct victory"),
    ("counts", "demon-hunters", ("boldness", "rejection"),
     "in the rulebook's stacked example neither Boldness nor Rejection wins for the Countess against the Demon Huntress"),
)


class BoardError(ValueError):
    """A win board that cannot be used: ``key`` is the dotted path of the bad entry
    (``advanced.swindlers.vampires``), the message says what was expected."""

    def __init__(self, key: str, message: str):
        self.key = key
        super().__init__(f"{key}: {message}" if key else message)


def family_words(family: str) -> str:
    """"vampires" -> "Vampire/Vampiress"."""
    return "/".join(name for _, name in FAMILIES[family])


def role_id(value: Any) -> str | None:
    """A role as typed ("Demon Huntress", "demon-huntress") -> its id, or None."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower().replace(" ", "-").replace("_", "-")
    return text if text in ROLE_NAMES else None


def coin_id(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    return text if text in COINS else None


def check_board(table: Any) -> dict[str, dict[str, dict[str, str]]]:
    """A board as data (the TOML file's tables) checked and normalised; BoardError names the
    key. Missing cells are fine (that is what ``dicewatch win-board`` reports)."""
    if not isinstance(table, Mapping):
        raise BoardError("", "expected a table with the sides [tutorial] and [advanced]")
    board: dict[str, dict[str, dict[str, str]]] = {}
    for side, rows in table.items():
        if side not in SIDES:
            raise BoardError(str(side), f"unknown side; expected {' or '.join(SIDES)}")
        board[side] = _check_side(side, rows)
    return board


def _check_side(side: str, rows: Any) -> dict[str, dict[str, str]]:
    families = SIDES[side]
    if not isinstance(rows, Mapping):
        raise BoardError(side, f"expected a table of rows, one per role pair: {', '.join(families)}")
    checked: dict[str, dict[str, str]] = {}
    for row, cells in rows.items():
        if row not in families:
            raise BoardError(f"{side}.{row}", f"unknown row; the {side} side has {', '.join(families)}")
        if not isinstance(cells, Mapping):
            raise BoardError(f"{side}.{row}", f"expected a table: opponents ({', '.join(families)}) = coin")
        checked[row] = {}
        for column, coin in cells.items():
            key = f"{side}.{row}.{column}"
            if column not in families:
                raise BoardError(key, f"unknown opponent; the {side} side has {', '.join(families)}")
            if coin_id(coin) is None or coin_id(coin) not in SIDE_COINS[side]:
                raise BoardError(key, f"expected one of the coins {', '.join(map(repr, SIDE_COINS[side]))}, "
                                 f"got {coin!r}")
            checked[row][column] = coin_id(coin)
    _check_text_rules(side, checked)
    return {row: cells for row, cells in checked.items() if cells}


def _check_text_rules(side: str, rows: Mapping[str, Mapping[str, str]]) -> None:
    """What the rulebook's text rules out for cells it does not state."""
    for row, column, never, why in RULES_OF_THE_TEXT:
        coin = rows.get(row, {}).get(column)
        if coin in never:
            raise BoardError(f"{side}.{row}.{column}", f"cannot be {coin!r}: {why}")


def cell(board: Mapping[str, Any], side: str, role: str, against: str) -> str | None:
    """The coin ``role`` needs against ``against`` on ``side``, or None when the board lacks it."""
    return board.get(side, {}).get(FAMILY_OF[role], {}).get(FAMILY_OF[against])


def missing(board: Mapping[str, Any], side: str) -> list[tuple[str, str]]:
    """The (row, column) cells of ``side`` the board still lacks, in the board's order."""
    rows = board.get(side, {})
    return [(row, column) for row in SIDES[side] for column in SIDES[side] if column not in rows.get(row, {})]


def merged(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, dict[str, dict[str, str]]]:
    """``base`` with the cells of ``extra`` added (both checked boards)."""
    out = {side: {row: dict(cells) for row, cells in rows.items()} for side, rows in base.items()}
    for side, rows in extra.items():
        for row, cells in rows.items():
            out.setdefault(side, {}).setdefault(row, {}).update(cells)
    return out
