"""The experiment summary of spec 2.5 as data: each field with the type the spec gives it.

``summary_problems`` and ``group_problems`` walk the tables and say, field by field, what is
missing or of the wrong type (``group_convention_problems``: the groups' conventions). A group's
``weight`` may be null outside the weighted mode (the observed convention for round robin); in
the weighted mode it must be a number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from conformance.oracles.shapes import ISO_8601_DATE_TIME

Check = Callable[[object], bool]


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _string(value: object) -> bool:
    return isinstance(value, str)


def _boolean(value: object) -> bool:
    return isinstance(value, bool)


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _date_time(value: object) -> bool:
    return isinstance(value, str) and re.match(ISO_8601_DATE_TIME, value) is not None


def _array(value: object) -> bool:
    return isinstance(value, list)


# field -> (type as the spec words it, check)
SUMMARY: Mapping[str, tuple[str, Check]] = {
    "id": ("number", _number),
    "name": ("string", _string),
    "unitType": ("string", _string),
    "assignmentMode": ("string", _string),
    "baseConfigurationId": ("number", _number),
    "autoAssignment": ("boolean", _boolean),
    "permanentEnrollment": ("boolean", _boolean),
    "requiredProperties": ("array of string", _strings),
    "startsAt": ("ISO 8601 date-time", _date_time),
    "endsAt": ("ISO 8601 date-time", _date_time),
    "groups": ("array", _array),
}

GROUP: Mapping[str, tuple[str, Check]] = {
    "id": ("number", _number),
    "label": ("string", _string),
    "weight": ("number", _number),
    "ordinal": ("number", _number),
}


def _walk(table: Mapping[str, tuple[str, Check]], value: object, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: not an object"]
    found = []
    for name, (wording, check) in table.items():
        if name not in value:
            found.append(f"{where}.{name}: missing")
        elif not check(value[name]):
            found.append(f"{where}.{name}: {value[name]!r} is not {wording}")
    return found


def summary_problems(summary: object) -> list[str]:
    """Every top-level field of the summary that is missing or of the wrong type."""
    return _walk(SUMMARY, summary, "summary")


def group_problems(summary: Mapping[str, object], weighted: bool) -> list[str]:
    """Every group field missing or of the wrong type (spec 2.5: an array of groups). Empty
    groups and repeated ordinals are the conventions' (``group_convention_problems``)."""
    groups = summary.get("groups")
    if not isinstance(groups, list):
        return ["summary.groups: not an array"]
    found: list[str] = []
    for index, group in enumerate(groups):
        problems = _walk(GROUP, group, f"groups[{index}]")
        if not weighted:
            problems = [p for p in problems if not p.startswith(f"groups[{index}].weight: None")]
        found.extend(problems)
    return found


def group_convention_problems(summary: Mapping[str, object]) -> list[str]:
    """The production conventions of a summary's groups the spec does not state: at least one
    group, and no ordinal twice (EXP-SNAPSHOT-GROUP-CONVENTIONS)."""
    groups = summary.get("groups")
    if not isinstance(groups, list):
        return []  # not an array: group_problems' finding
    if not groups:
        return ["summary.groups: empty"]
    ordinals = [  # an ordinal missing or no number is group_problems' finding
        g["ordinal"]
        for g in groups
        if isinstance(g, dict)
        and isinstance(g.get("ordinal"), int | float | str)
        and not isinstance(g.get("ordinal"), bool)
    ]
    if len(set(map(repr, ordinals))) != len(ordinals):
        return [f"groups: ordinals repeat: {ordinals!r}"]
    return []
