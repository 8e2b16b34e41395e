"""Making Christmas: a test per rule (seeds/making-christmas.md names the rulebook sections)."""
from __future__ import annotations

import pytest

from rules import get_game
from rules import making_christmas as mc
from rules.core import PUBLIC, RuleError, Session

GAME = mc.GAME
TEDDY = ["teddy-left", "teddy-right"]


def fresh(players=("Ann", "Ben"), **options) -> Session:
    return Session(GAME, {"players": list(players), **options})


def entered(bench, goals=("vampire-teddy", "jack-in-the-box", "any-down"), **options) -> Session:
    """A session whose three goals and nine workbench parts were entered (bench: 9 part names)."""
    session = fresh(**options)
    for slot, goal in enumerate(goals):
        session.play({"type": "goal", "slot": slot, "goal": goal})
    for space, part in enumerate(bench):
        session.play({"type": "lay", "space": space, "part": part})
    return session


# a workbench with no toy on it: every part the left/top half of its toy, in columns of its own
NO_TOY = ["teddy-left", "duck-left", "jack-top", "doll-top", "teddy-left", "duck-left", "jack-top", "duck-left",
          "teddy-left"]


def cards(state: mc.State) -> int:
    on_bench = sum(part is not None for part in state.bench)
    return on_bench + sum(map(len, state.hands)) + state.deck + state.discard


def goal_cards(state: mc.State) -> int:
    return sum(g is not None for g in state.goal_slots) + state.goal_deck + sum(state.points)


# -- setup [Set Up] ----------------------------------------------------------------------------

def test_setup_lays_nine_parts_three_goals_and_two_secret_parts_each():
    state = fresh(("Ann", "Ben", "Cat")).state
    assert state.bench == ("?",) * 9 and state.goal_slots == ("?",) * 3
    assert state.hands == (("?", "?"),) * 3
    assert state.deck == 40 - 9 - 6 and state.goal_deck == 17 and state.goals_in_game == 20


def test_the_short_game_plays_without_three_goals():
    state = fresh(short=True).state
    assert state.goals_in_game == 17 and state.goal_deck == 14


def test_the_game_is_listed_and_checks_its_options():
    assert get_game("making-christmas") is GAME
    with pytest.raises(RuleError):
        fresh(("Ann",))
    with pytest.raises(RuleError):
        fresh(colour="red")
    with pytest.raises(RuleError):
        fresh(parts={"teddy-left": 3})
    assert GAME.read_options({"short": True})["short"] is True


def test_the_goals_and_the_workbench_are_entered_before_the_first_turn():
    session = fresh()
    with pytest.raises(RuleError, match="slot 1"):
        session.play({"type": "swap", "spaces": [0, 1]})
    for slot in range(3):
        session.play({"type": "goal", "slot": slot, "goal": "vampire-teddy"})
    with pytest.raises(RuleError, match="a1"):
        session.play({"type": "swap", "spaces": [0, 1]})
    assert {e["type"] for e in GAME.legal_events(session.state)} == {"lay", "hold"}


def test_no_more_goal_cards_than_the_mix_holds():
    session = fresh(goals={**mc.DEFAULT_GOALS, "any-down": 1})
    session.play({"type": "goal", "slot": 0, "goal": "any-down"})
    with pytest.raises(RuleError, match="out already"):
        session.play({"type": "goal", "slot": 1, "goal": "any-down"})


# -- the swap [On Your Turn 1] -----------------------------------------------------------------------

def test_a_turn_starts_with_one_swap_of_two_workbench_parts():
    session = entered(NO_TOY)
    with pytest.raises(RuleError, match="swaps two toy parts first"):
        session.play({"type": "end_turn", "exchange": []})
    session.play({"type": "swap", "spaces": [0, 8]})
    assert session.state.bench[0] == "teddy-left" and session.state.step == "goals"
    with pytest.raises(RuleError, match="swapped already"):
        session.play({"type": "swap", "spaces": [0, 1]})


def test_a_swap_with_the_hand_puts_the_hand_card_on_the_workbench():
    session = entered(NO_TOY)
    session.play({"type": "hold", "player": "Ann", "card": 1, "part": "teddy-right"})
    session.play({"type": "swap_hand", "card": 1, "space": 1})
    assert session.state.bench[1] == "teddy-right" and session.state.hands[0] == ("?", "duck-left")


