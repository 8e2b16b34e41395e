"""Another Christmas Romance Movie at the table (host/games/christmas_romance.py on the one loop): fate read or rolled,
snowflakes on the bar graph, melts and fate's-turn choices from the knob, win, loss, story."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from sigterm_run import run_then_sigterm

from host.devices import TableDevices, pins_for
from host.games.christmas_romance import setup_options, story_pages
from host.loop import TableLoop
from host.menus import BACK
from host.presenters import DevicePresenter, RecordingPresenter
from host.session_store import SessionStore
from rules import get_game
from rules.christmas_romance import roll_faces
from rules.core import RuleError
from vision.roll import Die, Roll, Throw

GAME = get_game("christmas-romance")
SNOW = "SNOWFLAKE"
LAYOUTS = Path(__file__).resolve().parents[2] / "rules" / "layouts"


def roll_of(faces, unsure=()):
    return Roll(dice=tuple(Die(f, 0.4 if i in unsure else 0.98, 20.0 * i, 10.0, 10.0, 10.0)
                           for i, f in enumerate(faces)), dice_set="christmas-romance")


@pytest.fixture
def store(tmp_path):
    with SessionStore(tmp_path / "sessions.db") as store:
        yield store


def fate_loop(table, *, virtual_fate=False, **kw):
    """The one table loop playing Another Christmas Romance Movie (``virtual_fate``: its box option)."""
    return TableLoop(table, options={"virtual_fate": virtual_fate}, **kw)


def make_loop(store, setup=None, **kw):
    table = store.create(GAME, {"mode": "solo", **(setup or {})})
    screen = RecordingPresenter()
    loop = fate_loop(table, presenters=[screen], **kw)
    loop.start()
    return loop, screen


def choose(loop, want):
    """Open the phase's menu (if closed), turn the knob to the first item ``want`` accepts, push."""
    if loop.menu is None:
        loop.handle("push")
    values = [item.value for item in loop.menu.items]
    target = next(i for i, v in enumerate(values) if want(v))
    for _ in range(abs(target - loop.menu.highlight)):
        loop.handle("right" if target > loop.menu.highlight else "left")
    loop.handle("push")


def is_event(kind, **fields):
    return lambda v: isinstance(v, dict) and v.get("type") == kind and all(v.get(k) == x for k, x in fields.items())


def solo_turn(loop, faces, place=True):
    """Declare (no love interest), roll ``faces`` on the camera, place all on the stage card, end the turn."""
    choose(loop, is_event("declare", use="none"))
    loop.on_read(roll_of(faces))
    if place:
        choose(loop, lambda v: isinstance(v, dict) and v.get("type") == "place" and v["card"] == "stage"
               and len(v["faces"]) == len(faces))
    loop.handle("score")


def types(table):
    return [e.get("type") for e in table.session.events]


def test_fate_is_due_after_a_solo_turn_and_the_screen_says_how_many_dice(store):
    loop, screen = make_loop(store)
    assert screen.screens[-1].title == "Player: round 1"
    choose(loop, is_event("declare", use="none"))
    assert screen.screens[-1].title == "Player: roll 3 dice"
    loop.on_read(roll_of(["FACE-2", "FACE-2", "FACE-3"]))
    assert loop.state.phase == "play" and screen.screens[-1].kind == "roll"
    choose(loop, is_event("place", card="stage", faces=["FACE-2", "FACE-2", "FACE-3"]))
    assert len(loop.state.sides[0].stage_card.placed) == 3
    loop.handle("score")  # Score ends the turn
    assert loop.state.fate_due and screen.screens[-1].title == "Fate rolls 10 dice"
    assert types(loop.table) == ["declare", "roll", "place", "end_turn"]


def test_the_dice_wanted_follow_the_game(store):
    """What `run`'s synthetic camera is told to throw: nothing while the solo player chooses
    how to roll, the player's 3 after the choice, nothing while the dice read wait to be
    placed or a die waits to be checked, then the 10 fate dice once fate is due."""
    loop, _ = make_loop(store)
    assert loop.dice_wanted() == Throw(0)
    loop.handle("push")                       # the choice's menu open: still nothing
    assert loop.menu is not None and loop.dice_wanted() == Throw(0)
    choose(loop, is_event("declare", use="none"))
    assert loop.dice_wanted() == Throw(3)
    loop.on_read(roll_of(["FACE-2", "FACE-2", "FACE-3"], unsure=(1,)))
    assert loop.pending is not None and loop.dice_wanted() == Throw(0)
    loop.handle("next")                       # die 2 is what the camera read
    assert loop.pending is None and loop.state.phase != "roll" and loop.dice_wanted() == Throw(0)
    choose(loop, lambda v: isinstance(v, dict) and v.get("type") == "place" and v["card"] == "stage")
    loop.handle("score")
    assert loop.state.fate_due and loop.dice_wanted() == Throw(10)


