"""Flushing what the device stores (taught sets, calibrations) to the disk, so that a file
renamed into place after it survives a power cut whole."""
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
