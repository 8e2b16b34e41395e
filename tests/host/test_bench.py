"""host/bench.py: the device path is timed as the device reads a calibrated tray."""
from __future__ import annotations

from host import bench
from vision import dicesets


def test_the_benchmark_reads_the_dice_with_the_calibrated_trays_finder(monkeypatch):
    def no_pip_finder():
        raise AssertionError("the device reads a calibrated tray without the pip finder")

    monkeypatch.setattr(dicesets, "_finder_net", no_pip_finder)
    timings = bench.bench_path(3, (250, 122))
    counted, right, reads = timings["_reads"]
    assert reads == 3 and counted == 3 and right == 3
    assert all(len(timings[stage]) == 3 for stage in bench.STAGES)