def test_dice_wanted_leaves_fate_to_the_box_and_lets_co_op_roll_straight_away(store):
    virtual, _ = make_loop(store, virtual_fate=True)
    solo_turn(virtual, ["FACE-2", "FACE-2", "FACE-3"])
    assert virtual.state.fate_due and virtual.dice_wanted() == Throw(0)
    ten, _ = make_loop(store)
    solo_turn(ten, ["FACE-2", "FACE-2", "FACE-3"])
    assert ten.state.fate_due and ten.dice_wanted() == Throw(10)
    co_op = fate_loop(store.create(GAME, {"mode": "coop", "players": ["Ann", "Ben"]}), presenters=[])
    co_op.start()
    assert co_op.state.phase == "declare" and co_op.dice_wanted() == Throw(3)


def test_dice_rolled_before_choosing_are_not_taken_and_push_opens_the_choice(store):
    loop, screen = make_loop(store)
    loop.on_read(roll_of(["FACE-2", "FACE-3", "FACE-4"]))
    assert loop.state.phase == "declare" and not loop.table.session.events
    assert screen.screens[-1].title == "Choose first"
    loop.handle("push")
    assert loop.menu is not None and loop.menu.kind == "declare"


def test_the_declare_menu_offers_only_what_the_rules_allow(store):
    loop, _ = make_loop(store)
    loop.handle("push")
    values = [item.value for item in loop.menu.items]
    assert {v.get("use") for v in values} == {"star", "headliner", "none"}
    assert not any(v.get("release") for v in values)        # nothing deferred yet to release
    assert all(v.get("use") == "headliner" for v in values if v.get("defer"))
    labels = loop.menu.labels()
    assert "Headliner love interest, defer 2, roll 1" in labels


def test_a_wrong_number_of_fate_dice_is_asked_again_never_guessed(store):
    loop, screen = make_loop(store)
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
    events = len(loop.table.session.events)
    loop.on_read(roll_of([SNOW] * 3 + ["FACE-4"] * 5))     # 8 dice in the tray, fate rolls 10
    assert len(loop.table.session.events) == events and loop.state.fate_due
    assert screen.screens[-1].kind == "error" and screen.screens[-1].title == "I see 8 dice"
    assert "fate rolls 10" in screen.screens[-1].lines[0]
    loop.on_read(roll_of([SNOW] * 3 + ["FACE-4"] * 7))     # put right: read again
    assert loop.state.fate_roll.count(SNOW) == 3 and loop.state.snowflakes_frozen == 3
    assert loop.state.phase == "fate_choice"


def test_push_after_a_wrong_count_enters_the_fate_dice_with_the_knob(store):
    loop, _ = make_loop(store)
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
    loop.on_read(roll_of([SNOW, "FACE-5"], unsure={1}))
    loop.handle("push")
    assert loop.pending is not None and loop.pending.by_hand and len(loop.pending.faces) == 10
    assert loop.pending.flagged == list(range(1, 10))   # the sure SNOWFLAKE is not asked about
    truth = [SNOW, "FACE-5"] + [SNOW] + ["FACE-6"] * 7
    for face in truth[1:]:
        choose(loop, lambda v, face=face: v == face)
    assert list(loop.state.fate_roll) == truth and loop.state.snowflakes_frozen == 2
    notes = [e.body for e in loop.table.entries if e.kind == "note"]
    assert notes[-1]["type"] == "typed-roll" and notes[-1]["faces"] == truth


