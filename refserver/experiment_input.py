"""Checked request bodies of the experiment endpoints (create, rollout, assignment actions).

Each body is read field by field from a rule table; a violation raises ``ApiError`` 400 with a
message naming the field. Nothing here touches the store: whether an id names a real record is
the route's business (404).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from refserver import assignment
from refserver.changeset import ChangesetError
from refserver.changeset import validate as validate_changeset
from refserver.errors import ApiError
from refserver.inputs import MAX_ID
from refserver.timestamps import format_ts, parse_ts

UNIT_TYPES = ("user", "server")
MAX_GROUPS = 8
WEIGHT_TOTAL = assignment.BUCKETS
DEFAULT_DURATION = timedelta(days=30)
MAX_NAME = 200
MAX_LABEL = 200
MAX_PROPERTY_NAME = 128
MAX_REQUIRED_PROPERTIES = 64
MAX_UNIT_ID = 256
MIN_YEAR = 1970
MAX_YEAR = 9000  # leaves room for the default duration; keeps stored timestamps sortable text
MEMBER_STATUSES = (assignment.ACTIVE, assignment.UNENROLLED)

GROUP_KEY = re.compile(r"[1-9][0-9]{0,17}")  # a group id as a weights key
CREATE_ERROR = "INVALID_EXPERIMENT"
REQUEST_ERROR = "INVALID_REQUEST"


@dataclass(frozen=True)
class GroupInput:
    label: str
    weight: int | None
    changeset: list[dict[str, Any]]


@dataclass(frozen=True)
class ExperimentInput:
    """A create body, checked, with its defaults filled in."""

    name: str
    unit_type: str
    assignment_mode: str
    base_configuration_id: int
    auto_assignment: bool
    permanent_enrollment: bool
    required_properties: tuple[str, ...]
    starts_at: str
    ends_at: str
    groups: tuple[GroupInput, ...]


@dataclass(frozen=True)
class RolloutInput:
    """A rollout change: the new percentage and new weights by group id (both optional)."""

    percentage: float | None
    weights: dict[int, int]


class _Invalid(Exception):
    """A field-level violation; the caller wraps it in an ApiError with its own code."""


def _object(body: object, code: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(400, code, "the body must be a JSON object")
    return body


def _string(value: object, field: str, low: int, high: int) -> str:
    if not isinstance(value, str) or not low <= len(value) <= high:
        raise _Invalid(f"{field} must be a string of {low} to {high} characters")
    return value


def _boolean(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(f"{field} must be true or false")
    return value


def _integer(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _Invalid(f"{field} must be an integer from {low} to {high}")
    return value


def _choice(value: object, field: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise _Invalid(f"{field} must be one of {', '.join(choices)}")
    assert isinstance(value, str)
    return value


def _moment(value: object, field: str) -> datetime:
    if not isinstance(value, str) or not 1 <= len(value) <= 64:
        raise _Invalid(f"{field} must be an ISO 8601 date-time string")
    try:
        moment = parse_ts(value)
    except (ValueError, OverflowError):
        raise _Invalid(f"{field} must be an ISO 8601 date-time string") from None
    if not MIN_YEAR <= moment.year <= MAX_YEAR:
        raise _Invalid(f"{field} must be in the years {MIN_YEAR} to {MAX_YEAR}")
    return moment


def _properties(value: object, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > MAX_REQUIRED_PROPERTIES:
        raise _Invalid(f"{field} must be an array of at most {MAX_REQUIRED_PROPERTIES} strings")
    names = tuple(
        _string(item, f"{field}[{i}]", 0, MAX_PROPERTY_NAME) for i, item in enumerate(value)
    )
    return tuple(dict.fromkeys(names))  # a repeated name counts once


def _group(value: object, index: int, mode: str) -> GroupInput:
    at = f"groups[{index}]"
    if not isinstance(value, dict):
        raise _Invalid(f"{at} must be an object")
    label = _string(value.get("label"), f"{at}.label", 1, MAX_LABEL)
    weight: int | None
    if mode == assignment.WEIGHTED_HASH:
        weight = _integer(value.get("weight"), f"{at}.weight", 0, WEIGHT_TOTAL)
    else:
        if value.get("weight") is not None:
            raise _Invalid(f"{at}.weight must be null or omitted in {mode} mode")
        weight = None
    if "changeset" not in value:
        raise _Invalid(f"{at}.changeset is required (an empty array changes nothing)")
    try:
        changeset = validate_changeset(value["changeset"], f"{at}.changeset")
    except ChangesetError as exc:
        raise _Invalid(str(exc)) from None
    return GroupInput(label, weight, changeset)


def _groups(value: object, mode: str) -> tuple[GroupInput, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_GROUPS:
        raise _Invalid(f"groups must be an array of 1 to {MAX_GROUPS} groups")
    groups = tuple(_group(item, i, mode) for i, item in enumerate(value))
    if len({g.label for g in groups}) != len(groups):
        raise _Invalid("group labels must be distinct")
    if mode == assignment.WEIGHTED_HASH:
        total = sum(g.weight or 0 for g in groups)
        if total != WEIGHT_TOTAL:
            raise _Invalid(f"group weights must add up to {WEIGHT_TOTAL} (they add up to {total})")
    return groups


# field -> (reader, default when absent); None as default means "required".
_SIMPLE_FIELDS: dict[str, tuple[Callable[[object, str], Any], Any]] = {
    "name": (lambda v, f: _string(v, f, 1, MAX_NAME), None),
    "unitType": (lambda v, f: _choice(v, f, UNIT_TYPES), None),
    "assignmentMode": (
        lambda v, f: _choice(v, f, assignment.ASSIGNMENT_MODES),
        assignment.WEIGHTED_HASH,
    ),
    "baseConfigurationId": (lambda v, f: _integer(v, f, 1, MAX_ID), None),
    "autoAssignment": (_boolean, True),
    "permanentEnrollment": (_boolean, False),
    "requiredProperties": (_properties, ()),
}


def parse_create(body: object, now: datetime) -> ExperimentInput:
    """The create body, checked; ApiError 400 INVALID_EXPERIMENT on any violation."""
    data = _object(body, CREATE_ERROR)
    try:
        values: dict[str, Any] = {}
        for field, (reader, default) in _SIMPLE_FIELDS.items():
            if field in data:
                values[field] = reader(data[field], field)
            elif default is None:
                raise _Invalid(f"{field} is required")
            else:
                values[field] = default
        starts = _moment(data["startsAt"], "startsAt") if "startsAt" in data else now
        ends = _moment(data["endsAt"], "endsAt") if "endsAt" in data else starts + DEFAULT_DURATION
        if ends <= starts:
            raise _Invalid("endsAt must be after startsAt")
        groups = _groups(data.get("groups"), values["assignmentMode"])
    except _Invalid as exc:
        raise ApiError(400, CREATE_ERROR, str(exc)) from None
    return ExperimentInput(
        name=values["name"],
        unit_type=values["unitType"],
        assignment_mode=values["assignmentMode"],
        base_configuration_id=values["baseConfigurationId"],
        auto_assignment=values["autoAssignment"],
        permanent_enrollment=values["permanentEnrollment"],
        required_properties=tuple(values["requiredProperties"]),
        starts_at=format_ts(starts),
        ends_at=format_ts(ends),
        groups=groups,
    )


def _percentage(value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= 100
    ):
        raise _Invalid("percentage must be a number from 0 to 100")
    return float(value)


def _weights(value: object) -> dict[int, int]:
    if not isinstance(value, dict) or len(value) > MAX_GROUPS:
        raise _Invalid(f"weights must be an object of at most {MAX_GROUPS} groupId -> basis points")
    weights: dict[int, int] = {}
    for key, weight in value.items():
        if GROUP_KEY.fullmatch(key) is None:
            raise _Invalid(f"weights key {key[:40]!r} is not a group id")
        weights[int(key)] = _integer(weight, f"weights[{key}]", 0, WEIGHT_TOTAL)
    return weights


def parse_rollout(body: object) -> RolloutInput:
    """A rollout change body, checked; ApiError 400 INVALID_REQUEST on any violation."""
    data = _object(body, REQUEST_ERROR)
    try:
        percentage = _percentage(data["percentage"]) if "percentage" in data else None
        weights = _weights(data["weights"]) if "weights" in data else {}
    except _Invalid as exc:
        raise ApiError(400, REQUEST_ERROR, str(exc)) from None
    return RolloutInput(percentage, weights)


def parse_unit(body: object) -> str:
    """The ``unitId`` of an unenroll/reactivate body."""
    data = _object(body, REQUEST_ERROR)
    try:
        return _string(data.get("unitId"), "unitId", 1, MAX_UNIT_ID)
    except _Invalid as exc:
        raise ApiError(400, REQUEST_ERROR, str(exc)) from None


def parse_manual(body: object) -> tuple[str, int]:
    """The ``{unitId, groupId}`` of a manual assignment body."""
    data = _object(body, REQUEST_ERROR)
    try:
        unit_id = _string(data.get("unitId"), "unitId", 1, MAX_UNIT_ID)
        group_id = _integer(data.get("groupId"), "groupId", 1, MAX_ID)
    except _Invalid as exc:
        raise ApiError(400, REQUEST_ERROR, str(exc)) from None
    return unit_id, group_id


def parse_member_status(raw: str | None) -> str | None:
    """The ``status`` filter of the members list."""
    if raw is None:
        return None
    if raw not in MEMBER_STATUSES:
        raise ApiError(400, REQUEST_ERROR, f"status must be one of {', '.join(MEMBER_STATUSES)}")
    return raw
