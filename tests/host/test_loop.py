"""The table loop: reads become events, flagged dice, refusals, menus, faults, shutdown."""
from __future__ import annotations

import contextlib

import pytest

from host.devices import ATTENTION, FAULT, MOVING, OFF, READ_OK, WAITING
from host.dice_check import align_faces
from host.loop import TableLoop
from host.watcher import SETTLED, SETTLING, STILL
from host.presenters import RecordingPresenter
from host.session_store import BOOKKEEPING, SessionStore
from rules import get_game
from vision.roll import Die, Roll, Throw

def reroll_with(loop):
    """The ability whose re-roll the loop waits for (its Awaiting interaction), or None."""
    return (loop.awaited or {}).get("with")


def reroll_event(loop, source):
    """The knob menu's value for "Re-roll one die with SOURCE" (the rules' legal event)."""
    return {"type": "reroll", "player": loop.state.current_player, "with": source}


def announce(loop, source):
    """As if the knob's "Re-roll one die with SOURCE" had been chosen."""
    from host.interactions import Awaiting
    loop.stack.remove(Awaiting)
    loop.stack.push(Awaiting({"type": "reroll", "player": loop.state.current_player, "with": source}))


GAME = get_game("jingle-bell-roll")
FIRST = ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]


def roll_at(faces, places, unsure=()):
    """A read of ``faces`` lying at ``places`` (x of each die; 10 px dice on one row)."""
    return Roll(dice=tuple(Die(f, 0.4 if i in unsure else 0.98, float(x), 10.0, 10.0, 10.0)
                           for i, (f, x) in enumerate(zip(faces, places))), dice_set="jingle-bell-roll")


def roll_of(faces, unsure=()):
    return roll_at(faces, [20 * i for i in range(len(faces))], unsure)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def table(tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    yield store.create(GAME, {"players": ["Ann", "Ben", "Cy"]})
    store.close()


def make_loop(table, **kw):
    screen = RecordingPresenter()
    loop = TableLoop(table, presenters=[screen], ask_setup=False, **kw)
    loop.start()
    return loop, screen


def kinds(table):
    """The journal, without the loop's bookkeeping notes (open answers, dice places: kept for
    --resume, tested on their own)."""
    return [(e.kind, e.body.get("type")) for e in table.entries if e.body.get("type") not in BOOKKEEPING]


def last_event(table):
    return [e.body for e in table.entries if e.kind == "event"][-1]


def test_a_settled_read_becomes_a_stored_roll_and_is_shown(table):
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST))
    assert table.state.roll_number == 1 and sorted(table.state.faces) == sorted(FIRST)
    assert kinds(table) == [("event", "roll")]
    shown = screen.screens[-1]
    assert shown.kind == "roll" and "Roll 1 of 3" in shown.title and shown.total == "14 pts"
    assert [d.locked for d in shown.dice].count(True) == 1  # the BELL
    assert screen.statuses[-1].light == READ_OK and screen.statuses[-1].bar == 1


def test_a_low_confidence_die_must_be_checked_and_a_correction_is_logged(table):
    loop, screen = make_loop(table)
    read = list(FIRST)
    read[2] = "GIFT"  # really a LIST, read as GIFT with low confidence
    loop.on_read(roll_of(read, unsure={2}))
    assert table.state.roll_number == 0 and not table.entries  # nothing scored before the check
    prompt = screen.screens[-1]
    assert prompt.title == "Check die 3" and prompt.dice[2].flagged
    assert screen.statuses[-1].light == ATTENTION and screen.statuses[-1].sound == "attention"
    target = [item.value for item in loop.menu.items].index("LIST")
    for _ in range(target):
        loop.handle("right")
    loop.handle("push")
    assert sorted(table.state.faces) == sorted(FIRST)
    assert kinds(table) == [("note", "correction"), ("event", "roll")]
    note = table.entries[0].body
    assert (note["die"], note["read"], note["face"]) == (3, "GIFT", "LIST")


def test_a_confirmed_die_is_not_a_correction(table):
    loop, _ = make_loop(table)
    loop.on_read(roll_of(FIRST, unsure={0, 1, 2}))
    loop.handle("push")   # the knob confirms the highlighted (as read) face
    assert table.state.roll_number == 0 and loop.pending.flagged == [1, 2]
    loop.handle("next")   # Next: as read
    loop.handle("score")  # Score on the last die: as shown
    assert kinds(table) == [("event", "roll")]


def test_rolling_while_the_knob_menu_is_open_reads_the_roll(table):
    loop, _ = make_loop(table)
    loop.handle("push")
    assert loop.menu is not None
    loop.on_read(roll_of(FIRST))
    assert loop.menu is None and table.state.roll_number == 1


def test_a_bell_that_changed_is_refused_and_nothing_changes(table):
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST))
    before = table.state
    second = ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "GIFT"]  # the BELL is gone
    loop.on_read(roll_of(second))
    assert table.state == before
    error = screen.screens[-1]
    assert error.kind == "error" and "BELL" in " ".join(error.lines)
    assert screen.statuses[-1].sound == "error"
    assert kinds(table)[-1] == ("note", "refused")
    loop.handle("undo")  # puts the error away; does not undo the first roll
    assert table.state == before and screen.screens[-1].kind == "roll"
    assert screen.statuses[-1].light == READ_OK


def test_a_fourth_roll_is_refused(table):
    loop, screen = make_loop(table)
    rolls = [FIRST, ["MILK", "COOKIE", "GIFT", "GIFT", "GIFT", "GIFT", "BELL"],
             ["MILK", "COOKIE", "MILK", "GIFT", "GIFT", "GIFT", "BELL"],
             ["MILK", "COOKIE", "MILK", "MILK", "GIFT", "GIFT", "BELL"]]
    for faces in rolls:
        loop.on_read(roll_of(faces))
    assert table.state.roll_number == 3
    assert screen.screens[-1].kind == "error" and "three rolls" in " ".join(screen.screens[-1].lines)


