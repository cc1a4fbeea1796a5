"""No ``==`` or ``!=`` on JSON values in the modules that judge a target: they use the strict
comparison (``conformance.oracles.json_equality``), for which ``true`` is not ``1`` and member
order counts where it is content.

The rule, read with ``ast`` in each check-bearing module (``CHECK_BEARING``), one function body
(or the module body) at a time:

- a *JSON source* is a call of ``.json()``, ``json.loads``, ``json_object``, or of a function or
  method of ``conformance`` whose return annotation names ``JsonValue``, ``JsonObject`` or
  ``JsonArray`` (``Snapshots.snapshot``, ``content_of``, ``entry_of``, ...) or that is listed in
  ``RECORD_SOURCES`` (drivers annotated ``dict[str, Any]`` that return a parsed record);
- a *JSON value* is a JSON source, a name bound from a JSON value (``=``, ``:=``, a ``for``
  target iterating one, tuple unpacking of one), a subscript of one, its ``.get()``,
  ``.items()``, ``.values()``, ``.pop()`` or ``.setdefault()``, ``x or y`` / ``a if c else b``
  with a JSON value as a branch, or a list, set or generator comprehension of JSON values
  (comprehension targets count as names of the enclosing body);
- a comparison ``a == b`` or ``a != b`` is flagged when ``a`` or ``b`` is a JSON value and
  neither side is exact under ``==`` whatever the other is: a string literal, an f-string,
  ``None``, or a ``str(...)`` call (a ``str`` equals only a ``str``, ``None`` only ``None``).

Not covered, by design: ``in`` (membership of ids in a list the suite built), and values that
reach a helper through a parameter (the helper's own caller is scanned where the value is read).
``test_the_scanner_flags_planted_comparisons`` plants each form the rule names and some it must
leave alone, so the scanner itself can fail.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHECK_BEARING = (
    "conformance/stages/scenarios",
    "conformance/drivers",
    "conformance/oracles",
    "conformance/checks",
    "conformance/stages/fuzz/response_checks.py",
    "conformance/stages/load",
    "conformance/stages/client",
)
# Findings left to their module's owner, each with its reason; one that disappears must leave
# this table too (``test_pending_findings_are_still_there``).
PENDING: dict[tuple[str, str], str] = {
    ("conformance/stages/scenarios/test_load_shedding.py", "h == hint"): (
        "the shedding judge is another helper's (issue 31, client side): compare the bootstrap's "
        "polling hint with same_json there"
    ),
}
BASE_SOURCES = frozenset({"json", "loads", "json_object"})
# Drivers that return a parsed record or snapshot but are annotated with ``dict[str, Any]``.
RECORD_SOURCES = frozenset({"create_ok", "current"})
JSON_ANNOTATIONS = ("JsonValue", "JsonObject", "JsonArray")
DERIVING_METHODS = frozenset({"get", "items", "values", "pop", "setdefault"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def annotated_sources(paths: Iterable[Path]) -> frozenset[str]:
    """Names of functions whose return annotation names a JSON value type."""
    names: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            returns = getattr(node, "returns", None)
            if returns is not None and any(w in ast.unparse(returns) for w in JSON_ANNOTATIONS):
                names.add(getattr(node, "name", ""))
    return frozenset(names)


def _callee(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    if isinstance(call.func, ast.Name):
        return call.func.id
    return None


class Scope:
    """One function body (or the module body): the names it binds from JSON values."""

    def __init__(self, body: list[ast.stmt], sources: frozenset[str]) -> None:
        self.sources = sources
        self.names: set[str] = set()
        bindings = list(_bindings(body))
        while True:  # to a fixpoint: a name may be bound from a name bound later in the text
            before = len(self.names)
            for target, value in bindings:
                if self.is_json(value):
                    self.names.update(_names_in(target))
            if len(self.names) == before:
                return

    def is_json(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Call):
            callee = _callee(node)
            if callee in self.sources:
                return True
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            return callee in DERIVING_METHODS and receiver is not None and self.is_json(receiver)
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Subscript):
            return self.is_json(node.value)
        if isinstance(node, ast.BoolOp):
            return any(self.is_json(v) for v in node.values)
        if isinstance(node, ast.IfExp):
            return self.is_json(node.body) or self.is_json(node.orelse)
        if isinstance(node, ast.NamedExpr):
            return self.is_json(node.value)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return self.is_json(node.elt)
        return False


def _bindings(body: list[ast.stmt]) -> Iterator[tuple[ast.expr, ast.expr]]:
    """(target, value) of every binding in ``body``, not descending into nested scopes."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield from _paired(target, node.value)
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            yield node.target, node.value
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            yield node.target, node.iter
        stack.extend(ast.iter_child_nodes(node))


def _paired(target: ast.expr, value: ast.expr) -> Iterator[tuple[ast.expr, ast.expr]]:
    """``a, b = x, y`` binds element by element; any other unpacking binds every name."""
    if (
        isinstance(target, ast.Tuple | ast.List)
        and isinstance(value, ast.Tuple | ast.List)
        and len(target.elts) == len(value.elts)
    ):
        for element, part in zip(target.elts, value.elts, strict=True):
            yield from _paired(element, part)
    else:
        yield target, value


