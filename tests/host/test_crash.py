"""A game survives being killed at any moment: SIGKILL a scripted game many times, resume
each time, and end with the same state as a run that was never interrupted."""
from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from host.session_store import SessionStore, effective_events
from rules import get_game

CHILD = Path(__file__).with_name("crash_child.py")
KILLS = 18


def start(db: Path, seed: int, pause: float) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(CHILD), str(db), str(seed), str(pause)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def journal_size(db: Path) -> int:
    if not db.exists():
        return 0
    with SessionStore(db) as store:
        return sum(info.entries for info in store.list())


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_sigkill_at_random_moments_then_resume_gives_the_same_game(tmp_path):
    seed = 11
    calm = tmp_path / "calm.db"
    done = subprocess.run([sys.executable, str(CHILD), str(calm), str(seed), "0"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)

    killed_db = tmp_path / "killed.db"
    rng = random.Random(2026)
    kills = 0
    progress = []
    while kills < KILLS:
        child = start(killed_db, seed, 0.1)
        # Strike a random moment after the child has resumed, however slow the machine is
        # (start-up time varies a lot on a loaded CI box); the whole game is ~9 s at this pace.
        ready, _, _ = select.select([child.stderr], [], [], 120)
        assert ready and child.stderr.readline().strip() == "ready", "the crash child did not start"
        time.sleep(rng.uniform(0.05, 0.5))
        if child.poll() is not None:
            break  # it finished before we struck
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        assert child.returncode == -signal.SIGKILL
        kills += 1
        progress.append(journal_size(killed_db))
    final = subprocess.run([sys.executable, str(CHILD), str(killed_db), str(seed), "0"], capture_output=True,
                           text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    assert kills >= KILLS // 2, f"the game ended after only {kills} kills; the child got too fast"
    assert progress == sorted(progress) and progress[-1] > progress[0], "the kills did not land mid-game"
    assert json.loads(final.stdout) == expected
    print(f"{kills} SIGKILLs; journal entries on disk at each kill: {progress}")

    # and the stored rules events are exactly those of the calm run
    with SessionStore(calm) as a, SessionStore(killed_db) as b:
        events_a = effective_events(a.entries(a.list()[0].id))
        events_b = effective_events(b.entries(b.list()[0].id))
        assert events_a == events_b
        assert b.open(b.list()[0].id, get_game).state.is_over
