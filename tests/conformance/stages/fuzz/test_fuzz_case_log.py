"""The case log: cases as generated, one digest; in a stateful case what an answer of the run
carried (ids, hashes, ETags, names under the run's prefix) is a placeholder, elsewhere nothing
is normalised (a stateless case holds no answered value, and a changed value must show)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
import schemathesis

from conformance.registry.fuzz_budget import tier
from conformance.stages.fuzz.case_log import PLACEHOLDER, CaseLog
from conformance.stages.fuzz.schema import build_schema

PATCH = "/application/{applicationId}/v2/configuration/{configurationId}"


@pytest.fixture(scope="module")
def schema() -> Any:
    return build_schema(tier("smoke"), 1)


def _case(schema: Any, configuration_id: int, name: str = "n") -> Any:
    return schema[PATCH]["PATCH"].Case(
        path_parameters={"applicationId": 1, "configurationId": configuration_id},
        headers={"environment_id": "1", "X-Schemathesis-TestCaseId": "random"},
        body={"operations": [], "comment": name},
    )


def _answer(body: object, etag: str) -> Any:
    request = requests.Request("GET", "http://127.0.0.1:1/x").prepare()
    headers = {"content-type": ["application/json"], "etag": [etag]}
    return schemathesis.Response(200, headers, json.dumps(body).encode(), request, 0.01, True)


def test_a_stateless_case_is_logged_as_generated(schema: Any) -> None:
    one, two = CaseLog(), CaseLog()
    for log in (one, two):
        log.add("valid", "patchConfiguration", _case(schema, 41))
    assert one.digest() == two.digest() and one.details()["cases_logged"] == 1
    assert "x-schemathesis" not in one.lines[0]  # the engine's own random header
    other = CaseLog()
    other.add("valid", "patchConfiguration", _case(schema, 42))
    assert other.digest() != one.digest()
    # An answer does not normalise a stateless case.
    one.answer("valid", _answer({"id": 41}, '"h"'), "cf-run")
    one.add("valid", "patchConfiguration", _case(schema, 41))
    assert PLACEHOLDER not in one.lines[-1]


def test_a_stateful_case_has_the_runs_own_values_as_placeholders(schema: Any) -> None:
    logs = []
    for own_id, prefix in ((41, "cf-a"), (97, "cf-b")):  # two runs: other ids, other prefix
        log = CaseLog()
        answer = {"id": own_id, "contentHash": f"hash-{own_id}", "name": f"{prefix}-fuzz-x"}
        log.answer("stateful", _answer(answer, f'"hash-{own_id}"'), prefix)
        log.add("stateful", "patchConfiguration", _case(schema, own_id, f"{prefix}-fuzz-x"))
        logs.append(log)
    assert logs[0].lines == logs[1].lines
    assert logs[0].lines[0].count(PLACEHOLDER) == 2  # the id and the name
    changed = CaseLog()
    changed.answer("stateful", _answer({"id": 41}, '"h"'), "cf-a")
    changed.add("stateful", "patchConfiguration", _case(schema, 41, "generated"))
    assert changed.lines != logs[0].lines  # a generated value is never normalised away
