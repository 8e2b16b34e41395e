"""Another Christmas Romance Movie: stages, Christmas romance cards, love interests and fate.

One module for every way to play, chosen by the ``mode`` setup option (the rulebook's
section in brackets; our digest is seeds/christmas-romance.md):

* ``multiplayer`` [Your Turn .. Winning the game]: each player races through five stage
  cards (4, 5, 6, 7, 8 dice); one active Christmas romance card for up to 3 players, two
  for 4 or more; completing one rewards the others with deferred dice.
* ``couples`` [Couples Mode]: players sit in pairs (listed one after the other); a couple
  shares one stage card, the first of the pair holds the star love interest (copied dice),
  the second the headliner (deferred dice).
* ``coop`` [2 Player Co-Op]: one couple against fate: fate's 10 dice are rolled after each
  round and every snowflake rolled is taken away; when none are left, the couple loses.
* ``solo`` [Single Player]: fate rolls its dice that are not yet snowflakes after each turn;
  ten frozen snowflakes lose the game. Melts, fate's-turn choice, one love interest per
  turn, stage card before Christmas romance card, and the romance card's penalty roll.

Frozen snowflakes work the same way in solo and co-op (``snowflakes_frozen``, 0..10): fate
rolls ``10 - snowflakes_frozen`` dice, each new snowflake freezes one more, a melt (solo)
thaws one. Every die result is an event: faces read by the camera, typed by a person, or
``{"seed": N}`` for dice the device rolls itself (the seed is in the log, so replay is exact).

Events (JSON objects, ``type`` first; rows/columns in ``cells`` count from 1):

=================  ===============================================================
``declare``        ``use`` (solo: star|headliner|none), ``defer`` 0-2, ``release``
``roll``           ``faces`` [..] or ``seed``: the active player's dice
``copy``           ``player``, ``face``: another player copies a die just rolled
``add_copied``     the active player adds all their copied dice to the roll
``element``        ``slot`` 1-3, ``give`` [..], ``give_deferred``, ``get`` [..], ``get_deferred``
``melt``           ``faces`` [F, F, F] (solo): thaw one frozen snowflake
``place``          ``card`` stage|romance|romance-2, ``faces`` [..], ``cells`` [[r, c]..],
                   ``reward`` (when the romance card's reward is not known)
``penalty_roll``   ``faces`` or ``seed`` (solo, after completing a romance card)
``end_turn``       move up a stage, collect completed movie elements, next player / fate
``fate_roll``      ``faces`` or ``seed``: fate's dice
``fate_choice``    ``take`` copy (with ``face``) | defer | none (solo)
``title``          ``side``, ``card`` (stage|romance|star|headliner|N in the movie deck),
                   ``title``, ``text``: words for the story
=================  ===============================================================

For the device: ``state.phase`` (declare, roll, play, penalty, fate, fate_choice, over),
``state.current_player``, ``state.expecting`` (event types accepted now), ``state.dice_due``
(dice the next result must have), ``state.fate_due`` / ``state.fate_dice``,
``state.snowflakes_frozen`` (the LED bar), ``outcome(state)``, ``prompt(state)`` (one line
for the screen) and, at the end, ``story(state)``: the movie deck told as a story.
``GAME`` also offers the table loop its seam (rules/core.py): ``OPTIONS`` (mode, faces,
virtual_fate), ``chance`` (the dice due now) and ``legal_events`` (every event the rules
accept now, in the box's menu order; ``placements`` and ``trades`` list the candidates).
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Mapping

from .core import Chance, Event, Game, Option, RuleError, check_setup_keys, event_keys
from .dice import FACE_SETS
from .placement import (ROMANCE_LOCATIONS, Exchange, Layout, LayoutError, PlacementError, UNMARKED, check_placement,
                        face_token, parse_layout, suggest, ways_to_pay)

GAME_NAME = "christmas-romance"
MODES = ("solo", "coop", "couples", "multiplayer")
STAGES = 5
FATE_DICE = 10
DICE_PER_TURN = 3
MAX_DEFER = 2
STAR_HOLDS = 3
HEADLINER_HOLDS = 5
MELT_DICE = 3
DEFAULT_ELEMENT_LOCATIONS = 3   # ASSUMPTION: the rulebook does not say
# ASSUMPTION: in co-op one couple plays against fate, so "the other players" who take a
# completed romance card's reward are nobody ("none"); "couple": the couple takes it.
COOP_REWARDS = ("none", "couple")
DECK_SIZES = {"solo": (6, 5), "other": (21, 24)}   # (Christmas romance, movie elements)
OPTION_KEYS = ("mode", "players", "faces", "love_interests", "stage_cards", "romance_cards", "element_cards",
               "fate_dice", "melts", "element_locations", "coop_reward")
MAX_SIDES = 7           # seven stage cards of each stage, one of each per player or couple

Cell = tuple[int, int]


# --------------------------------------------------------------------------- state

@dataclass(frozen=True)
class Card:
    """A card on the table. ``placed`` holds (face, cell) pairs; cell is None without a layout."""

    kind: str                       # stage | romance | element
    title: str
    text: str = ""
    stage: int = 0
    needs: int = 0                  # dice that complete it
    reward: int | None = None       # romance: deferred dice (None: not known yet)
    layout: Layout | None = None
    exchange: Exchange | None = None
    placed: tuple[tuple[str, Cell | None], ...] = ()

    @property
    def complete(self) -> bool:
        return len(self.placed) >= self.needs


@dataclass(frozen=True)
class Side:
    """One player, or one couple, with their love interests and cards."""

    name: str
    players: tuple[str, ...]
    star: str                       # love interest names, for the story
    headliner: str
    stage: int                      # 1..5, 6 once stage 5 is done
    stage_card: Card | None
    next_stages: tuple[Card, ...]
    romance: Card | None = None     # the completed Christmas romance card for this stage
    copied: tuple[str, ...] = ()    # dice on the star love interest
    deferred: int = 0               # dice on the headliner love interest
    movie: tuple[Card, ...] = ()    # the movie deck, in the order cards were added


@dataclass(frozen=True)
class Turn:
    player: str
    use: str = ""                   # solo: star | headliner | none
    defer: int = 0
    released: int = 0
    rolled: tuple[str, ...] = ()
    pool: tuple[str, ...] = ()      # dice available to place
    copied_by: tuple[str, ...] = ()
    added_copied: bool = False
    elements_used: tuple[int, ...] = ()
    earned_deferred: int = 0
    completed_elements: tuple[int, ...] = ()


@dataclass(frozen=True)
class State:
    mode: str
    faces: tuple[str, ...]
    players: tuple[str, ...]
    sides: tuple[Side, ...]
    romances: tuple[Card | None, ...]
    romance_deck: tuple[Card, ...]
    elements: tuple[Card | None, ...]
    element_deck: tuple[Card, ...]
    melts_allowed: bool
    fate_dice_total: int = 0        # 0: no fate in this mode
    snowflakes_frozen: int = 0
    fate_roll: tuple[str, ...] = ()
    fate_rolls: int = 0
    melts: int = 0
    player_index: int = 0
    round: int = 1
    phase: str = "declare"          # declare | roll | play | penalty | fate | fate_choice | over
    turn: Turn | None = None
    penalty_dice: int = 0
    penalty_roll: tuple[str, ...] = ()
    outcome: tuple[tuple[str, str], ...] = ()   # (("result", won|lost), ("side", ..), ("reason", ..))
    coop_reward: str = "none"       # co-op: who takes a completed romance card's reward (COOP_REWARDS)

    @property
    def snowflake(self) -> str:
        return self.faces[0]

    @property
    def current_player(self) -> str:
        return self.players[self.player_index]

    @property
    def fate_dice(self) -> int:
        """How many dice fate rolls next (the ones not frozen as snowflakes)."""
        return self.fate_dice_total - self.snowflakes_frozen

    @property
    def fate_due(self) -> bool:
        """True when fate's dice must be rolled now (``fate_dice`` of them)."""
        return self.phase == "fate"

    @property
    def dice_due(self) -> int:
        """How many dice the next die-result event must have (0: no dice are due now)."""
        return dice_to_roll(self)

    @property
    def expecting(self) -> tuple[str, ...]:
        """The event types the rules accept now (``title`` is accepted at any time)."""
        never = set()
        if self.phase == "play" and not self.melts_allowed:
            never.add("melt")
        if self.mode == "solo":
            never.add("copy")   # a die is copied from another player's roll; solo has none
        return tuple(e for e in EXPECTING[self.phase] if e not in never)


