"""Strict JSON comparison: two JSON values are the same when their JSON types, values and (where
key order is content) member order are the same, with the first difference named by its pointer.

Python's ``==`` on parsed JSON takes ``true`` for ``1`` and ``{"b":1,"a":2}`` for
``{"a":2,"b":1}``. JSON keeps its types: a boolean is never a number, null is neither. JSON has
one number type (RFC 8259 section 6): ``1``, ``1.0`` and ``1e0`` are one value however they are
written, and a server whose platform reads every number as a double (any JavaScript server)
writes ``1.0`` back as ``1`` and is right to, so numbers are compared by value. The
specification makes key order content (the patch body's key-order sidecar, spec 2.3), so where a
check compares a document the suite wrote with an order, or a document with what a record
returned, it asks for ``ordered`` (when the target declares the ``key_order`` capability).
Parsed objects keep the member order of their text (``json.loads`` builds ``dict``s in order).

Every check that compares JSON values uses ``json_difference`` or ``same_json``
(``tests/house/test_json_comparisons.py`` keeps ``==`` on them out of the check-bearing modules).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

VALUE_CLIP = 80


def same_json(expected: object, received: object, *, ordered: bool = False) -> bool:
    """True when ``received`` is ``expected`` as JSON: same types and values, and the same member
    order in every object when ``ordered``."""
    return json_difference(expected, received, ordered=ordered) is None


def same_number(received: object, number: float) -> bool:
    """True when ``received`` is a JSON number (never a boolean) whose value is ``number``: for
    an expectation the suite derived from the target's own figures (a scale read back), where
    how the target writes the number is its own choice."""
    return (
        isinstance(received, int | float)
        and not isinstance(received, bool)
        and (received == number)
    )


def json_difference(expected: object, received: object, *, ordered: bool = False) -> str | None:
    """None when the values are the same JSON; else the first difference, e.g.
    ``first difference at /a/b: expected true (boolean), received 1 (number)``."""
    found = _first(expected, received, "", ordered)
    if found is None:
        return None
    where, what = found
    return f"first difference at {where or '/ (the whole value)'}: {what}"


def json_kind(value: object) -> str:
    """The JSON type of a parsed value, numbers split by how their text was written."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Sequence):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return f"no JSON value ({type(value).__name__})"


def json_text(value: object, limit: int = VALUE_CLIP) -> str:
    """``value`` as compact JSON text (clipped), for messages."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _described(value: object) -> str:
    return f"{json_text(value)} ({json_kind(value)})"


def _token(key: str | int) -> str:
    return "/" + str(key).replace("~", "~0").replace("/", "~1")


def _first(expected: object, received: object, at: str, ordered: bool) -> tuple[str, str] | None:
    kind = json_kind(expected)
    if kind != json_kind(received):
        return at, f"expected {_described(expected)}, received {_described(received)}"
    if isinstance(expected, Mapping) and isinstance(received, Mapping):
        return _first_in_objects(expected, received, at, ordered)
    if isinstance(expected, Sequence) and not isinstance(expected, str):
        assert isinstance(received, Sequence)
        return _first_in_arrays(expected, received, at, ordered)
    if isinstance(expected, float) and math.isnan(expected):
        return at, f"expected {_described(expected)}, received {_described(received)}"
    if expected != received:
        return at, f"expected {_described(expected)}, received {_described(received)}"
    return None


def _first_in_objects(
    expected: Mapping[object, object], received: Mapping[object, object], at: str, ordered: bool
) -> tuple[str, str] | None:
    for key in expected:
        if key not in received:
            where = at + _token(str(key))
            return where, f"expected {_described(expected[key])}, received no such member"
    for key in received:
        if key not in expected:
            where = at + _token(str(key))
            return where, f"expected no such member, received {_described(received[key])}"
    if ordered and list(expected) != list(received):
        return at, (
            f"expected members in the order {json_text(list(expected))}, "
            f"received {json_text(list(received))}"
        )
    for key in expected:
        found = _first(expected[key], received[key], at + _token(str(key)), ordered)
        if found is not None:
            return found
    return None


def _first_in_arrays(
    expected: Sequence[object], received: Sequence[object], at: str, ordered: bool
) -> tuple[str, str] | None:
    for index, (want, got) in enumerate(zip(expected, received, strict=False)):
        found = _first(want, got, at + _token(index), ordered)
        if found is not None:
            return found
    if len(expected) > len(received):
        where = at + _token(len(received))
        missing = expected[len(received)]
        return where, (
            f"expected {_described(missing)}, received no such element "
            f"(an array of {len(received)} for {len(expected)})"
        )
    if len(received) > len(expected):
        where = at + _token(len(expected))
        extra = received[len(expected)]
        return where, (
            f"expected no such element (an array of {len(expected)}), received {_described(extra)}"
        )
    return None
