"""The import graph of our own packages (host/, rules/, vision/) has no circles.

Every module is parsed with ``ast`` (nothing is imported): each ``import X`` and
``from X import Y`` naming one of our packages, at module level or inside a function
(imports kept lazy on purpose count too: a circle through a lazy import is still a
circle), is an edge module -> imported module. ``from P import name`` is an edge to the
submodule P.name when there is one, else to P. Imports under ``if TYPE_CHECKING:`` are
never run and are left out.

Also: rules/ and vision/ never import host/ (they are the libraries the box is built
on), and nothing outside host/commands/ imports a command module (host/cli.py, which
finds the commands, excepted): commands parse arguments and call library code, never
the other way round.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("host", "rules", "vision")

#: Import circles tolerated for now: each entry is one import, (importer, imported), that
#: closes a circle, left out of the graph for test_no_import_circles. None are left.
KNOWN_CIRCLES_IN_OTHER_WORK: frozenset[tuple[str, str]] = frozenset()

#: Imports of command modules from outside host/commands/ in those same files: (importer,
#: command module). Empty it with KNOWN_CIRCLES_IN_OTHER_WORK.
KNOWN_COMMAND_IMPORTS_IN_OTHER_WORK: frozenset[tuple[str, str]] = frozenset()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@lru_cache(maxsize=None)
def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def _ours(name: str) -> bool:
    return name.split(".")[0] in PACKAGES


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST):
    """Every Import / ImportFrom, wherever it is, but not under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        if isinstance(node, ast.If) and _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _resolve_base(importer: str, node: ast.ImportFrom) -> str | None:
    if not node.level:
        return node.module
    is_package = modules()[importer].name == "__init__.py"
    parts = importer.split(".")
    if not is_package:
        parts = parts[:-1]
    up = node.level - 1
    if up > len(parts):
        return None
    parts = parts[:len(parts) - up] if up else parts
    return ".".join(parts + ([node.module] if node.module else []))


def imports_of(importer: str) -> set[str]:
    """The modules of ours that ``importer`` imports (module- or function-level)."""
    known = modules()
    tree = ast.parse(known[importer].read_text(encoding="utf-8"), filename=str(known[importer]))
    out = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _ours(alias.name):
                    out.add(alias.name)
            continue
        base = _resolve_base(importer, node)
        if base is None or not _ours(base):
            continue
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            out.add(submodule if submodule in known else base)
    out.discard(importer)
    return out


@lru_cache(maxsize=None)
def graph() -> dict[str, frozenset[str]]:
    known = modules()
    return {name: frozenset(target for target in imports_of(name) if target in known) for name in known}


def find_cycle(edges: dict[str, frozenset[str]] | dict[str, set[str]]) -> list[str] | None:
    """One circle [a, b, ..., a] in the graph, or None. Depth-first, in name order, so the
    same graph always reports the same circle."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {name: WHITE for name in edges}
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        colour[name] = GREY
        path.append(name)
        for target in sorted(edges.get(name, ())):
            if colour.get(target, BLACK) == GREY:
                return path[path.index(target):] + [target]
            if colour.get(target) == WHITE:
                found = visit(target)
                if found:
                    return found
        path.pop()
        colour[name] = BLACK
        return None

    for name in sorted(edges):
        if colour[name] == WHITE:
            found = visit(name)
            if found:
                return found
    return None


def test_the_packages_are_found():
    names = modules()
    for name in ("host.cli", "host.commands.run", "host.commands.teach", "rules.core", "vision.reader"):
        assert name in names
    assert "host.commands.calibrate" in graph()["host.cli"] or "host.commands" in graph()["host.cli"]


def test_the_cycle_finder_finds_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_circles():
    edges = {name: set(targets) for name, targets in graph().items()}
    for importer, imported in KNOWN_CIRCLES_IN_OTHER_WORK:
        edges.get(importer, set()).discard(imported)
    cycle = find_cycle(edges)
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_the_known_exceptions_are_still_there():
    """An allowlisted import that is gone, or no longer closes a circle, must leave its list."""
    edges = graph()
    stale = []
    for importer, imported in sorted(KNOWN_CIRCLES_IN_OTHER_WORK):
        if imported not in edges.get(importer, ()):
            stale.append(f"KNOWN_CIRCLES_IN_OTHER_WORK: {importer} -> {imported} (no such import any more)")
        elif not _closes_a_circle(edges, importer, imported):
            stale.append(f"KNOWN_CIRCLES_IN_OTHER_WORK: {importer} -> {imported} (closes no circle any more)")
    for importer, imported in sorted(KNOWN_COMMAND_IMPORTS_IN_OTHER_WORK):
        if imported not in edges.get(importer, ()):
            stale.append(f"KNOWN_COMMAND_IMPORTS_IN_OTHER_WORK: {importer} -> {imported} (no such import any more)")
    assert not stale, "remove from the allowlist: " + "; ".join(stale)


def _closes_a_circle(edges, importer: str, imported: str) -> bool:
    """Whether ``importer`` is reachable from ``imported``."""
    seen, todo = set(), [imported]
    while todo:
        name = todo.pop()
        if name == importer:
            return True
        if name not in seen:
            seen.add(name)
            todo.extend(edges.get(name, ()))
    return False


def test_rules_and_vision_never_import_host():
    wrong = sorted(f"{name} -> {target}" for name, targets in graph().items()
                   if name.split(".")[0] in ("rules", "vision")
                   for target in targets if target.split(".")[0] == "host")
    assert not wrong, "rules/ and vision/ must not import host/: " + "; ".join(wrong)


def test_only_commands_and_the_cli_import_commands():
    wrong = []
    for name, targets in graph().items():
        if name == "host.cli" or name == "host.commands" or name.startswith("host.commands."):
            continue
        for target in targets:
            if target.startswith("host.commands.") and (name, target) not in KNOWN_COMMAND_IMPORTS_IN_OTHER_WORK:
                wrong.append(f"{name} -> {target}")
    assert not wrong, ("only host/commands/ and host/cli.py may import a command module (move what is "
                       "shared to a library module): " + "; ".join(sorted(wrong)))
