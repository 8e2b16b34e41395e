"""A data folder or output folder the box cannot write to is said before the work starts
(issue 56: `teach` and `dice show --out` ended in a PermissionError traceback after it). As
root every folder is writable, so these put a file where the folder should be; the check
makes and removes a real file, so permissions and read-only disks fail it the same way."""
from __future__ import annotations

import pytest

from tests.hostile import run_cli
from host.commands._writable import check_writable
from host.paths import DataDirError


def test_teach_refuses_before_taking_any_picture(dicewatch_home, capsys, monkeypatch):
    (dicewatch_home / "dice").write_text("a file where the die sets go")
    from host import teaching
    monkeypatch.setattr(teaching, "CameraSession", lambda *a, **k: pytest.fail("the camera was opened"))
    monkeypatch.setattr(teaching, "examples_from_folder", lambda *a, **k: pytest.fail("the photos were read"))
    for source in (["--camera", "synthetic", "--faces", "A,B"], ["--from", str(dicewatch_home)]):
        code, out, err = run_cli(capsys, "teach", "--dice", "mine", *source)
        assert code == 1 and "cannot write the taught die set" in err and "is a file, not a folder" in err


def test_dice_show_refuses_an_output_folder_it_cannot_write(tmp_path, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    code, out, err = run_cli(capsys, "dice", "show", "jingle-bell-roll", "--out", str(blocker / "sheet.png"))
    assert code == 1 and f"cannot write the picture to {blocker}" in err and out == ""


def test_check_writable_makes_missing_folders_welcome_and_leaves_nothing(tmp_path):
    room = tmp_path / "room"
    room.mkdir()
    check_writable(room / "not" / "yet", "x")
    assert list(room.iterdir()) == []
    (room / "f").write_text("")
    with pytest.raises(DataDirError, match="is a file, not a folder"):
        check_writable(room / "f" / "sub", "the pictures")


def test_an_os_error_anywhere_is_one_line_not_a_traceback(capsys, monkeypatch):
    from host.commands import games
    def refuse(args):
        raise PermissionError(13, "Permission denied", "/var/lib/dicewatch/x")
    monkeypatch.setattr(games, "run", refuse)
    code, _, err = run_cli(capsys, "games")
    assert code == 1 and err.strip() == "dicewatch games: cannot use /var/lib/dicewatch/x: Permission denied"
