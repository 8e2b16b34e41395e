"""Making Christmas at the box: the workbench, the goals and the scoreboard on the e-ink
panel, the knob's menu of the game's events in words, the LED bar showing the goals left.

The game has no dice: everything is a choice on the knob. Home shows the workbench (a 3x3
grid, columns a-c, rows 1-3) beside the three goals; turning the knob with nothing asked
flips between the workbench and the scoreboard. A hand card is entered by its owner on their
own device (``TableLoop.choose_privately``): the shared knob never offers it
(GameTable.choices_menu leaves out every event whose public view differs).
"""
from __future__ import annotations

from typing import Any, Mapping

from host.games import GameTable
from host.menus import BACK, Menu, MenuItem
from host.presenters import READ_OK, WAITING, Screen
from rules.core import PUBLIC
from rules.making_christmas import ARROWS, TOYS, UNKNOWN, space_name

GAME = "making-christmas"
DEMO = "host.making_christmas_demo"
SETUP_FLAGS = {"--short-game": "short_game"}
PLAYERS = ["Ann", "Ben"]   # when run is given no --players

TOY_WORDS = {"vampire-teddy": "Vampire Teddy", "zombie-duck": "Zombie Duck", "jack-in-the-box": "Jack-in-the-Box",
             "nesting-doll": "Nesting Doll", "any-across": "any horizontal toy", "any-down": "any vertical toy"}
SHORT_TOY = {"vampire-teddy": "Teddy", "zombie-duck": "Duck", "jack-in-the-box": "Jack", "nesting-doll": "Doll",
             "any-across": "Any -", "any-down": "Any |"}
HALF = {"left": "L", "right": "R", "top": "T", "bottom": "B"}
PART_TOY = {part: toy for toy, (_, first, second) in TOYS.items() for part in (first, second)}


def part_words(part: str | None, short: bool = False) -> str:
    """``teddy-left`` as "Vampire Teddy left" (or "Teddy L" on the grid)."""
    if part is None:
        return "-" if short else "empty"
    if part == UNKNOWN or part not in PART_TOY:
        return "?" if short else "not entered"
    half = part.rsplit("-", 1)[1]
    toy = PART_TOY[part]
    return f"{SHORT_TOY[toy]} {HALF[half]}" if short else f"{TOY_WORDS[toy]} {half}"


def goal_words(goal: str | None, short: bool = False) -> str:
    if goal is None:
        return "-" if short else "no goal"
    if goal == UNKNOWN:
        return "?" if short else "not entered"
    base = goal[:-len(ARROWS)] if goal.endswith(ARROWS) else goal
    words = (SHORT_TOY if short else TOY_WORDS).get(base, base)
    return words + (("+" if short else " (+ a swap)") if goal.endswith(ARROWS) else "")


