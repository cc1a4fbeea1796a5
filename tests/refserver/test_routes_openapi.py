"""Every served route is in the OpenAPI document, and every non-experiment operation is served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.routing import Route

from refserver.app import ROUTES, routes

DOCUMENT = Path(__file__).parents[2] / "openapi" / "openapi.yaml"
METHODS = ("get", "post", "put", "patch", "delete")


def document() -> dict[str, Any]:
    if not DOCUMENT.exists():
        pytest.fail(f"{DOCUMENT} is missing")
    loaded: dict[str, Any] = yaml.safe_load(DOCUMENT.read_text())
    return loaded


def documented() -> dict[tuple[str, str], dict[str, Any]]:
    """(METHOD, path) -> operation object."""
    return {
        (method.upper(), path): operation
        for path, item in document()["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    }


def served() -> set[tuple[str, str]]:
    pairs = set()
    for route in routes():
        assert isinstance(route, Route)
        for method in route.methods or ():
            if method != "HEAD":
                pairs.add((method, route.path))
    return pairs


def test_every_served_route_is_documented() -> None:
    missing = served() - set(documented())
    assert not missing, f"served but not in openapi.yaml: {sorted(missing)}"


def test_every_documented_operation_outside_experiments_is_served() -> None:
    wanted = {
        pair
        for pair, operation in documented().items()
        if "experiments" not in operation.get("tags", [])
    }
    assert wanted, "the document lists no configuration or SDK operation"
    missing = wanted - served()
    assert not missing, f"documented but not served: {sorted(missing)}"


def test_route_names_are_the_operation_ids() -> None:
    operations = documented()
    for operation_id, method, path, _endpoint in ROUTES:
        assert operations[(method, path)]["operationId"] == operation_id