# --------------------------------------------------------------------------- setup

def _card(spec: Any, kind: str, where: str, faces: tuple[str, ...], stage: int = 0,
          element_locations: int = DEFAULT_ELEMENT_LOCATIONS) -> Card:
    """A card from a setup spec: a title string, or {"title", "text", "layout"} (+ "reward" for romance)."""
    if isinstance(spec, str):
        spec = {"title": spec}
    if not isinstance(spec, Mapping):
        raise RuleError(f"{where}: expected a card title or an object with title/text/reward/layout")
    keys = ("title", "text", "reward", "layout") if kind == "romance" else ("title", "text", "layout")
    unknown = sorted(set(spec) - set(keys))
    if unknown:
        raise RuleError(f"{where}: unknown key(s) {', '.join(unknown)}; a {kind} card takes {', '.join(keys)} "
                        "(the dice it needs come from its layout)")
    layout = None
    if spec.get("layout") is not None:
        if not isinstance(spec["layout"], str):
            raise RuleError(f"{where}: \"layout\" must be the text of a layout file")
        try:
            layout = parse_layout(spec["layout"], where, faces)
        except LayoutError as exc:
            raise RuleError(f"bad card layout: {exc}") from None
        if layout.kind != kind or (stage and layout.stage != stage):
            wanted = f"stage {stage} card" if stage else f"{kind} card"
            got = f"stage {layout.stage} card" if layout.kind == "stage" else f"{layout.kind} card"
            raise RuleError(f"{where}: this place needs a {wanted}, the layout is a {got}")
    if kind == "stage":
        needs = layout.needs if layout else stage + 3
        default_title = f"go through stage {stage}"
    elif kind == "romance":
        needs = layout.needs if layout else ROMANCE_LOCATIONS
        default_title = "a Christmas romance"
    else:
        needs = layout.needs if layout else element_locations
        default_title = "a movie element"
    title = spec.get("title") or (layout.title if layout else default_title)
    text = spec.get("text") or (layout.text if layout else "")
    reward = spec.get("reward", layout.reward if layout else None)
    if not isinstance(title, str) or not isinstance(text, str):
        raise RuleError(f"{where}: \"title\" and \"text\" must be strings")
    if reward is not None and (not isinstance(reward, int) or isinstance(reward, bool) or reward < 0):
        raise RuleError(f"{where}: \"reward\" must be a whole number of deferred dice, got {reward!r}")
    if kind == "romance" and layout and needs != ROMANCE_LOCATIONS:
        raise RuleError(f"{where}: a Christmas romance card has {ROMANCE_LOCATIONS} dice locations, "
                        f"the layout has {needs}")
    return Card(kind=kind, title=title, text=text, stage=stage, needs=needs,
                reward=reward if kind == "romance" else None, layout=layout,
                exchange=layout.exchange if layout else None)


def _deck(options: Mapping[str, Any], key: str, kind: str, size: int, faces, element_locations) -> tuple[Card, ...]:
    specs = options.get(key)
    if specs is None:
        label = "Christmas romance card" if kind == "romance" else "movie element card"
        return tuple(Card(kind=kind, title=f"{label} {n}", needs=ROMANCE_LOCATIONS if kind == "romance"
                          else element_locations) for n in range(1, size + 1))
    if not isinstance(specs, list) or not specs:
        raise RuleError(f"setup \"{key}\": expected a non-empty list of cards in deck order")
    return tuple(_card(spec, kind, f"setup {key}[{n}]", faces, element_locations=element_locations)
                 for n, spec in enumerate(specs, start=1))


def _check_side_keys(table: Mapping[str, Any], key: str, valid: list[str]) -> None:
    """A per-player (or per-couple) setup table must not name anyone who is not at the table."""
    unknown = [name for name in table if name not in valid]
    if unknown:
        raise RuleError(f"\"{key}\": {unknown[0]!r} is not at the table; expected one of "
                        f"{', '.join(dict.fromkeys(valid))}")


def _stage_cards(options: Mapping[str, Any], side: str, faces) -> tuple[Card, ...]:
    specs = options.get("stage_cards")
    if isinstance(specs, Mapping):
        specs = specs.get(side)
    if specs is None:
        specs = [{}] * STAGES
    if not isinstance(specs, list) or len(specs) != STAGES:
        raise RuleError(f"setup \"stage_cards\": expected a list of {STAGES} stage cards (stage 1 first), "
                        "or an object giving such a list per player/couple")
    return tuple(_card(spec, "stage", f"setup stage_cards stage {n}", faces, stage=n)
                 for n, spec in enumerate(specs, start=1))


def cards_from_layouts(layouts: Mapping[str, str], faces: tuple[str, ...] = FACE_SETS["christmas-romance"]
                       ) -> dict[str, list[dict[str, str]]]:
    """Setup options for a specific movie [Single Player: "a specific movie experience"] from
    layout texts (source name -> text, e.g. a folder of ``*.layout`` files read by the host).

    Gives ``stage_cards`` (one per stage, in order), ``romance_cards`` and ``element_cards``
    (in source-name order). RuleError names the file and line of a bad layout, or the stage
    that is missing or given twice.
    """
    found: dict[str, list[tuple[str, Layout, str]]] = {"stage": [], "romance": [], "element": []}
    for source in sorted(layouts):
        try:
            layout = parse_layout(layouts[source], source, faces)
        except LayoutError as exc:
            raise RuleError(str(exc)) from None
        found[layout.kind].append((source, layout, layouts[source]))
    by_stage: dict[int, str] = {}
    for source, layout, _ in found["stage"]:
        if layout.stage in by_stage:
            raise RuleError(f"{source}: a second stage {layout.stage} card (the first is {by_stage[layout.stage]})")
        by_stage[layout.stage] = source
    missing = [str(n) for n in range(1, STAGES + 1) if n not in by_stage]
    if missing and found["stage"]:
        raise RuleError(f"no layout for stage {', '.join(missing)}: a movie needs one stage card per stage")
    options: dict[str, list[dict[str, str]]] = {}
    if found["stage"]:
        options["stage_cards"] = [{"layout": text} for _, _, text in sorted(found["stage"], key=lambda f: f[1].stage)]
    for kind, key in (("romance", "romance_cards"), ("element", "element_cards")):
        if found[kind]:
            options[key] = [{"layout": text} for _, _, text in found[kind]]
    return options


