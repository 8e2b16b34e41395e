"""Hostile inputs (issue 56): tests that every bad input gets a clear answer."""
from __future__ import annotations


def run_cli(capsys, *argv):
    """(exit status, stdout, stderr) of the command line run in-process; never a traceback."""
    from host import cli
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err
