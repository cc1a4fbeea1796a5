"""Quick tier: the second dialect's own translations, each on its own (no server)."""

from __future__ import annotations

import json

import pytest
from faulty.asgi import Request, Response

from dialect2.choices import kebab
from dialect2.server import (
    Dialect2,
    experiment_record,
    numeric_fine,
    paged,
    sidecar_pointers,
    snapshot,
)


def _request(path: str, query: tuple[tuple[str, str], ...] = ()) -> Request:
    return Request("GET", path, query, {}, b"")


def test_error_codes_are_kebab_case() -> None:
    assert kebab("EXPERIMENT_NOT_FOUND") == "experiment-not-found"
    assert kebab("already-kebab") == "already-kebab"


@pytest.mark.parametrize("value", ["1", "0.5", "9007199254740991", "1e3", "12.25"])
def test_the_numeric_header_takes_any_number_in_range(value: str) -> None:
    assert numeric_fine(value)


@pytest.mark.parametrize("value", ["0", "0.0", "-1", "9007199254740992", "1e16", "x", "", " 1"])
def test_the_numeric_header_refuses_what_is_out_of_range_or_no_number(value: str) -> None:
    assert not numeric_fine(value)


def test_records_lose_the_reference_fields_and_take_the_active_word() -> None:
    record = {"id": 1, "name": "e", "phase": "running", "rollout": {}, "terminatedAt": None}
    assert experiment_record(record) == {"id": 1, "name": "e", "phase": "live"}
    assert experiment_record({"id": 2, "phase": "ended"})["phase"] == "ended"


def test_a_snapshot_loses_privacy_and_the_assignment_version() -> None:
    data = {
        "configurations": [{"id": 1, "doc": {}, "privacy": []}],
        "experiments": {"user": [{"id": 3, "rollout": {"share": 100}}], "server": []},
        "enrolments": [{"experiment": 3, "variant": 4, "assignmentVersion": 2, "source": "x"}],
    }
    assert snapshot(data) == {
        "configurations": [{"id": 1, "doc": {}}],
        "experiments": {"user": [{"id": 3}], "server": []},
        "enrolments": [{"experiment": 3, "variant": 4}],
    }


def test_page_numbers_become_offsets_and_the_status_filter_is_dropped() -> None:
    path = "/application/1/v2/experiments/3/members"
    changed = paged(_request(path, (("pageNo", "3"), ("take", "5"), ("state", "enrolled"))))
    assert isinstance(changed, Request)
    assert dict(changed.query) == {"take": "5", "skip": "10"}
    refused = paged(_request(path, (("pageNo", "0"), ("take", "5"))))
    assert dict(refused.query) == {"take": "not-a-page"}  # refused by the first dialect


def test_an_error_answer_is_spelled_in_kebab_case() -> None:
    body = json.dumps({"code": "CONFIGURATION_NOT_FOUND", "detail": "gone"}).encode()
    answer = Dialect2().translated(_request("/x"), None, Response(404, {}, body))
    assert answer.json() == {"code": "configuration-not-found", "detail": "gone"}


def test_sidecar_pointers_reach_the_first_dialect_dotted() -> None:
    body = {"patch": [], "order": [{"path": "/a/b.c", "keys": ["x"]}, {"path": "a", "keys": []}]}
    path = "/application/1/v2/configuration/2"
    request = Request("PATCH", path, (), {}, json.dumps(body).encode())
    sent = json.loads(sidecar_pointers(request).body)
    assert sent["order"] == [{"path": "a.b\\.c", "keys": ["x"]}, {"path": "\\", "keys": []}]