def test_the_same_dice_again_is_not_a_roll_until_next_is_pressed(table):
    loop, _ = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.on_read(roll_of(list(reversed(FIRST))))  # a hand passed; same dice
    assert table.state.roll_number == 1
    loop.handle("next")  # "it was a roll, it came out the same"
    assert table.state.roll_number == 2


def test_wrong_number_of_dice_is_an_error_and_an_empty_tray_is_ignored(table):
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST[:6]))
    assert screen.screens[-1].title == "I see 6 dice" and table.state.roll_number == 0
    count = len(screen.screens)
    loop.on_read(roll_of([]))
    assert len(screen.screens) == count and table.state.roll_number == 0
    loop.on_read(roll_of(FIRST[:1]))
    assert screen.screens[-1].title == "I see 1 die"


def test_scoring_with_the_knob_gift_recipients_and_a_letter(table):
    loop, screen = make_loop(table)
    faces = ["GIFT", "GIFT", "BELL", "BELL", "MILK", "COOKIE", "STOCKING"]
    loop.on_read(roll_of(faces))
    loop.handle("score")
    assert loop.wizard is not None and screen.screens[-1].title.startswith("Gift cards played")
    loop.handle("push")                         # no gift card
    assert "GIFT 1 of 2" in screen.screens[-1].title
    loop.handle("push")                         # Ben
    loop.handle("right")
    loop.handle("push")                         # Cy
    assert screen.screens[-1].title == "2 stamps: take a letter?"
    loop.handle("right")
    loop.handle("push")                         # the first effect
    assert screen.screens[-1].title.startswith("Score 9 points")
    loop.handle("push")
    state = table.state
    assert state.players[0].points == 4 + 1 + 4
    assert [p.hand for p in state.players] == [1, 2, 2]
    assert len(state.players[0].letters) == 1
    assert state.current_player == "Ben" and screen.screens[-1].title == "Ann scores 9"
    assert screen.statuses[-1].bar == 0
    loop.handle("next")
    assert screen.screens[-1].kind == "scoreboard"


def test_undo_takes_back_the_last_event_and_leaves_menus(table):
    loop, _ = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.handle("push")           # the knob's menu
    assert loop.menu is not None
    loop.handle("undo")           # leaves the menu
    assert loop.menu is None and table.state.roll_number == 1
    loop.handle("undo")           # takes back the roll
    assert table.state.roll_number == 0
    assert kinds(table) == [("event", "roll"), ("undo", None)]


def test_correcting_a_die_after_the_roll_was_accepted(table):
    loop, _ = make_loop(table)
    loop.on_read(roll_of(FIRST))
    index = list(table.state.faces).index("STOCKING")
    loop.handle(f"face:{index + 1}:GIFT")
    assert sorted(table.state.faces) == sorted(FIRST[:4] + ["GIFT", "GIFT", "BELL"])
    assert kinds(table)[-1] == ("note", "correction") and table.state.roll_number == 1


def test_choosing_characters_at_setup(table):
    screen = RecordingPresenter()
    loop = TableLoop(table, presenters=[screen])
    loop.start()
    assert screen.screens[-1].title == "Ann: choose a character"
    loop.handle("right")
    loop.handle("push")           # Ann takes the second character
    loop.handle("push")           # Ben the first one left
    loop.handle("next")           # Cy: play without characters
    assert [p.character for p in table.state.players] == ["Chris Cringle", "Chris Pine Tree", None]
    assert screen.screens[-1].kind == "scoreboard"


def test_seven_bells_wins_at_once_and_next_starts_a_new_game(table):
    loop, screen = make_loop(table)
    loop.on_read(roll_of(["BELL"] * 7))
    assert table.state.is_over and table.state.winners == ("Ann",)
    assert any(s.sound == "seven-bells" for s in screen.statuses)
    loop.on_read(roll_of(FIRST))  # the game is over: reads change nothing
    assert table.state.is_over
    loop.handle("next")
    assert loop.table is not table and loop.table.state.roll_number == 0 and not loop.table.state.is_over
    assert loop.table.session.setup_options == table.session.setup_options
    infos = {info.id: info for info in table.store.list()}
    assert infos[table.id].closed is not None and infos[loop.table.id].closed is None


def test_align_faces_keeps_unchanged_dice_in_place():
    before = ["MILK", "BELL", "LIST", "GIFT"]
    after = ["GIFT", "COOKIE", "BELL", "MILK"]
    faces, conf = align_faces(before, after, [0.1, 0.2, 0.3, 0.4])
    assert faces == ["MILK", "BELL", "COOKIE", "GIFT"] and conf == [0.4, 0.3, 0.2, 0.1]


# -- frames and the camera ------------------------------------------------------------------

class FlakyCamera:
    """Frames for the loop: 'moving' twice, then a settled read; raises when told to."""

    def __init__(self, script):
        self.script = list(script)

    def read(self):
        item = self.script.pop(0) if self.script else (STILL, None)
        if isinstance(item, Exception):
            raise item
        return item

    def close(self):
        pass


def test_motion_light_and_a_read_from_frames(table):
    camera = FlakyCamera([(SETTLING, None), (SETTLED, roll_of(FIRST)), (STILL, None)])
    loop, screen = make_loop(table, watcher=lambda frame: frame, open_camera=lambda: camera)
    loop.step()
    assert screen.statuses[-1].light == MOVING
    loop.step()
    assert table.state.roll_number == 1 and screen.statuses[-1].light == READ_OK


def test_no_camera_retries_with_backoff_and_recovers(table):
    clock = Clock()
    attempts = []
    camera = FlakyCamera([(SETTLED, roll_of(FIRST))])

    def open_camera():
        attempts.append(clock.now)
        if len(attempts) < 4:
            raise OSError("no camera on /dev/video0")
        return camera

    loop, screen = make_loop(table, watcher=lambda frame: frame, open_camera=open_camera, clock=clock,
                             retry_first=1.0, retry_max=3.0)
    for _ in range(100):
        loop.step()
        clock.now += 0.25
    assert attempts == [0.0, 1.0, 3.0, 6.0]  # waits 1, 2, then at most 3 s
    faults = [s for s in screen.screens if s.kind == "fault"]
    assert faults and faults[0].title == "No camera" and "retrying in 1 s" in faults[0].lines
    assert any(s.light == FAULT for s in screen.statuses)
    assert table.state.roll_number == 1  # the camera came back and the roll was read
    assert screen.statuses[-1].light != FAULT