def test_the_bar_graph_shows_frozen_snowflakes_and_a_melt_thaws_one(store, mock_factory):
    loop, _ = make_loop(store)
    devices = TableDevices(pins_for(), on_command=loop.post, pin_factory=mock_factory)
    try:
        loop.presenters.append(DevicePresenter(devices))
        solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
        loop.on_read(roll_of([SNOW] * 4 + ["FACE-4"] * 6))
        assert loop.state.snowflakes_frozen == 4 and devices.bar.lit_count == 4
        choose(loop, is_event("fate_choice", take="defer"))
        choose(loop, is_event("declare", use="headliner", release=True))   # 1 deferred + 3 dice
        loop.on_read(roll_of(["FACE-5"] * 3 + ["FACE-2"]))
        loop.handle("push")
        labels = loop.menu.labels()
        assert "Melt a snowflake with 3 FACE-5" in labels
        choose(loop, is_event("melt", faces=["FACE-5"] * 3))
        assert loop.state.snowflakes_frozen == 3 and devices.bar.lit_count == 3
        assert list(loop.state.turn.pool) == ["FACE-2"]
    finally:
        devices.close()


def test_fates_turn_copy_goes_to_the_star_love_interest(store):
    loop, screen = make_loop(store)
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
    loop.on_read(roll_of([SNOW] + ["FACE-6"] * 9))
    assert screen.screens[-1].title == "Fate rolled" and len(screen.screens[-1].dice) == 10
    choose(loop, is_event("fate_choice", take="copy", face="FACE-6"))
    assert loop.state.sides[0].copied == ("FACE-6",) and loop.state.phase == "declare"


def test_next_on_fate_rolled_passes_and_the_screen_says_so(store):
    """Next is the usual answer everywhere on the box; on "Fate rolled" it is Pass (before, it
    only showed the same screen again, and passing needed the menu)."""
    loop, screen = make_loop(store)
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
    loop.on_read(roll_of([SNOW] + ["FACE-6"] * 9))
    assert screen.screens[-1].title == "Fate rolled" and screen.screens[-1].footer == "Next: pass (take nothing)"
    loop.handle("next")
    assert loop.table.session.events[-1] == {"type": "fate_choice", "take": "none"}
    assert loop.state.phase == "declare" and loop.state.sides[0].copied == ()
    loop.handle("push")                      # an open menu is closed by Next, not answered
    assert loop.menu is not None
    loop.handle("next")
    assert loop.menu is None and loop.table.session.events[-1]["type"] == "fate_choice"


def test_virtual_fate_rolls_from_a_logged_seed_and_replays_exactly(store, tmp_path):
    loop, screen = make_loop(store, virtual_fate=True, new_seed=lambda: 4242)
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
    assert "push the knob: the box rolls them" in screen.screens[-1].lines
    loop.on_read(roll_of(["FACE-4"] * 10))       # dice in the tray are not fate's: ignored
    assert loop.state.fate_due
    loop.handle("push")
    event = loop.table.session.events[-1]
    assert event == {"type": "fate_roll", "seed": 4242}
    expected = roll_faces(4242, 10, loop.state.faces)
    assert loop.state.fate_roll == expected
    assert loop.state.snowflakes_frozen == expected.count(SNOW)
    assert [d.face for d in screen.screens[-1].dice] == list(expected)
    reopened = store.open(loop.table.id, lambda name: GAME)
    assert reopened.state == loop.state


def test_fate_typed_while_the_box_rolls_fate_is_refused_with_the_reason(store):
    """Before, the typed roll was let go without a word and its note journalled."""
    loop, screen = make_loop(store, virtual_fate=True)
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
    journal = len(loop.table.entries)
    loop.handle("roll:" + ",".join(["FACE-4"] * 10))
    assert loop.state.fate_due and len(loop.table.entries) == journal
    assert screen.screens[-1].title == "Not allowed" and "box rolls fate" in screen.screens[-1].lines[0]


def test_fate_typed_in_is_taken_as_fates_roll(store):
    loop, _ = make_loop(store)
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
    loop.handle("roll:" + ",".join(["FACE-4"] * 9 + [SNOW]))
    assert sorted(loop.state.fate_roll) == sorted(["FACE-4"] * 9 + [SNOW]) and types(loop.table)[-1] == "fate_roll"
    assert [e.body.get("type") for e in loop.table.entries if e.kind == "note"][-1] == "typed-roll"


def test_score_on_a_check_takes_the_other_unsure_dice_as_read(store):
    loop, screen = make_loop(store)
    choose(loop, is_event("declare", use="none"))
    loop.on_read(roll_of(["FACE-2", "FACE-4", "FACE-3"], unsure=(0, 2)))
    assert screen.screens[-1].title == "Check die 1" and "Score: also die 3 as read" \
        in screen.screens[-1].lines
    loop.handle("score")
    assert loop.pending is None and loop.state.phase == "play"
    assert sorted(loop.table.session.events[-1]["faces"]) == ["FACE-2", "FACE-3", "FACE-4"]


