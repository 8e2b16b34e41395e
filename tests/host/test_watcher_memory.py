"""host.table_setup.lean_memory: after a large array is freed, the box's later arrays still go
back to the system when freed (glibc's default keeps them in the heap for good)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]

KEPT_AFTER = """
import json, sys
import numpy as np
if sys.argv[1] == "lean":
    from host.table_setup import lean_memory
    assert lean_memory()
def anon_mb():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon"):
            return int(line.split()[1]) / 1024
before = anon_mb()
model = np.ones(24 << 18, np.float32)      # a 24 MB model copy, made and let go
del model
frames = [np.ones(1 << 18, np.float32) for _ in range(40)]   # then 40 arrays of 1 MB ...
del frames                                                     # ... let go too
print(json.dumps(anon_mb() - before))
"""


def kept_mb(mode: str) -> float:
    done = subprocess.run([sys.executable, "-c", KEPT_AFTER, mode], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not Path("/proc/self/status").exists() or not sys.platform.startswith("linux"),
                    reason="glibc's malloc and /proc: Linux only")
def test_freed_arrays_go_back_to_the_system_after_a_large_one():
    plain, lean = kept_mb("plain"), kept_mb("lean")
    assert lean < 10 and plain > lean + 20, (plain, lean)