def setup(options: Mapping[str, Any]) -> State:
    """The table before the first turn. Options (all JSON):

    ``mode`` solo|coop|couples|multiplayer; ``players`` names in turn order (couples: partners
    one after the other, star holder first); ``faces`` six face names, snowflake first;
    ``love_interests`` {player or couple: [star, headliner]}; ``stage_cards``,
    ``romance_cards``, ``element_cards`` (titles or objects, optionally with ``layout`` text);
    ``fate_dice`` (10); ``melts`` (solo only by default); ``element_locations`` (3).
    """
    check_setup_keys(options, OPTION_KEYS)
    mode = options.get("mode", "multiplayer")
    if mode not in MODES:
        raise RuleError(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
    default_players = {"solo": ["Player"], "coop": ["Star", "Headliner"]}.get(mode)
    players = options.get("players", default_players)
    if (not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players)
            or len(set(players)) != len(players or [])):
        raise RuleError("\"players\": expected a list of different player names")
    count = len(players)
    wanted = {"solo": (1, 1), "coop": (2, 2), "couples": (4, 2 * MAX_SIDES), "multiplayer": (2, MAX_SIDES)}[mode]
    if not wanted[0] <= count <= wanted[1] or (mode == "couples" and count % 2):
        need = f"an even number of players, 4 to {2 * MAX_SIDES}" if mode == "couples" else (
            f"{wanted[0]} player" + "s" * (wanted[0] > 1) if wanted[0] == wanted[1]
            else f"{wanted[0]} to {wanted[1]} players")
        why = (f" (the box has {MAX_SIDES} stage cards of each stage, one set per "
               f"{'couple' if mode == 'couples' else 'player'})" if count > wanted[1] > 2 else "")
        raise RuleError(f"{mode} mode needs {need}, got {count}{why}")
    faces = options.get("faces", list(FACE_SETS["christmas-romance"]))
    if (not isinstance(faces, list) or len(faces) != 6 or len(set(faces)) != 6
            or not all(isinstance(f, str) and f and " " not in f and f not in (UNMARKED, ".") for f in faces)):
        raise RuleError("\"faces\": expected six different face names without spaces, the snowflake first")
    faces = tuple(faces)
    element_locations = options.get("element_locations", DEFAULT_ELEMENT_LOCATIONS)
    if not isinstance(element_locations, int) or isinstance(element_locations, bool) or not 1 <= element_locations <= 9:
        raise RuleError("\"element_locations\": expected a whole number from 1 to 9")

    paired = mode in ("couples", "coop")
    groups = [tuple(players[i:i + 2]) for i in range(0, count, 2)] if paired else [(p,) for p in players]
    names = [" & ".join(g) for g in groups]
    love = options.get("love_interests", {})
    if not isinstance(love, Mapping):
        raise RuleError("\"love_interests\": expected {player or couple: [star, headliner]}")
    _check_side_keys(love, "love_interests", names + [g[0] for g in groups])
    if isinstance(options.get("stage_cards"), Mapping):
        _check_side_keys(options["stage_cards"], "stage_cards", names)
    sides = []
    for group, name in zip(groups, names):
        pair = love.get(name) or love.get(group[0]) or ["the star love interest", "the headliner love interest"]
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise RuleError(f"\"love_interests\" for {name}: expected [star name, headliner name]")
        cards = _stage_cards(options, name, faces)
        sides.append(Side(name=name, players=group, star=pair[0], headliner=pair[1], stage=1,
                          stage_card=cards[0], next_stages=cards[1:]))

    romances_size, elements_size = DECK_SIZES["solo" if mode == "solo" else "other"]
    romance_deck = _deck(options, "romance_cards", "romance", romances_size, faces, element_locations)
    element_deck = _deck(options, "element_cards", "element", elements_size, faces, element_locations)
    active = 2 if count >= 4 else 1     # couples: ASSUMPTION counted by players at the table
    romances, romance_deck = romance_deck[:active], romance_deck[active:]
    romances = romances + (None,) * (active - len(romances))
    elements, element_deck = element_deck[:3], element_deck[3:]
    elements = elements + (None,) * (3 - len(elements))

    melts = options.get("melts", mode == "solo")
    fate = options.get("fate_dice", FATE_DICE if mode in ("solo", "coop") else 0)
    if not isinstance(melts, bool):
        raise RuleError("\"melts\": expected true or false")
    if not isinstance(fate, int) or isinstance(fate, bool) or not 0 <= fate <= 30:
        raise RuleError("\"fate_dice\": expected a whole number from 0 to 30")
    if mode in ("solo", "coop") and fate == 0:
        raise RuleError(f"{mode} mode plays against fate: \"fate_dice\" must be at least 1")
    if mode not in ("solo", "coop"):
        fate = 0
    coop_reward = "none" if options.get("coop_reward") is None else options["coop_reward"]
    if coop_reward not in COOP_REWARDS:
        raise RuleError(f"\"coop_reward\": expected one of {', '.join(COOP_REWARDS)}, got {coop_reward!r}")
    if coop_reward != "none" and mode != "coop":
        raise RuleError(f"\"coop_reward\": only for the coop mode, this game is {mode}")
    return State(mode=mode, faces=faces, players=tuple(players), sides=tuple(sides), romances=romances,
                 romance_deck=romance_deck, elements=elements, element_deck=element_deck,
                 melts_allowed=melts, fate_dice_total=fate, turn=Turn(player=players[0]), coop_reward=coop_reward)


# --------------------------------------------------------------------------- helpers

def side_of(state: State, player: str) -> int:
    for index, side in enumerate(state.sides):
        if player in side.players:
            return index
    raise RuleError(f"unknown player {player!r}; the players are {', '.join(state.players)}")


def may_use(state: State, player: str, love_interest: str) -> bool:
    """Whether ``player`` may use their star or headliner love interest on their own turn now."""
    side = state.sides[side_of(state, player)]
    if state.mode in ("couples", "coop"):
        holder = side.players[0] if love_interest == "star" else side.players[-1]
        if player != holder:
            return False
    if state.mode == "solo" and state.turn and state.turn.player == player:
        return state.turn.use == love_interest
    return True


def roll_faces(seed: int, count: int, faces: tuple[str, ...]) -> tuple[str, ...]:
    """``count`` dice rolled by the device from ``seed``: the same seed gives the same faces."""
    rng = random.Random(seed)
    return tuple(rng.choice(faces) for _ in range(count))


def _faces(state: State, event: Mapping[str, Any], key: str = "faces") -> tuple[str, ...]:
    value = event.get(key)
    if not isinstance(value, list) or not all(isinstance(f, str) for f in value):
        raise RuleError(f"\"{key}\": expected a list of faces ({', '.join(state.faces)})")
    out = []
    for token in value:
        face = face_token(token, state.faces)
        if face is None:
            raise RuleError(f"{token!r} is not a face of these dice; expected one of {', '.join(state.faces)}")
        out.append(face)
    return tuple(out)


def _one_face(state: State, event: Mapping[str, Any]) -> str:
    token = event.get("face")
    face = face_token(token, state.faces) if isinstance(token, str) else None
    if face is None:
        raise RuleError(f"\"face\": expected one of {', '.join(state.faces)}, got {token!r}")
    return face


