"""The profile's JSON Schema and what it states: every key's default, the stage sections."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any


@cache
def schema() -> dict[str, Any]:
    """The profile's JSON Schema."""
    text = resources.files("conformance.profile").joinpath("profile.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _stage_sections() -> frozenset[str]:
    """The sections the schema marks ``x-stage-section``: their keys set a stage rather than
    describe the target. The schema validates them and gives their defaults; the stage that
    reads one types it (``stage_section``)."""
    properties = schema()["properties"]
    return frozenset(name for name, node in properties.items() if node.get("x-stage-section"))


def schema_defaults(properties: Mapping[str, Any]) -> dict[str, Any]:
    """The ``default`` of each property, and of each object's properties, recursively; a
    property with neither (a credential, an optional input) is left out."""
    found: dict[str, Any] = {}
    for name, node in properties.items():
        if "default" in node:
            found[name] = copy.deepcopy(node["default"])
        elif "properties" in node and (nested := schema_defaults(node["properties"])):
            found[name] = nested
    return found


# The defaults, section by section, as the schema states them.
DEFAULTS: dict[str, Any] = schema_defaults(schema()["properties"])
STAGE_SECTIONS: frozenset[str] = _stage_sections()
