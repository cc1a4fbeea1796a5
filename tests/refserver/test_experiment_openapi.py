"""Every experiment route is in openapi/openapi.yaml, and every experiment operation is served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.routing import Route

from refserver import experiments

OPENAPI = Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def _document() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    return document


def _documented() -> dict[tuple[str, str], str]:
    """(METHOD, path) -> operationId of every experiment operation in the document."""
    found: dict[tuple[str, str], str] = {}
    for path, item in _document()["paths"].items():
        if not path.startswith(experiments.PREFIX):
            continue
        for method, operation in item.items():
            if method in HTTP_METHODS:
                found[(method.upper(), path)] = operation["operationId"]
    return found


def _served() -> set[tuple[str, str]]:
    served: set[tuple[str, str]] = set()
    for route in experiments.routes():
        assert isinstance(route, Route)
        for method in route.methods or ():
            if method != "HEAD":
                served.add((method, route.path))
    return served


pytestmark = pytest.mark.skipif(not OPENAPI.exists(), reason="openapi/openapi.yaml not written yet")


def test_every_served_route_is_documented() -> None:
    missing = _served() - set(_documented())
    assert not missing, f"served but not in openapi.yaml: {sorted(missing)}"


def test_every_documented_operation_is_served() -> None:
    missing = set(_documented()) - _served()
    assert not missing, f"in openapi.yaml but not served: {sorted(missing)}"


def test_operation_ids_agree() -> None:
    documented = _documented()
    for suffix, methods, _handler, operation_id in experiments.ROUTES:
        for method in methods:
            assert documented.get((method, experiments.PREFIX + suffix)) == operation_id


def test_fifteen_endpoints() -> None:
    assert len(_served()) == 15
