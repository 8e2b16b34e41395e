"""Dark Romance at the box: two secret roles, five coins, the box as referee.

Everything the shared screens, the LED bar and the terminal show is built from the rules'
*public* view (``view_of(state, None)``), so nothing on them can name a role or hint at one
before the end: no "your coin", no odds. A role is entered or looked at in one of two ways:

* on the player's own phone (the phone page's "My seat": the role choices and the player's
  own view, their row of the win board, live there only);
* on the box itself, "passing the box": the knob menu offers "Mary: enter your role" or
  "Mary: see your role"; the box first asks the others to look away (a public screen), and
  only when Mary pushes does the panel show her private screen (``Screen.private``: the
  terminal, its log and the phone page see a stand-in). Any button puts it away, and it
  clears itself after :data:`PRIVATE_SECONDS`.

When the box deals the roles, the seed that decides them comes from the OS's randomness
(``secrets``): it is stored with the event, which the public sees without it until the end.

At the end the panel shows the verdict with its reasoning and both roles; Next starts the
next game of the series with the running totals (``rules.dark_romance.next_game_setup``).
"""
from __future__ import annotations

import secrets
from typing import Any, Mapping

from host.games import GameTable, describe_event
from host.menus import BACK, Menu, MenuItem
from host.presenters import ATTENTION, READ_OK, WAITING, Screen
from rules.core import PUBLIC
from rules.dark_romance import NAME, is_over, next_game_setup, symbols_words
from rules.dark_romance_board import COIN_NAMES, ROLE_NAMES

GAME = NAME
DEFAULT_PLAYERS = ["Mary", "Edgar"]
PRIVATE_SECONDS = 30.0      # a private screen left up clears itself after this long

ENTER, SEE, SHOW_ME = "enter-role", "see-role", "show-me"


def coin_words(coins) -> str:
    return " then ".join(COIN_NAMES.get(c, str(c)) for c in coins)


def role_words(role: str) -> str:
    return ROLE_NAMES.get(role, str(role))