def test_solo_loss_shows_the_loss_screen_and_the_story(store):
    loop, screen = make_loop(store, {"fate_dice": 1})
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
    assert screen.screens[-1].title == "Fate rolls 1 die"
    loop.on_read(roll_of([SNOW]))
    assert loop.state.phase == "over"
    assert screen.screens[-1].kind == "error" and screen.screens[-1].title == "The romance froze over"
    assert loop.table.store.list()[0].closed is not None
    loop.handle("next")
    assert screen.screens[-1].title == "Christmas is ruined"
    assert screen.screens[-1].footer == "Next: the movie, told as a story; push: correct a die"
    loop.handle("next")
    assert screen.screens[-1].title.startswith("Our movie (1/")


def test_a_misread_die_that_lost_the_game_is_corrected_from_the_end_screen(store):
    """Fate's die read as a SNOWFLAKE ends the game; it was a FACE-4. On the loss screen the
    knob offers to correct it (and the story, first); corrected, the game goes on."""
    loop, screen = make_loop(store, {"fate_dice": 1})
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"])
    loop.on_read(roll_of([SNOW]))
    loop.handle("next")
    assert loop.state.phase == "over" and screen.screens[-1].title == "Christmas is ruined"
    loop.handle("push")
    assert [item.value for item in loop.menu.items] == ["story", "correct", "undo", BACK]
    choose(loop, lambda v: v == "correct")
    choose(loop, lambda v: v == 0)                      # die 1
    choose(loop, lambda v: v == "FACE-4")
    assert loop.state.phase != "over" and loop.state.fate_roll == ("FACE-4",)
    assert loop.table.store.list()[0].closed is None
    notes = [e.body for e in loop.table.entries if e.kind == "note" and e.body.get("type") == "correction"]
    assert [(n["read"], n["face"]) for n in notes] == [(SNOW, "FACE-4")]


def test_a_low_confidence_die_is_checked_and_a_confident_one_corrected_from_the_menu(store):
    loop, screen = make_loop(store)
    choose(loop, is_event("declare", use="none"))
    loop.on_read(roll_of(["FACE-2", "FACE-4", "FACE-3"], unsure={1}))
    assert loop.state.phase == "roll" and screen.screens[-1].title == "Check die 2"
    choose(loop, lambda v: v == "FACE-5")
    assert loop.state.turn.rolled == ("FACE-2", "FACE-5", "FACE-3")
    loop.handle("push")
    choose(loop, lambda v: v == "correct")
    choose(loop, lambda v: v == 2)                      # die 3
    choose(loop, lambda v: v == "FACE-6")
    assert loop.state.turn.rolled == ("FACE-2", "FACE-5", "FACE-6")
    notes = [e.body for e in loop.table.entries if e.kind == "note"]
    assert [(n["read"], n["face"]) for n in notes] == [("FACE-4", "FACE-5"), ("FACE-3", "FACE-6")]


def test_a_hand_passing_over_the_same_dice_is_not_a_new_roll(store):
    loop, screen = make_loop(store)
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"], place=False)
    loop.on_read(roll_of([SNOW] + ["FACE-6"] * 9))
    choose(loop, is_event("fate_choice", take="none"))
    choose(loop, is_event("declare", use="none"))
    loop.on_read(roll_of(["FACE-6"] * 9 + [SNOW]))      # fate's dice still lie there
    assert loop.state.phase == "roll" and screen.screens[-1].title == "Player: roll 3 dice"
    loop.handle("next")                                 # ten dice are no 3-dice roll: nothing to take
    assert loop.state.phase == "roll" and screen.screens[-1].kind != "error"
    loop.on_read(roll_of(["FACE-4", "FACE-5", "FACE-6"]))
    assert loop.state.phase == "play"


def test_solo_romance_card_needs_the_stage_first_and_its_reward_is_asked(store):
    loop, screen = make_loop(store)
    solo_turn(loop, ["FACE-2", "FACE-2", "FACE-3"], place=False)
    loop.on_read(roll_of(["FACE-6"] * 10))
    choose(loop, is_event("fate_choice", take="defer"))
    choose(loop, is_event("declare", use="headliner", release=True))
    loop.on_read(roll_of(["FACE-2", "FACE-3", "FACE-4", "FACE-5"]))
    loop.handle("push")
    values = [item.value for item in loop.menu.items]
    # four dice would complete the romance card, but the stage card is not complete: not offered
    assert not any(isinstance(v, tuple) for v in values)
    assert not any(isinstance(v, dict) and v.get("card") == "romance" and len(v["faces"]) == 4 for v in values)
    loop.handle("undo")
    choose(loop, is_event("place", card="stage", faces=["FACE-2", "FACE-3", "FACE-4", "FACE-5"]))
    assert loop.state.sides[0].stage_card.complete