def test_a_part_discarded_from_the_workbench_is_replaced_from_the_deck():
    session = entered(NO_TOY)
    deck = session.state.deck
    session.play({"type": "replace", "space": 4})
    assert session.state.bench[4] == "?" and session.state.discard == 1 and session.state.deck == deck - 1
    with pytest.raises(RuleError, match="e5|b2"):
        session.play({"type": "end_turn", "exchange": []})     # the new part is entered first
    session.play({"type": "lay", "space": 4, "part": "doll-top"})
    session.play({"type": "end_turn", "exchange": []})


# -- goals [On Your Turn 2, Toys] -----------------------------------------------------------------------

def test_vampire_teddy_lies_across_and_completes_its_goal():
    session = entered(NO_TOY)
    session.play({"type": "hold", "player": "Ann", "card": 0, "part": "teddy-right"})
    session.play({"type": "swap_hand", "card": 0, "space": 1})          # teddy-left a1, teddy-right b1
    assert {"type": "complete", "slot": 0, "toy": "vampire-teddy", "spaces": [0, 1]} in GAME.legal_events(session.state)
    session.play({"type": "complete", "slot": 0, "toy": "vampire-teddy", "spaces": [0, 1]})
    state = session.state
    assert state.completed[0] == ("vampire-teddy",) and state.bench[0] is None and state.bench[1] is None
    assert state.goal_slots[0] is None and state.discard == 2


def test_jack_in_the_box_lies_down_not_across():
    bench = list(NO_TOY)
    bench[3] = bench[5] = "jack-bottom"     # jack-top on c1 over jack-bottom on c2; another bottom on a2
    session = entered(bench)
    session.play({"type": "swap", "spaces": [0, 4]})
    with pytest.raises(RuleError, match="above"):
        session.play({"type": "complete", "slot": 1, "toy": "jack-in-the-box", "spaces": [2, 3]})
    session.play({"type": "complete", "slot": 1, "toy": "jack-in-the-box", "spaces": [2, 5]})
    assert session.state.points == (1, 0)


def test_any_vertical_goal_takes_a_nesting_doll_but_never_a_horizontal_toy():
    bench = list(NO_TOY)
    bench[3], bench[6] = "doll-top", "doll-bottom"      # a nesting doll: a2 over a3
    session = entered(bench)
    session.play({"type": "swap", "spaces": [1, 2]})
    with pytest.raises(RuleError, match="takes"):
        session.play({"type": "complete", "slot": 2, "toy": "vampire-teddy", "spaces": [0, 1]})
    session.play({"type": "complete", "slot": 2, "toy": "nesting-doll", "spaces": [3, 6]})
    assert session.state.completed[0] == ("any-down",)


def test_a_claimed_toy_is_checked_against_the_entered_workbench():
    session = entered(NO_TOY)
    session.play({"type": "swap", "spaces": [0, 8]})
    before = session.state
    with pytest.raises(RuleError, match="holds"):
        session.play({"type": "complete", "slot": 0, "toy": "vampire-teddy", "spaces": [0, 1]})
    assert session.state is before


def test_without_entering_the_workbench_the_box_takes_the_players_word():
    session = fresh(enter_workbench=False)
    for slot, goal in enumerate(["zombie-duck", "any-across", "nesting-doll"]):
        session.play({"type": "goal", "slot": slot, "goal": goal})
    session.play({"type": "swap", "spaces": [0, 4]})
    session.play({"type": "complete", "slot": 0, "toy": "zombie-duck", "spaces": [4, 5]})
    assert session.state.points == (1, 0)
    with pytest.raises(RuleError, match="empty"):
        session.play({"type": "complete", "slot": 1, "toy": "zombie-duck", "spaces": [4, 5]})


