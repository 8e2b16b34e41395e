"""Before a command does its work: can it write where it will write? (issue 56: `teach` and
`dice show --out` used to end in a PermissionError traceback after the work was done)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from host.paths import DataDirError


def check_writable(folder: Path, what: str) -> None:
    """DataDirError (the command says it, exit 1) unless a file can be made in ``folder``, or
    in the nearest folder above it that exists (where ``folder`` would be created). Tried by
    making and removing a file: permissions, a read-only disk and a file in the way all show."""
    folder = Path(folder)
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise DataDirError(f"cannot write {what} to {folder}: {existing} is a file, not a folder; "
                           "expected a folder you can write to")
    try:
        handle, probe = tempfile.mkstemp(prefix=".dicewatch-probe-", dir=existing)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise DataDirError(f"cannot write {what} to {folder}: {exc.strerror or exc} in {existing}; "
                           "expected a folder you can write to") from None
