"""The command line as a whole: help, usage errors, subcommand discovery."""
import os
import subprocess
import sys

import pytest

from host import cli


def test_every_command_has_help_and_a_handler():
    modules = cli.command_modules()
    assert modules, "no subcommands found in host/commands"
    for module in modules:
        assert module.HELP and callable(module.run) and callable(module.add_arguments)


def test_no_command_prints_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    assert "usage: dicewatch" in capsys.readouterr().out


def test_unknown_command_is_a_usage_error():
    result = subprocess.run([sys.executable, "-m", "host.cli", "no-such-command"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


def _threads_after_numpy(code: str, env: dict) -> int:
    probe = code + "; import numpy, os; print(len(os.listdir('/proc/self/task')))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    return int(result.stdout.strip())


def test_the_cli_keeps_numpy_to_one_thread():
    """numpy's OpenBLAS threads would spin on the cores the reader and the table loop need
    (vision/__init__.py); a user's own setting still wins."""
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("needs Linux /proc to count threads")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    env["OPENBLAS_NUM_THREADS"] = "3"  # more than one thread whatever the machine's cores
    assert _threads_after_numpy("pass", env) > 1, "OpenBLAS here starts no threads: nothing to check"
    env.pop("OPENBLAS_NUM_THREADS")
    assert _threads_after_numpy("import host.cli", env) == 1
    assert _threads_after_numpy("import vision", env) == 1
    env["OPENBLAS_NUM_THREADS"] = "3"
    assert _threads_after_numpy("import host.cli", env) > 1


def test_a_data_folder_that_cannot_be_made_is_said_plainly_not_a_traceback(tmp_path):
    """$DICEWATCH_HOME naming a file (or anything mkdir refuses): exit 1, the folder and why."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    env = dict(os.environ, DICEWATCH_HOME=str(blocker))
    for command in (["dice", "list"], ["export", "--list"],
                    ["run", "--players", "A,B", "--camera", "synthetic", "--display", "none", "--no-gpio"]):
        result = subprocess.run([sys.executable, "-m", "host.cli", *command], capture_output=True, text=True,
                                env=env, timeout=120)
        assert result.returncode == 1, (command, result.stderr)
        assert "Traceback" not in result.stderr
        assert f"the data folder {blocker} ($DICEWATCH_HOME) cannot be used: it is a file" in result.stderr
