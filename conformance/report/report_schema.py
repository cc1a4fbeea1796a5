"""The JSON Schema of conformance.json, shipped with the suite, and validation against it."""

from __future__ import annotations

import importlib
import json
from functools import cache
from pathlib import Path

from conformance.json_types import JsonObject

SCHEMA_PATH = Path(__file__).with_name("report.schema.json")


@cache
def report_schema() -> JsonObject:
    schema: JsonObject = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def schema_errors(data: object) -> list[str]:
    """Every violation as "at <json pointer>: <message>", sorted; empty when valid."""
    # Imported by name: jsonschema ships no type stubs, and the kit does not require them.
    jsonschema = importlib.import_module("jsonschema")
    validator = jsonschema.Draft202012Validator(
        report_schema(), format_checker=jsonschema.FormatChecker()
    )
    found = []
    for error in validator.iter_errors(data):
        pointer = "/" + "/".join(str(p) for p in error.absolute_path)
        found.append(f"at {pointer}: {error.message}")
    return sorted(found)