def _dice_result(state: State, event: Mapping[str, Any], count: int, what: str) -> tuple[str, ...]:
    """Faces from ``faces`` (read or typed) or from ``seed`` (rolled by the device)."""
    if "seed" in event:
        seed = event["seed"]
        if not isinstance(seed, int) or isinstance(seed, bool) or "faces" in event:
            raise RuleError("\"seed\" must be a whole number, and comes instead of \"faces\"")
        return roll_faces(seed, count, state.faces)
    faces = _faces(state, event)
    if len(faces) != count:
        raise RuleError(f"{what}: {count} dice must be rolled, got {len(faces)}; roll again with {count} dice")
    return faces


def _count(event: Mapping[str, Any], key: str, high: int) -> int:
    value = event.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= high:
        raise RuleError(f"\"{key}\": expected a whole number from 0 to {high}, got {value!r}")
    return value


def _take(pool: tuple[str, ...], faces: tuple[str, ...], what: str) -> tuple[str, ...]:
    """``pool`` without ``faces``; RuleError if a face is not there."""
    left = list(pool)
    for face in faces:
        if face not in left:
            have = ", ".join(pool) or "none"
            raise RuleError(f"{what}: there is no {face} among your dice (you have: {have})")
        left.remove(face)
    return tuple(left)


def _with_side(state: State, index: int, **changes) -> State:
    sides = list(state.sides)
    sides[index] = replace(sides[index], **changes)
    return replace(state, sides=tuple(sides))


def _need_phase(state: State, *phases: str) -> None:
    if state.phase == "over":
        raise RuleError("the game is over")
    if state.phase not in phases:
        raise RuleError(f"not now: {prompt(state)}")


# --------------------------------------------------------------------------- events

def _declare(state: State, event) -> State:
    _need_phase(state, "declare")
    player = state.current_player
    index = side_of(state, player)
    side = state.sides[index]
    use = event.get("use", "")
    if state.mode == "solo":
        if use not in ("star", "headliner", "none"):
            raise RuleError("single player: before rolling, choose the love interest you use this turn: "
                            "\"use\": \"star\" (copied dice), \"headliner\" (deferred dice) or \"none\"")
    elif use:
        raise RuleError("\"use\" is only for the single-player game")
    defer = _count(event, "defer", MAX_DEFER)
    release = event.get("release", False)
    if not isinstance(release, bool):
        raise RuleError("\"release\": expected true or false")
    headliner_ok = (state.mode != "solo" or use == "headliner") and (
        state.mode not in ("couples", "coop") or player == side.players[-1])
    if (defer or release) and not headliner_ok:
        who = "this turn you chose the star love interest" if state.mode == "solo" else \
            f"the headliner love interest is {side.players[-1]}'s to use"
        raise RuleError(f"{player} cannot defer or release deferred dice: {who}")
    if release and not side.deferred:
        raise RuleError("there are no deferred dice on your headliner love interest to release")
    held = 0 if release else side.deferred
    if defer > HEADLINER_HOLDS - held:
        raise RuleError(f"your headliner love interest has room for {HEADLINER_HOLDS - held} more deferred "
                        f"dice, not {defer}")
    released = side.deferred if release else 0
    state = _with_side(state, index, deferred=held + defer)
    return replace(state, phase="roll", turn=Turn(player=player, use=use, defer=defer, released=released))


def snowflakes_gone(state: State) -> str:
    """What has happened to fate's snowflakes, in the mode's own words: solo freezes them,
    co-op takes them away from fate (the same count, ``snowflakes_frozen``, either way)."""
    return "frozen" if state.mode == "solo" else "taken away"


def dice_to_roll(state: State) -> int:
    """How many dice the current chance event must have (0 when no dice are due)."""
    if state.phase == "roll":
        return DICE_PER_TURN - state.turn.defer + state.turn.released
    if state.phase == "penalty":
        return state.penalty_dice
    if state.phase == "fate":
        return state.fate_dice
    return 0


def _roll(state: State, event) -> State:
    _need_phase(state, "roll")
    faces = _dice_result(state, event, dice_to_roll(state), f"{state.current_player}'s roll")
    return replace(state, phase="play", turn=replace(state.turn, rolled=faces, pool=faces))


def _copy(state: State, event) -> State:
    _need_phase(state, "play")
    player = event.get("player")
    if not isinstance(player, str):
        raise RuleError("\"player\": who copies the die?")
    index = side_of(state, player)
    side = state.sides[index]
    turn = state.turn
    if player == turn.player:
        raise RuleError("you cannot copy a die from your own roll")
    if state.mode in ("couples", "coop") and player != side.players[0]:
        raise RuleError(f"only {side.players[0]} (holding the star love interest) copies dice for {side.name}")
    if player in turn.copied_by:
        raise RuleError(f"{player} has already copied a die this turn (one per player turn)")
    face = _one_face(state, event)
    if face not in turn.rolled:
        raise RuleError(f"{face} was not rolled this turn; copy one of: {', '.join(turn.rolled)}")
    if len(side.copied) >= STAR_HOLDS:
        raise RuleError(f"{player}'s star love interest is full ({STAR_HOLDS} copied dice)")
    state = _with_side(state, index, copied=side.copied + (face,))
    return replace(state, turn=replace(turn, copied_by=turn.copied_by + (player,)))


def _add_copied(state: State, event) -> State:
    _need_phase(state, "play")
    turn = state.turn
    index = side_of(state, turn.player)
    side = state.sides[index]
    if not may_use(state, turn.player, "star"):
        why = "this turn you chose the headliner love interest" if state.mode == "solo" else \
            f"the star love interest is {side.players[0]}'s to use"
        raise RuleError(f"{turn.player} cannot add copied dice: {why}")
    if turn.added_copied:
        raise RuleError("the copied dice were already added this turn")
    if not side.copied:
        raise RuleError("there are no copied dice on your star love interest")
    state = _with_side(state, index, copied=())
    return replace(state, turn=replace(turn, pool=turn.pool + side.copied, added_copied=True))


def _match_exchange(exchange: Exchange, give, give_deferred, get, get_deferred) -> None:
    named = [f for f in exchange.give if f != UNMARKED]
    rest = list(give)
    for face in named:
        if face not in rest:
            raise RuleError(f"this movie element takes {exchange.describe()}")
        rest.remove(face)
    if len(rest) != len(exchange.give) - len(named) or len(set(rest)) > 1 or give_deferred != exchange.give_deferred:
        raise RuleError(f"this movie element takes {exchange.describe()} (unmarked dice all of one face)")
    rest = list(get)
    for face in (f for f in exchange.get if f != UNMARKED):
        if face not in rest:
            raise RuleError(f"this movie element gives {exchange.describe()}")
        rest.remove(face)
    if len(get) != len(exchange.get) or get_deferred != exchange.get_deferred:
        raise RuleError(f"this movie element gives {exchange.describe()}")


