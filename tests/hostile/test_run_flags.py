"""`run` flags that were silently ignored (issue 56): a resumed game keeps its setup, so a setup
flag that contradicts it, or one of another game, is refused; a setup flag left out keeps the
config's value ([christmas-romance] mode = "coop" was overridden by --mode's default, solo)."""
from __future__ import annotations

import argparse

import pytest

from host import games
from host.commands import run
from host.errors import UsageError
from host.session_store import SessionStore
from rules import get_game


def run_args(*argv):
    parser = argparse.ArgumentParser()
    run.add_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.fixture
def solo_session(tmp_path):
    with SessionStore(tmp_path / "sessions.db") as store:
        yield store.create(get_game("christmas-romance"), {"mode": "solo", "players": ["Ann"]})


@pytest.mark.parametrize("argv, says", [
    (["--mode", "coop"], "--mode coop: session .* was set up with mode solo; a resumed game keeps its setup"),
    (["--no-characters"], "--no-characters: only for --game jingle-bell-roll"),
    (["--short-game"], "--short-game: only for --game making-christmas"),
])
def test_a_resumed_game_refuses_flags_that_would_change_its_setup(solo_session, argv, says):
    with pytest.raises(UsageError, match=says):
        run.check_resumed_flags(run_args("--resume", *argv), solo_session)


def test_a_resumed_game_takes_flags_that_agree_or_steer_the_box(solo_session):
    run.check_resumed_flags(run_args("--resume", "--mode", "solo"), solo_session)
    run.check_resumed_flags(run_args("--resume", "--virtual-fate"), solo_session)   # noted in the journal


def test_a_setup_flag_left_out_keeps_the_configs_value(tmp_path):
    game = get_game("christmas-romance")
    doc = {"christmas-romance": {"mode": "coop"}}
    setup = run.new_setup(run_args("--game", "christmas-romance"), game, doc, tmp_path / "config.toml", ["Ann", "Al"])
    assert setup["mode"] == "coop"
    given = run.new_setup(run_args("--game", "christmas-romance", "--mode", "multiplayer"), game, doc,
                          tmp_path / "config.toml", ["Ann", "Al"])
    assert given["mode"] == "multiplayer"                                    # the command line wins
    assert games.names()


@pytest.mark.parametrize("device", ['calibration = "nope"', 'dice_set = "nope"'])
def test_a_run_that_fails_on_a_bad_setting_leaves_no_session_behind(device, dicewatch_home, capsys):
    from tests.hostile import run_cli
    config = dicewatch_home / "config.toml"
    config.write_text(f"[device]\n{device}\n")
    code, _, err = run_cli(capsys, "run", "--players", "Ann,Ben", "--camera", "synthetic", "--display", "none",
                           "--no-gpio", "--quiet")
    assert code == 1 and "nope" in err
    with SessionStore(dicewatch_home / "sessions.db") as store:
        assert store.list() == []
    code, _, err = run_cli(capsys, "run", "--resume", "--display", "none", "--no-gpio", "--quiet")
    assert code == 1 and "no unfinished game to resume" in err
