"""Jingle Bell Roll's 14 character abilities and 13 gift cards, as data.

Each card is an :class:`Ability`: what kind of effect it has and on which faces. The
scoring in :mod:`rules.jingle_bell_roll` reads these fields; nothing here knows about
players or turns. The wording is ours (see seeds/jingle-bell-roll.md for the rulebook
sections and for how we read the unclear ones).

Effect kinds:

``change``   turn one die from a face in ``sources`` into a face in ``targets``
``double``   one ``face`` counts as two
``reroll``   re-roll one die showing a face in ``sources`` (``ANY`` includes BELL);
             used while rolling, with a ``reroll`` event, not when scoring
``set``      three ``face`` score ``points`` together (those three score nothing else)
``stamp``    one die of ``face`` gives ``stamps`` stamps for Letters to Santa
             (a LIST stops counting as a LIST; a BELL stays a BELL)
``bonus``    extra points, see ``bonus`` below
``draw``     with three or more GIFTS scored, draw one Gift Card for yourself
"""
from __future__ import annotations

from dataclasses import dataclass

MILK, COOKIE, LIST, STOCKING, GIFT, BELL = "MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL"
FACES = (MILK, COOKIE, LIST, STOCKING, GIFT, BELL)
ANY = FACES


@dataclass(frozen=True)
class Ability:
    """One character ability or gift card."""

    name: str
    kind: str            # "character" or "gift card"
    effect: str          # change | double | reroll | set | stamp | bonus | draw
    text: str            # what it does, in our words
    sources: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    face: str = ""
    points: int = 0
    stamps: int = 0
    bonus: str = ""      # pairs | bell_stocking_pairs | no_milk | bells | gifts

    @property
    def needs_choice(self) -> bool:
        """True when the player must say which face goes in or comes out."""
        return self.effect == "change" and (len(self.sources) > 1 or len(self.targets) > 1)


def _character(name, effect, text, **kw) -> Ability:
    return Ability(name, "character", effect, text, **kw)


def _gift(name, effect, text, **kw) -> Ability:
    return Ability(name, "gift card", effect, text, **kw)


CHARACTERS: dict[str, Ability] = {a.name: a for a in (
    _character("Chris Pine Tree", "double", "one COOKIE counts as two", face=COOKIE),
    _character("Chris Cringle", "double", "one STOCKING counts as two", face=STOCKING),
    _character("Frosty", "reroll", "re-roll one MILK", sources=(MILK,)),
    _character("Holly Daze", "reroll", "re-roll one GIFT", sources=(GIFT,)),
    _character("Jingle Belle", "change", "turn any one die into a BELL",
               sources=(MILK, COOKIE, LIST, STOCKING, GIFT), targets=(BELL,)),
    _character("Merry Mack", "draw", "with three GIFTS, draw one Gift Card"),
    _character("Milkman Dan", "double", "one MILK counts as two", face=MILK),
    _character("Mrs. Claus (1)", "change", "turn one GIFT into a LIST", sources=(GIFT,), targets=(LIST,)),
    _character("Mrs. Claus (2)", "stamp", "one LIST counts as one stamp", face=LIST, stamps=1),
    _character("Saint Nicholas", "change", "turn one BELL into a GIFT", sources=(BELL,), targets=(GIFT,)),
    _character("Santa Claus (1)", "change", "turn one GIFT into a COOKIE or a MILK",
               sources=(GIFT,), targets=(COOKIE, MILK)),
    _character("Santa Claus (2)", "change", "turn one LIST into a COOKIE or a MILK",
               sources=(LIST,), targets=(COOKIE, MILK)),
    _character("Tree Larson", "change", "turn any one die into a STOCKING",
               sources=(MILK, COOKIE, LIST, GIFT, BELL), targets=(STOCKING,)),
    _character("Wreathmaster Winston", "reroll", "re-roll one COOKIE", sources=(COOKIE,)),
)}