def _element(state: State, event) -> State:
    _need_phase(state, "play")
    turn = state.turn
    slot = _count(event, "slot", len(state.elements))
    card = state.elements[slot - 1] if slot else None
    if card is None:
        raise RuleError(f"\"slot\": expected the position 1-{len(state.elements)} of a face-up movie element")
    if slot in turn.elements_used:
        raise RuleError(f"{card.title} was already used this turn (each movie element once per turn)")
    if card.complete:
        raise RuleError(f"{card.title} has no open location left")
    give = _faces(state, event, "give") if "give" in event else ()
    get = _faces(state, event, "get") if "get" in event else ()
    give_deferred = _count(event, "give_deferred", HEADLINER_HOLDS)
    get_deferred = _count(event, "get_deferred", HEADLINER_HOLDS)
    if not (give or give_deferred) or not (get or get_deferred):
        raise RuleError("a movie element exchanges dice: give something (\"give\" / \"give_deferred\") "
                        "and receive something (\"get\" / \"get_deferred\")")
    if card.exchange:
        _match_exchange(card.exchange, give, give_deferred, get, get_deferred)
    index = side_of(state, turn.player)
    side = state.sides[index]
    pool = _take(turn.pool, give, "movie element")
    earned = turn.earned_deferred
    if give_deferred:
        if give_deferred > side.deferred:
            raise RuleError(f"your headliner love interest holds {side.deferred} deferred dice, not {give_deferred}")
        if not may_use(state, turn.player, "headliner"):
            if give_deferred > earned:
                raise RuleError("you may give only deferred dice earned from movie elements this turn: "
                                "the headliner love interest is not yours to use now")
            earned -= give_deferred
    deferred = side.deferred - give_deferred + get_deferred
    if deferred > HEADLINER_HOLDS:
        raise RuleError(f"your headliner love interest has room for {HEADLINER_HOLDS - side.deferred + give_deferred} "
                        f"deferred dice, not {get_deferred}")
    state = _with_side(state, index, deferred=deferred)
    card = replace(card, placed=card.placed + (("BAG", None),))
    elements = list(state.elements)
    elements[slot - 1] = card
    turn = replace(turn, pool=pool + get, elements_used=turn.elements_used + (slot,),
                   earned_deferred=earned + get_deferred,
                   completed_elements=turn.completed_elements + ((slot,) if card.complete else ()))
    return replace(state, elements=tuple(elements), turn=turn)


def _melt(state: State, event) -> State:
    _need_phase(state, "play")
    if not state.melts_allowed:
        raise RuleError("melting snowflakes is a rule of the single-player game only")
    faces = _faces(state, event)
    if len(faces) != MELT_DICE or len(set(faces)) != 1:
        raise RuleError(f"a melt trades in {MELT_DICE} dice of the same face")
    if not state.snowflakes_frozen:
        raise RuleError("fate has no frozen snowflake to melt")
    pool = _take(state.turn.pool, faces, "melt")
    return replace(state, snowflakes_frozen=state.snowflakes_frozen - 1, melts=state.melts + 1,
                   turn=replace(state.turn, pool=pool))


def _cells(event, count: int) -> tuple[Cell, ...] | None:
    value = event.get("cells")
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != count
            or not all(isinstance(c, list) and len(c) == 2 and all(type(x) is int and x >= 1 for x in c)
                       for c in value)):
        raise RuleError(f"\"cells\": expected {count} [row, column] pairs counting from 1, one per die")
    return tuple((r - 1, c - 1) for r, c in value)


def _put(card: Card, faces: tuple[str, ...], cells: tuple[Cell, ...] | None) -> Card:
    """``card`` with ``faces`` placed; checks the layout when the card has one."""
    open_spots = card.needs - len(card.placed)
    if card.layout is None:
        if cells is not None:
            raise RuleError(f"{card.title} has no layout: give only \"faces\"")
        if len(faces) > open_spots:
            raise RuleError(f"{card.title} has room for {open_spots} more dice, not {len(faces)}")
        return replace(card, placed=card.placed + tuple((f, None) for f in faces))
    if cells is None:
        raise RuleError(f"{card.title} has a layout: say where each die goes with \"cells\"")
    new = dict(zip(cells, faces))
    if len(new) != len(cells):
        raise RuleError("two dice cannot go on the same location")
    placed = {cell: face for face, cell in card.placed}
    try:
        check_placement(card.layout, placed, new)
    except PlacementError as exc:
        raise RuleError(str(exc)) from None
    return replace(card, placed=card.placed + tuple((f, c) for c, f in zip(cells, faces)))


def _place(state: State, event) -> State:
    _need_phase(state, "play")
    turn = state.turn
    index = side_of(state, turn.player)
    side = state.sides[index]
    faces = _faces(state, event)
    if not faces:
        raise RuleError("\"faces\": which dice are placed?")
    cells = _cells(event, len(faces))
    pool = _take(turn.pool, faces, "place")
    target = event.get("card")
    if target == "stage":
        if side.stage_card is None:
            raise RuleError("you have finished all five stages")
        card = _put(side.stage_card, faces, cells)
        state = _with_side(state, index, stage_card=card)
        return replace(state, turn=replace(turn, pool=pool))
    slots = {"romance": 0, "romance-1": 0, "romance-2": 1}
    if not isinstance(target, str) or target not in slots or slots[target] >= len(state.romances):
        raise RuleError("\"card\": expected \"stage\" or \"romance\"" +
                        (" or \"romance-2\"" if len(state.romances) > 1 else ""))
    slot = slots[target]
    card = state.romances[slot]
    if card is None:
        raise RuleError("there is no active Christmas romance card there: the deck is used up")
    card = _put(card, faces, cells)
    state = replace(state, turn=replace(turn, pool=pool))
    if not card.complete:
        return replace(state, romances=_set(state.romances, slot, card))
    # Completing a Christmas romance card [6. completing a Christmas Romance Card]
    if side.romance is not None:
        raise RuleError("you already hold a completed Christmas romance card for this stage (one at a time)")
    if state.mode == "solo" and not (side.stage_card and side.stage_card.complete):
        raise RuleError("single player: complete your stage card before completing the Christmas romance card")
    if card.reward is None:
        reward = event.get("reward")
        if not isinstance(reward, int) or isinstance(reward, bool) or not 0 <= reward <= 99:
            raise RuleError("this die completes the Christmas romance card: add \"reward\": the number of "
                            "deferred dice in its top left corner")
        card = replace(card, reward=reward)
    elif "reward" in event and event["reward"] != card.reward:
        raise RuleError(f"{card.title}: its reward is {card.reward} deferred dice (setup or layout), not "
                        f"{event['reward']!r}; leave out \"reward\" or correct the card")
    state = _with_side(state, index, romance=card)
    deck = state.romance_deck
    state = replace(state, romances=_set(state.romances, slot, deck[0] if deck else None), romance_deck=deck[1:])
    if state.mode == "solo":
        if card.reward:
            return replace(state, phase="penalty", penalty_dice=card.reward)
        return state
    if state.mode == "coop" and state.coop_reward == "couple":
        return _with_side(state, index, deferred=min(HEADLINER_HOLDS, state.sides[index].deferred + card.reward))
    return reward_others(state, index, card.reward)


def _set(cards: tuple, slot: int, card) -> tuple:
    return cards[:slot] + (card,) + cards[slot + 1:]


def rewarded_sides(stages: list[int], completer: int) -> list[int]:
    """Who gets a completed card's reward: not the completer, not those on the highest stage
    (unless everyone is on the same stage, rulebook Reward Example 2)."""
    top = max(stages)
    everyone_level = min(stages) == top
    return [i for i, stage in enumerate(stages) if i != completer and (everyone_level or stage < top)]


def reward_others(state: State, completer: int, reward: int) -> State:
    stages = [side.stage for side in state.sides]
    for index in rewarded_sides(stages, completer):
        side = state.sides[index]
        # ASSUMPTION: deferred dice beyond the headliner's five locations are lost.
        state = _with_side(state, index, deferred=min(HEADLINER_HOLDS, side.deferred + reward))
    return state


