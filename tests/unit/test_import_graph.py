"""The tutor's modules import one another in one direction only: no module reaches, through
any chain of imports (inside functions and for type checking too), back to itself. A
circle means two modules that cannot be read, tested or moved apart."""

from __future__ import annotations

import ast
from pathlib import Path

import tutor

PACKAGE = Path(tutor.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each tutor module and the tutor modules it imports anywhere in its text."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "_data" not in p.parts}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
            else:
                continue
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected parts of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_its_way_back_to_itself() -> None:
    assert circles(import_graph()) == []


def test_a_circle_is_found() -> None:
    """The search itself: a circle of three, and a module beside it that is in none."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


# Layers that may not import the ones named: serve starts processes for the command that
# serves, which hands it what they run (tutor.commands.session); it never imports the app,
# the command line or the commands, at any level (inside functions too).
FORBIDDEN = {"tutor.serve": ("tutor.cli", "tutor.commands", "tutor.tui")}


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_no_arrow_runs_up_from_serve() -> None:
    graph = import_graph()
    upward = sorted(
        (name, target)
        for name, targets in graph.items()
        for layer, above in FORBIDDEN.items()
        if _within(name, layer)
        for target in targets
        if any(_within(target, package) for package in above)
    )
    assert upward == []


def rooms(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The same graph with each of the tutor's subpackages taken as one room (tutor.words,
    tutor.core, …) and each top-level module as its own (tutor.cli, tutor.cjk, …)."""

    def room(module: str) -> str:
        return ".".join(module.split(".")[:2])

    joined: dict[str, set[str]] = {}
    for name, targets in graph.items():
        joined.setdefault(room(name), set()).update(
            room(target) for target in targets if room(target) != room(name)
        )
    return joined


def test_the_tutors_rooms_stand_on_floors_with_no_arrow_running_up() -> None:
    """A package that imports one above it makes the two one room in all but name:
    `tutor.content` taking CJK text from `tutor.words` while the words translate the
    content's problems, or the TUI borrowing a command's table."""
    assert circles(rooms(import_graph())) == []