GIFT_CARDS: dict[str, Ability] = {a.name: a for a in (
    _gift("Cheat Day", "bonus", "2 extra points for each MILK & COOKIE pair", bonus="pairs", points=2),
    _gift("Gingerbread House", "set", "three COOKIES score 6 points", face=COOKIE, points=6),
    _gift("Hung with Care", "bonus", "2 extra points for each BELL & STOCKING pair",
          bonus="bell_stocking_pairs", points=2),
    _gift("Lactose Intolerant", "bonus", "3 points when you score no MILK", bonus="no_milk", points=3),
    _gift("Lady Luck", "bonus", "1 point for each BELL scored", bonus="bells", points=1),
    _gift("Milk Mustache", "change", "turn a COOKIE into a MILK or a MILK into a COOKIE",
          sources=(COOKIE, MILK), targets=(MILK, COOKIE)),
    _gift("Nice List", "change", "turn a LIST into a GIFT", sources=(LIST,), targets=(GIFT,)),
    _gift("Ring My Bell", "stamp", "one BELL counts as two stamps", face=BELL, stamps=2),
    _gift("Rockin' Around", "reroll", "re-roll any one die, a BELL too", sources=ANY),
    _gift("Secret Santa", "bonus", "1 extra point for each GIFT scored", bonus="gifts", points=1),
    _gift("Stocking Stuffer", "change", "turn any one die into a STOCKING",
          sources=(MILK, COOKIE, LIST, GIFT, BELL), targets=(STOCKING,)),
    _gift("Treat Yo'Self", "draw", "with three GIFTS, draw one Gift Card"),
    _gift("Triple-Check", "set", "three LISTS score 5 points", face=LIST, points=5),
)}

# A visible Letter to Santa whose effect is a re-roll works like this ability, once per turn.
LETTER_REROLL = Ability("Letter to Santa (re-roll)", "letter", "reroll",
                        "re-roll any one die, a BELL too, once per turn", sources=ANY)


def lookup(name: str, table: dict[str, Ability], what: str) -> Ability:
    """The ability called ``name`` (case and apostrophe style ignored); LookupError lists them."""
    wanted = _canonical(name)
    for ability in table.values():
        if _canonical(ability.name) == wanted:
            return ability
    raise LookupError(f"unknown {what} {name!r}; valid: {', '.join(table)}")


def _canonical(name: str) -> str:
    return " ".join(name.replace("\u2019", "'").replace("'", "").lower().split())


def check_change(ability: Ability, source: str | None, target: str | None) -> tuple[str, str]:
    """Fill in and check the faces of a ``change``; RuleError-free: raises ValueError with a message."""
    if source is None:
        if len(ability.sources) == 1:
            source = ability.sources[0]
        elif ability.name == "Milk Mustache" and target in (MILK, COOKIE):
            source = COOKIE if target == MILK else MILK
        else:
            raise ValueError(f"{ability.name}: say which face to change (\"from\": one of "
                             f"{', '.join(ability.sources)})")
    if target is None:
        if len(ability.targets) == 1:
            target = ability.targets[0]
        elif ability.name == "Milk Mustache":
            target = MILK if source == COOKIE else COOKIE
        else:
            raise ValueError(f"{ability.name}: say what the die becomes (\"to\": one of "
                             f"{', '.join(ability.targets)})")
    if source not in ability.sources:
        raise ValueError(f"{ability.name} cannot change a {source}; it changes "
                         f"{' or '.join(ability.sources)}")
    if target not in ability.targets or target == source:
        raise ValueError(f"{ability.name} cannot turn a {source} into a {target}; it makes "
                         f"{' or '.join(t for t in ability.targets if t != source)}")
    return source, target


def change_options(ability: Ability) -> list[tuple[str, str]]:
    """Every (from, to) pair a ``change`` ability allows."""
    return [(s, t) for s in ability.sources for t in ability.targets if s != t]
