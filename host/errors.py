"""Errors shared by the command line and the library modules it calls."""
from __future__ import annotations


class UsageError(Exception):
    """Bad flags or arguments found after parsing; reported as usage, exit 2 (host/cli.py)."""


class InputFileError(Exception):
    """A file given to a command that cannot be read; ``str()`` is "PATH: why"."""

    def __init__(self, path, reason: str):
        self.path, self.reason = path, reason
        super().__init__(f"{path}: {reason}")


def read_text(path) -> str:
    """The text of ``path`` (UTF-8), or InputFileError saying it does not exist or why it
    cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputFileError(path, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(path, f"cannot be read: {exc}") from None
