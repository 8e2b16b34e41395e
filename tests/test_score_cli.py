"""`dicewatch score`: the roll calculator players use at the table."""
from __future__ import annotations

import json

import pytest

from host import cli

TURN_EXAMPLE = "MILK,COOKIE,LIST,LIST,LIST,BELL,BELL"


def score(capsys, *args):
    code = cli.main(["score", "jingle-bell-roll", *args])
    out, err = capsys.readouterr()
    return code, out, err


def score_json(capsys, *args):
    code, out, err = score(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_the_rulebook_turn_example_scores_13_with_nice_list(capsys):
    code, out, _ = score(capsys, "--dice", TURN_EXAMPLE, "--cards", "Nice List")
    assert code == 0
    assert "Play: Nice List (LIST -> GIFT)" in out
    total = next(line for line in out.splitlines() if line.strip().startswith("total"))
    assert total.split() == ["total", "13"]
    assert "Deal 1 gift card" in out and "2-stamp stack" in out
    data = score_json(capsys, "--dice", TURN_EXAMPLE, "--cards", "Nice List")
    assert {"points", "breakdown", "uses", "gift_cards_to_deal", "stamps", "instant_win"} <= set(data)
    assert data["points"] == 13 and data["gift_cards_to_deal"] == 1 and data["stamps"] == 2
    assert data["uses"] == [{"name": "Nice List", "kind": "gift card", "from": "LIST", "to": "GIFT"}]
    assert not data["instant_win"]


def test_without_the_card_three_lists_bust(capsys):
    data = score_json(capsys, "--dice", TURN_EXAMPLE)
    assert data["points"] == 4 and data["uses"] == []


def test_best_choice_among_character_and_cards(capsys):
    data = score_json(capsys, "--dice", "GIFT,COOKIE,LIST,LIST,LIST,BELL,BELL", "--character", "santa claus (1)",
                      "--cards", "Nice List,Secret Santa,Lady Luck")
    # Santa Claus (1) makes the GIFT a MILK (pair 4), Nice List a LIST into a GIFT (7 + 2),
    # Secret Santa +1, Lady Luck +2: 16
    assert data["points"] == 16
    names = [u["name"] for u in data["uses"]]
    assert set(names) == {"Santa Claus (1)", "Nice List", "Secret Santa", "Lady Luck"}


def test_letters_add_their_faces(capsys):
    data = score_json(capsys, "--dice", "STOCKING,MILK,MILK,MILK,MILK,MILK,MILK", "--letters", "stocking,REROLL")
    assert data["points"] == 3


def test_seven_bells(capsys):
    data = score_json(capsys, "--dice", ",".join(["BELL"] * 7))
    assert data["instant_win"] is True
    code, out, _ = score(capsys, "--dice", ",".join(["BELL"] * 7))
    assert "win the game at once" in out


def test_zero_score_says_draw_two(capsys):
    code, out, _ = score(capsys, "--dice", "MILK,MILK,MILK,LIST,LIST,LIST,BELL")
    assert "draw two gift cards and keep one" in out
    assert score_json(capsys, "--dice", "MILK,MILK,MILK,LIST,LIST,LIST,BELL")["zero_score_draw"] is True
    # ...and only then: not for a roll that scores, nor for seven BELLs (0 points, but a win)
    code, out, _ = score(capsys, "--dice", TURN_EXAMPLE)
    assert code == 0 and "draw two gift cards" not in out
    assert score_json(capsys, "--dice", TURN_EXAMPLE)["zero_score_draw"] is False
    assert score_json(capsys, "--dice", ",".join(["BELL"] * 7))["zero_score_draw"] is False


def test_config_overrides_the_score_chart(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[jingle-bell-roll]\ngift_points = [5, 9]\n')
    data = score_json(capsys, "--dice", "GIFT,GIFT,GIFT,BELL,BELL,BELL,BELL", "--config", str(config))
    assert data["points"] == 13


def test_the_default_config_file_in_dicewatch_home_is_used(capsys, dicewatch_home):
    (dicewatch_home / "config.toml").write_text('[jingle-bell-roll]\nstocking_points = [10]\n')
    assert score_json(capsys, "--dice", "STOCKING,BELL,BELL,BELL,BELL,BELL,BELL")["points"] == 10


@pytest.mark.parametrize("text, message", [
    ('[jingle-bell-roll]\ngift_points = "lots"\n', "config.toml:2: [jingle-bell-roll] \"gift_points\" must be"),
    ('[jingle-bell-roll]\nrounds = 5\nsnow = 1\n', "config.toml:3: [jingle-bell-roll] unknown key 'snow'"),
    ('[jingle-bell-roll\n', "config.toml:1: not valid TOML"),
])
def test_a_bad_config_file_is_exit_1_with_file_and_line(capsys, tmp_path, text, message):
    config = tmp_path / "config.toml"
    config.write_text(text)
    code, out, err = score(capsys, "--dice", TURN_EXAMPLE, "--config", str(config))
    assert code == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize("args, message", [
    (["--dice", "MILK,COOKIE,LIST,LIST,LIST,BELL,SLEIGH"], "unknown face(s) SLEIGH; faces are MILK, COOKIE"),
    (["--dice", "MILK,COOKIE"], "expected the 7 faces of all dice, got 2"),
    (["--dice", TURN_EXAMPLE, "--character", "Rudolph"], "unknown character 'Rudolph'; valid: Chris Pine Tree"),
    (["--dice", TURN_EXAMPLE, "--cards", "Nice List,Coal"], "unknown gift card 'Coal'; valid: Cheat Day"),
    (["--dice", TURN_EXAMPLE, "--letters", "BELL"], "unknown effect(s) BELL"),
    (["--dice", TURN_EXAMPLE, "--letters", "MILK,MILK,MILK,MILK"], "at most 3 letters"),
])
def test_bad_flag_values_are_usage_errors_listing_the_valid_names(capsys, args, message):
    code, _, err = score(capsys, *args)
    assert code == 2 and message in err


def test_unknown_game_is_a_usage_error(capsys):
    assert cli.main(["score", "monopoly", "--dice", TURN_EXAMPLE]) == 2
    assert "games with a dice score: jingle-bell-roll" in capsys.readouterr().err


def test_game_options_from_a_parsed_config_feed_the_setup():
    from host.commands.score import game_options
    from rules import Session, get_game
    options = game_options({"jingle-bell-roll": {"rounds": 6, "gift_points": [3]}, "device": {}})
    session = Session(get_game("jingle-bell-roll"), {"players": ["Ann", "Ben"], **options})
    assert session.state.rules.rounds == 6 and session.state.rules.gift_points == (3,)
    assert game_options({}) == {}


def test_reroll_cards_are_explained_not_silently_ignored(capsys):
    code, out, _ = score(capsys, "--dice", TURN_EXAMPLE, "--character", "Frosty", "--cards", "Rockin' Around")
    assert code == 0 and "Frosty re-rolls a die while rolling" in out and "Rockin' Around re-rolls" in out
