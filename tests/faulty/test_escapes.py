"""The list of not-measurable paths in docs/faulty-servers.md is checked against the code.

Every place in ``conformance/`` that can make a requirement not measurable (a ``NotMeasurable`` or
``NotConfigured`` built, a factory of one called, a ``pytest.skip``), found by parsing the source,
must be a row of the doc's table, and every row must still name such a place (or, for the rules of
the outcome fold and ``IndependentChecks``, a function that still exists). Each row names who tries
the path: an escape fault, another fault of the catalogue, or the profile key that declares it. So a
new not-measurable path cannot be added without saying which server tries to hide behind it, and an
escape cannot be dropped while its path is listed.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from conformance.traffic.client import TIMEOUT
from faulty import recipes
from faulty.asgi import FaultyApp, Handler
from faulty.catalogue import FAULTS, LOAD_SECTIONS
from faulty.clients.catalogue import FAULTS as CLIENT_FAULTS
from faulty.escapes import ESCAPE_PREFIX
from faulty.recipes import hold, reset
from refserver.runner import RunningServer, start_server

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "faulty-servers.md"
PACKAGE = ROOT / "conformance"
BUILDERS = frozenset({"NotMeasurable", "NotConfigured"})
OPEN_TABLE = "<!-- not-measurable paths: checked by tests/faulty/test_escapes.py -->"
CLOSED_TABLE = "<!-- closed paths: checked by tests/faulty/test_escapes.py -->"
KINDS = frozenset({"raise", "skip", "rule"})
ROW = re.compile(r"^\| `(?P<path>[^`]+)` \| (?P<kind>\w+) \| (?P<why>[^|]+) \| (?P<who>[^|]+) \|$")


@dataclass(frozen=True)
class Row:
    path: str  # conformance/...py:Qualified.name
    kind: str  # raise (a NotMeasurable built), skip (pytest.skip), rule (fold, IndependentChecks)
    why: str
    who: tuple[str, ...]  # fault names, or "profile: key" / "suite: ..." entries


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _functions(tree: ast.Module) -> dict[str, ast.AST]:
    """Qualified name -> function node, nested functions and methods included."""
    found: dict[str, ast.AST] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found[name] = child
                walk(child, name + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def _own(function: ast.AST) -> list[ast.AST]:
    """The nodes of the function's own body (not of the functions nested in it)."""
    nodes: list[ast.AST] = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            nodes.append(child)
            walk(child)

    walk(function)
    return nodes


def _raised(function: ast.AST) -> list[ast.Call]:
    """The calls whose result the function raises (``raise NotMeasurable(...)``)."""
    return [
        n.exc for n in _own(function) if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call)
    ]


def _skips(function: ast.AST) -> list[ast.Call]:
    return [n for n in _own(function) if isinstance(n, ast.Call) and _is_skip(n)]


def _is_skip(call: ast.Call) -> bool:
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr == "skip" and _name(func.value) == "pytest"


def _trees() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(ROOT)): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def factories(trees: dict[str, ast.Module]) -> frozenset[str]:
    """Names of functions that return a ``NotMeasurable`` for their callers to raise."""
    names = set()
    for tree in trees.values():
        for name, function in _functions(tree).items():
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Return)
                    and isinstance(node.value, ast.Call)
                    and _name(node.value.func) in BUILDERS
                ):
                    names.add(name.rsplit(".", 1)[-1])
    return frozenset(names)


@functools.cache
def sites() -> dict[str, str]:
    """Every function of ``conformance/`` that can yield not-measurable -> its kind: it raises a
    ``NotMeasurable``/``NotConfigured`` it builds or a factory returns, or it calls
    ``pytest.skip``. (Building one without raising it, to read its text, is no site.)"""
    trees = _trees()
    made = BUILDERS | factories(trees)
    found: dict[str, str] = {}
    for path, tree in trees.items():
        for name, function in _functions(tree).items():
            if any(_name(c.func) in made for c in _raised(function)):
                found[f"{path}:{name}"] = "raise"
            elif _skips(function):
                found[f"{path}:{name}"] = "skip"
    return found


def rows(marker: str) -> list[Row]:
    """The rows of the doc's table that follows ``marker``."""
    text = DOC.read_text(encoding="utf-8")
    assert marker in text, f"{DOC.name} lost its table marker {marker!r}"
    table = []
    for line in text.split(marker, 1)[1].strip().splitlines():
        if not line.startswith("|"):
            break
        match = ROW.match(line.strip())
        if match:
            who = tuple(w.strip().strip("`") for w in match["who"].split(","))
            table.append(Row(match["path"], match["kind"], match["why"].strip(), who))
    return table