def test_camera_lost_mid_game_is_a_fault_not_a_crash(table):
    from vision.sources import CameraError
    cameras = [FlakyCamera([(STILL, None), CameraError("camera stopped sending frames")]),
               FlakyCamera([(SETTLED, roll_of(FIRST))])]
    clock = Clock()
    loop, screen = make_loop(table, watcher=lambda frame: frame, open_camera=lambda: cameras.pop(0), clock=clock)
    loop.step()
    loop.step()
    assert screen.screens[-1].title == "Camera lost" and screen.statuses[-1].light == FAULT
    loop.handle("undo")  # buttons still work while the camera is away (nothing to undo: an error screen)
    clock.now += 1.0
    loop.step()
    assert table.state.roll_number == 1


def test_shutdown_puts_the_display_to_sleep_and_lights_off(table):
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.request_stop()
    loop.run(frame_interval=0)
    assert screen.screens[-1].kind == "sleep" and screen.statuses[-1].light == OFF
    assert screen.statuses[-1].bar == 0 and screen.closed
    loop.shutdown()  # twice is fine


def test_a_presenter_that_fails_does_not_stop_the_game(table):
    class Broken(RecordingPresenter):
        def show(self, screen):
            raise OSError("display unplugged")

    loop = TableLoop(table, presenters=[Broken()], ask_setup=False)
    loop.start()
    loop.on_read(roll_of(FIRST))
    assert table.state.roll_number == 1


def test_waiting_light_before_the_first_roll(table):
    _, screen = make_loop(table)
    assert screen.statuses[-1].light == WAITING and screen.screens[-1].kind == "scoreboard"


def test_the_loop_resumes_a_stored_game(tmp_path):
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(GAME, {"players": ["Ann", "Ben"]})
        loop, _ = make_loop(table)
        loop.on_read(roll_of(FIRST, unsure={1}))
        loop.handle("push")
        state = table.state
    with SessionStore(tmp_path / "s.db") as store:
        again = store.open(store.latest(), get_game)
        assert again.state == state
        assert kinds(again) == [("event", "roll")]
        journal = len(again.entries)
        loop, screen = make_loop(again)
        assert screen.screens[-1].kind == "roll"
        assert len(again.entries) == journal   # opening it wrote nothing


def test_a_reader_that_crashes_on_one_picture_does_not_end_the_game(table):
    def watcher(frame):
        if frame == "bad":
            raise ValueError("empty frame")
        return frame

    camera = FlakyCamera(["bad", (SETTLED, roll_of(FIRST))])
    loop, screen = make_loop(table, watcher=watcher, open_camera=lambda: camera)
    loop.step()
    assert screen.screens[-1].title == "Could not read the dice"
    loop.step()
    assert table.state.roll_number == 1


def test_re_rolling_one_die_with_a_character_ability(tmp_path):
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(GAME, {"players": ["Ann", "Ben"], "characters": {"Ann": "Frosty"}})
        loop, screen = make_loop(table)
        loop.on_read(roll_of(FIRST))
        loop.handle("push")  # the knob's menu
        labels = loop.menu.labels()
        target = labels.index("Re-roll one die with Frosty")
        for _ in range(target):
            loop.handle("right")
        loop.handle("push")
        assert screen.screens[-1].title == "Re-roll one die"
        after = ["GIFT" if f == "MILK" else f for f in FIRST]  # the MILK came up GIFT
        loop.on_read(roll_of(after))
        assert last_event(table)["type"] == "reroll" and last_event(table)["with"] == "Frosty"
        assert table.state.roll_number == 1 and table.state.turn.ability_used
        assert sorted(table.state.faces) == sorted(after)


def choose_face(loop, face):
    target = [item.value for item in loop.menu.items].index(face)
    for _ in range(target - loop.menu.highlight):
        loop.handle("right")
    loop.handle("push")


@contextlib.contextmanager
def frosty_reroll_announced(tmp_path):
    """Ann (Frosty) has rolled FIRST and announced Frosty's re-roll from the knob's menu."""
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(GAME, {"players": ["Ann", "Ben"], "characters": {"Ann": "Frosty"}})
        loop, screen = make_loop(table)
        loop.on_read(roll_of(FIRST))
        loop.handle("push")
        choose_face(loop, reroll_event(loop, "Frosty"))
        yield table, loop, screen


def test_dice_the_camera_missed_are_entered_with_the_knob(table):
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST[:5], unsure={1}))  # two dice not seen, one seen but unsure
    assert screen.screens[-1].title == "I see 5 dice" and "push the knob" in " ".join(screen.screens[-1].lines)
    loop.handle("push")
    assert loop.pending.by_hand and loop.pending.flagged == [1, 5, 6]  # the sure ones are not asked
    assert screen.screens[-1].title == "Check die 2"
    choose_face(loop, FIRST[1])
    assert screen.screens[-1].title == "Die 6: which face?"
    for face in FIRST[5:]:
        choose_face(loop, face)
    assert sorted(table.state.faces) == sorted(FIRST)
    assert kinds(table) == [("note", "typed-roll"), ("event", "roll")]


def test_a_refused_read_can_be_entered_with_the_knob(table):
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST))
    misread_bell = ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "GIFT"]  # the BELL read as GIFT
    loop.on_read(roll_of(misread_bell))
    assert screen.screens[-1].title == "Roll refused"
    loop.handle("push")
    truth = ["MILK", "COOKIE", "LIST", "LIST", "GIFT", "GIFT", "BELL"]  # the STOCKING was re-rolled
    for face in truth:
        choose_face(loop, face)
    assert table.state.roll_number == 2 and sorted(table.state.faces) == sorted(truth)


