"""The knob menus: turning wraps, the score wizard asks only what the camera cannot see."""
from __future__ import annotations

import pytest

from host.games.jingle_bell_roll import ScoreWizard, character_menu, table_menu
from host.menus import DONE, face_menu
from rules import get_game
from rules.core import RuleError, Session
from rules.jingle_bell_roll_cards import CHARACTERS

GAME = get_game("jingle-bell-roll")


def rolled(faces, **setup):
    session = Session(GAME, {"players": ["Ann", "Ben", "Cy"], **setup})
    session.play({"type": "roll", "faces": faces})
    return session


def test_turning_the_knob_wraps_around():
    menu = face_menu(3, "GIFT", 0.42, ["MILK", "COOKIE", "LIST", "STOCKING", "GIFT", "BELL"])
    assert menu.title == "Check die 3" and menu.chosen.value == "GIFT" and "42% sure" in menu.chosen.label
    assert menu.turn(-1).chosen.value == "BELL" and menu.turn(6).chosen.value == "GIFT"


def test_character_menu_leaves_out_characters_already_taken():
    session = Session(GAME, {"players": ["Ann", "Ben"], "characters": {"Ann": "Frosty"}})
    menu = character_menu("Ben", [e for e in GAME.legal_events(session.state) if e["player"] == "Ben"])
    values = [item.value for item in menu.items]
    assert "Frosty" not in values and values[-1] is None and len(values) == len(CHARACTERS)


def test_the_score_wizard_asks_cards_recipients_letter_then_confirms():
    session = rolled(["GIFT", "GIFT", "BELL", "BELL", "MILK", "COOKIE", "STOCKING"])
    wizard = ScoreWizard(session.state)
    assert wizard.menu().kind == "gift-card"
    wizard.choose("Secret Santa")
    assert wizard.menu().context == 0  # Ann held one card and has played it: only "no more" is left
    wizard.choose(DONE)
    assert wizard.menu().title == "GIFT 1 of 2: gift card to"
    wizard.choose("Ben")
    wizard.choose("Ben")  # the same player twice is allowed
    assert wizard.menu().kind == "letter"
    wizard.choose("STOCKING")
    confirm = wizard.menu()
    assert confirm.kind == "confirm" and confirm.title == f"Score {4 + 1 + 4 + 2} points?"
    wizard.choose(DONE)
    assert wizard.menu() is None
    event = wizard.event()
    assert [use["name"] if isinstance(use, dict) else use for use in event["uses"]] == ["Secret Santa"]
    assert event["gift_recipients"] == ["Ben", "Ben"]
    session.play(event)
    assert session.state.players[0].points == 11 and session.state.players[1].hand == 3


def test_back_walks_the_answers_back():
    session = rolled(["GIFT", "GIFT", "BELL", "BELL", "MILK", "COOKIE", "STOCKING"])
    wizard = ScoreWizard(session.state)
    wizard.choose(DONE)
    wizard.choose("Cy")
    assert wizard.back() and wizard.menu().kind == "recipient" and wizard.recipients == []
    assert wizard.back() and wizard.menu().kind == "gift-card"
    assert not wizard.back()


def test_a_card_that_does_not_fit_the_dice_is_refused_with_the_reason():
    session = rolled(["GIFT", "MILK", "BELL", "BELL", "MILK", "COOKIE", "STOCKING"])
    wizard = ScoreWizard(session.state)
    with pytest.raises(RuleError, match="Gingerbread House does not fit these dice: .*three COOKIES"):
        wizard.choose("Gingerbread House")
    assert wizard.cards == []


def test_no_gift_card_question_without_cards_and_no_letter_question_without_stamps():
    session = rolled(["GIFT", "MILK", "LIST", "LIST", "MILK", "COOKIE", "STOCKING"], starting_gift_cards=0)
    wizard = ScoreWizard(session.state)
    assert wizard.menu().kind == "recipient"
    wizard.choose("Ben")
    assert wizard.menu().kind == "confirm"  # no BELL, no stamps: no letter to take