def _exists(path: str) -> bool:
    file, _, name = path.partition(":")
    source = ROOT / file
    if not source.is_file():
        return False
    return name in _functions(ast.parse(source.read_text(encoding="utf-8")))


def test_every_not_measurable_site_is_listed() -> None:
    listed = {r.path for r in rows(OPEN_TABLE)}
    missing = sorted(set(sites()) - listed)
    assert missing == [], (
        "these functions can yield not-measurable but are not in the table of "
        f"{DOC.relative_to(ROOT)} (add a row naming the escape fault that tries each): {missing}"
    )


def test_every_listed_path_still_exists_and_is_what_it_says() -> None:
    found = sites()
    for row in rows(OPEN_TABLE):
        assert row.kind in KINDS, row
        assert _exists(row.path), f"{row.path} is listed but no longer exists"
        if row.kind in ("raise", "skip"):
            assert found.get(row.path) == row.kind, (
                f"{row.path} is listed as a {row.kind} site but the code has "
                f"{found.get(row.path, 'none')}: move the row to the closed table"
            )


def test_closed_paths_no_longer_yield_not_measurable() -> None:
    found = sites()
    for row in rows(CLOSED_TABLE):
        assert row.path not in found, f"{row.path} yields not-measurable again: list it as open"


def test_each_path_names_who_tries_it() -> None:
    load = [f for section in LOAD_SECTIONS.values() for f in section]
    names = {f.name for f in (*FAULTS, *load)} | {c.name for c in CLIENT_FAULTS}
    for row in rows(OPEN_TABLE) + rows(CLOSED_TABLE):
        assert row.why and row.who, row
        for who in row.who:
            declared = who.startswith(("profile:", "suite:"))
            assert declared or who in names, f"{row.path}: {who!r} is no fault of the catalogue"


def test_every_escape_is_listed_with_a_path() -> None:
    named = {w for r in rows(OPEN_TABLE) + rows(CLOSED_TABLE) for w in r.who}
    escapes = {f.name for f in FAULTS if f.name.startswith(ESCAPE_PREFIX)}
    assert escapes, "the catalogue has no escapes section"
    assert sorted(escapes - named) == []


def test_the_site_finder_sees_raises_factories_and_skips() -> None:
    tree = ast.parse(
        "def factory(what):\n    return NotMeasurable(what)\n"
        "class C:\n    def m(self):\n        raise factory('x')\n"
        "def s():\n    pytest.skip('y')\n"
        "def plain():\n    isinstance(e, NotMeasurable)\n    NotConfigured('k').reason\n"
        "def outer():\n    def inner():\n        raise NotConfigured('k')\n"
    )
    assert factories({"x.py": tree}) == {"factory"}
    functions = _functions(tree)
    assert set(functions) == {"factory", "C.m", "s", "plain", "outer", "outer.inner"}
    made = BUILDERS | {"factory"}

    def raises(name: str) -> bool:
        return any(_name(c.func) in made for c in _raised(functions[name]))

    assert raises("C.m") and raises("outer.inner")
    assert not raises("plain") and not raises("outer") and not raises("factory")
    assert _skips(functions["s"]) and not _skips(functions["plain"])


# ------------------------------------------------------------------ the withholding recipes


def _served(handler: Handler, tmp_path: Path) -> RunningServer:
    return start_server(tmp_path / "db.sqlite", wrap=lambda app: FaultyApp(app, handler))


def test_reset_sends_a_tcp_reset_over_a_real_socket(tmp_path: Path) -> None:
    server = _served(reset(lambda r: r.path == "/reset", lambda r, resp: True), tmp_path)
    try:
        with pytest.raises(httpx.TransportError):
            httpx.get(server.base_url + "/reset", timeout=5)
        assert httpx.get(server.base_url + "/sdk/v2/status", timeout=5).status_code == 401
    finally:
        server.stop()


def test_hold_answers_only_after_the_client_gave_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recipes, "HOLD_SECONDS", 1.0)
    server = _served(hold(lambda r: r.path == "/held", lambda r, resp: True), tmp_path)
    try:
        with pytest.raises(httpx.ReadTimeout):
            httpx.get(server.base_url + "/held", timeout=0.3)
    finally:
        server.stop()


def test_a_hold_outlasts_the_deadline_its_profile_sets() -> None:
    deadline = recipes.HOLD_PROFILE["responses"]["max_seconds"]
    assert deadline == recipes.HOLD_DEADLINE_SECONDS < recipes.HOLD_SECONDS
    assert TIMEOUT.read is not None and TIMEOUT.read > recipes.HOLD_SECONDS