def test_an_announced_re_roll_is_dropped_when_the_player_scores_instead(tmp_path):
    with frosty_reroll_announced(tmp_path) as (table, loop, _):
        assert reroll_with(loop) == "Frosty"
        loop.handle("score")
        while loop.wizard is not None:
            loop.handle("push")
        assert table.state.current_player == "Ben"
        loop.on_read(roll_of(FIRST))  # Ben's first roll is a roll, not Ann's re-roll
        assert last_event(table)["type"] == "roll" and table.state.roll_number == 1


def test_too_many_dice_asks_about_every_die(table):
    loop, _ = make_loop(table)
    loop.on_read(roll_of(FIRST + ["GIFT"]))  # something on the tray that is not a die
    loop.handle("push")
    assert loop.pending.flagged == list(range(7))
    for face in FIRST:
        choose_face(loop, face)
    assert sorted(table.state.faces) == sorted(FIRST)


class LightCamera(FlakyCamera):
    def adjust_exposure(self, factor):
        return True


def test_the_camera_can_follow_the_light_and_a_light_it_cannot_follow_is_shown_once(table):
    class Watcher:
        light_warning = None
        adjust_exposure = None

        def __call__(self, frame):
            return frame

    watcher = Watcher()
    camera = LightCamera([(STILL, None)] * 5)
    loop, screen = make_loop(table, watcher=watcher, open_camera=lambda: camera)
    loop.step()
    assert watcher.adjust_exposure == camera.adjust_exposure   # the watcher may change the exposure
    watcher.light_warning = "The light on the tray is 1.4 times what it was at calibration"
    loop.step()
    loop.step()
    errors = [s for s in screen.screens if s.kind == "error"]
    assert len(errors) == 1 and errors[0].title == "Light changed" and "1.4 times" in errors[0].lines[0]


def test_undo_on_a_character_menu_takes_back_the_previous_answer(table):
    """Undo while Cy is asked for a character takes back Ben's card and asks Ben again; before,
    it closed the menu and the game waited for ever (every roll ignored, nothing reopened it)."""
    screen = RecordingPresenter()
    loop = TableLoop(table, presenters=[screen])
    loop.start()
    loop.handle("push")                       # Ann: Chris Pine Tree
    loop.handle("right")
    loop.handle("push")                       # Ben: the second card left
    assert screen.screens[-1].title == "Cy: choose a character"
    loop.handle("undo")
    assert screen.screens[-1].title == "Ben: choose a character"
    assert [p.character for p in table.state.players] == ["Chris Pine Tree", None, None]
    loop.handle("undo")
    assert screen.screens[-1].title == "Ann: choose a character"
    assert [p.character for p in table.state.players] == [None, None, None]
    loop.handle("undo")                       # nothing before Ann: she is still asked
    assert screen.screens[-1].title == "Ann: choose a character"
    loop.handle("push")
    loop.handle("push")
    loop.handle("next")                       # Cy plays without
    loop.on_read(roll_of(FIRST))
    assert table.state.roll_number == 1


def test_undo_of_a_character_choice_after_setup_asks_again(table):
    screen = RecordingPresenter()
    loop = TableLoop(table, presenters=[screen])
    loop.start()
    loop.handle("push")                       # Ann
    loop.handle("next")                       # Ben and Cy: no more character cards
    assert screen.screens[-1].kind == "scoreboard"
    loop.handle("undo")                       # takes back Ann's card: Ann is asked again
    assert table.state.players[0].character is None
    assert screen.screens[-1].title == "Ann: choose a character"
    loop.handle("push")
    loop.handle("next")
    loop.on_read(roll_of(FIRST))
    assert table.state.roll_number == 1


def test_dice_read_again_while_a_die_is_checked_do_not_become_a_roll_behind_it(table):
    """The dice settle again while "Check die 2" waits (a hand nudged them): before, a sure read
    was played as roll 1 under the old check, and confirming the check then played the old
    read as roll 2. The check stands until it is answered (or Undo drops it), as in the fate game."""
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST, unsure={1}))
    assert screen.screens[-1].title == "Check die 2"
    other = ["GIFT", "GIFT", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]
    loop.on_read(roll_of(other))
    assert table.state.roll_number == 0 and screen.screens[-1].title == "Check die 2"
    loop.handle("push")
    assert table.state.roll_number == 1 and sorted(table.state.faces) == sorted(FIRST)
    assert kinds(table) == [("event", "roll")]


def test_an_announced_re_roll_can_be_called_off_with_next_or_undo(tmp_path):
    """Before, Next on "Re-roll one die" showed "next: Roll 2 of 3" but the next throw was still
    taken as the re-roll (refused: "Frosty re-rolls one die, but 4 dice changed", again and
    again), and Undo took back the roll itself."""
    with frosty_reroll_announced(tmp_path) as (table, loop, screen):
        assert screen.screens[-1].title == "Re-roll one die"
        loop.handle("undo")                    # calls the re-roll off; the roll stands
        assert reroll_with(loop) is None and table.state.roll_number == 1
        loop.handle("push")
        choose_face(loop, reroll_event(loop, "Frosty"))
        second = ["GIFT", "GIFT", "GIFT", "LIST", "STOCKING", "GIFT", "BELL"]
        loop.on_read(roll_of(second))          # all dice thrown: refused as a re-roll
        assert screen.screens[-1].title == "Roll refused"
        loop.handle("next")                    # puts the error away: the re-roll is still asked for
        assert screen.screens[-1].title == "Re-roll one die"
        loop.handle("next")                    # no re-roll after all
        assert reroll_with(loop) is None and screen.screens[-1].kind == "roll"
        loop.on_read(roll_of(second))
        assert last_event(table)["type"] == "roll" and table.state.roll_number == 2


