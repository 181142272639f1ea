"""The import graph of ``src/toolwire`` has no cycle, and ``errors`` reaches up to nothing.

Every import counts: at module level, inside a function, under ``TYPE_CHECKING``. An edge
goes to the module imported (``from pkg import sub`` to ``pkg.sub`` when ``sub`` is a
module, else to ``pkg``); a module's own package ``__init__`` is not an edge of it (Python
runs it first anyway).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in (SRC / "toolwire").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _known(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str) -> set[str]:
    """The toolwire modules ``name`` imports, anywhere in its code."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.add(sub if sub in MODULES else module)
    out = {m for f in found if (m := _known(f)) is not None}
    out.discard(name)
    return out


GRAPH = {name: imports_of(name) for name in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_every_kind_of_import() -> None:
    # module level, relative, and inside a function (failures asks the registry late)
    assert "toolwire.adapters" in GRAPH["toolwire.failures"]
    assert "toolwire.adapters.anthropic.wire" in GRAPH["toolwire.adapters.anthropic.client"]
    assert "toolwire.server._replay" in GRAPH["toolwire.server._providers"]


def test_the_import_graph_of_toolwire_has_no_cycle() -> None:
    assert cycles(GRAPH) == []


@pytest.mark.parametrize("low", ["toolwire.errors", "toolwire.redaction"])
def test_the_lowest_modules_import_nothing_above_them(low: str) -> None:
    assert GRAPH[low] <= {"toolwire.redaction"}, GRAPH[low]


def test_no_adapter_package_imports_another() -> None:
    for name, deps in GRAPH.items():
        parts = name.split(".")
        if len(parts) < 3 or parts[1] != "adapters" or parts[2] == "contract":
            continue
        own = ".".join(parts[:3])
        for dep in deps:
            dparts = dep.split(".")
            if len(dparts) >= 3 and dparts[1] == "adapters" and dparts[2] != "contract":
                assert dep.startswith(own), f"{name} imports {dep}"
