"""The device program: CLI, config, sessions, the table loop and the hardware backends."""
import vision  # noqa: F401  (first: it keeps numpy's OpenBLAS to one thread, see vision/__init__.py)
