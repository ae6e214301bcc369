"""No import circles in the hardware package: a module never imports (at the top or inside a
function) a module that imports it back, directly or through others. The graph is read from the
sources with ``ast``, so an import hidden inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parent.parent / "ik_solvers"
CHECKED = ["hardware"]  # sub-packages held free of circles; extend as others are untangled


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, modules: set[str]) -> set[str]:
    """The package's modules a parsed source imports (``from a import b`` is ``a.b`` when that is one)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found & modules


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Module -> the modules of ``folder`` it imports."""
    paths = {module_name(p): p for p in folder.rglob("*.py")}
    return {name: imported(ast.parse(p.read_text()), set(paths)) - {name} for name, p in paths.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One path a -> ... -> a for every module that reaches itself."""
    found = []
    for start in sorted(graph):
        paths, seen = [[start]], set()
        while paths:
            path = paths.pop()
            for nxt in sorted(graph[path[-1]]):
                if nxt == start:
                    found.append([*path, start])
                    paths = []
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    paths.append([*path, nxt])
    return found


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ["a", "b", "c", "a"],
        ["b", "c", "a", "b"],
        ["c", "a", "b", "c"],
    ]


@pytest.mark.parametrize("package", CHECKED)
def test_no_module_imports_a_module_that_imports_it_back(package):
    found = circles(import_graph(PACKAGE_ROOT / package))
    assert not found, "\n".join(" -> ".join(path) for path in found)
