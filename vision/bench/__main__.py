"""python -m vision.bench [NAME [ARGS...]]: run every benchmark module (or only NAME).

Every module in vision/bench that defines ``main(argv)`` is a benchmark; with no NAME each
runs in turn with its default options.
"""
from __future__ import annotations

import importlib
import pkgutil
import sys

import vision.bench as bench


def benchmarks() -> dict[str, object]:
    found = {}
    for info in sorted(pkgutil.iter_modules(bench.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"vision.bench.{info.name}")
        if callable(getattr(module, "main", None)):
            found[info.name] = module
    return found


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    found = benchmarks()
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        print("benchmarks:", ", ".join(found))
        return 0
    if argv and not argv[0].startswith("-"):
        name = argv.pop(0)
        if name not in found:
            print(f"python -m vision.bench: no benchmark {name!r}; there are: {', '.join(found)}",
                  file=sys.stderr)
            return 2
        return int(found[name].main(argv) or 0)
    status = 0
    for name, module in found.items():
        print(f"=== vision.bench.{name} ===", flush=True)
        status = max(status, int(module.main(list(argv)) or 0))
    return status


if __name__ == "__main__":
    sys.exit(main())