def test_dice_wanted_asks_for_a_throw_only_when_the_game_expects_one(tmp_path):
    """What `run`'s synthetic camera is told to throw: all 7 dice for a turn's first roll, then
    all but the BELLS, which stay standing (the rules refuse a BELL re-rolled); for Frosty's
    re-roll one MILK, the other six standing; nothing while a character is chosen, a die is
    checked, the knob's menu is open, or the turn's three rolls are used (press Score)."""
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(GAME, {"players": ["Ann", "Ben"]})
        choosing = TableLoop(table, presenters=[], ask_setup=True)
        choosing.start()
        assert choosing.menu is not None and choosing.dice_wanted() == Throw(0)   # Ann: choose a character
        table = store.create(GAME, {"players": ["Ann", "Ben"], "characters": {"Ann": "Frosty"}})
        loop, _ = make_loop(table)
        assert loop.dice_wanted() == Throw(7)
        loop.on_read(roll_of(FIRST, unsure={2}))
        assert loop.pending is not None and loop.dice_wanted() == Throw(0)         # "Check die 3"
        loop.handle("next")
        assert table.state.roll_number == 1 and loop.dice_wanted() == Throw(6, keep=("BELL",))
        loop.handle("push")
        assert loop.menu is not None and loop.dice_wanted() == Throw(0)
        choose_face(loop, reroll_event(loop, "Frosty"))
        assert reroll_with(loop) == "Frosty"
        assert loop.dice_wanted() == Throw(1, keep=("COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"))
        second = ["GIFT" if f == "MILK" else f for f in FIRST]
        loop.on_read(roll_of(second))
        assert table.state.turn.ability_used and loop.dice_wanted() == Throw(6, keep=("BELL",))
        for faces in (["COOKIE" if f == "GIFT" else f for f in second], ["BELL" if f == "LIST" else f for f in second]):
            loop.on_read(roll_of(faces))
        assert table.state.roll_number == 3 and loop.dice_wanted() == Throw(0)     # press Score
        loop.handle("score")
        assert loop.wizard is not None and loop.dice_wanted() == Throw(0)


def test_dice_wanted_keeps_every_bell_standing_and_a_reroll_picks_a_face_it_may_take(tmp_path):
    """Three BELLS after the first roll: the next roll throws four dice, the BELLS standing.
    A re-roll whose face is not on the table (Frosty without a MILK) asks for nothing; one
    that may take any die (Rockin' Around) picks one that is not a BELL."""
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(GAME, {"players": ["Ann", "Ben"], "characters": {"Ann": "Frosty"}})
        loop, _ = make_loop(table)
        bells = ["BELL", "GIFT", "BELL", "LIST", "BELL", "COOKIE", "GIFT"]
        loop.on_read(roll_of(bells))
        assert loop.dice_wanted() == Throw(4, keep=("BELL", "BELL", "BELL"))
        announce(loop, "Frosty")
        assert loop.dice_wanted() == Throw(0)                # no MILK to re-roll
        announce(loop, "Rockin' Around")
        assert table.state.player.hand == 1
        assert loop.dice_wanted() == Throw(1, keep=("BELL", "BELL", "LIST", "BELL", "COOKIE", "GIFT"))


def test_a_die_corrected_while_scoring_restarts_the_wizard_on_the_corrected_dice(table):
    """face:N:NAME with the score wizard open corrects the roll and asks again from the start;
    before, the wizard went on scoring the dice as first read (one GIFT: one gift card to deal)."""
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.handle("score")
    loop.handle("push")                         # no gift card
    assert screen.screens[-1].title == "GIFT 1 of 1: gift card to"
    stocking = list(table.state.faces).index("STOCKING")
    loop.handle(f"face:{stocking + 1}:GIFT")    # that STOCKING was a GIFT
    assert table.state.faces.count("GIFT") == 2
    assert screen.screens[-1].title.startswith("Gift cards played")  # asked again from the start
    loop.handle("push")                         # no gift card
    assert screen.screens[-1].title == "GIFT 1 of 2: gift card to"
    while loop.wizard is not None:
        loop.handle("push")
    assert table.state.history[-1].points == 4 + 7 + 4      # a pair, two LISTS, two GIFTS (not 14)


def test_a_kept_same_read_is_dropped_once_an_event_is_stored(table):
    """Ann's dice read again unchanged (a hand passed), then Ann scores: Next on Ben's screen
    goes on (a scoreboard) and does not play Ann's dice as Ben's first roll, as it did before."""
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.on_read(roll_of(FIRST))                # the same dice: kept for Next
    loop.handle("score")
    while loop.wizard is not None:
        loop.handle("push")
    assert table.state.current_player == "Ben" and table.state.roll_number == 0
    loop.handle("next")
    assert table.state.roll_number == 0 and kinds(table)[-1] == ("event", "score")
    assert screen.screens[-1].kind == "scoreboard"


def test_a_kept_same_read_is_dropped_when_the_roll_is_undone(table):
    loop, _ = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.on_read(roll_of(FIRST))
    loop.handle("undo")                         # takes back the roll
    loop.handle("next")
    assert table.state.roll_number == 0


def test_a_kept_same_read_is_dropped_when_a_die_is_corrected(table):
    loop, _ = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.on_read(roll_of(FIRST))
    stocking = list(table.state.faces).index("STOCKING")
    loop.handle(f"face:{stocking + 1}:GIFT")    # the roll is played again, corrected
    loop.handle("next")
    assert table.state.roll_number == 1 and table.state.faces.count("GIFT") == 2


def test_the_same_dice_read_during_an_announced_re_roll_do_not_spend_it(tmp_path):
    """A hand passes over the tray while Frosty's re-roll is awaited: the same dice are read
    again. Before, they were played as the re-roll (Frosty spent, nothing re-rolled). Now they
    are kept like any same read: Next says the die came up the same, Undo calls the re-roll off."""
    with frosty_reroll_announced(tmp_path) as (table, loop, screen):
        loop.on_read(roll_of(FIRST))                # a hand passed: the same dice
        assert not table.state.turn.ability_used and kinds(table)[-1] == ("event", "roll")
        assert reroll_with(loop) == "Frosty" and screen.screens[-1].title == "Re-roll one die"
        after = ["GIFT" if f == "MILK" else f for f in FIRST]
        loop.on_read(roll_of(after))                # the MILK re-rolled
        assert last_event(table)["type"] == "reroll" and table.state.turn.ability_used
        assert sorted(table.state.faces) == sorted(after)