def test_a_card_with_a_layout_gets_the_best_legal_placement_with_cells(store):
    stage1 = (LAYOUTS / "stage1-meet-cute.layout").read_text()
    loop, _ = make_loop(store, {"stage_cards": [{"layout": stage1}, {}, {}, {}, {}]})
    choose(loop, is_event("declare", use="none"))
    loop.on_read(roll_of([SNOW, "FACE-4", "FACE-4"]))
    loop.handle("push")
    stage = [v for v in (i.value for i in loop.menu.items) if isinstance(v, dict) and v.get("card") == "stage"]
    # the SNOWFLAKE on its location, the FACE-4 double on the two touching unmarked ones
    assert len(stage) == 1 and stage[0]["cells"] == [[1, 1], [1, 2], [1, 3]]
    assert stage[0]["faces"] == [SNOW, "FACE-4", "FACE-4"]
    choose(loop, lambda v: v == stage[0])
    assert len(loop.state.sides[0].stage_card.placed) == 3 and not loop.state.turn.pool


def test_a_movie_element_with_a_trade_in_its_layout_is_on_the_menu(store):
    bakery = (LAYOUTS / "element-small-town-bakery.layout").read_text()
    loop, _ = make_loop(store, {"element_cards": [{"layout": bakery}, "a blizzard", "a lost puppy"]})
    choose(loop, is_event("declare", use="headliner"))
    loop.on_read(roll_of(["FACE-3", "FACE-3", "FACE-5"]))
    loop.handle("push")
    trades = [v for v in (i.value for i in loop.menu.items) if isinstance(v, dict) and v["type"] == "element"]
    assert trades == [{"type": "element", "slot": 1, "give": ["FACE-3", "FACE-3"], "get_deferred": 1}]
    assert "the small-town bakery is about to close: FACE-3 FACE-3 -> deferred" in loop.menu.labels()
    choose(loop, lambda v: v == trades[0])
    assert loop.state.sides[0].deferred == 1 and list(loop.state.turn.pool) == ["FACE-5"]
    loop.handle("push")
    assert not any(isinstance(v, dict) and v["type"] == "element" for v in (i.value for i in loop.menu.items))


def test_coop_fate_takes_snowflakes_away_after_the_round_without_a_choice(store):
    table = store.create(GAME, {"mode": "coop", "players": ["Ann", "Ben"]})
    screen = RecordingPresenter()
    loop = fate_loop(table, presenters=[screen])
    loop.start()
    for player, faces in (("Ann", ["FACE-2", "FACE-3", "FACE-4"]), ("Ben", ["FACE-5", "FACE-5", "FACE-6"])):
        assert loop.state.current_player == player
        loop.on_read(roll_of(faces))   # co-op: rolling without deferring declares
        assert loop.state.phase == "play"
        loop.handle("push")
        assert not any("Melt" in label for label in loop.menu.labels())
        loop.handle("undo")
        loop.handle("score")
    assert loop.state.fate_due and screen.screens[-1].title == "Fate rolls 10 dice"
    loop.on_read(roll_of([SNOW, SNOW] + ["FACE-5"] * 8))
    assert loop.state.phase == "declare" and loop.state.fate_dice == 8
    assert screen.screens[-1].title == "Fate rolled" and "2 of 10 taken away" in screen.screens[-1].lines[0]
    assert screen.statuses[-1].bar == 2


def test_the_modes_without_fate_play_at_the_box_too(store):
    """Multiplayer and couples are options of the same game: the one loop plays them with
    no code of its own (each player declares, rolls and places on their own stage card)."""
    table = store.create(GAME, {"mode": "multiplayer", "players": ["Ann", "Ben"]})
    loop = fate_loop(table, presenters=[RecordingPresenter()])
    loop.start()
    choose(loop, is_event("declare"))
    assert loop.dice_wanted() == Throw(3)
    loop.on_read(roll_of(["FACE-2", "FACE-2", "FACE-3"]))
    assert loop.state.phase == "play"
    choose(loop, lambda v: isinstance(v, dict) and v.get("type") == "place" and v["card"] == "stage")
    loop.handle("score")
    assert types(loop.table)[-1] == "end_turn" and loop.state.current_player == "Ben"
    couples = fate_loop(store.create(GAME, {"mode": "couples", "players": ["Ann", "Ben", "Cy", "Di"]}))
    couples.start()
    assert couples.state.phase == "declare" and couples.state.current_player == "Ann"


