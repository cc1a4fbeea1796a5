"""The fuzz stage's modules import each other without a cycle, every import counted (those under
``TYPE_CHECKING`` and inside functions too), and its corpus imports nothing of the run that fills
it: the replay needs of a run only ``corpus.replay.ReplayContext``."""

from __future__ import annotations

import ast
from pathlib import Path

import conformance.stages.fuzz as fuzz
from tests.support.import_cycles import find_cycle

PACKAGE = "conformance.stages.fuzz"
ROOT = Path(fuzz.__file__).parent
# The run's side: what a fuzz run is, judges, records and publishes.
RUN_SIDE = frozenset({"answers", "results", "engine", "plugin", "test_fuzz"})


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(path): path for path in ROOT.rglob("*.py")}


def _imported(module: str) -> set[str]:
    """The modules of the stage ``module`` imports anywhere in its source (not the stage's own
    ``__init__``, which every module of it imports)."""
    path = MODULES[module]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:
                package = module if path.name == "__init__.py" else module.rpartition(".")[0]
                base = ".".join(filter(None, [PACKAGE, package, base]))
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for name in names:
            local = name.removeprefix(PACKAGE + ".") if name.startswith(PACKAGE + ".") else None
            while local and local not in MODULES:
                local = local.rpartition(".")[0]
            if local and local != module:
                found.add(local)
    return found


def graph() -> dict[str, set[str]]:
    return {module: _imported(module) for module in MODULES if module}


def test_the_fuzz_stage_has_no_import_cycle() -> None:
    assert find_cycle(graph()) is None


def test_the_corpus_imports_nothing_of_the_run() -> None:
    corpus = {module: found for module, found in graph().items() if module.startswith("corpus")}
    assert corpus, "the corpus subpackage moved"
    assert {module: found & RUN_SIDE for module, found in corpus.items() if found & RUN_SIDE} == {}


def test_a_planted_cycle_is_found() -> None:
    planted = graph()
    planted["failures"] = {*planted["failures"], "answers"}
    assert find_cycle(planted) is not None
