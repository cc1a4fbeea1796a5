"""conformance's own imports: at module level, except the heavy optional engines (schemathesis,
Locust) and the modules that bring them in, and the one lazy start of the embedded reference
server; and no module reaches itself through its module-level imports."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

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
    assert not _heavy("conformance.stages")
    assert not _heavy("conformance.run.plugin")
    assert not _heavy("conformance.cli")