def test_several_goals_in_one_turn_each_toy_once():
    bench = ["teddy-left", "teddy-right", "jack-top", "teddy-left", "teddy-right", "jack-bottom"] + NO_TOY[6:]
    session = entered(bench, goals=("vampire-teddy", "any-across", "any-down"))
    session.play({"type": "swap", "spaces": [6, 7]})
    session.play({"type": "complete", "slot": 0, "toy": "vampire-teddy", "spaces": [0, 1]})
    with pytest.raises(RuleError, match="empty"):
        session.play({"type": "complete", "slot": 1, "toy": "vampire-teddy", "spaces": [0, 1]})
    session.play({"type": "complete", "slot": 1, "toy": "vampire-teddy", "spaces": [3, 4]})
    session.play({"type": "complete", "slot": 2, "toy": "jack-in-the-box", "spaces": [2, 5]})
    assert session.state.points == (3, 0)


def test_circling_arrows_give_one_extra_swap_never_with_an_empty_space():
    bench = ["teddy-left", "teddy-right", "duck-left", "jack-top", "duck-right", "teddy-left"] + NO_TOY[6:]
    session = entered(bench, goals=("vampire-teddy-arrows", "zombie-duck", "any-down"))
    session.play({"type": "swap", "spaces": [7, 8]})
    session.play({"type": "complete", "slot": 0, "toy": "vampire-teddy", "spaces": [0, 1]})
    assert session.state.bonus_swap
    with pytest.raises(RuleError, match="empty"):
        session.play({"type": "swap", "spaces": [0, 2]})
    with pytest.raises(RuleError, match="deck"):
        session.play({"type": "replace", "space": 2})
    session.play({"type": "swap", "spaces": [2, 3]})          # duck-left on a2, duck-right b2: a duck
    assert not session.state.bonus_swap
    session.play({"type": "complete", "slot": 1, "toy": "zombie-duck", "spaces": [3, 4]})
    with pytest.raises(RuleError, match="swapped already"):
        session.play({"type": "swap", "spaces": [5, 6]})


def test_only_a_player_without_a_goal_may_exchange_hand_cards():
    session = entered(NO_TOY)
    session.play({"type": "swap", "spaces": [0, 8]})
    session.play({"type": "hold", "player": "Ann", "card": 0, "part": "doll-top"})
    deck, discard = session.state.deck, session.state.discard
    session.play({"type": "end_turn", "exchange": [0, 1]})
    state = session.state
    assert state.hands[0] == ("?", "?") and state.deck == deck - 2 and state.discard == discard + 2
    assert state.current_player == "Ben"


def test_a_player_who_completed_a_goal_may_not_exchange():
    session = entered(NO_TOY)
    session.play({"type": "hold", "player": "Ann", "card": 0, "part": "teddy-right"})
    session.play({"type": "swap_hand", "card": 0, "space": 1})
    session.play({"type": "complete", "slot": 0, "toy": "vampire-teddy", "spaces": [0, 1]})
    with pytest.raises(RuleError, match="no goal"):
        session.play({"type": "end_turn", "exchange": [0]})
    assert GAME.legal_events(session.state)[-1] == {"type": "end_turn", "exchange": []}


# -- refill [On Your Turn 3] and the refresh [Note] -------------------------------------------------------

def test_the_workbench_and_goals_refill_left_to_right_top_to_bottom():
    bench = list(NO_TOY)
    bench[4], bench[5] = "jack-top", "teddy-left"
    bench[7] = "jack-bottom"
    session = entered(bench)
    session.play({"type": "swap", "spaces": [0, 1]})
    session.play({"type": "complete", "slot": 1, "toy": "jack-in-the-box", "spaces": [4, 7]})
    session.play({"type": "end_turn", "exchange": []})
    state = session.state
    assert state.bench[4] == "?" and state.bench[7] == "?" and state.goal_slots[1] == "?"
    assert mc.waiting_goal(state) == 1
    session.play({"type": "goal", "slot": 1, "goal": "zombie-duck"})
    assert mc.waiting_space(state) == 4 and mc.status(session.state) == "enter the toy part on b2"


def test_an_empty_deck_is_the_discard_pile_shuffled():
    assert mc._draw(1, 6, 2) == (5, 0)
    assert mc._draw(3, 6, 2) == (1, 6)
    with pytest.raises(RuleError):
        mc._draw(0, 1, 2)


