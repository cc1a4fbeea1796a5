"""conformance's own imports: at module level, except the heavy optional engines (schemathesis,
Locust) and the modules that bring them in, and the one lazy start of the embedded reference
server; no module reaches itself through its module-level imports; no module imports a floor
above its own (``FLOORS``: a module's floor is its folder's) and no folder reaches itself through
another; and the low rooms load no stage machinery."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

import conformance
from tests.support.import_cycles import find_cycle

PACKAGE = Path(conformance.__file__).parent
HEAVY = ("schemathesis", "locust", "gevent")  # imported only when their stage runs
LAZY_BY_DESIGN = {
    "conformance.target.embedded": ("refserver",)
}  # ARCHITECTURE.md, independence rule


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in PACKAGE.rglob("*.py")}


@cache
def _tree(module: str) -> ast.Module:
    return ast.parse(MODULES[module].read_text(encoding="utf-8"))


def _targets(node: ast.Import | ast.ImportFrom, module: str) -> set[str]:
    """What an import statement names: a conformance module (a submodule when ``from package
    import submodule``), else the top-level name of the distribution."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module if MODULES[module].name == "__init__.py" else module.rsplit(".", 1)[0]
            for _ in range(node.level - 1):
                package = package.rsplit(".", 1)[0]
            base = f"{package}.{base}" if base else package
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
    found = set()
    for name in names:
        while name and name not in MODULES and name.startswith("conformance."):
            name = name.rsplit(".", 1)[0]
        found.add(name if name.startswith("conformance") else name.split(".")[0])
    return found - {module}


