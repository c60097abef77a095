"""The code's shape, checked (issues 14, 27): no import cycle in service/ or engine/, imports only
as docs/architecture.md's table of allowed imports says, no module too long.

The import graph is read with `ast` from every `import` statement anywhere in a module (a function-
local import is still a dependency), between the project's own modules; importing `a.b.c` also runs
the packages `a.b` and `a`, so those edges count too. A cycle is reported as the modules that form
it, so the message says which edge to cut.
"""

from __future__ import annotations

import ast
import re
import sys
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


def _resolve(candidate: str, known: set[str]) -> str | None:
    """The longest prefix of `candidate` that is a project module (`service.store.db.x` names an
    attribute of `service.store.db`)."""
    parts = candidate.split(".")
    while parts and ".".join(parts) not in known:
        parts.pop()
    return ".".join(parts) if parts else None


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports (resolving relative imports and `from pkg import module`),
    with the packages that importing them runs first: `import a.b.c` also imports `a.b` and `a`
    (their __init__), except the packages `name` is itself inside, which Python has begun already."""
    is_package = path.name == "__init__.py"
    direct: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found = [_resolve(alias.name, known) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from service.play import games, moves` names two modules; `from service.store.db import
            # x` names an attribute of one
            found = [_resolve(f"{base}.{alias.name}", known) for alias in node.names]
        else:
            continue
        direct |= {m for m in found if m}
    own = set(_ancestors(name)) | ({name} if is_package else set())
    targets = set(direct)
    for module in direct:
        targets |= {p for p in _ancestors(module) if p not in own}
    targets.discard(name)
    return targets


def _graph(package: str) -> dict[str, set[str]]:
    modules = _modules(package)
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def _whole_graph() -> dict[str, set[str]]:
    """Every module of engine/ and service/ with the project modules it imports, across packages."""
    modules = {name: path for package in PACKAGES for name, path in _modules(package).items()}
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def _third_party(path: Path) -> set[str]:
    """The top-level names of what `path` imports from outside the project and the standard library."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        out |= {n.split(".")[0] for n in names}
    return out - set(sys.stdlib_module_names) - set(PACKAGES) - {"__future__"}


# ---------------------------------------------------------------------------------------------- layers


def layer_table(text: str | None = None) -> tuple[dict[str, str], dict[str, set[str]]]:
    """docs/architecture.md's table of allowed imports: (module prefix -> layer, layer -> the layers
    it may import). A row is `| `layer` | `path/`, `file.py` | `layer`, `layer` |`."""
    if text is None:
        text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Allowed imports", 1)[1].split("\n## ", 1)[0]
    where: dict[str, str] = {}
    allowed: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        layer = cells[0].strip("`")
        for path in re.findall(r"`([^`]+)`", cells[1]):
            where[path.removesuffix("/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")] = layer
        allowed[layer] = set(re.findall(r"`([^`]+)`", cells[2]))
    return where, allowed


def layer_of(module: str, where: dict[str, str]) -> str | None:
    """The layer of the longest path in the table that `module` is or is inside (a file's row names
    that module alone)."""
    best = None
    for prefix, layer in where.items():
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    return best[1] if best else None


def upward(graph: dict[str, set[str]], where: dict[str, str], allowed: dict[str, set[str]]) -> list[str]:
    """The imports the table does not allow (each as `module -> module (layer -> layer)`)."""
    bad = []
    for module, targets in sorted(graph.items()):
        here = layer_of(module, where)
        for target in sorted(targets):
            there = layer_of(target, where)
            if here != there and there not in allowed.get(here or "", set()):
                bad.append(f"{module} -> {target} ({here} -> {there})")
    return bad


def test_every_module_has_a_layer() -> None:
    where, _allowed = layer_table()
    graph = _whole_graph()
    assert not [m for m in graph if layer_of(m, where) is None]


def test_imports_follow_the_layer_table_of_architecture_md() -> None:
    """docs/architecture.md, "Allowed imports": each layer imports only the layers its row names
    (a package's __init__ run by an import counts too)."""
    where, allowed = layer_table()
    assert {"engine", "store", "words", "render", "mail", "play", "web"} <= set(allowed)
    bad = upward(_whole_graph(), where, allowed)
    assert not bad, "imports the layer table does not allow:\n" + "\n".join(bad)


def test_words_imports_only_the_engine_and_flask_babel() -> None:
    """service/words (issue 27): the engine's sentences in the reader's language, below render/mail/play."""
    for path in (ROOT / "service" / "words").glob("*.py"):
        assert _third_party(path) <= {"flask_babel"}, path


def test_layer_checker_sees_an_upward_import_and_a_parent_package() -> None:
    """The checker itself: a row's layers, an upward edge, and `import a.b.c` running `a.b`."""
    where, allowed = layer_table(
        "## Allowed imports\n| layer | modules | may import |\n| --- | --- | --- |\n"
        "| `play` | `service/play/` | `mail` |\n| `mail` | `service/mail/`, `service/x.py` | — |\n"
    )
    assert where == {"service.play": "play", "service.mail": "mail", "service.x": "mail"}
    assert upward({"service.play.a": {"service.mail.b"}}, where, allowed) == []
    assert upward({"service.mail.b": {"service.play.a"}}, where, allowed) == [
        "service.mail.b -> service.play.a (mail -> play)"]



def test_an_import_runs_the_packages_above_the_module(tmp_path: Path) -> None:
    """mail/render importing play/reply_words also runs play/__init__ (issue 27: with the use cases'
    names in play/__init__ that was an ImportError cycle); `service` itself is running already."""
    path = tmp_path / "render.py"
    path.write_text("from service.play.reply_words import in_words_of\nfrom service.play import games, moves\n")
    known = {"service", "service.play", "service.play.reply_words", "service.play.games", "service.play.moves",
             "service.mail", "service.mail.render"}
    assert _imports("service.mail.render", path, known) == {
        "service.play", "service.play.reply_words", "service.play.games", "service.play.moves"}
    assert _cycles({"service.mail.render": {"service.play"}, "service.play": {"service.play.usecases"},
                    "service.play.usecases": {"service.mail.render"}}) != []


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