class Table(GameTable):
    """Dark Romance's screens, menu words and the "pass the box" steps."""

    warns_of_light = False

    def __init__(self, loop, options: Mapping[str, Any], new_seed=None):
        super().__init__(loop, options, new_seed)
        self.private_until: float | None = None   # when the private screen up now clears itself

    @property
    def public(self) -> dict:
        """The public view: the only thing the shared screens are made of."""
        return self.game.view_of(self.state, PUBLIC)

    def bar(self) -> int:
        """The LED bar: how close the closest coin is to the Center (public; full once one is in)."""
        view = self.public
        spaces = view["spaces"]
        closest = min((c["distance"] for c in view["coins"]), default=spaces)
        return round(10 * (spaces - closest) / spaces) if closest else 10

    # -- screens ---------------------------------------------------------------------------------
    def home(self) -> None:
        self.private_until = None
        view = self.public
        if view["phase"] == "roles":
            screen = self.roles_screen(view)
        elif view.get("verdict") is not None:
            screen = self.verdict_screen(view)
        else:
            screen = self.board_screen(view)
        self.loop.show(screen)
        over = is_over(self.state)
        self.loop.status(READ_OK if over else (ATTENTION if view["phase"] in ("roles", "settle") else WAITING),
                         bar=self.bar())

    def roles_screen(self, view: dict) -> Screen:
        lines = tuple(f"{p['name']}: {'role entered' if p['has_role'] else 'no role yet'}" for p in view["players"])
        return Screen("prompt", title="Dark Romance: the roles",
                      lines=lines + ("enter your own card on your phone or at the box, or let the box deal",),
                      footer="push: enter a role (pass the box) or deal")

    def board_screen(self, view: dict) -> Screen:
        """The relationship board: each coin's distance from the Center, the Center's stack."""
        rows = [("Coin", "To the Center")]
        for coin in sorted((c for c in view["coins"] if c["distance"]), key=lambda c: (c["distance"], c["name"])):
            rows.append((coin["name"], str(coin["distance"])))
        for place, coin in enumerate(view["center"], start=1):
            rows.append((COIN_NAMES.get(coin, coin), f"in the Center ({place})"))
        if view["game_number"] > 1:   # a series: the running totals
            rows.append(("Series", ", ".join(f"{p['name']} {p['total']}" for p in view["players"])))
        title = f"Game {view['game_number']}, turn {view['turn']}: {view['active']}"
        return Screen("scoreboard", title=title, table=tuple(rows), footer=view["status"] + " (push)")

    def verdict_screen(self, view: dict) -> Screen:
        verdict = view["verdict"]
        roles = tuple(f"{p['name']}: the {p.get('role') or '?'}" for p in view["players"])
        series = "series: " + ", ".join(f"{p['name']} {p['total']}" for p in view["players"])
        lines = roles + (verdict["reason"], series)
        if verdict["outcome"] == "unsettled":
            return Screen("prompt", title="Settle it from your board", lines=lines,
                          footer="push: enter the coin your board shows")
        return Screen("prompt", title="The ending", lines=lines, footer="Next: the next game of the series")

    def private_screen(self, player: str) -> Screen:
        """``player``'s own screen (for the panel only): their role and what it needs."""
        own = next(p for p in self.game.view_of(self.state, player)["players"] if p["name"] == player)
        needs = own.get("needs") or {}
        lines = tuple(f"against {pair}: {COIN_NAMES.get(coin, coin) if coin else 'see your board'}"
                      for pair, coin in needs.items())
        return Screen("prompt", title=f"{player}: you are the {own.get('role') or '(no role yet)'}",
                      lines=lines, footer="any button: put it away", private=player)

    def private_label(self, event: Mapping[str, Any]) -> str:
        return self.label(event)   # on the player's own page: "Mary's role: the Countess"

    def private_lines(self, view: Any, player: str) -> list[str]:
        """For the player's own page: their role, their row of the win board, their symbols."""
        own = next(p for p in view["players"] if p["name"] == player)
        if not own.get("role"):
            return ["You have not entered your role yet: choose the card you drew below."]
        lines = [f"You are the {own['role']}."]
        for pair, coin in (own.get("needs") or {}).items():
            lines.append(f"Against the {pair}: you need {COIN_NAMES.get(coin, coin) if coin else '(see your board)'}")
        symbols = ", ".join(f"{n} {kind.capitalize()}" for kind, n in own["symbols"].items() if n) or "none"
        lines.append(f"Your uncovered symbols: {symbols}")
        return lines

    # -- the knob --------------------------------------------------------------------------------
    def label(self, event: Mapping[str, Any]) -> str:
        kind = event.get("type")
        who = event.get("player", "")
        if kind == "draw_roles":
            return "The box deals the roles"
        if kind == "role":
            return f"{who}'s role" + (f": the {role_words(event['role'])}" if "role" in event else "")
        if kind == "scene":
            return f"{who} plays a scene: {str(event['category']).capitalize()}"
        if kind == "react":
            return f"{who} reacts: {coin_words(event['coins'])}"
        if kind == "visit":
            paid = f" (pay {symbols_words(event['pay'])})" if event.get("pay") else ""
            return f"{who} visits the {event['courtier']}{paid}"
        if kind in ("push", "pull"):
            way = "toward" if kind == "push" else "away from"
            return f"{COIN_NAMES.get(event['coin'], event['coin'])} one step {way} the Center"
        if kind == "done":
            return "The courtier is done"
        if kind == "end_turn":
            return f"End {who}'s turn"
        if kind == "win_condition":
            return (f"The {role_words(event['role'])} needs {COIN_NAMES.get(event['coin'], event['coin'])} "
                    f"against the {role_words(event['against'])}")
        return describe_event(event)

    def choices_menu(self) -> Menu:
        """The game's public choices, then each player's "pass the box" steps, undo, back."""
        view = self.public
        items = [MenuItem(self.label(event), event) for event in self.public_choices()]   # the deal: without its seed
        if not view.get("verdict"):
            for player in view["players"]:
                name = player["name"]
                if view["phase"] == "roles" and not view.get("dealt_by_box"):
                    items.append(MenuItem(f"{name}: enter your role (pass the box)", (ENTER, name)))
                if player["has_role"]:
                    items.append(MenuItem(f"{name}: see your role (pass the box)", (SEE, name)))
        items += [MenuItem("Undo the last event", "undo"), MenuItem("Back", BACK)]
        return Menu("choices", view["status"] or self.game.title, tuple(items))

    def choose(self, menu: Menu, value: Any) -> None:
        if isinstance(value, Mapping) and value.get("type") == "draw_roles":
            # the deal's randomness is itself a secret: from the OS, unless a demo seeds the box
            seed = self.new_seed() if self.new_seed is not None else secrets.randbits(63)
            self.play_chosen({**value, "seed": seed})
        elif isinstance(value, tuple) and value[0] in (ENTER, SEE):
            self.pass_the_box(*value)
        elif isinstance(value, tuple) and value[0] == SHOW_ME:
            self.show_private(value[1], value[2])
        elif isinstance(value, Mapping) and menu.private:   # a role, chosen with the others looking away
            self.loop.choose_privately(value)
            self.loop.show(Screen("prompt", title=f"{menu.private}'s role is noted",
                                  lines=("pass the box back",), footer="push: the game's choices"))
        else:
            super().choose(menu, value)

    def pass_the_box(self, step: str, player: str) -> None:
        """The public half of a private step: the others look away, then the player pushes."""
        others = ", ".join(p["name"] for p in self.public["players"] if p["name"] != player)
        self.loop.open_menu(Menu("pass", f"Pass the box to {player}; {others}: look away", (
            MenuItem(f"I am {player}: show me", (SHOW_ME, step, player)), MenuItem("Back", BACK))))

    def show_private(self, step: str, player: str) -> None:
        if step == SEE:
            self.loop.show(self.private_screen(player), notice=True)
            self.private_until = self.loop.clock() + PRIVATE_SECONDS
            return
        roles = [dict(e) for e in self.game.legal_events(self.state)
                 if e.get("type") == "role" and e.get("player") == player]
        items = tuple(MenuItem(role_words(e["role"]), e) for e in roles) + (MenuItem("Back", BACK),)
        self.loop.open_menu(Menu("role", f"{player}: the role on your card", items, private=player))
        self.private_until = self.loop.clock() + PRIVATE_SECONDS

    def tick(self, now: float) -> None:
        """A private screen or menu left up clears itself (the box may be left on the table)."""
        if self.private_until is not None and now >= self.private_until:
            self.private_until = None
            self.loop.close_menu()
            self.loop.show_home()

    def on_next(self) -> None:
        if is_over(self.state):   # the next game of the series, totals carried
            self.loop.new_game(next_game_setup(self.loop.table.session.setup_options, self.state))
        else:
            self.loop.show_home()

    def closing_words(self) -> str:
        view = self.public
        verdict = view.get("verdict")
        if not verdict or not is_over(self.state):
            return ""
        roles = "; ".join(f"{p['name']} was the {p.get('role')}" for p in view["players"])
        series = ", ".join(f"{p['name']} {p['total']}" for p in view["players"])
        return f"{verdict['reason']}. {roles}. Series: {series}."


#: ``dicewatch demo --game dark-romance``: a scripted game with the roles dealt by the box
DEMO = "host.dark_romance_demo"


def add_setup_arguments(parser, command: str) -> None:
    parser.add_argument("--scenario", type=int, default=None, metavar="N",
                        help="Dark Romance: the scenario (1 the tutorial, 2, 3 and up; default: the config's, else 1)")


SETUP_FLAGS = {"--scenario": "scenario"}


def setup_options(args, players: list[str]) -> dict:
    """Two players (Mary and Edgar by default) and --scenario when given."""
    setup = {"players": list(players) if players else list(DEFAULT_PLAYERS)}
    if getattr(args, "scenario", None) is not None:
        setup["scenario"] = args.scenario
    return setup
