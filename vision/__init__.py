"""Everything that turns camera frames into a Roll. numpy + OpenCV; never imports host."""
import os

# numpy's OpenBLAS keeps a worker thread for each further core, and those threads spin for a
# while each time they are woken. The reader's numpy math is all small (the trust model, the
# taught matchers) and gains nothing from them, but they burn another core: in `python -m
# vision.bench pips` (2026-12-05) the pip reader used 2-4 ms more CPU than wall time per
# photo (median) with them and none without, and the classic counter's CPU halved without
# them. On the box that core belongs to the table loop. Set before numpy loads, when this
# package is the first to import it (the CLI via `host`, the benchmarks); the environment
# can still say otherwise.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