def _penalty_roll(state: State, event) -> State:
    _need_phase(state, "penalty")
    faces = _dice_result(state, event, state.penalty_dice, "the Christmas romance card's roll")
    index = side_of(state, state.turn.player)
    card = state.sides[index].stage_card
    placed = list(card.placed)
    for face in sorted(set(faces), key=state.faces.index):
        # ASSUMPTION: the most recently placed die of that face is taken off.
        for position in range(len(placed) - 1, -1, -1):
            if placed[position][0] == face:
                del placed[position]
                break
    state = _with_side(state, index, stage_card=replace(card, placed=tuple(placed)))
    return replace(state, phase="play", penalty_dice=0, penalty_roll=faces)


def _end_turn(state: State, event) -> State:
    _need_phase(state, "play")
    turn = state.turn
    index = side_of(state, turn.player)
    side = state.sides[index]
    # 7. Moving up a stage
    if side.stage_card and side.stage_card.complete and side.romance:
        movie = side.movie + (replace(side.stage_card, placed=()), replace(side.romance, placed=()))
        nxt = side.next_stages
        state = _with_side(state, index, movie=movie, stage=side.stage + 1, romance=None,
                           stage_card=nxt[0] if nxt else None, next_stages=nxt[1:])
        side = state.sides[index]
    # 8. Ending your turn: completed movie elements go to the movie deck, new ones are turned up.
    elements, deck, movie = list(state.elements), state.element_deck, side.movie
    for slot in turn.completed_elements:
        movie += (replace(elements[slot - 1], placed=()),)
        elements[slot - 1], deck = (deck[0] if deck else None), deck[1:]
    state = _with_side(state, index, movie=movie)
    state = replace(state, elements=tuple(elements), element_deck=deck)
    if side.stage > STAGES:
        return _over(state, "won", side.name, f"{side.name} finished stage 5: Merrily Ever After!")
    if state.mode == "solo":
        return replace(state, phase="fate")
    last = state.player_index == len(state.players) - 1
    if state.mode == "coop" and last:
        return replace(state, phase="fate")
    return _next_player(state)


def _next_player(state: State) -> State:
    index = (state.player_index + 1) % len(state.players)
    return replace(state, phase="declare", player_index=index, round=state.round + (index == 0),
                   turn=Turn(player=state.players[index]))


def _over(state: State, result: str, side: str, reason: str) -> State:
    return replace(state, phase="over", outcome=(("result", result), ("side", side), ("reason", reason)))


def _fate_roll(state: State, event) -> State:
    _need_phase(state, "fate")
    faces = _dice_result(state, event, state.fate_dice, "fate")
    frozen = state.snowflakes_frozen + faces.count(state.snowflake)
    state = replace(state, fate_roll=faces, fate_rolls=state.fate_rolls + 1, snowflakes_frozen=frozen)
    if frozen >= state.fate_dice_total:
        who = state.sides[0].name
        return _over(state, "lost", who, "fate rolled its last snowflake: the romance froze over")
    if state.mode == "solo":
        return replace(state, phase="fate_choice")
    return _next_player(state)


def _fate_choice(state: State, event) -> State:
    _need_phase(state, "fate_choice")
    side = state.sides[0]
    take = event.get("take")
    if take == "copy":
        face = _one_face(state, event)
        if face not in state.fate_roll:
            raise RuleError(f"fate did not roll a {face}; copy one of: {', '.join(state.fate_roll)}")
        if len(side.copied) >= STAR_HOLDS:
            raise RuleError(f"your star love interest is full ({STAR_HOLDS} copied dice)")
        state = _with_side(state, 0, copied=side.copied + (face,))
    elif take == "defer":
        if side.deferred >= HEADLINER_HOLDS:
            raise RuleError(f"your headliner love interest is full ({HEADLINER_HOLDS} deferred dice)")
        state = _with_side(state, 0, deferred=side.deferred + 1)
    elif take != "none":
        raise RuleError("on fate's turn take \"copy\" (with \"face\": one of fate's dice), \"defer\" "
                        "(a free deferred die) or \"none\"")
    return _next_player(state)


def _title(state: State, event) -> State:
    name = event.get("side", state.sides[0].name if len(state.sides) == 1 else None)
    matches = [i for i, s in enumerate(state.sides) if name == s.name or name in s.players]
    if not matches:
        raise RuleError(f"\"side\": expected one of {', '.join(s.name for s in state.sides)}")
    index = matches[0]
    side = state.sides[index]
    title, text = event.get("title"), event.get("text")
    if title is not None and (not isinstance(title, str) or not title.strip()) or \
            text is not None and not isinstance(text, str) or title is None and text is None:
        raise RuleError("\"title\" (and/or \"text\"): the words on the card, for the story")
    which = event.get("card")
    def renamed(card):
        return replace(card, title=title or card.title, text=card.text if text is None else text)
    if which in ("star", "headliner"):
        if title is None:
            raise RuleError("a love interest needs a \"title\": their name")
        return _with_side(state, index, **{which: title})
    if which == "stage" and side.stage_card:
        return _with_side(state, index, stage_card=renamed(side.stage_card))
    if which == "romance" and side.romance:
        return _with_side(state, index, romance=renamed(side.romance))
    if isinstance(which, int) and not isinstance(which, bool) and 1 <= which <= len(side.movie):
        movie = _set(side.movie, which - 1, renamed(side.movie[which - 1]))
        return _with_side(state, index, movie=movie)
    raise RuleError(f"\"card\": expected star, headliner, stage, romance (when held) or 1-{len(side.movie)} "
                    "(a card in the movie deck)")


EXPECTING = {
    "declare": ("declare",), "roll": ("roll",), "penalty": ("penalty_roll",), "fate": ("fate_roll",),
    "fate_choice": ("fate_choice",), "over": (),
    "play": ("copy", "add_copied", "element", "melt", "place", "end_turn"),
}

# the keys each event may carry besides "type" (a dice event: "faces" read or typed, or "seed")
EVENT_KEYS = event_keys(
    declare=("use", "defer", "release"), roll=("faces", "seed"), copy=("player", "face"), add_copied=(),
    element=("slot", "give", "get", "give_deferred", "get_deferred"), melt=("faces",),
    place=("card", "faces", "cells", "reward"), penalty_roll=("faces", "seed"), end_turn=(),
    fate_roll=("faces", "seed"), fate_choice=("take", "face"), title=("card", "side", "title", "text"),
)

HANDLERS = {
    "declare": _declare, "roll": _roll, "copy": _copy, "add_copied": _add_copied, "element": _element,
    "melt": _melt, "place": _place, "penalty_roll": _penalty_roll, "end_turn": _end_turn,
    "fate_roll": _fate_roll, "fate_choice": _fate_choice, "title": _title,
}


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``; RuleError (state untouched) when the rules forbid it."""
    kind = event.get("type")
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise RuleError(f"unknown event {event.get('type')!r}; expected one of {', '.join(HANDLERS)}")
    if event["type"] in ("fate_roll", "fate_choice", "melt") and not state.fate_dice_total:
        raise RuleError(f"there is no fate in the {state.mode} game")
    return handler(state, event)


def virtual_fate_event(seed: int) -> dict[str, Any]:
    """The event for fate's dice rolled by the device (the seed goes into the log)."""
    return {"type": "fate_roll", "seed": seed}


# --------------------------------------------------------------------------- reading the state

