"""The code's shape, checked (issue 14): no import cycle in service/ or engine/, no module too long.

The import graph is read with `ast` from every `import` statement anywhere in a module (a function-
local import is still a dependency), between the project's own modules. A cycle is reported as the
modules that form it, so the message says which edge to cut.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["engine", "service"]
MAX_LINES = 450


def _modules(package: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports (resolving relative imports and `from pkg import module`)."""
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            candidates = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for candidate in candidates:
            # `from service.play import usecases` names a module; `from service.store.db import x` names
            # a module's attribute: take the longest prefix that is a project module.
            parts = candidate.split(".")
            while parts and ".".join(parts) not in known:
                parts.pop()
            if parts and ".".join(parts) != name:
                targets.add(".".join(parts))
                break
    return targets


def _graph(package: str) -> dict[str, set[str]]:
    modules = _modules(package)
    known = set(modules)
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    # A package's __init__ importing its own submodules (re-exports) is not a cycle by itself;
    # a submodule importing its package's __init__ then would be, so both edges count.
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(package: str) -> None:
    cycles = _cycles(_graph(package))
    assert not cycles, f"import cycles in {package}/: {cycles}"


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_over_450_lines(package: str) -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in _modules(package).values()
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_cycle_finder_sees_a_cycle() -> None:
    """The checker itself: a two-module loop and a self-contained chain."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