def test_the_table_menu_offers_only_what_the_rules_allow_now():
    session = Session(GAME, {"players": ["Ann", "Ben"], "characters": {"Ann": "Frosty"}})
    before = [item.value for item in table_menu(session.state, GAME.legal_events(session.state)).items]
    score = {"type": "score", "player": "Ann"}
    assert score not in before and "correct" not in before
    session.play({"type": "roll", "faces": ["MILK"] * 6 + ["BELL"]})
    after = [item.value for item in table_menu(session.state, GAME.legal_events(session.state)).items]
    assert score in after and {"type": "reroll", "player": "Ann", "with": "Frosty"} in after


def test_a_card_that_scores_after_the_characters_change_is_accepted():
    """Two COOKIES and a GIFT: Santa Claus (1) turns the GIFT into the third COOKIE that
    Gingerbread House needs. Before, the card was refused on the dice as first read."""
    session = rolled(["COOKIE", "COOKIE", "GIFT", "STOCKING", "STOCKING", "LIST", "BELL"],
                     characters={"Ann": "Santa Claus (1)"})
    wizard = ScoreWizard(session.state)
    wizard.choose("Gingerbread House")
    assert wizard.cards == ["Gingerbread House"]
    wizard.choose(DONE)
    assert wizard.menu().title == "Score 9 points?"           # 6 for the COOKIES, 3 for the STOCKINGS
    assert [use["name"] for use in wizard.uses()] == ["Santa Claus (1)", "Gingerbread House"]


def test_a_card_that_scores_after_a_double_of_the_character_is_accepted():
    session = rolled(["COOKIE", "COOKIE", "GIFT", "STOCKING", "STOCKING", "LIST", "BELL"],
                     characters={"Ann": "Chris Pine Tree"})
    wizard = ScoreWizard(session.state)
    wizard.choose("Gingerbread House")                         # two COOKIES, one counting twice
    assert wizard.cards == ["Gingerbread House"]


def test_a_card_that_scores_after_a_card_played_before_it_is_accepted():
    """Milk Mustache turns the MILK into a third COOKIE: Gingerbread House then scores, and
    with no MILK left so does Lactose Intolerant."""
    session = rolled(["MILK", "COOKIE", "COOKIE", "STOCKING", "STOCKING", "LIST", "BELL"], starting_gift_cards=3)
    wizard = ScoreWizard(session.state)
    wizard.choose("Milk Mustache")
    wizard.choose("Gingerbread House")
    wizard.choose("Lactose Intolerant")
    assert wizard.cards == ["Milk Mustache", "Gingerbread House", "Lactose Intolerant"]
    wizard.choose(DONE)
    assert wizard.menu().title == f"Score {6 + 3 + 3} points?"


def test_a_card_is_still_refused_when_nothing_played_makes_it_fit():
    session = rolled(["MILK", "COOKIE", "LIST", "STOCKING", "STOCKING", "LIST", "BELL"],
                     characters={"Ann": "Santa Claus (1)"}, starting_gift_cards=2)   # no GIFT to change
    wizard = ScoreWizard(session.state)
    wizard.choose("Milk Mustache")
    with pytest.raises(RuleError, match="Gingerbread House does not fit these dice") as refused:
        wizard.choose("Gingerbread House")                     # at most two COOKIES
    assert wizard.cards == ["Milk Mustache"]
    assert "choose that card first" not in str(refused.value)  # no card left in hand to play before it


def test_a_refused_card_says_another_card_in_hand_could_be_chosen_first():
    """The wizard knows how many cards a player holds, not which: with more in hand, the
    refusal says a card that changes the dice can be chosen first."""
    session = rolled(["MILK", "COOKIE", "LIST", "STOCKING", "STOCKING", "LIST", "BELL"], starting_gift_cards=3)
    wizard = ScoreWizard(session.state)
    with pytest.raises(RuleError, match="if another gift card changes the dice so that it fits, choose that card first"):
        wizard.choose("Gingerbread House")