def is_over(state: State) -> bool:
    return state.phase == "over"


def outcome(state: State) -> dict[str, str] | None:
    return dict(state.outcome) if state.outcome else None


def prompt(state: State) -> str:
    """What the table must do next, in words (for the screen)."""
    player = state.current_player
    if state.phase == "over":
        return outcome(state)["reason"]
    if state.phase == "declare":
        if state.mode == "solo":
            return f"{player}: choose the love interest for this turn (star, headliner or none), then roll"
        return f"{player}: choose how many dice to defer (or release), then roll"
    if state.phase == "roll":
        return f"{player}: roll {dice_to_roll(state)} dice"
    if state.phase == "play":
        return f"{player}: copy, use movie elements, place dice, then end the turn"
    if state.phase == "penalty":
        return f"{player}: roll {state.penalty_dice} dice for the Christmas romance card"
    if state.phase == "fate":
        return f"fate is due: roll {state.fate_dice} fate dice"
    return f"{player}: on fate's turn copy one of fate's dice, take a free deferred die, or pass"


def to_json(state: State) -> dict[str, Any]:
    def card(c: Card | None):
        if c is None:
            return None
        out = {"title": c.title, "placed": len(c.placed), "needs": c.needs}
        if c.kind == "romance":
            out["reward"] = c.reward
        if c.text:
            out["text"] = c.text
        return out
    return {
        "game": GAME_NAME, "mode": state.mode, "phase": state.phase, "player": state.current_player,
        "round": state.round, "prompt": prompt(state), "expecting": list(state.expecting),
        "dice_to_roll": dice_to_roll(state), "fate_dice_total": state.fate_dice_total,
        "snowflakes_frozen": state.snowflakes_frozen, "fate_dice": state.fate_dice if state.fate_dice_total else 0,
        "fate_roll": list(state.fate_roll), "penalty_roll": list(state.penalty_roll), "melts": state.melts,
        "outcome": outcome(state),
        "pool": list(state.turn.pool) if state.turn else [],
        "romances": [card(c) for c in state.romances],
        "elements": [card(c) for c in state.elements],
        "sides": [{"name": s.name, "players": list(s.players), "stage": s.stage, "stage_card": card(s.stage_card),
                   "romance": card(s.romance), "copied": list(s.copied), "deferred": s.deferred,
                   "movie": [c.title for c in s.movie]} for s in state.sides],
    }


def scoreboard(state: State) -> list[list[str]]:
    rows = [["side", "stage", "stage card", "romance", "copied", "deferred", "movie deck"]]
    for s in state.sides:
        card = f"{len(s.stage_card.placed)}/{s.stage_card.needs}" if s.stage_card else "done"
        rows.append([s.name, str(min(s.stage, STAGES)), card, "yes" if s.romance else "no",
                     " ".join(s.copied) or "-", str(s.deferred), str(len(s.movie))])
    if state.fate_dice_total:
        rows.append(["fate", "", f"{state.snowflakes_frozen}/{state.fate_dice_total} {snowflakes_gone(state)}", "", "", "",
                     f"{state.fate_dice} dice to roll"])
    return rows


def story(state: State, side: str | None = None) -> str:
    """The movie deck told as a story [Winning the game]: love interests, then each stage card
    "while" its Christmas romance card, with movie elements mixed in where they were completed."""
    if side is None:
        result = outcome(state)
        side = result["side"] if result else state.sides[0].name
    found = [s for s in state.sides if s.name == side or side in s.players]
    if not found:
        raise RuleError(f"no player or couple called {side!r}")
    s = found[0]
    couple = f"{s.star} and {s.headliner}"
    sentences, cards = [], list(s.movie)
    while cards:
        card = cards.pop(0)
        if card.kind == "stage":
            romance = cards.pop(0) if cards and cards[0].kind == "romance" else None
            line = f"{couple} {card.title}"
            if card.text:
                line += f" when they {card.text}"
            if romance:
                line += f" while {romance.title}"
            sentences.append(line)
        else:
            sentences.append(card.title)
    if not sentences:
        return f"{couple} have not made their movie yet."
    return " ".join(_sentence(x) for x in sentences)


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


# --------------------------------------------------------------------------- what the game offers the table

def _check_faces(faces: Any) -> list[str]:
    """Six different face names without spaces, the snowflake first (``?`` and ``.`` mark
    open locations in card layouts, so they cannot name a face)."""
    if (not isinstance(faces, list) or len(faces) != 6 or len(set(faces)) != 6
            or not all(isinstance(f, str) and f and " " not in f and f not in (UNMARKED, ".") for f in faces)):
        raise ValueError(f"expected six different names without spaces, the snowflake first, got {faces!r}")
    return list(faces)


def _check_choice(value: Any, choices: tuple[str, ...]) -> Any:
    """One of ``choices``, or None (the default)."""
    if value is not None and value not in choices:
        raise ValueError(f"expected one of {', '.join(choices)}, got {value!r}")
    return value


def _check_bool(value: Any) -> bool:
    """True or false, nothing else (TOML's booleans)."""
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


OPTIONS = (
    Option("mode", "solo", "How to play: solo against fate, coop (one couple against fate), couples, "
           "or multiplayer.", choices=MODES),
    Option("faces", list(FACE_SETS[GAME_NAME]), "The six face names, SNOWFLAKE first. ASSUMPTION: the rulebook "
           "shows the other five only as pictures, so they are placeholders to rename.", check=_check_faces),
    Option("love_interests", None, "Each player's (or couple's) star and headliner love interests, "
           "{name: [star, headliner]}; default: the rules' example pair."),
    Option("stage_cards", None, "The stage cards, as titles or {title, layout}; default: the built-in examples "
           "(ASSUMPTION: the rulebook's card pictures are missing)."),
    Option("romance_cards", None, "The Christmas romance cards (as stage_cards); default: the built-in examples."),
    Option("element_cards", None, "The movie element cards (as stage_cards); default: the built-in examples."),
    Option("fate_dice", None, "Fate's dice (the rulebook's 10)."),
    Option("melts", None, "Whether 3 dice of one face melt a snowflake (default: in the solo game only)."),
    Option("element_locations", None, "Movie element cards face up at once (the rulebook's 3)."),
    Option("coop_reward", None, "ASSUMPTION (the rulebook gives a romance card's reward to the other "
           "players, and co-op has one couple): who takes it in co-op, nobody (none, the default) or the couple.",
           check=lambda value: _check_choice(value, COOP_REWARDS)),
    Option("virtual_fate", False, "The box rolls fate's dice itself (from a seed kept in the log); "
           "not a rule, so not kept in the session's setup.", check=_check_bool, setup=False),
)

THROWS = {"roll": "roll", "penalty": "penalty_roll", "fate": "fate_roll"}   # phase -> dice event
ROMANCE_REWARDS = tuple(range(7))   # deferred dice offered for a romance card whose reward is not known


def chance(state: State, chosen: Event | None = None) -> Chance | None:
    """The dice due now: the player's roll, the romance card's penalty roll (solo) or fate's
    roll, which the box may also roll from a seed. ``None`` in any other phase, and for any
    ``chosen`` event: no choice of this game is completed by a throw."""
    kind = THROWS.get(state.phase)
    if chosen is not None or kind is None or state.dice_due <= 0:
        return None
    thrower = "fate" if kind == "fate_roll" else state.current_player
    return Chance(event={"type": kind}, dice=state.dice_due, face_set=GAME_NAME, thrower=thrower,
                  seeded=kind == "fate_roll")


