"""Shapes of the spec's resources (2.1, 2.4, 2.5) as JSON Schemas, one per requirement's concern."""

from __future__ import annotations

from functools import cache

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from conformance.json_types import JsonObject

# The RFC 3339 profile of a date-time (full date, full time, a zone): the production convention
# (CFG-RECORD-TIMESTAMPS-RFC3339), not the interface's words.
DATE_TIME = r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$"
# What the spec's "ISO 8601 date-time" admits: a calendar date and a time of day in the extended
# (2026-01-31T12:00:00) or the basic format (20260131T120000), the time to hours, minutes or
# seconds with a decimal fraction after a full stop or a comma, local or with a zone
# (Z, +hh, +hh:mm / +hhmm). The space separator is RFC 3339's (kept: the kit accepted it before).
ISO_8601_DATE_TIME = (
    r"^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}(:\d{2}(:\d{2})?)?([.,]\d+)?([Zz]|[+-]\d{2}(:?\d{2})?)?"
    r"|\d{8}[Tt]\d{2}(\d{2}(\d{2})?)?([.,]\d+)?([Zz]|[+-]\d{2}(\d{2})?)?)$"
)
NUMBER: JsonObject = {"type": "number"}
STRING: JsonObject = {"type": "string"}

# Spec 2.1: every field of a configuration record and its documented type.
RECORD: JsonObject = {
    "type": "object",
    "required": [
        "id",
        "applicationId",
        "environmentId",
        "name",
        "alias",
        "description",
        "createdAt",
        "updatedAt",
        "deletedAt",
        "configuration",
        "isPrivate",
        "privateKeys",
        "comments",
        "contentHash",
    ],
    "properties": {
        "id": NUMBER,
        "applicationId": NUMBER,
        "environmentId": NUMBER,
        "name": STRING,
        "alias": STRING,
        "description": STRING,
        "createdAt": {"type": "string", "pattern": ISO_8601_DATE_TIME},
        "updatedAt": {"type": "string", "pattern": ISO_8601_DATE_TIME},
        "deletedAt": {"type": ["string", "null"], "pattern": ISO_8601_DATE_TIME},
        "isPrivate": {"type": "boolean"},
        "privateKeys": {"type": "array", "items": STRING},
        "comments": {"type": "object", "additionalProperties": STRING},
        "contentHash": {"type": "string", "minLength": 1},
    },
}

# Spec 2.4, top level only (entries, experiments and polling have their own requirements).
SNAPSHOT: JsonObject = {
    "type": "object",
    "required": [
        "hash",
        "configurations",
        "primaryConfigurationId",
        "experiments",
        "requiredProperties",
    ],
    "properties": {
        "hash": {"type": "string", "minLength": 1},
        "configurations": {"type": "array"},
        "primaryConfigurationId": {"type": ["number", "null"]},
        "experiments": {
            "type": "object",
            "required": ["user", "server"],
            "properties": {"user": {"type": "array"}, "server": {"type": "array"}},
        },
        "requiredProperties": {"type": "array", "items": STRING},
    },
}

# Spec 2.4: one entry of ``configurations`` in a status snapshot. That it carries no document
# is judged by ``status_entry_problems``: the document's field name is a profile key.
STATUS_ENTRY: JsonObject = {
    "type": "object",
    "required": ["id", "name", "alias", "hash"],
    "properties": {"id": NUMBER, "name": STRING, "alias": STRING, "hash": STRING},
}

POLLING: JsonObject = {
    "type": "object",
    "required": ["intervalSeconds", "jitterRatio"],
    "properties": {"intervalSeconds": NUMBER, "jitterRatio": NUMBER},
}


@cache
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(SCHEMAS[name])


SCHEMAS: dict[str, JsonObject] = {
    "record": RECORD,
    "snapshot": SNAPSHOT,
    "status-entry": STATUS_ENTRY,
    "polling": POLLING,
}


def problems(name: str, instance: object) -> list[str]:
    """Every way ``instance`` departs from the named shape, as readable lines."""
    found = []
    for error in sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.path)):
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        found.append(f"{where}: {error.message[:200]}")
    return found


def status_entry_problems(entry: object, document_field: str) -> list[str]:
    """A status entry's departures from spec 2.4, and a document under ``document_field``
    (the profile's ``bootstrap_payload.document``): status carries hashes, not documents."""
    found = problems("status-entry", entry)
    if isinstance(entry, dict) and document_field in entry:
        found.append(f"{document_field}: the entry carries a document (only bootstrap may)")
    return found
