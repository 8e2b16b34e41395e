"""Errors shared by the command line and the library modules it calls."""
from __future__ import annotations


class UsageError(Exception):
    """Bad flags or arguments found after parsing; reported as usage, exit 2 (host/cli.py)."""