def test_next_on_the_same_dice_during_an_announced_re_roll_plays_the_re_roll(tmp_path):
    with frosty_reroll_announced(tmp_path) as (table, loop, screen):
        loop.on_read(roll_of(FIRST))
        assert "Next" in " ".join(screen.screens[-1].lines)
        loop.handle("next")                         # the MILK was re-rolled and came up MILK again
        assert last_event(table)["type"] == "reroll" and table.state.turn.ability_used
        assert reroll_with(loop) is None and table.state.roll_number == 1


def test_undo_on_the_same_dice_during_an_announced_re_roll_calls_it_off_unspent(tmp_path):
    with frosty_reroll_announced(tmp_path) as (table, loop, screen):
        loop.on_read(roll_of(FIRST))
        loop.handle("undo")                         # no re-roll after all
        loop.handle("next")                         # and the kept read went with it
        assert reroll_with(loop) is None and not table.state.turn.ability_used
        assert kinds(table) == [("event", "roll")] and screen.screens[-1].kind == "roll"


def test_the_score_of_a_turn_stays_on_the_screen_until_next(table):
    """Before, "Ann scores 14" was shown and at once replaced by the scoreboard (an e-ink panel,
    which coalesces its updates, never showed it)."""
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.handle("score")
    while loop.wizard is not None:
        loop.handle("push")
    assert screen.screens[-1].title == "Ann scores 14" and screen.screens[-1].kind == "prompt"
    assert "Next" in screen.screens[-1].footer
    loop.handle("next")                         # puts it away; Ben's turn
    assert screen.screens[-1].kind == "scoreboard" and table.state.current_player == "Ben"
    assert table.state.roll_number == 0
    loop.handle("undo")                         # a second press is an ordinary Undo: the score is taken back
    assert table.state.current_player == "Ann"


def test_rolling_on_while_the_score_of_a_turn_is_shown_reads_the_roll(table):
    loop, _ = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.handle("score")
    while loop.wizard is not None:
        loop.handle("push")
    loop.on_read(roll_of(FIRST))                # Ben rolls straight away
    assert table.state.current_player == "Ben" and table.state.roll_number == 1


# -- --resume continues with the answers given but not yet stored as events ---------------------

def resumed(table, **kw):
    """The loop of `dicewatch run --resume`: the session read back from the database."""
    again = table.store.open(table.id, get_game)
    screen = RecordingPresenter()
    loop = TableLoop(again, presenters=[screen], **kw)
    loop.start()
    return loop, screen


def test_resume_keeps_an_announced_re_roll(tmp_path):
    """Before, the announcement was lost: the re-rolled die was taken as roll 2 of 3."""
    with frosty_reroll_announced(tmp_path) as (table, loop, _):
        loop, screen = resumed(table, ask_setup=False)
        assert reroll_with(loop) == "Frosty" and screen.screens[-1].title == "Re-roll one die"
        loop.on_read(roll_of(["GIFT" if f == "MILK" else f for f in FIRST]))
        assert last_event(loop.table)["type"] == "reroll" and loop.state.roll_number == 1


def test_resume_forgets_a_re_roll_already_played(tmp_path):
    with frosty_reroll_announced(tmp_path) as (table, loop, _):
        loop.on_read(roll_of(["GIFT" if f == "MILK" else f for f in FIRST]))
        loop, screen = resumed(table, ask_setup=False)
        assert reroll_with(loop) is None and screen.screens[-1].kind == "roll"


def test_resume_keeps_the_players_who_chose_no_character_card(table):
    """Before, Ann (no card) was asked again after --resume, and Cy's turn to choose was lost."""
    screen = RecordingPresenter()
    loop = TableLoop(table, presenters=[screen])
    loop.start()
    choose_face(loop, None)                     # Ann: no character card
    loop.handle("push")                         # Ben: the first card
    assert screen.screens[-1].title == "Cy: choose a character"
    loop, screen = resumed(table)
    assert screen.screens[-1].title == "Cy: choose a character"


def test_resume_keeps_next_on_the_character_menu(table):
    screen = RecordingPresenter()
    loop = TableLoop(table, presenters=[screen])
    loop.start()
    loop.handle("push")                         # Ann: the first card
    loop.handle("next")                         # Ben and Cy: play on without
    loop, screen = resumed(table)
    assert loop.plays.setup_done and screen.screens[-1].kind == "scoreboard"


def test_resume_keeps_the_score_wizards_answers(table):
    loop, _ = make_loop(table)
    faces = ["GIFT", "GIFT", "BELL", "BELL", "MILK", "COOKIE", "STOCKING"]
    loop.on_read(roll_of(faces))
    loop.handle("score")
    for _ in range([item.value for item in loop.wizard.menu().items].index("Secret Santa")):
        loop.handle("right")
    loop.handle("push")                         # Secret Santa
    loop.handle("push")                         # no more gift cards
    loop.handle("right")
    loop.handle("push")                         # GIFT 1 of 2: Cy
    loop, screen = resumed(table, ask_setup=False)
    assert loop.wizard is not None and loop.wizard.cards == ["Secret Santa"] and loop.wizard.recipients == ["Cy"]
    assert screen.screens[-1].title == "GIFT 2 of 2: gift card to"


@pytest.mark.parametrize("bad", [
    {"type": "answers", "no_character": 5},
    {"type": "answers", "reroll_with": ["Frosty"]},
    {"type": "answers", "wizard": {"cards": [], "a_later_key": True}},
])
def test_resume_skips_open_answers_it_cannot_read_with_a_warning(tmp_path, caplog, bad):
    """The answers note is a convenience: one this version cannot read (another version's, or
    damaged) is skipped with a warning naming the session and the entry; the game resumes."""
    with SessionStore(tmp_path / "s.db") as store:
        table = store.create(GAME, {"players": ["Ann", "Ben"]})
        loop, _ = make_loop(table)
        loop.on_read(roll_of(FIRST))
        table.note(bad)
        with caplog.at_level("WARNING", logger="host.loop"):
            loop, screen = resumed(table, ask_setup=False)
        assert reroll_with(loop) is None and loop.wizard is None and screen.screens[-1].kind == "roll"
        assert "cannot be taken up" in caplog.text and table.id in caplog.text