def test_story_pages_and_run_options():
    pages = story_pages("One. Two! Three? Four.", per_page=2)
    assert pages == [("One.", "Two!"), ("Three?", "Four.")]

    class Args:
        mode = "coop"

    assert setup_options(Args(), []) == {"mode": "coop", "players": ["Star", "Headliner"]}
    assert setup_options(Args(), ["A", "B"]) == {"mode": "coop", "players": ["A", "B"]}


def test_run_names_the_faces_as_the_config_file_does(dicewatch_home):
    """`dicewatch dice rename christmas-romance FACE-2 HEART` says to put the names in
    [dice.christmas-romance] faces; the reader then reads HEART, so the game must know it."""
    import argparse

    from host.commands import run as run_command
    from host.config import load_config
    config = dicewatch_home / "config.toml"
    config.write_text('[dice.christmas-romance]\nfaces = ["SNOWFLAKE", "HEART", "FACE-3", "FACE-4", "FACE-5", '
                      '"FACE-6"]\n')
    parser = argparse.ArgumentParser()
    run_command.add_arguments(parser)
    args = parser.parse_args(["--game", "christmas-romance"])
    doc, _ = load_config(config)
    store, game, pending, setup = run_command.open_table(args, doc, config)
    assert pending is None and not store.list()           # a new game: made only as the table starts
    table = run_command.make_table(store, game, setup)
    with store:
        assert table.state.faces[1] == "HEART"
        loop = fate_loop(table, presenters=[RecordingPresenter()])
        loop.start()
        choose(loop, is_event("declare", use="none"))
        loop.on_read(roll_of(["HEART", "HEART", "FACE-3"]))
        assert loop.state.phase == "play"
        assert table.session.events[-1]["faces"] == ["HEART", "HEART", "FACE-3"]


def test_resume_without_game_continues_the_last_unfinished_game_of_any_kind(dicewatch_home, capsys):
    """`run` stopped in a christmas-romance game says "resume with --resume"; plain --resume
    (the README's "the last unfinished game") must continue it, not ask for a Jingle Bell Roll."""
    import argparse
    import time

    from host.commands import run as run_command
    with SessionStore(dicewatch_home / "sessions.db") as home_store:
        jbr = home_store.create(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben"]})
        time.sleep(0.01)
        fate = home_store.create(GAME, {"mode": "solo", "players": ["Player"]})
    parser = argparse.ArgumentParser()
    run_command.add_arguments(parser)
    for argv, wanted in ((["--resume"], fate.id), (["--resume", "--game", "jingle-bell-roll"], jbr.id),
                         (["--resume", "--game", "christmas-romance"], fate.id)):
        store, _, table, setup = run_command.open_table(parser.parse_args(argv), {}, None)
        store.close()
        assert (table.id, setup) == (wanted, None), argv


@pytest.mark.skipif(os.name != "posix", reason="signals are POSIX")
def test_run_christmas_romance_starts_a_solo_game_and_stops_cleanly(dicewatch_home, tmp_path):
    screens = tmp_path / "screens"
    status, out, err = run_then_sigterm(["--game", "christmas-romance", "--mode", "solo", "--virtual-fate",
                                         "--camera", "synthetic:3", "--no-gpio"], dicewatch_home, screens)
    assert status == 0, err
    assert "Traceback" not in err and "saved" in err
    assert "Player: round 1" in out and "bar -> 0/10" in out
    with SessionStore(dicewatch_home / "sessions.db") as store:
        (info,) = store.list()
        assert info.game == "christmas-romance" and info.players == ("Player",)
        assert store.header(info.id)["setup"]["mode"] == "solo"
        assert [e.body["type"] for e in store.entries(info.id) if e.kind == "note"] == ["virtual-fate"]


@pytest.mark.skipif(os.name != "posix", reason="signals are POSIX")
def test_a_box_whose_power_goes_while_it_starts_leaves_no_half_made_game(dicewatch_home):
    """The session is made only once the slow start-up is over, with the box's own notes
    (the box rolls fate) written as the table starts: a power cut while the dice models load
    leaves no game that would resume without them."""
    import signal
    import subprocess
    import sys
    child = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--game", "christmas-romance", "--mode", "solo",
                              "--virtual-fate", "--camera", "synthetic:3", "--no-gpio", "--display", "none"],
                             env=dict(os.environ, DICEWATCH_HOME=str(dicewatch_home)),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        said = child.stderr.readline()      # said before the dice models load
        assert "no tray calibration saved" in said, said
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(30)
        child.stderr.close()
    with SessionStore(dicewatch_home / "sessions.db") as store:
        assert store.list() == []


