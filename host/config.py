"""Reading TOML files (config, pin map, overrides) with errors a person can act on.

Every problem is reported as ``ConfigError``: the file, the line when known, and what
was expected, e.g. ``config.toml:12: [jingle-bell-roll] stocking_points: expected a
list of whole numbers, got "three"``.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """A config file that cannot be used. ``str()`` names file, line and expectation."""

    def __init__(self, path: Path | str, message: str, line: int | None = None):
        self.path, self.line, self.message = Path(path), line, message
        where = f"{path}:{line}" if line else f"{path}"
        super().__init__(f"{where}: {message}")


_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_toml(path: Path | str) -> dict[str, Any]:
    """Parse a TOML file; ConfigError with the line for a syntax error or a missing file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(path, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, f"cannot be read: {exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        message = _TOML_LINE.sub("", str(exc)).strip()
        line = int(found.group(1)) if found else None
        raise ConfigError(path, f"not valid TOML: {message}", line) from None


def line_of_key(path: Path | str, key: str, table: str | None = None) -> int | None:
    """Best-effort line number of ``key`` (inside ``[table]`` if given), for error messages."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    current = None
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        header = re.match(r"^\[+\s*([^\]]+?)\s*\]+", stripped)
        if header:
            current = header.group(1).strip().strip('"')
            continue
        if re.match(rf'^"?{re.escape(key)}"?\s*=', stripped) and (table is None or current == table):
            return number
    return None


def expect(path: Path | str, table: str | None, key: str, value: Any, kind: type | tuple,
           description: str) -> Any:
    """Return ``value`` if it is of ``kind``; otherwise ConfigError naming the line."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # bool is an int in Python, but `true` is never a valid count in a config file.
    if isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds):
        return value
    where = f"[{table}] {key}" if table else key
    raise ConfigError(path, f"{where}: expected {description}, got {value!r}", line_of_key(path, key, table))
