"""Two readings the rulebooks leave open (issue 56), each a documented default with an option
(seeds/jingle-bell-roll.md, seeds/christmas-romance.md): Lactose Intolerant with a MILK that
has no COOKIE to pair with, and who takes a Christmas romance card's reward in co-op."""
from __future__ import annotations

from dataclasses import replace

import pytest

from rules import christmas_romance as cr
from rules import get_game
from rules import jingle_bell_roll as jbr
from rules.core import RuleError, Session

S, F2, F3, F4, F5, F6 = cr.FACE_SETS["christmas-romance"]
LACTOSE = jbr.Use(ability=jbr.GIFT_CARDS["Lactose Intolerant"])


def test_lactose_intolerant_with_one_unpaired_milk_follows_the_option():
    faces = ["MILK", "LIST", "LIST", "STOCKING", "GIFT", "BELL", "BELL"]
    with pytest.raises(RuleError, match="Lactose Intolerant would score nothing"):
        jbr.score_roll(faces, [LACTOSE])                                        # default "any"
    paired = jbr.score_roll(faces, [LACTOSE], jbr.make_rules({"lactose_intolerant_milk": "paired"}))
    assert ("Lactose Intolerant", 3) in paired.breakdown
    with pytest.raises(RuleError, match="MILK & COOKIE pair|would score nothing"):  # a scoring MILK: never
        jbr.score_roll(["MILK", "COOKIE"] + faces[1:6], [LACTOSE], jbr.make_rules({"lactose_intolerant_milk": "paired"}))
    with pytest.raises(RuleError, match='"lactose_intolerant_milk" must be one of any, paired'):
        jbr.make_rules({"lactose_intolerant_milk": "maybe"})


def test_the_lactose_reading_is_a_config_key_checked_with_its_choices():
    values = get_game("jingle-bell-roll").read_options({"lactose_intolerant_milk": "paired"})
    assert values["lactose_intolerant_milk"] == "paired"
    with pytest.raises(RuleError, match="lactose_intolerant_milk"):
        get_game("jingle-bell-roll").read_options({"lactose_intolerant_milk": "paird"})


def coop_card_completed(**options) -> Session:
    s = Session(cr.GAME, {"mode": "coop", "players": ["Ann", "Al"], **options})
    card = replace(s.state.romances[0], placed=((F2, None),) * 3, reward=2)
    s._states[-1] = replace(s.state, romances=(card,) + s.state.romances[1:])
    s.play({"type": "declare", "defer": 0, "release": False})
    s.play({"type": "roll", "faces": [F2, F3, F4]})
    s.play({"type": "place", "card": "romance", "faces": [F3]})
    assert s.state.sides[0].romance is not None
    return s


def test_who_takes_a_romance_cards_reward_in_coop_follows_the_option():
    assert coop_card_completed().state.sides[0].deferred == 0                  # default: nobody
    assert coop_card_completed(coop_reward="couple").state.sides[0].deferred == 2
    with pytest.raises(RuleError, match='"coop_reward": only for the coop mode'):
        Session(cr.GAME, {"mode": "multiplayer", "players": ["Ann", "Ben"], "coop_reward": "couple"})
    with pytest.raises(RuleError, match="coop_reward"):
        get_game("christmas-romance").read_options({"coop_reward": "everyone"})


def test_both_readings_are_named_as_assumptions_in_the_digests():
    from host.paths import PROJECT_ROOT
    jingle = (PROJECT_ROOT / "seeds" / "jingle-bell-roll.md").read_text()
    romance = (PROJECT_ROOT / "seeds" / "christmas-romance.md").read_text()
    assert "lactose_intolerant_milk" in jingle and "coop_reward" in romance
    data = (PROJECT_ROOT / "rules" / "data" / "jingle-bell-roll.toml").read_text()
    assert 'lactose_intolerant_milk = "any"' in data
