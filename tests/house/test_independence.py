"""The independence rule: the suite, the reference server and the reference client never import
each other, except lazily from the suite.

``refserver`` imports nothing of ``conformance`` or ``refclient``. ``conformance`` imports nothing
of ``refserver``, except ``conformance/target/embedded.py``, and there only inside a function body
(lazily, by name); it may import ``refclient`` only inside function bodies. ``refclient`` imports
nothing of ``conformance`` or ``refserver``.
Imports are read with ``ast``: ``import x``, ``from x import y``, and ``importlib.import_module``
or ``__import__`` called with a literal name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAZY_EXCEPTION = Path("conformance/target/embedded.py")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_DYNAMIC = {"import_module", "__import__"}


@dataclass(frozen=True)
class Import:
    module: str
    line: int
    in_function: bool


@dataclass(frozen=True)
class Rule:
    """Modules of ``package`` may not import ``forbidden`` (``lazy_file`` may, inside functions)."""

    package: str
    forbidden: str
    lazy_file: Path | None = None
    lazy_anywhere: bool = False  # any module of ``package`` may, inside functions


RULES = (
    Rule(package="refserver", forbidden="conformance"),
    Rule(package="conformance", forbidden="refserver", lazy_file=LAZY_EXCEPTION),
    Rule(package="refserver", forbidden="refclient"),
    Rule(package="conformance", forbidden="refclient", lazy_anywhere=True),
    Rule(package="refclient", forbidden="conformance"),
    Rule(package="refclient", forbidden="refserver"),
)


def imports_of(source: str, filename: str = "<source>") -> list[Import]:
    """Every absolute import in ``source``, and whether it sits inside a function body."""
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, node.lineno, in_function) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(Import(node.module, node.lineno, in_function))
        elif isinstance(node, ast.Call) and _dynamic_name(node) is not None:
            found.append(Import(str(_dynamic_name(node)), node.lineno, in_function))
        inside = in_function or isinstance(node, _FUNCTIONS)
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(ast.parse(source, filename=filename), in_function=False)
    return found


def _dynamic_name(call: ast.Call) -> str | None:
    function = call.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
    if name not in _DYNAMIC or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def violations(relative: Path, source: str) -> list[str]:
    """Why the module at ``relative`` (to the repository root) breaks the rule; empty if not."""
    package = relative.parts[0]
    problems = []
    for rule in RULES:
        if rule.package != package:
            continue
        for found in imports_of(source, str(relative)):
            top = found.module.split(".")[0]
            if top != rule.forbidden:
                continue
            lazy_allowed = rule.lazy_anywhere or relative == rule.lazy_file
            if lazy_allowed and found.in_function:
                continue
            where = "at module level" if not found.in_function else "inside a function"
            problems.append(f"{relative}:{found.line} imports {found.module} {where}")
    return problems


def _modules(package: str) -> list[Path]:
    return sorted(p for p in (REPO / package).rglob("*.py") if "__pycache__" not in p.parts)


# --- the repository ---------------------------------------------------------------------------


@pytest.mark.parametrize("package", ["conformance", "refserver", "refclient"])
def test_packages_do_not_import_each_other(package: str) -> None:
    modules = _modules(package)
    assert modules, f"no modules found under {package}/"
    problems = [
        problem
        for path in modules
        for problem in violations(path.relative_to(REPO), path.read_text(encoding="utf-8"))
    ]
    assert problems == []


# --- the checker, on synthetic sources --------------------------------------------------------


def test_imports_of_sees_every_form() -> None:
    source = (
        "import os, refserver.app\n"
        "from conformance.contract.document import load_contract\n"
        "from . import sibling\n"
        "import importlib\n"
        "def start():\n"
        "    from refserver import cli\n"
        "    return importlib.import_module('refserver.app')\n"
        "class Holder:\n"
        "    def method(self):\n"
        "        __import__('conformance')\n"
    )
    assert [(i.module, i.in_function) for i in imports_of(source)] == [
        ("os", False),
        ("refserver.app", False),
        ("conformance.contract.document", False),
        ("importlib", False),
        ("refserver", True),
        ("refserver.app", True),
        ("conformance", True),
    ]


@pytest.mark.parametrize(
    ("relative", "source", "expected"),
    [
        ("refserver/app.py", "import conformance\n", 1),
        ("refserver/app.py", "from conformance.report import model\n", 1),
        ("refserver/app.py", "def f():\n    import conformance.contract.document\n", 1),
        ("refserver/app.py", "import importlib\nimportlib.import_module('conformance')\n", 1),
        ("refserver/app.py", "from . import store\nimport json\n", 0),
        ("conformance/traffic/client.py", "import refserver\n", 1),
        ("conformance/traffic/client.py", "def f():\n    from refserver import app\n", 1),
        ("conformance/target/embedded.py", "import refserver.cli\n", 1),
        ("conformance/target/embedded.py", "from refserver import app\n", 1),
        ("conformance/target/embedded.py", "def start():\n    from refserver import app\n", 0),
        ("conformance/target/embedded.py", "async def start():\n    import refserver.cli\n", 0),
        (
            "conformance/target/embedded.py",
            "import importlib\ndef start():\n    importlib.import_module('refserver.app')\n",
            0,
        ),
        (
            "conformance/target/embedded.py",
            "import importlib\nimportlib.import_module('refserver')\n",
            1,
        ),
        ("conformance/stages/scenarios/embedded.py", "def f():\n    import refserver\n", 1),
        ("conformance/traffic/client.py", "import refserver_extras\n", 0),
        ("refserver/app.py", "from refclient import Poller\n", 1),
        ("conformance/stages/client.py", "import refclient\n", 1),
        ("conformance/stages/client.py", "def f():\n    from refclient import cli\n", 0),
        ("refclient/core.py", "import refserver.hashing\n", 1),
        ("refclient/core.py", "def f():\n    import conformance\n", 1),
        ("refclient/core.py", "import httpx\nfrom refclient import timing\n", 0),
    ],
)
def test_checker_on_synthetic_sources(relative: str, source: str, expected: int) -> None:
    assert len(violations(Path(relative), source)) == expected
