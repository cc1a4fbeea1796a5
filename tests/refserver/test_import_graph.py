"""refserver's own imports: all at module level, and no module reaches itself through them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import refserver
from tests.support.import_cycles import find_cycle

PACKAGE = Path(refserver.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py"))


def _tree(module: str) -> ast.Module:
    return ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))


def _imported(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The refserver modules an import statement names (bare ``from refserver import x``
    counts when ``x`` is a module)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif node.module == "refserver":
        names = [f"refserver.{alias.name}" for alias in node.names]
    else:
        names = [node.module or ""]
    return {name.split(".")[1] for name in names if name.startswith("refserver.")} & set(MODULES)


def _nested_imports(tree: ast.Module) -> list[int]:
    """Line numbers of import statements inside a function or class body."""
    lines = []
    for scope in ast.walk(tree):
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for node in ast.walk(scope):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    lines.append(node.lineno)
    return lines


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        edges: set[str] = set()
        for node in ast.walk(_tree(module)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges |= _imported(node)
        graph[module] = edges - {module}
    return graph


def test_no_import_inside_a_function_or_class() -> None:
    nested = {m: lines for m in MODULES if (lines := _nested_imports(_tree(m)))}
    assert nested == {}


def test_snapshot_imports_experiment_store_at_module_level() -> None:
    top = [n for n in _tree("snapshot").body if isinstance(n, ast.Import | ast.ImportFrom)]
    module_level = set().union(*(_imported(n) for n in top))
    assert "experiment_store" in module_level
    assert "snapshot" not in _graph()["experiment_store"]


def test_the_import_graph_has_no_cycle() -> None:
    graph = _graph()
    assert graph["snapshot"], "the graph reader found no edge at all"
    assert find_cycle(graph) is None


def test_cycle_finder_finds_one() -> None:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    graph["snapshot"] = {"experiment_store"}
    graph["experiment_store"] = {"snapshot"}
    assert find_cycle(graph) in (
        ["snapshot", "experiment_store", "snapshot"],
        ["experiment_store", "snapshot", "experiment_store"],
    )


@pytest.mark.parametrize("first", ["snapshot", "experiment_store", "experiment_summaries"])
def test_each_side_imports_first_in_a_fresh_interpreter(first: str) -> None:
    code = (
        f"import refserver.{first}\n"
        "import refserver.snapshot as s, refserver.experiment_store as e\n"
        "assert s.experiment_store is e\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