def test_an_unsure_die_lying_where_a_die_lay_keeps_the_face_stored_for_it(table):
    """The BELL checked after the first roll stays standing; read unsure again at the same
    place on the second roll (even as another face), it is not asked about again: it has not
    moved. An unsure die at a new place still is (before, every unsure standing die was asked
    about on every roll)."""
    loop, screen = make_loop(table)
    first = ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]
    loop.on_read(roll_at(first, [0, 20, 40, 60, 80, 100, 120], unsure={6}))
    assert loop.pending is not None and loop.pending.flagged == [6]
    loop.handle("next")                                          # yes, a BELL
    assert table.state.faces[6] == "BELL" and loop.pending is None
    second = ["GIFT", "GIFT", "MILK", "COOKIE", "LIST", "STOCKING", "GIFT"]   # the BELL read as a GIFT, unsure
    loop.on_read(roll_at(second, [5, 33, 47, 66, 88, 140, 120], unsure={0, 6}))
    assert loop.pending is not None and [loop.pending.faces[i] for i in loop.pending.flagged] == ["GIFT"]
    loop.handle("next")
    assert table.state.roll_number == 2 and sorted(table.state.faces) == sorted(second[:6] + ["BELL"])


def test_a_die_taken_back_or_moved_is_asked_about_again(table):
    """After Undo nothing is known about where dice lie (the roll taken back said it); a die
    pushed a little has moved, and an unsure read of it is asked about."""
    loop, screen = make_loop(table)
    places = [0, 20, 40, 60, 80, 100, 120]
    loop.on_read(roll_at(["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "GIFT"], places))
    loop.on_read(roll_at(["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"], places))
    loop.handle("undo")                                          # roll 2 taken back: its BELL is not known
    loop.on_read(roll_at(["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "COOKIE", "GIFT"], places, unsure={6}))
    assert loop.pending is not None and [loop.pending.faces[i] for i in loop.pending.flagged] == ["GIFT"]
    loop.handle("next")
    second = ["GIFT", "GIFT", "MILK", "COOKIE", "LIST", "STOCKING", "BELL"]
    loop.on_read(roll_at(second, [5, 33, 47, 66, 88, 140, 126], unsure={6}))   # that die pushed 6 px
    assert loop.pending is not None and [loop.pending.faces[i] for i in loop.pending.flagged] == ["BELL"]


def test_resume_keeps_where_the_dice_lie(table):
    """The BELL checked on the first roll stays standing; after --resume an unsure read of it
    at the same place is still not asked about (before, where dice lay was not journalled)."""
    loop, _ = make_loop(table)
    places = [0, 20, 40, 60, 80, 100, 120]
    loop.on_read(roll_at(["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"], places, unsure={6}))
    loop.handle("next")                                          # yes, a BELL
    loop, _ = resumed(table, ask_setup=False)
    second = ["GIFT", "GIFT", "MILK", "COOKIE", "LIST", "STOCKING", "GIFT"]   # the BELL read as a GIFT, unsure
    loop.on_read(roll_at(second, [5, 33, 47, 66, 88, 140, 120], unsure={6}))
    assert loop.pending is None and table.store.open(table.id, get_game).state.roll_number == 2
    assert sorted(loop.state.faces) == sorted(second[:6] + ["BELL"])


def test_resume_after_undo_does_not_take_up_the_places_of_the_roll_taken_back(table):
    loop, _ = make_loop(table)
    places = [0, 20, 40, 60, 80, 100, 120]
    loop.on_read(roll_at(["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"], places))
    loop.handle("undo")
    loop, _ = resumed(table, ask_setup=False)
    assert loop.known_spots == []


def test_resume_skips_dice_places_it_cannot_read_with_a_warning(table, caplog):
    loop, _ = make_loop(table)
    loop.on_read(roll_of(FIRST))
    table.note({"type": "dice-places", "dice": [[1.0, 2.0, "big", "BELL"]]})
    with caplog.at_level("WARNING", logger="host.loop"):
        loop, screen = resumed(table, ask_setup=False)
    assert loop.known_spots == [] and screen.screens[-1].kind == "roll"
    assert "dice places" in caplog.text and table.id in caplog.text


def test_a_typed_roll_is_stored_with_a_note_of_what_was_typed(table):
    loop, _ = make_loop(table)
    loop.handle("roll:" + ",".join(f.lower() for f in FIRST))
    assert kinds(table) == [("note", "typed-roll"), ("event", "roll")] and list(table.state.faces) == FIRST


def test_a_typed_roll_is_refused_while_the_turn_is_scored_and_nothing_is_noted(table):
    """Before, the typed roll was let go without a word, but its note was journalled."""
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST))
    loop.handle("score")
    before = kinds(table)
    loop.handle("roll:" + ",".join(FIRST))
    assert kinds(table) == before
    assert screen.screens[-1].title == "Not allowed" and "being scored" in screen.screens[-1].lines[0]


def test_a_typed_roll_is_refused_while_a_die_waits_for_its_check(table):
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST, unsure={2}))
    loop.handle("roll:" + ",".join(FIRST))
    assert kinds(table) == [] and "die 3 waits for its check" in screen.screens[-1].lines[0]


def test_score_on_a_check_takes_this_die_as_shown_and_the_others_as_read(table):
    """Three dice unsure: the screen says Score takes the rest as read; the player turns die
    2 to LIST (a correction, noted) and presses Score: dice 4 and 6 are taken as read, with
    one press instead of one each."""
    loop, screen = make_loop(table)
    read = ["MILK", "GIFT", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]
    loop.on_read(roll_of(read, unsure={1, 3, 5}))
    assert screen.screens[-1].title == "Check die 2"
    assert "Score: also dice 4, 6 as read" in screen.screens[-1].lines
    assert [i + 1 for i, die in enumerate(screen.screens[-1].dice) if die.flagged] == [2, 4, 6]
    target = [item.value for item in loop.menu.items].index("COOKIE")
    for _ in range(abs(target - loop.menu.highlight)):
        loop.handle("right" if target > loop.menu.highlight else "left")
    loop.handle("score")
    assert loop.pending is None and table.state.roll_number == 1
    assert list(table.state.faces) == ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]
    assert [e.body for e in table.entries if e.body.get("type") == "correction"] == [
        {"type": "correction", "die": 2, "read": "GIFT", "confidence": 0.4, "face": "COOKIE", "player": "Ann"}]


def test_score_on_the_last_die_to_check_confirms_it_as_push_does(table):
    loop, screen = make_loop(table)
    loop.on_read(roll_of(FIRST, unsure={2}))
    assert not any(line.startswith("Score:") for line in screen.screens[-1].lines)
    loop.handle("score")
    assert loop.pending is None and list(table.state.faces) == FIRST and loop.wizard is None


def test_a_standing_bell_read_unsure_as_another_face_is_proposed_as_a_bell(table):
    """The BELL of roll 1 was nudged (so it is no longer where it lay) and read unsure as a
    GIFT; another die is unsure too. The check proposes BELL for the die nearest where the
    BELL lay, not the GIFT the rules would refuse; confirming it notes the camera's misread.
    Before, Next took the GIFT and the roll was refused."""
    loop, screen = make_loop(table)
    places = [0, 20, 40, 60, 80, 100, 120]
    loop.on_read(roll_at(["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"], places))
    second = ["GIFT", "GIFT", "MILK", "COOKIE", "LIST", "STOCKING", "GIFT"]   # die 7: the BELL, read GIFT
    loop.on_read(roll_at(second, [5, 33, 47, 66, 88, 140, 126], unsure={0, 6}))
    asked = [loop.pending.faces[i] for i in loop.pending.flagged]
    assert sorted(asked) == ["BELL", "GIFT"]
    loop.handle("next")
    loop.handle("next")
    assert table.state.roll_number == 2 and sorted(table.state.faces) == sorted(second[:6] + ["BELL"])
    notes = [e.body for e in table.entries if e.body.get("type") == "correction"]
    assert [(n["read"], n["face"]) for n in notes] == [("GIFT", "BELL")]


def test_standing_proposed_takes_the_unsure_die_nearest_where_the_bell_lay():
    from host.dice_check import standing_proposed
    known = [(0.0, 0.0, 10.0, "BELL"), (50.0, 0.0, 10.0, "BELL"), (100.0, 0.0, 10.0, "MILK")]
    faces = ["BELL", "GIFT", "LIST", "MILK"]
    spots = [(0, 0, 10), (90, 0, 10), (52, 3, 10), (100, 0, 10)]
    got = standing_proposed(faces, [0.99, 0.5, 0.6, 0.99], spots, known, "BELL", 2, 0.9)
    assert got == ["BELL", "GIFT", "BELL", "MILK"]       # die 3 lies where the second BELL lay
    far = [(0, 0, 10), (90, 0, 10), (70, 30, 10), (100, 0, 10)]   # 36 px away: a BELL thrown again
    assert standing_proposed(faces, [0.99, 0.5, 0.6, 0.99], far, known, "BELL", 2, 0.9) == faces
    assert standing_proposed(faces, [0.99, 0.5, 0.6, 0.99], spots, [], "BELL", 2, 0.9) == faces   # nothing known
    assert standing_proposed(faces, [0.99, 0.95, 0.95, 0.99], spots, known, "BELL", 2, 0.9) == faces  # none unsure
    assert standing_proposed(faces, [0.99, 0.5, 0.6, 0.99], spots, known, "BELL", 1, 0.9) == faces    # none missing


def clump_of_eight():
    """The demo's read: three dice touching in the keep area cut into four, the fourth box
    between them (read STOCKING 0.28) lying on the MILK's place."""
    faces = ["BELL", "BELL", "BELL", "MILK", "STOCKING", "COOKIE", "GIFT", "BELL"]
    sure = [0.94, 0.94, 0.97, 0.84, 0.28, 0.95, 0.98, 0.98]
    places = [(457, 132), (441, 186), (475, 219), (431, 229), (443, 217), (458, 292), (151, 325), (289, 306)]
    return Roll(dice=tuple(Die(f, c, x, y, 37.0, 37.0) for f, c, (x, y) in zip(faces, sure, places)),
                dice_set="jingle-bell-roll")


def test_a_find_on_another_dies_place_is_left_out_when_that_makes_the_seven_dice():
    from host.dice_check import crowded_out
    roll = crowded_out(clump_of_eight(), 7)
    assert sorted(roll.faces) == sorted(["BELL", "BELL", "BELL", "MILK", "COOKIE", "GIFT", "BELL"])
    assert "on another die's place" in roll.notes[-1]
    seven = Roll(dice=clump_of_eight().dice[:4] + clump_of_eight().dice[5:], dice_set="jingle-bell-roll")
    close_pair = Roll(dice=seven.dice[:6] + (Die("LIST", 0.4, 440, 240, 37.0, 37.0),), dice_set="jingle-bell-roll")
    assert crowded_out(close_pair, 7) is close_pair      # the count is right: two close finds are both asked
    spread = roll_of(FIRST + ["GIFT"])
    assert crowded_out(spread, 7) is spread              # eight dice apart: which is not a die is asked


def test_the_loop_reads_a_clump_cut_into_four_as_the_seven_dice(table):
    """Before, "I see 8 dice", and the player entered all seven with the knob."""
    loop, screen = make_loop(table)
    loop.on_read(clump_of_eight())
    assert screen.screens[-1].title == "Check die 4"     # the unsure MILK, as with any read
    loop.handle("next")
    assert table.state.roll_number == 1 and sorted(table.state.faces) == sorted(
        ["BELL", "BELL", "BELL", "MILK", "COOKIE", "GIFT", "BELL"])