def test_the_dice_can_be_taught_again_before_a_turn(store):
    """"Teach the dice" in the before-rolling menu, when the box knows how (dicewatch run sets
    ``teach_dice``): the reader it returns reads from then on."""
    loop, screen = make_loop(store)
    loop.watcher = "old watcher"
    loop.handle("push")
    assert "teach" not in [item.value for item in loop.menu.items]  # no teacher: not offered
    loop.handle("undo")
    calls = []
    loop.teach_dice = lambda lp: calls.append(lp) or "new watcher"
    choose(loop, lambda v: v == "teach")
    assert calls == [loop] and loop.watcher == "new watcher" and loop.menu is None


def coop_loop(store):
    loop = fate_loop(store.create(GAME, {"mode": "coop", "players": ["Ann", "Ben"]}), presenters=[RecordingPresenter()])
    loop.start()
    return loop


def test_undo_forgets_a_same_faces_read_and_next_then_takes_nothing(store):
    """Ben chooses how to roll, the camera sees Ann's dice still lying there (same faces: held
    for Next), Ben takes his choice back with Undo: Next must not play those faces as a roll
    (before, in the declare phase it raised KeyError: 'declare')."""
    loop = coop_loop(store)
    loop.on_read(roll_of(["FACE-2", "FACE-3", "FACE-4"]))     # Ann rolls straight away
    loop.handle("score")
    choose(loop, lambda v: v == {"type": "declare"})          # Ben: roll 3
    loop.on_read(roll_of(["FACE-4", "FACE-3", "FACE-2"]))     # Ann's dice, still in the tray
    assert loop.same_read is not None
    loop.handle("undo")
    assert loop.state.phase == "declare"
    events = list(loop.table.session.events)
    loop.handle("next")
    assert loop.table.session.events == events and loop.state.phase == "declare"


def test_co_op_dice_rolled_straight_away_with_the_last_rolls_faces_are_shown_and_next_takes_them(store):
    """Ben rolls straight away and his dice come up as Ann's did: the screen says these are the
    last roll's faces and Next takes them as his roll (before, nothing on screen changed and
    Next did nothing, so the only way on was to roll again)."""
    loop = coop_loop(store)
    screen = loop.presenters[0]
    loop.on_read(roll_of(["FACE-2", "FACE-3", "FACE-4"]))     # Ann rolls straight away
    loop.handle("score")
    loop.on_read(roll_of(["FACE-4", "FACE-3", "FACE-2"]))     # Ben's dice: the same faces
    assert types(loop.table) == ["declare", "roll", "end_turn"]
    shown = screen.screens[-1]
    assert shown.title == "Same faces as the last roll" and [d.face for d in shown.dice] == ["FACE-4", "FACE-3", "FACE-2"]
    assert shown.footer == "Next: take them as Ben's roll"
    loop.handle("next")
    assert types(loop.table) == ["declare", "roll", "end_turn", "declare", "roll"]
    assert loop.state.phase == "play" and loop.state.turn.player == "Ben"
    assert loop.table.session.events[-1]["faces"] == ["FACE-4", "FACE-3", "FACE-2"]


def test_co_op_same_faces_held_for_next_are_forgotten_once_the_turn_is_chosen_on_the_menu(store):
    """The same faces held for Next belong to the state they were read in: a choice made on the
    menu instead (defer one, roll 2) is not followed by Next playing those 3 dice."""
    loop = coop_loop(store)
    loop.on_read(roll_of(["FACE-2", "FACE-3", "FACE-4"]))
    loop.handle("score")
    loop.on_read(roll_of(["FACE-4", "FACE-3", "FACE-2"]))
    choose(loop, is_event("declare", defer=1))
    assert loop.state.phase == "roll" and loop.state.dice_due == 2
    events = list(loop.table.session.events)
    loop.handle("next")
    assert loop.table.session.events == events and loop.presenters[0].screens[-1].kind != "error"