def _type_checking(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(module: str) -> tuple[set[str], list[tuple[int, set[str]]]]:
    """(what the module imports at module level, [(line, names)] imported inside functions)."""
    top: set[str] = set()
    nested: list[tuple[int, set[str]]] = []
    tree = _tree(module)
    in_functions = {
        id(node)
        for scope in ast.walk(tree)
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for node in ast.walk(scope)
    }
    typing_only = {
        id(node) for stmt in tree.body if _type_checking(stmt) for node in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom) or id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if id(node) in in_functions:
            nested.append((node.lineno, _targets(node, module)))
        else:
            top |= _targets(node, module)
    return top, nested


@cache
def _heavy(module: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether importing ``module`` brings in a heavy engine (at module level, transitively)."""
    if module in HEAVY:
        return True
    if module not in MODULES or module in seen:
        return False
    top, _ = _imports(module)
    return any(_heavy(name, seen | {module}) for name in top)


def _graph() -> dict[str, set[str]]:
    return {m: {t for t in _imports(m)[0] if t in MODULES} for m in MODULES}


def test_imports_inside_functions_are_only_of_heavy_engines() -> None:
    allowed = LAZY_BY_DESIGN
    light = {
        f"{module}:{line}": sorted(
            n for n in names if not _heavy(n) and n not in allowed.get(module, ())
        )
        for module in MODULES
        for line, names in _imports(module)[1]
    }
    light = {where: names for where, names in light.items() if names}
    assert not light, f"move these imports to module level: {light}"


def test_no_import_cycle() -> None:
    assert find_cycle(_graph()) is None


def test_the_stage_declarations_stay_light() -> None:
    """What the registry imports never brings in a heavy engine (the scenarios stage alone must
    not pay for schemathesis or Locust)."""
    assert not _heavy("conformance.registry")
    assert not _heavy("conformance.run.plugin")
    assert not _heavy("conformance.cli")


# ------------------------------------------------------------------ floors

# The rooms from the lowest floor up (ARCHITECTURE.md, "Floors"): a module imports only modules
# of its own floor or below, at module level and inside functions alike. A room is a folder of
# ``conformance/`` (or a module at its top) and its floor is the folder's: no module is an
# exception. A floor may hold several rooms (they may import each other, but no folder reaches
# itself through another).
FLOORS: tuple[tuple[str, ...], ...] = (
    ("conformance", "errors", "json_types", "redaction"),
    ("catalogue",),
    ("verdict",),  # outcomes, verdicts, levels, evidence, differences, records: what reports render
    ("report",),  # the model and its renderers: a stage's own lines and HTML reach them in it
    ("registry",),  # the stage declarations: which stages exist, what each declares, fuzz tiers
    ("profile",),  # what a target declares: its sections, the loader, the keys a run read
    ("traffic",),
    ("target",),
    ("oracles",),
    ("checks",),
    ("contract",),
    ("session",),
    ("drivers",),
    ("stages",),  # each stage's machinery
    ("run",),
    ("selftest",),
    ("cli",),  # every subcommand, the stages' own included
)
# Upward imports the code still has, each with its reason; one that is gone fails the test too.
KNOWN_UPWARD: dict[tuple[str, str], str] = {}


def room_of(module: str) -> str:
    """The folder (room) a module lives in: ``conformance.<room>...``, else the top module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "conformance"


def floor_of(module: str) -> int:
    room = room_of(module)
    (index,) = [i for i, rooms in enumerate(FLOORS) if room in rooms]
    return index


def _every_import() -> dict[str, set[str]]:
    """Module -> the conformance modules it imports, at module level or inside a function."""
    graph = {}
    for module in MODULES:
        top, nested = _imports(module)
        names = top.union(*(names for _, names in nested))
        graph[module] = {name for name in names if name in MODULES}
    return graph


def upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(m, t) for m, targets in graph.items() for t in targets if floor_of(t) > floor_of(m)}


def folders(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph drawn by folder: room -> the other rooms its modules import."""
    drawn: dict[str, set[str]] = {}
    for module, targets in graph.items():
        drawn.setdefault(room_of(module), set()).update(room_of(t) for t in targets)
    return {room: targets - {room} for room, targets in drawn.items()}


def test_no_module_imports_a_floor_above_its_own() -> None:
    found = upward(_every_import())
    assert found - set(KNOWN_UPWARD) == set(), "an import reaches a floor above its module's"
    assert set(KNOWN_UPWARD) - found == set(), (
        "a known upward import is gone: drop it from the list"
    )


def test_the_folder_graph_has_no_upward_edge_and_no_circle() -> None:
    drawn = folders(_every_import())
    assert {
        (room, target)
        for room, targets in drawn.items()
        for target in targets
        if floor_of(f"conformance.{target}") > floor_of(f"conformance.{room}")
    } == set()
    assert find_cycle(drawn) is None
    planted = {**drawn, "errors": {*drawn["errors"], "redaction"}, "redaction": {"errors"}}
    assert find_cycle(planted) is not None  # two rooms of one floor reaching each other


def test_a_planted_upward_import_is_found() -> None:
    graph = _every_import()
    planted = {
        **graph,
        "conformance.catalogue.requirements": {
            *graph["conformance.catalogue.requirements"],
            "conformance.run.launch",
        },
    }
    assert upward(planted) - upward(graph) == {
        ("conformance.catalogue.requirements", "conformance.run.launch")
    }


def test_imports_inside_functions_count_for_the_floors() -> None:
    """The fuzz command imports the engine's modules when it runs (a lazy import): the floors
    see that edge, which the module-level graph does not hold."""
    lazy = ("conformance.cli.fuzz", "conformance.stages.fuzz.answers")
    assert lazy[1] in _every_import()[lazy[0]] and lazy[1] not in _graph()[lazy[0]]
    swapped = {lazy[1]: {lazy[0]}}  # the engine's module reaching up to the command, lazily
    assert upward(swapped) == {(lazy[1], lazy[0])}


def test_subcommands_are_parsed_on_the_cli_floor_only() -> None:
    """A subparser is added (``add_parser``, ``add_subparsers``) only in ``conformance/cli/``,
    one module per subcommand (the stages' own commands, declared by their stage, among them);
    every module of ``conformance/cli/`` is a subcommand the CLI dispatches to."""
    from conformance import cli

    parsing = {
        module
        for module in MODULES
        for node in ast.walk(_tree(module))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("add_parser", "add_subparsers")
    }
    subcommands = {cli.RUN_COMMAND, *cli.command_modules().values()}
    cli_modules = {m for m in MODULES if m.startswith("conformance.cli.")} - {
        "conformance.cli.__main__"
    }
    assert cli_modules == subcommands
    assert parsing - subcommands == {"conformance.cli"}  # the top parser


def test_every_room_is_on_a_floor() -> None:
    for module in MODULES:
        floor_of(module)  # one floor each, or ValueError
    rooms = {room_of(module) for module in MODULES}
    assert rooms == {room for floor in FLOORS for room in floor}, "a floor names no folder"


# ------------------------------------------------------------------ what an import loads

LIGHT_ROOMS = (
    "conformance.catalogue",
    "conformance.report.model",
    "conformance.registry",
    "conformance.session.state",
    "conformance.session.wire",
)
MACHINERY = ("uvicorn", "locust", "gevent", "schemathesis", "refserver")


@pytest.mark.parametrize("room", LIGHT_ROOMS)
def test_importing_a_low_room_loads_no_stage_machinery(room: str) -> None:
    """In a fresh interpreter: no heavy engine, no ASGI server, and no stage machinery (of the
    stages, only their declarations in the registry)."""
    code = f"import json, sys; import {room}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout))
    heavy = {name for name in loaded if name.split(".")[0] in MACHINERY}
    machinery = {name for name in loaded if room_of(name) in ("stages", "run", "cli")}
    assert heavy == set() and machinery == set()
