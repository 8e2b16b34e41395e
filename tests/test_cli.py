"""The command line as a whole: help, usage errors, subcommand discovery."""
import subprocess
import sys

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
