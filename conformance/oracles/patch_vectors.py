"""The public RFC 6902 test vectors (json-patch-tests), vendored as data, and what each one asks.

``json_patch_tests/`` holds ``tests.json`` and ``spec_tests.json`` of the json-patch-tests project
unchanged (Apache License 2.0: ``LICENSE`` and ``NOTICE`` next to them). Each vector is a starting
document, a list of operations and either the expected document or an error. ``vectors()`` reads
them; ``expectation`` says what a conformant target answers, and under which requirement:

- an expected document (or none given: the document unchanged): a 2xx whose content is that
  document, judged for each operation's rule (``test``: CFG-PATCH-OPS-TEST; ``move``/``copy``:
  CFG-PATCH-OPS-MOVE-COPY; ``add``/``remove``/``replace`` on an array element:
  CFG-PATCH-OPS-ARRAYS; otherwise CFG-PATCH-OPS-ADD-REMOVE-REPLACE);
- an error the ``jsonpatch`` oracle files as a malformed operation (a missing ``value`` or
  ``from``, an unknown op): a 4xx (CFG-PATCH-MALFORMED-REFUSED);
- any other error (a failing ``test``, a missing path, an index out of range or not a number):
  409 (spec 4.1 rule 3, CFG-PATCH-409-INAPPLICABLE).

A vector the suite cannot send as written is left out with its reason (``skipped()``): one marked
``disabled`` by its authors, and one whose text repeats a member name (JSON text the suite's
encoder cannot write; the parsed value has lost the repetition). The vectors' authors compare
documents without member order; so does the replay (member order is judged by the key-order
scenarios, where the specification makes it content).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import jsonpatch
import jsonpointer

from conformance.json_types import JsonObject, JsonValue

FILES = ("tests.json", "spec_tests.json")
ADD_REMOVE_REPLACE = "CFG-PATCH-OPS-ADD-REMOVE-REPLACE"
MOVE_COPY = "CFG-PATCH-OPS-MOVE-COPY"
TEST = "CFG-PATCH-OPS-TEST"
ARRAYS = "CFG-PATCH-OPS-ARRAYS"
INAPPLICABLE = "CFG-PATCH-409-INAPPLICABLE"
MALFORMED = "CFG-PATCH-MALFORMED-REFUSED"


@dataclass(frozen=True)
class Vector:
    """One vector: where it comes from, its document and operations, and its outcome."""

    name: str  # file:index
    comment: str
    doc: JsonValue
    patch: list[JsonObject]
    expected: JsonValue  # the expected document when ``error`` is None
    error: str | None


@dataclass(frozen=True)
class Expectation:
    """What a conformant target answers to a vector, and the requirements that judge it."""

    ids: tuple[str, ...]
    applies: bool  # a 2xx with ``Vector.expected`` as content; else a refusal
    statuses: tuple[int, ...]  # the refusal's statuses (empty: any 4xx)


def _raw() -> list[tuple[str, int, Any]]:
    """(file, index, parsed record) for every record of every file."""
    found = []
    for name in FILES:
        text = resources.files(__package__).joinpath("json_patch_tests", name).read_text("utf-8")
        for index, record in enumerate(json.loads(text)):
            found.append((name, index, record))
    return found


def _repeats_a_member(record: Mapping[str, Any]) -> bool:
    """True when an operation's text named a member twice (``"op"`` given twice, say)."""
    comment = str(record.get("comment", "")) + str(record.get("error", ""))
    return "two 'op'" in comment or "duplicate" in comment


def skipped() -> dict[str, str]:
    """Vectors left out, by name, with the reason."""
    out: dict[str, str] = {}
    for name, index, record in _raw():
        if "doc" not in record or "patch" not in record:
            continue  # a comment-only record is no vector
        if record.get("disabled"):
            out[f"{name}:{index}"] = "disabled by the vectors' authors"
        elif _repeats_a_member(record):
            out[f"{name}:{index}"] = (
                "its text repeats a member name, which a JSON encoder cannot write"
            )
    return out


def vectors() -> list[Vector]:
    """Every vector the suite can send, in file order."""
    left_out = skipped()
    found = []
    for name, index, record in _raw():
        key = f"{name}:{index}"
        if "doc" not in record or "patch" not in record or key in left_out:
            continue
        error = record.get("error")
        found.append(
            Vector(
                name=key,
                comment=str(record.get("comment", "")),
                doc=record["doc"],
                patch=list(record["patch"]),
                expected=record.get("expected", record["doc"]),
                error=None if error is None else str(error),
            )
        )
    return found


def _rule_of(document: JsonValue, operation: Mapping[str, Any]) -> str:
    op = operation.get("op")
    if op == "test":
        return TEST
    if op in ("move", "copy"):
        return MOVE_COPY
    path = str(operation.get("path", ""))
    parent = jsonpointer.JsonPointer(path).to_last(document)[0] if path else None
    return ARRAYS if isinstance(parent, list) else ADD_REMOVE_REPLACE


def expectation(vector: Vector) -> Expectation:
    """The answer a conformant target gives, from the vector and the ``jsonpatch`` oracle."""
    if vector.error is not None:
        try:
            jsonpatch.apply_patch(copy.deepcopy(vector.doc), vector.patch)
        except jsonpatch.InvalidJsonPatch:
            return Expectation((MALFORMED,), applies=False, statuses=())
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException):
            pass
        return Expectation((INAPPLICABLE,), applies=False, statuses=(409,))
    ids: list[str] = []
    document = copy.deepcopy(vector.doc)
    for operation in vector.patch:
        rule = _rule_of(document, operation)
        if rule not in ids:
            ids.append(rule)
        document = jsonpatch.apply_patch(document, [operation])
    return Expectation(tuple(ids) or (ADD_REMOVE_REPLACE,), applies=True, statuses=())


def canonical(value: object, *, ordered: bool = False) -> str:
    """``value`` as compact JSON text for a message (members sorted unless ``ordered``); the
    comparison itself is ``conformance.oracles.json_equality.same_json``."""
    return json.dumps(value, ensure_ascii=False, sort_keys=not ordered, separators=(",", ":"))
