"""Unit tests of refserver.experiment_input: create, rollout and assignment bodies."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from refserver.errors import ApiError
from refserver.experiment_input import (
    parse_create,
    parse_manual,
    parse_member_status,
    parse_rollout,
    parse_unit,
)

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "gold",
        "unitType": "user",
        "baseConfigurationId": 7,
        "groups": [
            {"label": "control", "weight": 5000, "changeset": []},
            {
                "label": "more",
                "weight": 5000,
                "changeset": [{"op": "set", "path": ["g"], "value": 1}],
            },
        ],
    }
    body.update(overrides)
    return body


def test_defaults() -> None:
    parsed = parse_create(_body(), NOW)
    assert parsed.assignment_mode == "weightedHash"
    assert parsed.auto_assignment is True and parsed.permanent_enrollment is False
    assert parsed.required_properties == ()
    assert parsed.starts_at == "2026-03-01T12:00:00.000Z"
    assert parsed.ends_at == "2026-03-31T12:00:00.000Z"
    assert [g.weight for g in parsed.groups] == [5000, 5000]


def test_explicit_dates_are_normalised_to_utc() -> None:
    parsed = parse_create(
        _body(startsAt="2026-05-01T14:00:00+02:00", endsAt="2026-06-01T00:00:00.5Z"), NOW
    )
    assert parsed.starts_at == "2026-05-01T12:00:00.000Z"
    assert parsed.ends_at == "2026-06-01T00:00:00.500Z"


def test_round_robin_takes_null_or_omitted_weights() -> None:
    groups = [{"label": "a", "changeset": []}, {"label": "b", "weight": None, "changeset": []}]
    parsed = parse_create(_body(assignmentMode="roundRobin", groups=groups), NOW)
    assert [g.weight for g in parsed.groups] == [None, None]


def test_eight_groups_allowed() -> None:
    groups = [{"label": f"g{i}", "weight": 1250, "changeset": []} for i in range(8)]
    assert len(parse_create(_body(groups=groups), NOW).groups) == 8


def test_repeated_required_properties_count_once() -> None:
    parsed = parse_create(_body(requiredProperties=["level", "country", "level"]), NOW)
    assert parsed.required_properties == ("level", "country")


@pytest.mark.parametrize(
    "overrides",
    [
        {"groups": [{"label": f"g{i}", "weight": 1000, "changeset": []} for i in range(9)]},
        {"groups": [{"label": "a", "weight": 9999, "changeset": []}]},
        {"groups": [{"label": "a", "weight": True, "changeset": []}]},
        {"startsAt": "2026-01-02T00:00:00Z", "endsAt": "2026-01-01T00:00:00Z"},
        {"endsAt": "2026-02-01T00:00:00Z"},  # before the default start (now)
        {"unitType": None},
        {"baseConfigurationId": True},
        {"baseConfigurationId": 0},
    ],
)
def test_rejections(overrides: dict[str, Any]) -> None:
    with pytest.raises(ApiError) as caught:
        parse_create(_body(**overrides), NOW)
    assert (caught.value.status, caught.value.code) == (400, "INVALID_EXPERIMENT")


@pytest.mark.parametrize("missing", ["name", "unitType", "baseConfigurationId", "groups"])
def test_required_fields(missing: str) -> None:
    body = _body()
    del body[missing]
    with pytest.raises(ApiError) as caught:
        parse_create(body, NOW)
    assert missing in caught.value.message


@pytest.mark.parametrize("body", [None, [], "x", 5])
def test_non_object_bodies(body: object) -> None:
    for parse in (lambda b: parse_create(b, NOW), parse_rollout, parse_unit, parse_manual):
        with pytest.raises(ApiError) as caught:
            parse(body)
        assert caught.value.status == 400


def test_rollout_bodies() -> None:
    assert parse_rollout({}).percentage is None
    assert parse_rollout({"percentage": 12.5}).percentage == 12.5
    assert parse_rollout({"weights": {"5": 3000, "6": 7000}}).weights == {5: 3000, 6: 7000}
    for bad in (
        {"percentage": float("nan")},
        {"percentage": 100.01},
        {"weights": {"05": 1}},
        {"weights": {"0": 1}},
        {"weights": {"5": -1}},
        {"weights": {"5": 10001}},
    ):
        with pytest.raises(ApiError):
            parse_rollout(bad)


def test_member_status() -> None:
    assert parse_member_status(None) is None
    assert parse_member_status("unenrolled") == "unenrolled"
    with pytest.raises(ApiError):
        parse_member_status("ACTIVE")