def _names_in(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _names_in(element)
    elif isinstance(target, ast.Starred):
        yield from _names_in(target.value)


def _exact(node: ast.expr) -> bool:
    """A side whose ``==`` is exact whatever the other side is."""
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, str | bytes)
    if isinstance(node, ast.JoinedStr):
        return True
    return isinstance(node, ast.Call) and _callee(node) == "str"


def _comparisons(body: list[ast.stmt]) -> Iterator[ast.Compare]:
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Compare):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _scopes(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    yield tree.body
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.body
        elif isinstance(node, ast.Lambda):
            yield [ast.Expr(node.body)]


def scan(source: str, path: str, sources: frozenset[str]) -> list[Finding]:
    """The flagged comparisons of one module."""
    found: list[Finding] = []
    for body in _scopes(ast.parse(source)):
        scope = Scope(body, sources)
        for compare in _comparisons(body):
            operands = [compare.left, *compare.comparators]
            for index, op in enumerate(compare.ops):
                if not isinstance(op, ast.Eq | ast.NotEq):
                    continue
                left, right = operands[index], operands[index + 1]
                if _exact(left) or _exact(right):
                    continue
                if scope.is_json(left) or scope.is_json(right):
                    found.append(Finding(path, compare.lineno, ast.unparse(compare)))
    return sorted(set(found), key=lambda f: (f.line, f.text))


def check_bearing_files() -> list[Path]:
    files: list[Path] = []
    for entry in CHECK_BEARING:
        path = REPO / entry
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def all_sources() -> frozenset[str]:
    every = sorted((REPO / "conformance").rglob("*.py"))
    return BASE_SOURCES | RECORD_SOURCES | annotated_sources(every)


def findings() -> list[Finding]:
    sources = all_sources()
    return [
        finding
        for path in check_bearing_files()
        for finding in scan(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)), sources)
    ]


def test_no_python_equality_on_json_values_in_checks() -> None:
    found = [f for f in findings() if (f.path, f.text) not in PENDING]
    assert not found, (
        "== or != on JSON values (true == 1 and member order pass them): use "
        "conformance.oracles.json_equality.same_json / json_difference instead:\n"
        + "\n".join(map(str, found))
    )


def test_pending_findings_are_still_there() -> None:
    found = {(f.path, f.text) for f in findings()}
    assert set(PENDING) <= found, f"fixed, so leave PENDING: {sorted(set(PENDING) - found)}"


PLANTED = """
def judged(reply, snapshots, configurations, expected):
    body = reply.json()
    record = configurations.create_ok("x", {"a": True})
    entry = snapshots.snapshot()["configurations"][0]
    doc, other = (json_object(reply), 1)
    flagged = [
        body == expected,                      # 1: the call's result
        reply.json() != {"a": 1},              # 2: the call itself
        record["configuration"] == expected,   # 3: a subscript of a record
        entry.get("hash") == expected,         # 4: .get() of a derived name
        doc == 1,                              # 5: unpacked from a source
        expected == (body or {}),              # 6: a branch of `or`
    ]
    for key, value in body.items():
        flagged.append(value == expected)      # 7: a for target over .items()
    kept = [e for e in entry["list"] if e]
    flagged.append(kept[0] == expected)        # 9: a comprehension of JSON values
    if (moved := snapshots.snapshot()) != expected:  # 8: a walrus
        pass
    left_alone = [
        body.get("hash") == "abc",             # a string literal: exact
        body.get("x") == None,                 # None: exact
        str(body.get("hash")) == expected,     # str(): exact
        body.get("id") == f"{expected}",       # an f-string: exact
        len(body) == 2,                        # not a JSON value
        expected == other,                     # neither side from JSON
        body.get("id") in [1, 2],              # `in`: not covered
        body is None,
    ]
    return flagged, left_alone, moved


def elsewhere(expected):
    body = expected            # a parameter: not a source here
    return body == {"a": 1}
"""


def test_the_scanner_flags_planted_comparisons() -> None:
    sources = BASE_SOURCES | RECORD_SOURCES | frozenset({"snapshot"})
    findings = scan(PLANTED, "planted.py", sources)
    flagged = [f.text for f in findings]
    assert flagged == [
        "body == expected",
        "reply.json() != {'a': 1}",
        "record['configuration'] == expected",
        "entry.get('hash') == expected",
        "doc == 1",
        "expected == (body or {})",
        "value == expected",
        "kept[0] == expected",
        "(moved := snapshots.snapshot()) != expected",
    ], "\n".join(flagged)


def test_sources_include_annotated_drivers() -> None:
    sources = all_sources()
    for name in ("snapshot", "content_of", "entry_of", "patch_ok", "documents"):
        assert name in sources, name


@pytest.mark.parametrize("entry", CHECK_BEARING)
def test_each_check_bearing_entry_names_python_modules(entry: str) -> None:
    """A room moved or renamed would silently leave the scan: each entry must still hold modules."""
    path = REPO / entry
    found = sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.is_file() else []
    assert found, f"{entry} names no Python module: update CHECK_BEARING"