def test_the_refresh_when_every_player_took_a_turn_without_a_goal():
    session = entered(NO_TOY)
    session.play({"type": "swap", "spaces": [0, 8]})
    session.play({"type": "end_turn", "exchange": []})
    assert session.state.quiet_turns == 1 and session.state.bench[0] == "teddy-left"
    session.play({"type": "swap", "spaces": [0, 8]})
    discard = session.state.discard
    session.play({"type": "end_turn", "exchange": []})
    state = session.state
    assert state.bench == ("?",) * 9 and state.discard == discard + 9 and state.quiet_turns == 0
    assert state.refreshes == 1 and state.current_player == "Ann"


# -- the end [End of the Game] ------------------------------------------------------------------------

def play_to_the_end(session: Session, scores) -> Session:
    """Turns in which the current player completes what is open when ``scores(state)``."""
    while not session.state.step == "over":
        events = GAME.legal_events(session.state)
        table = [e for e in events if e["type"] != "hold"]
        if table[0]["type"] in ("goal", "lay"):
            session.play(table[0])
            continue
        if session.state.step == "swap":
            session.play(table[0])
            continue
        completes = [e for e in table if e["type"] == "complete"]
        if completes and scores(session.state):
            session.play(completes[0])
            continue
        session.play({"type": "end_turn", "exchange": []})
    return session


def test_the_last_goal_ends_the_game_and_most_goals_win():
    session = play_to_the_end(_teddy_table(fresh(goals={"vampire-teddy": 6, "any-across": 1})),
                              lambda state: state.current_player == "Ann")
    state = session.state
    assert state.step == "over" and state.points == (7, 0) and state.winners == ("Ann",)
    assert mc.status(state) == "Ann wins with 7 goals"
    with pytest.raises(RuleError, match="over"):
        session.play({"type": "end_turn", "exchange": []})
    assert GAME.legal_events(state) == ()
    public = GAME.to_json(state)
    assert public["players"][0] == {"name": "Ann", "points": 7, "goals": list(state.completed[0]), "hand_cards": 2}
    assert public["winners"] == ["Ann"]


def test_a_tie_means_play_again():
    session = fresh(goals={"vampire-teddy": 6, "any-across": 2})
    state = play_to_the_end(_teddy_table(session), lambda state: state.points[state.player] == min(state.points)).state
    assert state.points == (4, 4) and state.winners == () and state.tied == ("Ann", "Ben")
    assert GAME.to_json(state)["rematch"] is True and "play again" in mc.status(state)


class _TeddyLayer(Session):
    """A session whose players always lay teddies: left halves in column a, right halves in b."""

    def play(self, event):
        if event.get("type") == "lay":
            event = {**event, "part": "teddy-left" if event["space"] % 3 == 0 else "teddy-right"}
        if event.get("type") == "goal":
            event = next(e for e in GAME.legal_events(self.state) if e["type"] == "goal")
        return super().play(event)


def _teddy_table(session: Session) -> Session:
    return _TeddyLayer(GAME, session.setup_options)


# -- secrets ---------------------------------------------------------------------------------------------

def test_a_hand_is_seen_by_its_owner_only():
    session = entered(NO_TOY)
    event = {"type": "hold", "player": "Ann", "card": 0, "part": "teddy-right"}
    session.play(event)
    assert GAME.view(session.state, "Ann")["players"][0]["hand"] == ["teddy-right", "?"]
    for viewer in (PUBLIC, "Ben"):
        shown = GAME.view(session.state, viewer)
        assert "hand" not in shown["players"][0] and "teddy-right" not in str(shown)
        assert "teddy-right" not in str(GAME.event_view(event, viewer))
    assert GAME.event_view(event, "Ann") == event
    assert "teddy-right" not in str(GAME.scoreboard(session.state)) + mc.status(session.state)


def test_the_hand_entries_are_secret_choices_and_the_rest_public():
    state = entered(NO_TOY).state
    for event in GAME.legal_events(state):
        assert (GAME.event_view(event, PUBLIC) != event) == (event["type"] == "hold")


def test_cards_are_conserved_through_a_turn():
    session = entered(NO_TOY)
    session.play({"type": "replace", "space": 0})
    session.play({"type": "lay", "space": 0, "part": "teddy-right"})
    session.play({"type": "end_turn", "exchange": [1]})
    assert cards(session.state) == 40 and goal_cards(session.state) == 20
