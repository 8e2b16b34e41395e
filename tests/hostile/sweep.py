"""Run the hostile-input corpus (tests/hostile/corpus.py) against the real command line, each
case in its own process with its own data folder, and count the answers per class.

    .venv/bin/python tests/hostile/sweep.py                 # every case, 2 at a time
    .venv/bin/python tests/hostile/sweep.py --only configs --jobs 1 --timeout 60

An answer is one of: clear (the expected refusal: exit 1 or 2 with a message, or exit 0 for
a case that is fine), traceback (a Python traceback, or the command line's "internal
error"), hang (no answer within --timeout seconds), silent (exit 0 for a bad input), or
unclear (a non-zero exit with nothing said, or a refusal of a fine input). The exit status
is 1 when any case is not clear. Not part of the test suite (tests/hostile/test_corpus.py
runs the fast cases in-process).
"""
from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.hostile.corpus import ERROR, Case, cases, materialise  # noqa: E402

PROJECT = Path(__file__).resolve().parents[2]


def judge(case: Case, code: int | None, err: str, out: str = "") -> str:
    """The answer's kind; a refusal may be said on stderr, or on stdout (``--json``'s error
    objects, the top-level help)."""
    if code is None:
        return "hang"
    if "Traceback (most recent call last)" in err or "internal error" in err:
        return "traceback"
    if case.expect == ERROR:
        if code == 0:
            return "silent"
        return "clear" if code in (1, 2) and (err.strip() or out.strip()) else "unclear"
    return "clear" if code == 0 else "unclear"


def run_case(case: Case, timeout: float) -> tuple[Case, str, int | None, str, float]:
    with tempfile.TemporaryDirectory(prefix="dicewatch-sweep-") as folder:
        tmp = Path(folder)
        (tmp / "home").mkdir()
        argv = materialise(case, tmp)
        env = {**os.environ, "DICEWATCH_HOME": str(tmp / "home"), "DICEWATCH_DEBUG": "1"}
        started = time.monotonic()
        try:
            done = subprocess.run([sys.executable, "-m", "host.cli", *argv], cwd=PROJECT, env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout,
                                  errors="replace")
            code, err, out = done.returncode, done.stderr, done.stdout
        except subprocess.TimeoutExpired as exc:
            code, out = None, ""
            err = (exc.stderr or b"").decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return case, judge(case, code, err, out), code, err, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", metavar="CLASS", help="only the cases of this class")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds before a case counts as a hang")
    parser.add_argument("--verbose", action="store_true", help="print every case's answer")
    args = parser.parse_args(argv)
    chosen = [c for c in cases() if args.only is None or c.kind == args.only]
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    bad = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for case, answer, code, err, seconds in pool.map(lambda c: run_case(c, args.timeout), chosen):
            tally[case.kind][answer] += 1
            line = err.strip().splitlines()[-1] if err.strip() else ""
            if answer != "clear":
                bad.append((case, answer, code, err))
            if args.verbose or answer != "clear":
                print(f"{answer:9} exit {code}  {seconds:5.1f}s  {case.name()}\n          {line[:200]}", flush=True)
    answers = ("clear", "traceback", "hang", "silent", "unclear")
    print(f"\n{'class':<20}{'tried':>6}" + "".join(f"{a:>10}" for a in answers))
    for kind, counts in tally.items():
        print(f"{kind:<20}{sum(counts.values()):>6}" + "".join(f"{counts[a]:>10}" for a in answers))
    total = collections.Counter()
    for counts in tally.values():
        total.update(counts)
    print(f"{'all':<20}{sum(total.values()):>6}" + "".join(f"{total[a]:>10}" for a in answers))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