def legal_events(state: State) -> tuple[dict[str, Any], ...]:
    """Every event the rules accept now, complete, in the order the box offers them: before a
    turn the ways to declare; with dice in hand the placements, movie element trades, adding
    the copied dice, melts, copies and the end of the turn; on fate's turn (solo) the copies,
    the free deferred die and passing. Dice results are not here (see :func:`chance`), nor
    ``title`` (the players' own words)."""
    if state.phase == "declare":
        return _accepted(state, declare_events(state))
    if state.phase == "play":
        return play_events(state)
    if state.phase == "fate_choice":
        return _accepted(state, fate_choice_events(state))
    return ()


def accepts(state: State, event: Mapping[str, Any]) -> bool:
    """Whether the rules allow ``event`` now."""
    try:
        apply(state, event)
    except RuleError:
        return False
    return True


def _accepted(state: State, events) -> tuple[dict[str, Any], ...]:
    return tuple(event for event in events if accepts(state, event))


def declare_events(state: State) -> list[dict[str, Any]]:
    """Ways to start a turn: (solo) which love interest, with or without releasing the deferred
    dice, deferring 0 to 2; not yet checked by the rules."""
    events = []
    for use in ("star", "headliner", "none") if state.mode == "solo" else ("",):
        for release in (False, True):
            for defer in range(MAX_DEFER + 1):
                event: dict[str, Any] = {"type": "declare"}
                if use:
                    event["use"] = use
                if defer:
                    event["defer"] = defer
                if release:
                    event["release"] = True
                events.append(event)
    return events


def play_events(state: State) -> tuple[dict[str, Any], ...]:
    """The moves with the dice in hand that the rules accept: placements, movie element
    trades, adding the copied dice, melts, copies, and last ``end_turn``."""
    pool = list(state.turn.pool)
    trade_events = [event for slot, card in enumerate(state.elements, start=1)
                    for event in trades(state, slot, card, pool)]
    later = [{"type": "add_copied"}, *melt_events(state), *copy_events(state), {"type": "end_turn"}]
    return placement_events(state) + _accepted(state, trade_events + later)


def placement_events(state: State) -> tuple[dict[str, Any], ...]:
    """The placements the rules accept on the player's stage card, then on each romance card
    (with each possible reward where the card's reward is not known yet)."""
    side = state.sides[side_of(state, state.turn.player)]
    pool = list(state.turn.pool)
    events: list[dict[str, Any]] = []
    for target, card in _targets(state, side):
        if card is None or card.complete or not pool:
            continue
        for event in placements(state, target, card, pool):
            events += _placed(state, target, card, event)
    return tuple(events)


def melt_events(state: State) -> list[dict[str, Any]]:
    """A melt for each face the player holds three of (not yet checked by the rules)."""
    return [{"type": "melt", "faces": [face] * MELT_DICE}
            for face, count in _by_face(state, state.turn.pool) if count >= MELT_DICE]


def copy_events(state: State) -> list[dict[str, Any]]:
    """Each other player copying each face rolled this turn (not yet checked by the rules)."""
    turn = state.turn
    return [{"type": "copy", "player": other, "face": face}
            for other in state.players if other != turn.player for face, _ in _by_face(state, turn.rolled)]


def _targets(state: State, side: Side) -> list[tuple[str, Card | None]]:
    """The cards dice may go on: the side's stage card, then each active romance card."""
    romances = [("romance" if slot == 0 else f"romance-{slot + 1}", card) for slot, card in enumerate(state.romances)]
    return [("stage", side.stage_card)] + romances


def _by_face(state: State, dice) -> list[tuple[str, int]]:
    """(face, count) of ``dice``, in the order of the faces."""
    return sorted(Counter(dice).items(), key=lambda fc: state.faces.index(fc[0]))


def _placed(state: State, target: str, card: Card, event: dict[str, Any]) -> list[dict[str, Any]]:
    """``event`` if the rules accept it; for a placement that completes a romance card whose
    reward is not known, one event per reward the card may show; else nothing."""
    if accepts(state, event):
        return [event]
    if target.startswith("romance") and card.reward is None and accepts(state, {**event, "reward": 0}):
        return [{**event, "reward": reward} for reward in ROMANCE_REWARDS]
    return []


def placements(state: State, target: str, card: Card, pool: list[str]) -> list[dict[str, Any]]:
    """Place events worth offering for ``card`` (called ``target`` in the event): on a card
    with a layout, the best legal placement of the dice in ``pool`` (the most locations
    filled); without one, each face on its own, then as many of the dice as fit. Not checked
    by the rules (a romance card's reward may still be missing)."""
    if card.layout is not None:
        best = suggest(card.layout, {cell: face for face, cell in card.placed}, pool)
        if not best:
            return []
        cells = sorted(best)
        return [{"type": "place", "card": target, "faces": [best[c] for c in cells],
                 "cells": [[r + 1, c + 1] for r, c in cells]}]
    events = [{"type": "place", "card": target, "faces": [face]} for face, _ in _by_face(state, pool)]
    room = card.needs - len(card.placed)
    if min(room, len(pool)) > 1:
        events.append({"type": "place", "card": target, "faces": pool[:room]})
    return events


def trades(state: State, slot: int, card: Card | None, pool: list[str]) -> list[dict[str, Any]]:
    """Element events for the face-up movie element in ``slot`` when its layout gives its trade
    (``exchange:``): each way the dice in ``pool`` can pay, and for the ``?`` dice received
    each face. Without a layout the trade is unknown: none. Not checked by the rules."""
    exchange = card.exchange if card is not None and not card.complete else None
    if exchange is None:
        return []
    pays = ways_to_pay(exchange, pool) if exchange.give else [()]
    named = [face for face in exchange.get if face != UNMARKED]
    unmarked = len(exchange.get) - len(named)
    gets = [named + [face] * unmarked for face in state.faces] if unmarked else [named]
    return [_trade(exchange, slot, pay, get) for pay in pays for get in gets]


def _trade(exchange: Exchange, slot: int, pay, get) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "element", "slot": slot}
    if pay:
        event["give"] = list(pay)
    if exchange.give_deferred:
        event["give_deferred"] = exchange.give_deferred
    if get:
        event["get"] = list(get)
    if exchange.get_deferred:
        event["get_deferred"] = exchange.get_deferred
    return event


def fate_choice_events(state: State) -> list[dict[str, Any]]:
    """On fate's turn (solo): copy each face fate rolled, take a free deferred die, or pass;
    not yet checked by the rules."""
    copies = [{"type": "fate_choice", "take": "copy", "face": face} for face, _ in _by_face(state, state.fate_roll)]
    return copies + [{"type": "fate_choice", "take": "defer"}, {"type": "fate_choice", "take": "none"}]


def view(state: State, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` sees: everything. No mode of this game keeps secrets from the table."""
    return to_json(state)


GAME = Game(
    name=GAME_NAME,
    title="Another Christmas Romance Movie",
    min_players=1,
    max_players=2 * MAX_SIDES,
    dice="christmas-romance",
    setup=setup,
    apply=apply,
    is_over=is_over,
    scoreboard=scoreboard,
    to_json=to_json,
    event_types=tuple(HANDLERS),
    event_keys=EVENT_KEYS,
    status=prompt,
    options=OPTIONS,
    chance=chance,
    legal_events=legal_events,
    view=view,
)
