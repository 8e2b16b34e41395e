"""Config tables and face names that nothing would read (issue 56, "silently ignored input"):
`dice rename` advised a [dice.jingle-bell-roll] table no game reads; [dice.*] tables and keys
are now checked ("did you mean"), and `place` and `score` check the config's tables as `run`
does."""
from __future__ import annotations

import pytest

from tests.hostile import run_cli


def test_renaming_a_face_the_rules_score_by_name_is_refused(capsys, dicewatch_home):
    code, out, err = run_cli(capsys, "dice", "rename", "jingle-bell-roll", "MILK", "CREAM")
    assert code == 1 and "the rules of Jingle Bell Roll score the jingle-bell-roll faces by their names" in err
    assert not (dicewatch_home / "dice" / "jingle-bell-roll").exists()          # nothing stored or renamed
    from host.commands.dice import games_with_fixed_faces
    assert games_with_fixed_faces("christmas-romance") == []                  # renamed with [dice.christmas-romance]


@pytest.mark.parametrize("text, says", [
    ('[dice.jingle-bell-roll]\nfaces = ["A"]\n', "[dice.jingle-bell-roll]: only the faces of [dice.christmas-romance]"),
    ('[dice.christmas-romanc]\nfaces = ["A"]\n', "did you mean [dice.christmas-romance]?"),
    ('[dice.christmas-romance]\nfacez = ["A"]\n', ":2: [dice.christmas-romance] unknown key 'facez'"),
    ('[jingle-bell-rol]\nrounds = 6\n', "did you mean [jingle-bell-roll]?"),
])
@pytest.mark.parametrize("command", [["place", "stage1-meet-cute", "--roll", "1"],
                                     ["score", "jingle-bell-roll", "--dice", "MILK,COOKIE,LIST,LIST,GIFT,BELL,BELL"]])
def test_config_tables_nothing_reads_are_named_by_every_command_that_reads_the_config(text, says, command,
                                                                                     tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text(text)
    code, out, err = run_cli(capsys, *command, "--config", str(config))
    assert code == 1 and out == "" and says in err and str(config) in err
