"""Quick tier: the second dialect's own translations, each on its own (no server)."""

from __future__ import annotations

import asyncio
import json

import pytest
from faulty.asgi import Request, Response

from dialect2 import sidecar
from dialect2.choices import kebab
from dialect2.server import (
    Dialect2,
    experiment_record,
    numeric_fine,
    paged,
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


# Every token form the sidecar scenario sends (``""``: the one empty key, which no dotted path
# spells), as JSON Pointers; the root and a path of two empty keys besides.
TOKENS = ["~", "/", "~0", "~1", "~01", "~10", "/0", "~/", "/~", "a/b", "m~n", "", " ", "-", "0"]
POINTERS = ["", "//", *("/" + t.replace("~", "~0").replace("/", "~1") for t in TOKENS)]
CONFIGURATION = "/application/1/v2/configuration/2"


def _patch(body: object) -> Request:
    return Request("PATCH", CONFIGURATION, (), {}, json.dumps(body).encode())


async def _received_by_reference(body: object) -> list[object]:
    """The bodies the reference server receives when the second dialect serves this patch."""
    seen: list[object] = []

    async def reference(request: Request) -> Response:
        seen.append(json.loads(request.body))
        return Response(200, {}, json.dumps({"id": 2, "document": {}}).encode())

    await Dialect2()(_patch(body), reference)
    return seen


def test_every_sidecar_pointer_reaches_the_reference_server_unchanged() -> None:
    order = [{"path": p, "keys": ["z", p]} for p in POINTERS]
    seen = asyncio.run(_received_by_reference({"patch": [], "order": order}))
    assert seen == [{"operations": [], "keyOrder": {p: ["z", p] for p in POINTERS}}]


@pytest.mark.parametrize(
    "body",
    [{"patch": []}, {"patch": [], "order": None}, {"order": {"/": []}}],
    ids=["no-order", "null", "mapping"],
)
def test_a_patch_without_entries_is_left_to_the_first_dialect(body: dict[str, object]) -> None:
    patch = sidecar.taken(_patch(body))
    assert patch.sidecar is None and not patch.refused
    assert json.loads(patch.request.body) == body


@pytest.mark.parametrize(
    "entries",
    [
        [{"path": "a", "keys": []}],
        [{"path": "/~2", "keys": []}],
        [{"path": "/a~", "keys": []}],
        [{"path": 3, "keys": []}],
        [{"path": "/a", "keys": [], "more": 1}],
        [{"path": "/a"}],
        ["/a"],
        [{"path": "/a", "keys": []}, {"path": "/a", "keys": ["x"]}],
    ],
    ids=["relative", "bad-escape", "lone-tilde", "number", "extra", "no-keys", "string", "twice"],
)
def test_entries_the_second_dialect_cannot_take_are_refused_with_its_reason(
    entries: list[object],
) -> None:
    patch = sidecar.taken(_patch({"patch": [], "order": entries}))
    assert patch.sidecar is None
    assert patch.refused.startswith("order[")
    assert json.loads(patch.request.body) == {"patch": [], "order": sidecar.NOT_ENTRIES}


def test_a_refused_sidecar_is_refused_after_the_reference_checks_with_the_reason() -> None:
    seen: list[object] = []

    async def reference(request: Request) -> Response:
        seen.append(json.loads(request.body))
        refusal = {"errorCode": "VALIDATION_FAILED", "message": "keyOrder must be an object"}
        return Response(400, {}, json.dumps(refusal).encode())

    body = {"order": [{"path": "a", "keys": []}]}
    answer = asyncio.run(Dialect2()(_patch(body), reference))
    assert len(seen) == 1 and isinstance(seen[0], dict)
    assert not isinstance(seen[0]["keyOrder"], dict)  # the first dialect's malformed value
    assert answer.status == 422
    assert answer.json() == {
        "code": "validation-failed",
        "detail": "order[0].path is not a JSON Pointer: 'a'",
    }
