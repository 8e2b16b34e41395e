"""Flushing what the device stores (taught sets, calibrations, learned examples, the phone
page's seats) to the disk, so that a file renamed into place after it survives a power cut whole."""
from __future__ import annotations

import os
from pathlib import Path


def flush_to_disk(path: str | Path) -> None:
    """Flush a file's contents, or a folder's entries (a rename in it), to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_whole(path: Path, data: bytes, *, mode: int = 0o666) -> None:
    """``data`` written beside ``path`` (a new file gets ``mode``, less the umask), flushed to
    the disk, then renamed into place: a crash mid-write leaves the previous file, never a torn
    one. The rename reaches the disk with the folder's next :func:`flush_to_disk`."""
    part = path.with_name(path.name + ".part")
    try:
        with os.fdopen(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)
