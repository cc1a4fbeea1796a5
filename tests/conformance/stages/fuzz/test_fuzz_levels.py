"""A fuzz failure is judged by the constraint that failed: interface (a fail), drop-in (a
difference from a convention the profile does not declare) or a doubt (an inferred constraint).

Real schemathesis failures are made by validating crafted answers against the contract, under a
profile that declares nothing, one that says ``conventions: production``, and one that declares
only the error code field's name."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
import requests
import schemathesis
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.openapi.checks import UndefinedStatusCode

from conformance.contract.document import load_contract
from conformance.profile import Profile
from conformance.profile.building import build
from conformance.profile.defaults import DEFAULTS
from conformance.registry.fuzz_budget import tier
from conformance.stages.fuzz.failure_level import DOUBT, DROP_IN, INTERFACE, judge
from conformance.stages.fuzz.response_checks import RuleFailure, check_name_of, custom_checks
from conformance.stages.fuzz.schema import build_schema

EXPERIMENT = "/application/{applicationId}/v2/experiments/{experimentId}"
PATHS = {"applicationId": 1, "experimentId": 1}


def _profile(written: frozenset[str] = frozenset(), **top: object) -> Profile:
    data = json.loads(json.dumps(DEFAULTS))
    data["credentials"] = {"pat": "p", "sdk_keys": [{"key": "k", "environments": ["development"]}]}
    data["project"] = {"application_id": 1, "environments": {"development": 1}}
    data.update(top)
    return build(data, written=written)


NONE = _profile()
PRODUCTION = _profile(conventions="production")
CODE_FIELD = _profile(frozenset({"errors", "errors.code_field"}))


@pytest.fixture(scope="module")
def schema() -> Any:
    return build_schema(tier("smoke"), 1)


def _case(schema: Any, method: str, path: str) -> Any:
    return schema[path][method].Case(path_parameters={k: v for k, v in PATHS.items() if k in path})


def _answer(case: Any, status: int, body: object, media: str = "application/json") -> Any:
    url = "http://127.0.0.1:1" + case.formatted_path
    request = requests.Request(case.method, url).prepare()
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    return schemathesis.Response(status, {"content-type": [media]}, payload, request, 0.01, True)


def _failures(case: Any, answer: Any) -> list[Failure]:
    try:
        case.validate_response(answer)
    except FailureGroup as group:
        return list(group.exceptions)
    return []


def _judged(op: str, case: Any, answer: Any, profile: Profile, check: str | None = None) -> Any:
    found = [f for f in _failures(case, answer) if check in (None, check_name_of(f))]
    assert found, "the crafted answer must fail a check"
    return [judge(op, check_name_of(f), f, case, answer, profile) for f in found]


def test_a_kebab_case_error_code_is_a_drop_in_difference_until_production_declares_it(
    schema: Any,
) -> None:
    case = _case(schema, "GET", EXPERIMENT)
    answer = _answer(case, 404, {"errorCode": "experiment-not-found", "message": "no"})
    [judged] = _judged("getExperiment", case, answer, NONE)
    assert judged.level == DROP_IN
    assert judged.key == "contract: ErrorBody.errorCode (pattern)"
    assert judged.convention.startswith("pattern: ^[A-Z]")
    assert judged.received == "'experiment-not-found'"
    # Declaring the field's name declares its name, not its value's pattern.
    assert [j.level for j in _judged("getExperiment", case, answer, CODE_FIELD)] == [DROP_IN]
    assert [j.level for j in _judged("getExperiment", case, answer, PRODUCTION)] == [INTERFACE]


def test_an_experiment_record_without_the_references_unkeyed_fields_differs_only(
    schema: Any,
) -> None:
    case = _case(schema, "GET", EXPERIMENT)
    record = load_contract()["components"]["schemas"]["Experiment"]["example"]
    lean = {k: v for k, v in record.items() if k not in ("rollout", "terminatedAt")}
    lean["status"] = "active"
    answer = _answer(case, 200, lean)
    judged = _judged("getExperiment", case, answer, NONE, "response_schema_conformance")
    assert {j.level for j in judged} == {DROP_IN}
    keys = {j.key for j in judged}
    assert {"contract: Experiment.rollout (required)", "experiment_payload.running"} <= keys
    production = _judged("getExperiment", case, answer, PRODUCTION, "response_schema_conformance")
    assert {j.level for j in production} == {INTERFACE}


def test_an_error_body_in_an_array_fails_the_declared_shape(schema: Any) -> None:
    case = _case(schema, "GET", EXPERIMENT)
    answer = _answer(case, 404, [{"errorCode": "EXPERIMENT_NOT_FOUND", "message": "no"}])
    check = next(c for c in custom_checks(CODE_FIELD.errors) if c.__name__ == "error_body_shape")
    with pytest.raises(RuleFailure) as raised:
        check(None, answer, case)  # type: ignore[arg-type]
    failure = raised.value
    # The profile declares the code field: the error body is an object that carries it.
    assert judge("getExperiment", "error_body_shape", failure, case, answer, CODE_FIELD).level == (
        INTERFACE
    )
    assert judge("getExperiment", "error_body_shape", failure, case, answer, PRODUCTION).level == (
        INTERFACE
    )
    undeclared = judge("getExperiment", "error_body_shape", failure, case, answer, NONE)
    assert (undeclared.level, undeclared.key) == (DROP_IN, "errors.code_field")
    assert undeclared.convention == "errorCode"


def test_a_plain_text_error_of_a_management_or_status_call_breaks_the_stated_media_type(
    schema: Any,
) -> None:
    for op, method, path in (
        ("createConfiguration", "POST", "/application/{applicationId}/v2/configuration"),
        ("getSdkStatus", "GET", "/sdk/v2/status"),
    ):
        case = _case(schema, method, path)
        answer = _answer(case, 400, b"error: bad", media="text/plain")
        judged = _judged(op, case, answer, NONE, "content_type_conformance")
        assert [j.level for j in judged] == [INTERFACE], op
    # An experiment call's media type is not shown: the reference's JSON is a convention.
    case = _case(schema, "GET", EXPERIMENT)
    answer = _answer(case, 404, b"error: bad", media="text/plain")
    assert [
        j.level for j in _judged("getExperiment", case, answer, NONE, "content_type_conformance")
    ] == [DROP_IN]


def test_an_undocumented_status_rests_on_the_status_keys_and_a_500_never_differs(
    schema: Any,
) -> None:
    case = _case(schema, "GET", EXPERIMENT + "/members")
    answer = _answer(case, 418, {"errorCode": "TEAPOT", "message": "no"})
    undefined = UndefinedStatusCode(
        operation="x",
        status_code=418,
        defined_status_codes=[],
        allowed_status_codes=[],
        message="m",
    )
    judged = judge("listMembers", "status_code_conformance", undefined, case, answer, NONE)
    assert judged.level == DROP_IN and judged.key.startswith(("errors.", "statuses."))
    assert judged.convention.strip("[]").startswith("4")  # a key whose status is of its class
    assert judged.received == "HTTP 418"
    production = judge(
        "listMembers", "status_code_conformance", undefined, case, answer, PRODUCTION
    )
    assert production.level == INTERFACE
    server_error = judge("listMembers", "not_a_server_error", undefined, case, answer, NONE)
    assert server_error.level == INTERFACE


def test_a_failure_on_a_stated_element_is_interface_and_on_an_inferred_one_a_doubt(
    schema: Any,
) -> None:
    status = _case(schema, "GET", "/sdk/v2/status")
    etag = RuleFailure(
        check="etag_equals_body_hash", requirement_ids=(), operation="x", title="t", message="m"
    )
    answer = _answer(status, 200, {})
    assert judge("getSdkStatus", "etag_equals_body_hash", etag, status, answer, NONE).level == (
        INTERFACE
    )
    # The bootstrap snapshot's shape is inferred from the status snapshot's.
    bootstrap = _case(schema, "GET", "/sdk/v2/bootstrap")
    answer = _answer(bootstrap, 200, {"configurations": []})
    judged = _judged(
        "getSdkBootstrap", bootstrap, answer, PRODUCTION, "response_schema_conformance"
    )
    assert {j.level for j in judged} == {DOUBT}
    assert {j.doubt for j in judged} == {"inferred"}


def test_the_numeric_header_is_a_number_as_the_specification_says() -> None:
    parameter = load_contract()["components"]["parameters"]["ProjectId"]
    schema = {k: v for k, v in parameter["schema"].items() if not k.startswith("x-")}
    jsonschema.validate(0.5, schema)
    jsonschema.validate(9007199254740991, schema)
    for wrong in (0, -1, 9007199254740992, "1"):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(wrong, schema)


def test_a_drop_in_failure_is_a_difference_in_the_record_never_a_fail(schema: Any) -> None:
    from conformance.registry.fuzz_budget import tier as tier_of
    from conformance.stages.fuzz.aiming import FuzzTarget
    from conformance.stages.fuzz.answers import FuzzCampaign
    from conformance.stages.fuzz.results import details, record_for
    from conformance.stages.fuzz.tally import OperationTally
    from conformance.verdict.outcome import Outcome

    run = FuzzCampaign(tier_of("smoke"), 5, FuzzTarget("http://127.0.0.1:1", NONE, "cf-unit"))
    run.tallies[("getExperiment", "valid")] = OperationTally(cases=3)
    case = _case(schema, "GET", EXPERIMENT)
    kebab = _answer(case, 404, {"errorCode": "experiment-not-found", "message": "no"})
    for failure in _failures(case, kebab):
        if check_name_of(failure) == "response_schema_conformance":
            assert run.note("getExperiment", "valid", case, kebab, failure) is False
    broken = _answer(case, 500, b"")
    ids = ("EXP-GET", "ERR-BODY-SHAPE", "ERR-NO-SERVER-ERROR")
    record = record_for(run, "t", "getExperiment", ("valid",), ids, 1.0, None)
    assert set(record.outcomes.values()) == {Outcome.PASS}
    [difference] = record.differences
    assert difference.key == "contract: ErrorBody.errorCode (pattern)"
    assert difference.requirement_ids == ("ERR-BODY-SHAPE",)  # an error body's, not the 200's
    assert difference.received == "'experiment-not-found'"
    assert difference.curl is not None and difference.curl.startswith("curl")
    # An interface failure of the same operation still fails, beside the difference.
    real = RuleFailure(
        check="not_a_server_error",
        requirement_ids=("ERR-NO-SERVER-ERROR",),
        operation="x",
        title="Server error",
        message="m",
    )
    assert run.note("getExperiment", "valid", case, broken, real) is True
    record = record_for(run, "t", "getExperiment", ("valid",), ids, 1.0, None)
    assert record.outcomes["ERR-NO-SERVER-ERROR"] is Outcome.FAIL
    assert record.outcomes["EXP-GET"] is Outcome.PASS
    assert len(record.differences) == 1
    assert details(run)["differences_by_key"] == {"contract: ErrorBody.errorCode (pattern)": 1}


def test_declaring_a_list_field_declares_its_name_not_its_entries_fields(schema: Any) -> None:
    declared = _profile(frozenset({"experiment_payload", "experiment_payload.items"}))
    case = _case(schema, "GET", "/application/{applicationId}/v2/experiments/context-properties")
    entry = {"name": "country", "lastSeenAt": "2026-03-02T09:30:00.000Z"}
    answer = _answer(case, 200, {"items": [entry]})
    [judged] = _judged(
        "listContextProperties", case, answer, declared, "response_schema_conformance"
    )
    assert (judged.level, judged.key) == (
        DROP_IN,
        "contract: ContextProperties.items.seenCount (required)",
    )
    # The list itself is the declared field: without it the answer breaks the interface.
    gone = _answer(case, 200, {"entries": [entry]})
    [judged] = _judged("listContextProperties", case, gone, declared, "response_schema_conformance")
    assert judged.level == INTERFACE


def _accepted(schema: Any, body: object) -> tuple[Any, Any, Failure]:
    """A create case with ``body`` that the server accepted (201), and the failure of
    ``negative_data_rejection`` it raises, as schemathesis raises it on a negative case."""
    from schemathesis.core.failures import AcceptedNegativeData

    case = schema["/application/{applicationId}/v2/configuration"]["POST"].Case(
        path_parameters={"applicationId": 1}, body=body
    )
    answer = _answer(case, 201, {"id": 1})
    failure = AcceptedNegativeData(
        operation="x", message="m", status_code=201, expected_statuses=["400"]
    )
    return case, answer, failure


@pytest.mark.parametrize(
    ("body", "level"),
    [
        ({"name": "n" * 201}, DROP_IN),  # the bound 200 is not shown (2.2): a convention
        ({"name": ""}, DROP_IN),  # so is the bound 1
        ({"description": "no name"}, INTERFACE),  # name is required (2.2, stated)
        ({"name": 7}, INTERFACE),  # and a string (2.2, stated)
        ({"name": 7 * "x" * 40, "description": "d"}, DROP_IN),
    ],
)
def test_an_accepted_invalid_body_is_judged_by_the_keywords_it_breaks(
    schema: Any, body: object, level: str
) -> None:
    case, answer, failure = _accepted(schema, body)
    op = "createConfiguration"
    judged = judge(op, "negative_data_rejection", failure, case, answer, NONE)
    assert judged.level == level
    if level == DROP_IN:
        assert judged.key.startswith("contract: CreateConfigurationBody.name (m")
        production = judge(op, "negative_data_rejection", failure, case, answer, PRODUCTION)
        assert production.level == INTERFACE  # production declares the reference's bounds


def test_a_failure_on_an_error_answer_never_lands_on_a_success_requirement(schema: Any) -> None:
    from conformance.registry.fuzz_budget import tier as tier_of
    from conformance.stages.fuzz.aiming import FuzzTarget
    from conformance.stages.fuzz.answers import FuzzCampaign
    from conformance.stages.fuzz.response_checks import (
        BUILTIN_REQUIREMENTS,
        CUSTOM_CHECKS,
        SHAPE_REQUIREMENTS,
        SUCCESS_REQUIREMENTS,
        requirements_for,
    )
    from conformance.stages.fuzz.results import record_for
    from conformance.stages.fuzz.tally import OperationTally
    from conformance.verdict.outcome import Outcome

    checks = [*BUILTIN_REQUIREMENTS, *(c.name for c in CUSTOM_CHECKS)]
    for op in SHAPE_REQUIREMENTS:
        for check in checks:
            for status in (400, 404, 409, 422, 429, 500):
                ids = requirements_for(check, op, None, status)
                assert ids and not set(ids) & SUCCESS_REQUIREMENTS, (op, check, status, ids)
    assert requirements_for("content_type_conformance", "getSdkStatus", None, 200) == (
        "SDK-STATUS-200-SNAPSHOT",
    )
    # A plain-text 400 of the status endpoint fails its error answers' JSON body, not the 200.
    run = FuzzCampaign(tier_of("smoke"), 5, FuzzTarget("http://127.0.0.1:1", NONE, "cf-unit"))
    run.tallies[("getSdkStatus", "valid")] = OperationTally(cases=3)
    case = _case(schema, "GET", "/sdk/v2/status")
    answer = _answer(case, 400, b"error: bad", media="text/plain")
    for failure in _failures(case, answer):
        run.note("getSdkStatus", "valid", case, answer, failure)
    ids = ("SDK-STATUS-200-SNAPSHOT", "ERR-STATUS-BODY-JSON")
    record = record_for(run, "t", "getSdkStatus", ("valid",), ids, 1.0, None)
    assert record.outcomes["ERR-STATUS-BODY-JSON"] is Outcome.FAIL
    assert record.outcomes["SDK-STATUS-200-SNAPSHOT"] is Outcome.PASS


PROBLEM = "application/problem+json"
ERROR = {"errorCode": "BAD_REQUEST", "message": "no"}


@pytest.mark.parametrize(
    ("op", "method", "path", "status", "level"),
    [
        # "Other status codes are listed with a JSON body" (4.3 r4): any JSON media type.
        ("getSdkStatus", "GET", "/sdk/v2/status", 400, DROP_IN),
        ("getSdkBootstrap", "GET", "/sdk/v2/bootstrap", 400, DROP_IN),
        ("getExperiment", "GET", EXPERIMENT, 404, DROP_IN),
        # "Response media type is application/json" (4.1): there the type itself is stated.
        (
            "createConfiguration",
            "POST",
            "/application/{applicationId}/v2/configuration",
            400,
            (INTERFACE),
        ),
    ],
)
def test_an_error_in_another_json_media_type_is_json_where_the_spec_says_a_json_body(
    schema: Any, op: str, method: str, path: str, status: int, level: str
) -> None:
    case = _case(schema, method, path)
    answer = _answer(case, status, ERROR, media=PROBLEM)
    judged = _judged(op, case, answer, NONE, "content_type_conformance")
    assert [j.level for j in judged] == [level]
    if level == DROP_IN:
        assert judged[0].convention == "application/json"
        assert judged[0].received == f"Content-Type {PROBLEM}"
        production = _judged(op, case, answer, PRODUCTION, "content_type_conformance")
        assert [j.level for j in production] == [INTERFACE]
    # Not JSON at all stays what it was: a plain-text error of the status call fails.
    if op == "getSdkStatus":
        text = _answer(case, status, b"bad", media="text/plain")
        assert [j.level for j in _judged(op, case, text, NONE, "content_type_conformance")] == [
            INTERFACE
        ]


def test_the_status_200_is_application_json_exactly(schema: Any) -> None:
    case = _case(schema, "GET", "/sdk/v2/status")
    record = load_contract()["components"]["schemas"]["StatusSnapshot"].get("example", {})
    answer = _answer(case, 200, record, media="application/vnd.snapshot+json")
    judged = _judged("getSdkStatus", case, answer, NONE, "content_type_conformance")
    assert [j.level for j in judged] == [INTERFACE]


def test_json_media_types_are_application_json_and_the_json_suffix() -> None:
    from conformance.stages.fuzz.failure_level import json_media

    for given in ("application/json", "Application/JSON; charset=utf-8", PROBLEM):
        assert json_media(given)
    for given in ("text/json", "application/jsonx", "application/x-json-ish", "", None):
        assert not json_media(given)


def _violations(node: dict[str, Any]) -> list[tuple[str, object]]:
    """(keyword, a value that breaks it) for each bound of a property schema."""
    found: list[tuple[str, object]] = []
    if isinstance(node.get("maxLength"), int):
        found.append(("maxLength", "x" * (node["maxLength"] + 1)))
    if isinstance(node.get("minLength"), int) and node["minLength"] > 0:
        found.append(("minLength", ""))
    if isinstance(node.get("maximum"), int | float):
        found.append(("maximum", node["maximum"] + 1))
    if isinstance(node.get("minimum"), int | float):
        found.append(("minimum", node["minimum"] - 1))
    if isinstance(node.get("enum"), list) and all(isinstance(v, str) for v in node["enum"]):
        found.append(("enum", "zz-not-listed"))
    return found


def test_an_accepted_body_breaking_one_bound_is_judged_at_that_bounds_level(schema: Any) -> None:
    """Every bound of every top-level request-body field, broken alone in the contract's own
    example body and accepted: the failure's level is the bound's own (a convention's bound
    never fails the interface), under a profile that declares nothing."""
    from schemathesis.core.failures import AcceptedNegativeData

    from conformance.contract.document import chain_of, resolve
    from conformance.contract.levels import level_of
    from conformance.contract.schema_walk import operations_of
    from conformance.stages.fuzz.failure_level import _body_violations

    document = schema.raw_schema
    judged: dict[str, int] = {INTERFACE: 0, DROP_IN: 0, DOUBT: 0}
    for path, method, operation in operations_of(document):
        body = resolve(document, operation.get("requestBody"), strict=False)
        media = body.get("content", {}).get("application/json") if isinstance(body, dict) else None
        if not isinstance(media, dict):
            continue
        target = resolve(document, media["schema"], strict=False)
        example = target.get("example") if isinstance(target, dict) else None
        if not isinstance(example, dict):
            continue
        op = str(operation["operationId"])
        for name, node in target.get("properties", {}).items():
            for keyword, value in _violations(resolve(document, node, strict=False)):
                params = {p: 1 for p in ("applicationId", "configurationId", "experimentId")}
                case = schema[path][method.upper()].Case(
                    path_parameters={k: v for k, v in params.items() if "{" + k + "}" in path},
                    body={**example, name: value},
                )
                if _body_violations(case) != [(f"request-body:{name}", keyword)]:
                    continue  # breaks more than the one bound (a combinator): not this walk's
                answer = _answer(case, 200, {})
                failure = AcceptedNegativeData(
                    operation="x", message="m", status_code=200, expected_statuses=["400"]
                )
                found = judge(op, "negative_data_rejection", failure, case, answer, NONE)
                chain = chain_of(op, f"request-body:{name}", document) or []
                assert found.level == level_of(chain, keyword, NONE).level, (op, name, keyword)
                judged[found.level] += 1
    # The spec states no bound of a body field: each is a convention, the create name's among them.
    assert judged[DROP_IN] >= 5, judged
