"""Unit tests of the spec 2.5 summary tables: every missing or mistyped field is named."""

from __future__ import annotations

import copy
from typing import Any

from conformance.oracles.experiment_shapes import (
    group_convention_problems,
    group_problems,
    summary_problems,
)

SUMMARY: dict[str, Any] = {
    "id": 3,
    "name": "cf-x",
    "unitType": "user",
    "assignmentMode": "weightedHash",
    "baseConfigurationId": 9,
    "autoAssignment": True,
    "permanentEnrollment": False,
    "requiredProperties": ["level"],
    "startsAt": "2026-11-22T04:00:00.000Z",
    "endsAt": "2026-12-22T04:00:00+01:00",
    "groups": [
        {"id": 5, "label": "control", "weight": 5000, "ordinal": 0},
        {"id": 6, "label": "more", "weight": 5000.0, "ordinal": 1},
    ],
}


def _with(**changes: Any) -> dict[str, Any]:
    summary = copy.deepcopy(SUMMARY)
    summary.update(changes)
    return summary


def test_a_complete_summary_has_no_problems() -> None:
    assert summary_problems(SUMMARY) == []
    assert group_problems(SUMMARY, weighted=True) == []


def test_missing_and_mistyped_fields_are_named() -> None:
    broken = _with(id="3", autoAssignment=1, startsAt="yesterday", requiredProperties=[1])
    del broken["endsAt"]
    found = " | ".join(summary_problems(broken))
    for name in (
        "summary.id",
        "summary.autoAssignment",
        "summary.startsAt",
        "summary.endsAt: missing",
        "summary.requiredProperties",
    ):
        assert name in found
    assert summary_problems(["not", "an", "object"]) == ["summary: not an object"]


def test_a_boolean_is_not_a_number() -> None:
    assert summary_problems(_with(baseConfigurationId=True)) != []


def test_group_fields_and_ordinals() -> None:
    groups = [
        {"id": 5, "label": "a", "weight": None, "ordinal": 0},
        {"id": 6, "label": 7, "ordinal": 0},
    ]
    summary = _with(groups=groups)
    found = " | ".join(group_problems(summary, weighted=True))
    assert "groups[0].weight" in found
    assert "groups[1].label" in found
    assert "groups[1].weight: missing" in found
    assert "ordinals repeat" not in found  # a convention, not the spec's words
    assert "ordinals repeat" in " | ".join(group_convention_problems(summary))
    relaxed = " | ".join(group_problems(summary, weighted=False))
    assert "groups[0].weight" not in relaxed
    assert "groups[1].weight: missing" in relaxed


def test_groups_must_be_an_array_and_by_convention_a_non_empty_one() -> None:
    assert group_problems(_with(groups=[]), weighted=True) == []
    assert group_convention_problems(_with(groups=[])) == ["summary.groups: empty"]
    assert group_problems(_with(groups="none"), weighted=True)
    assert group_convention_problems(_with(groups="none")) == []  # one cause, one finding
    assert group_convention_problems(SUMMARY) == []