def test_virtual_fate_is_noted_in_the_journal_and_kept_on_resume(store):
    """`run --virtual-fate` is no rules option (the rules take the seed events either way), so the
    journal notes it; `run --resume` (which passes no --virtual-fate) must go on with the box
    rolling fate (before, the resumed game asked for fate's dice in the tray)."""
    loop, _ = make_loop(store, virtual_fate=True)
    notes = [e.body for e in loop.table.entries if e.kind == "note"]
    assert [n["type"] for n in notes] == ["virtual-fate"]
    screen = RecordingPresenter()
    resumed = fate_loop(store.open(loop.table.id, lambda name: GAME), presenters=[screen])
    resumed.start()
    solo_turn(resumed, ["FACE-2", "FACE-2", "FACE-3"])
    assert resumed.state.fate_due and "push the knob: the box rolls them" in screen.screens[-1].lines
    assert resumed.dice_wanted() == Throw(0)
    resumed.handle("push")
    assert "seed" in resumed.table.session.events[-1]
    again = fate_loop(store.open(loop.table.id, lambda name: GAME), presenters=[], virtual_fate=True)
    again.start()
    assert [e.body["type"] for e in again.table.entries if e.kind == "note"] == ["virtual-fate"]  # noted once


def test_the_turn_menu_counts_one_die_in_the_singular(store):
    loop, _ = make_loop(store)
    choose(loop, is_event("declare", use="headliner", defer=2))     # roll 1
    loop.on_read(roll_of(["FACE-4"]))
    loop.handle("push")
    assert loop.menu.title == "Player: 1 die to use"


def test_the_same_faces_in_the_roll_phase_say_next_takes_them(store):
    """Ben chose how to roll and his dice came up as Ann's did: the screen says so, with the Next
    hint (before, it still said 'Ben: roll 3 dice' and only the README told of Next)."""
    loop = coop_loop(store)
    loop.on_read(roll_of(["FACE-2", "FACE-3", "FACE-4"]))
    loop.handle("score")
    choose(loop, lambda v: v == {"type": "declare"})
    loop.on_read(roll_of(["FACE-4", "FACE-3", "FACE-2"]))
    shown = loop.presenters[0].screens[-1]
    assert (shown.title, shown.footer) == ("Same faces as the last roll", "Next: take them as Ben's roll")
    loop.handle("next")
    assert loop.state.phase == "play" and loop.table.session.events[-1]["faces"] == ["FACE-4", "FACE-3", "FACE-2"]


def test_the_same_faces_in_the_penalty_phase_say_next_takes_them_for_the_romance_card(store):
    loop, screen = make_loop(store)
    for event in ({"type": "declare", "use": "none"}, {"type": "roll", "faces": ["FACE-2", "FACE-2", "FACE-3"]},
                  {"type": "place", "card": "stage", "faces": ["FACE-2", "FACE-2", "FACE-3"]}, {"type": "end_turn"},
                  {"type": "fate_roll", "faces": ["FACE-6"] * 10}, {"type": "fate_choice", "take": "defer"},
                  {"type": "declare", "use": "headliner", "release": True},
                  {"type": "roll", "faces": ["FACE-2", "FACE-3", "FACE-4", "FACE-5"]},
                  {"type": "place", "card": "stage", "faces": ["FACE-2"]},
                  {"type": "place", "card": "romance", "faces": ["FACE-3", "FACE-4", "FACE-5"]}, {"type": "end_turn"},
                  {"type": "fate_roll", "faces": ["FACE-6"] * 10}, {"type": "fate_choice", "take": "none"}):
        loop.table.play(event)
    choose(loop, is_event("declare", use="headliner", defer=2))    # roll 1
    loop.on_read(roll_of(["FACE-6"]))
    choose(loop, lambda v: isinstance(v, tuple) and v[0] == "reward")
    choose(loop, lambda v: v == 1)
    assert loop.state.phase == "penalty" and loop.state.dice_due == 1
    loop.on_read(roll_of(["FACE-6"]))                               # the die still lies there
    shown = screen.screens[-1]
    assert (shown.title, shown.footer) == ("Same faces as the last roll",
                                           "Next: take them as the Christmas romance card's roll")
    loop.handle("next")
    assert loop.state.phase == "play" and loop.table.session.events[-1] == {"type": "penalty_roll", "faces": ["FACE-6"]}
