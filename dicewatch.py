#!/usr/bin/env python3
"""Quick start for dicewatch: sets up `.venv` by itself, then runs a command in it.

    python3 dicewatch.py demo        # the device demo on the built-in synthetic camera
    python3 dicewatch.py test        # the whole test suite
    python3 dicewatch.py read a.jpg  # any other `dicewatch` command, passed through

The first run creates the virtual environment at `.venv` in this folder and installs
the project into it (editable, with the test packages). Later runs reinstall only when
pyproject.toml changed. Nothing outside this folder is touched.
"""
import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".dicewatch-installed"
EXTRAS = "dev"


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def wanted_stamp() -> str:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    return f"{digest} extras={EXTRAS} python={sys.version_info[:2]}"


def say(message: str) -> None:
    print(f"[dicewatch setup] {message}", file=sys.stderr, flush=True)


def ensure_venv() -> None:
    """Create .venv and install the project when missing or out of date."""
    if not venv_python().exists():
        say(f"creating the virtual environment in {VENV} ...")
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        except (subprocess.CalledProcessError, OSError) as exc:
            sys.exit(
                f"dicewatch: could not create {VENV}: {exc}\n"
                "On Debian/Ubuntu/Raspberry Pi OS install the venv module first: "
                "sudo apt install python3-venv"
            )
    if STAMP.exists() and STAMP.read_text() == wanted_stamp():
        return
    say("installing dicewatch and its pinned packages (first run takes a minute) ...")
    pip = [str(venv_python()), "-m", "pip", "--disable-pip-version-check"]
    step = pip + ["install", "--quiet", "-e", f".[{EXTRAS}]"]
    result = subprocess.run(step, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(f"dicewatch: installing the project failed (exit {result.returncode}); see pip's message above")
    STAMP.write_text(wanted_stamp())
    say("ready.")


def run_in_venv(command: list[str], cwd: Path | None = None) -> int:
    """Run ``command`` (the venv's Python) in place of this launcher. On Linux and macOS the
    launcher execs it, so a signal sent to the process started (``kill``, systemd's SIGTERM)
    reaches dicewatch itself, which then saves and shuts down; a child process would be left
    running when the launcher died. Elsewhere it runs as a child."""
    if os.name == "posix":
        if cwd is not None:
            os.chdir(cwd)
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(command[0], command)
    return subprocess.call(command, cwd=cwd)


def main(argv: list[str]) -> int:
    ensure_venv()
    python = str(venv_python())
    if argv[:1] == ["test"]:
        # Two workers fit the 2-core machines we test on; pass -n 0 to run serially.
        extra = argv[1:]
        has_workers = any(a == "-n" or a.startswith("-n") and a[2:].isdigit() for a in extra)
        command = [python, "-m", "pytest"] + ([] if has_workers else ["-n", "2"]) + extra
        return run_in_venv(command, cwd=ROOT)
    # Any other command runs in the caller's folder, so relative paths mean what they say.
    return run_in_venv([python, "-m", "host.cli"] + argv)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