def workbench_rows(view: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    """The workbench as text rows, each with the goal slot of the same number beside it
    (``+``: the goal's circling arrows; ``Any -``/``Any |``: any horizontal/vertical toy)."""
    bench, goals = view["bench"], view["goal_slots"]
    rows = [("", "a", "b", "c", "Goal")]
    for row in range(3):
        parts = tuple(part_words(bench[row * 3 + col], short=True) for col in range(3))
        rows.append((str(row + 1), *parts, goal_words(goals[row], short=True)))
    return tuple(rows)


def ranking_rows(view: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    seats = sorted(view["players"], key=lambda seat: -seat["points"])
    return (("#", "Player", "Goals"),) + tuple((str(i + 1), s["name"], str(s["points"])) for i, s in enumerate(seats))


def label_of(event: Mapping[str, Any]) -> str:
    """Words for one of the game's events in the knob's menu."""
    kind = event.get("type")
    if kind == "goal":
        return f"Goal {event['slot'] + 1} is {goal_words(event['goal'])}"
    if kind == "lay":
        return f"{space_name(event['space'])} is {part_words(event['part'])}"
    if kind == "hold":
        return f"{event['player']}: hand card {event['card'] + 1} is {part_words(event.get('part'))}"
    if kind == "swap":
        a, b = event["spaces"]
        return f"Swap {space_name(a)} and {space_name(b)}"
    if kind == "swap_hand":
        return f"Swap hand card {event['card'] + 1} with {space_name(event['space'])}"
    if kind == "replace":
        return f"Replace {space_name(event['space'])} from the deck"
    if kind == "complete":
        a, b = event["spaces"]
        return f"{TOY_WORDS[event['toy']]} {space_name(a)}-{space_name(b)} for goal {event['slot'] + 1}"
    if kind == "end_turn":
        cards = [str(c + 1) for c in event.get("exchange", [])]
        if not cards:
            return "End the turn"
        return f"End the turn, exchange hand card{'s' if len(cards) > 1 else ''} {' and '.join(cards)}"
    return str(kind)


GROUPED = ("swap", "swap_hand", "replace")   # many of these: chosen in two or three pushes
GROUP_WORDS = {"swap": "Swap two workbench parts", "swap_hand": "Swap a part with your hand",
               "replace": "Replace a part from the deck"}


def group_of(event: Mapping[str, Any], depth: int) -> tuple | None:
    """The menu group ``event`` sits in at ``depth`` (0: the top menu), None when it is an item there.
    A swap: kind, then its first space; a swap with the hand: kind, then the hand card."""
    kind = event["type"]
    if kind not in GROUPED:
        return None
    path = [("group", kind)]
    if kind == "swap":
        path.append(("group", kind, event["spaces"][0]))
    elif kind == "swap_hand":
        path.append(("group", kind, event["card"]))
    return path[depth] if depth < len(path) else None


def group_words(group: tuple) -> str:
    kind = group[1]
    if len(group) == 2:
        return GROUP_WORDS[kind]
    if kind == "swap":
        return f"Swap {space_name(group[2])} with ..."
    return f"Hand card {group[2] + 1} with ..."


def menu_values(events, inside: tuple | None = None) -> list:
    """The items of the menu ``inside`` a group (None: the top menu): events and groups, in
    the order of ``events``, each group once."""
    depth = 0 if inside is None else len(inside) - 1
    values: list = []
    for event in events:
        if inside is not None and group_of(event, depth - 1) != inside:
            continue
        value = group_of(event, depth) or dict(event)
        if value not in values:
            values.append(value)
    return values


def path_to(event: Mapping[str, Any]) -> list:
    """The menu values a player pushes, from the top menu, to play ``event``."""
    path, depth = [], 0
    while (group := group_of(event, depth)) is not None:
        path.append(group)
        depth += 1
    return path + [dict(event)]


class Table(GameTable):
    """Making Christmas at the box."""

    def __init__(self, loop, options, new_seed=None):
        super().__init__(loop, options, new_seed)
        self.page = 0      # 0: the workbench and goals; 1: the scoreboard

    def bar(self) -> int:
        """The LED bar: the goals still to complete, out of 10."""
        view = self.public_view()
        return round(10 * view["goals_left"] / max(1, view["goals_in_game"]))

    def label(self, event: Mapping[str, Any]) -> str:
        return label_of(event)

    def public_events(self) -> list:
        """The legal events the shared knob may offer (never a secret one)."""
        return [e for e in self.game.legal_events(self.state) if self.game.event_view(e, PUBLIC) == e]

    def item(self, value) -> MenuItem:
        return MenuItem(group_words(value) if isinstance(value, tuple) else self.label(value), value)

    def choices_menu(self) -> Menu:
        """The swaps grouped (a workbench of nine has 36 swaps): the kind of swap, then a space."""
        items = tuple(self.item(v) for v in menu_values(self.public_events()))
        items += (MenuItem("Undo the last event", "undo"), MenuItem("Back", BACK))
        return Menu("choices", self.public_status() or self.game.title, items)

    def choose(self, menu: Menu, value: Any) -> None:
        if isinstance(value, tuple) and value[:1] == ("group",):
            items = tuple(self.item(v) for v in menu_values(self.public_events(), value))
            self.loop.open_menu(Menu("choices", group_words(value), items + (MenuItem("Back", BACK),)))
            return
        super().choose(menu, value)

    def home(self) -> None:
        view, loop = self.public_view(), self.loop
        if self.game.is_over(self.state):
            loop.show(Screen("scoreboard", title="Final ranking", table=ranking_rows(view), highlight=1,
                             footer=self.public_status()))
            loop.status(READ_OK, bar=self.bar())
            return
        if self.page == 1:
            loop.show(Screen("scoreboard", title=f"{view['goals_left']} goals left",
                             table=tuple(tuple(map(str, r)) for r in self.game.scoreboard(self.state)),
                             footer=self.public_status()))
        else:
            loop.show(Screen("scoreboard", title=f"{view['turn']}'s turn: workbench", table=workbench_rows(view),
                             footer=self.public_status()))
        loop.status(WAITING, bar=self.bar())

    def turn(self, step: int) -> None:
        """The knob turned with nothing asked: the workbench or the scoreboard."""
        self.page = (self.page + 1) % 2
        self.loop.show_home()


def add_setup_arguments(parser, command: str = "run") -> None:
    """``--short-game`` for ``run`` and ``demo``."""
    parser.add_argument("--short-game", dest="short_game", action="store_true", default=None,
                        help="making-christmas: the shorter game (three goals back in the box)")


def setup_options(args, players: list[str]) -> dict:
    """``dicewatch run --game making-christmas --players Ann,Ben [--short-game]``."""
    options: dict[str, Any] = {"players": list(players) or list(PLAYERS)}
    if getattr(args, "short_game", None):
        options["short"] = True
    return options
