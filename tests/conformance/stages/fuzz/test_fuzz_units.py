"""Unit tests of the fuzz stage's small pieces: tiers, requirement tables, credentials, aiming a
case, spec-doubt, records and the summary merge (its own checks: test_fuzz_response_checks.py).
No target, no sockets; the profile and schema fixtures are the directory's conftest's."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
from schemathesis.core.failures import Failure
from schemathesis.openapi.checks import UndefinedStatusCode

from conformance.contract.document import operations
from conformance.errors import UsageError
from conformance.profile.building import build
from conformance.registry.fuzz import pytest_args
from conformance.registry.fuzz_budget import TIERS, tier
from conformance.run.folding import RequirementInfo, fold
from conformance.stages.fuzz.aiming import FuzzTarget, RealObjects
from conformance.stages.fuzz.answers import FuzzCampaign
from conformance.stages.fuzz.auth import (
    AUTH_REQUIREMENTS,
    WRONG_PAT,
    WRONG_SDK_KEY,
    AuthMode,
    auth_requirements,
    credential_headers,
    kind_of,
    sdk_key_for,
)
from conformance.stages.fuzz.failures import Failures, SeenFailure
from conformance.stages.fuzz.response_checks import (
    BUILTIN_REQUIREMENTS,
    CUSTOM_CHECKS,
    RuleFailure,
    check_name_of,
    operation_requirements,
    requirements_for,
)
from conformance.stages.fuzz.results import record_for
from conformance.stages.fuzz.schema import INFERRED_LINKS, build_schema, contract_document
from conformance.stages.fuzz.summary import merge_details, summary_lines
from conformance.stages.fuzz.tally import OperationTally
from conformance.traffic.ledger import LEDGER, Ledger
from conformance.verdict.outcome import Outcome
from tests.conformance.stages.fuzz.conftest import KEYS, PAT, operation, response, status_case

# ------------------------------------------------------------------ tiers and arguments


def test_tiers_are_named_and_bounded() -> None:
    assert set(TIERS) == {"smoke", "pr", "nightly"}
    assert 5 <= TIERS["smoke"].max_examples <= 10
    assert TIERS["pr"].time_budget_s <= 120
    assert TIERS["nightly"].max_examples > TIERS["pr"].max_examples


def test_unknown_tier_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="smoke"):
        tier("huge")
    with pytest.raises(UsageError):
        pytest_args("huge", 1)


def test_pytest_args_select_the_stage_and_record_the_seed() -> None:
    args = pytest_args("pr", 42)
    assert "-p" not in args  # the run plugin registers the stage's plugin (the registry)
    assert args[args.index("--fuzz-tier") + 1] == "pr"
    assert args[args.index("--fuzz-seed") + 1] == "42"
    assert args[-2:] == ["--pyargs", "conformance.stages.fuzz.test_fuzz"]
    assert "--assert=plain" in args  # no re-rewriting of schemathesis/hypothesis at each start


# ------------------------------------------------------------------ requirement tables


def catalogue_ids() -> set[str]:
    from conformance.catalogue.requirements import load_catalogue

    return {requirement.id for requirement in load_catalogue()}


def test_every_requirement_id_the_stage_names_is_in_the_catalogue() -> None:
    known = catalogue_ids()
    named: set[str] = set()
    for op in operations():
        named.update(operation_requirements(op.operation_id))
        named.update(auth_requirements(op.path))
        for check in [*BUILTIN_REQUIREMENTS, *(c.name for c in CUSTOM_CHECKS)]:
            named.update(requirements_for(check, op.operation_id))
    for ids in AUTH_REQUIREMENTS.values():
        named.update(ids)
    assert named - known == set()


def test_each_credentials_mode_names_its_own_requirement_of_the_operation() -> None:
    """No entry stands in for another: per kind of operation, missing and unknown credentials
    name different ids, and each id's catalogue entry lists the operation that was fuzzed."""
    from conformance.catalogue.requirements import load_catalogue

    catalogue = load_catalogue()
    for op in operations():
        kind = kind_of(op.path)
        missing = AUTH_REQUIREMENTS[(kind, AuthMode.MISSING)]
        wrong = AUTH_REQUIREMENTS[(kind, AuthMode.WRONG)]
        assert set(missing).isdisjoint(wrong), kind
        for rid in (*missing, *wrong):
            assert op.operation_id in catalogue[rid].operations, (rid, op.operation_id)
    assert AUTH_REQUIREMENTS[("experiments", AuthMode.WRONG)] == ("AUTH-EXP-INVALID",)
    assert auth_requirements("/application/1/v2/experiments/7/terminate") == (
        "AUTH-EXP-MISSING",
        "AUTH-EXP-INVALID",
        "ERR-BODY-SHAPE",
    )


def test_builtin_checks_map_to_the_operation_own_requirement() -> None:
    assert requirements_for("response_schema_conformance", "getSdkStatus") == (
        "SDK-STATUS-200-SNAPSHOT",
    )
    assert requirements_for("not_a_server_error", "listMembers") == ("ERR-NO-SERVER-ERROR",)
    assert requirements_for("etag_equals_body_hash", "getSdkBootstrap") == (
        "SDK-BOOTSTRAP-ETAG-EQUALS-HASH",
    )
    assert requirements_for("rate_limited_has_retry_after", "getSdkStatus") == (
        "LIMIT-RATE-429-RETRY-AFTER",
    )
    assert requirements_for("content_type_grammar", "createConfiguration") == (
        "CFG-RESPONSE-CONTENT-TYPE-JSON",
    )
    assert requirements_for("content_type_grammar", "listMembers") == (
        "EXP-RESPONSE-CONTENT-TYPE-JSON",
    )
    assert "SDK-STATUS-304-ETAG" in operation_requirements("getSdkStatus")


def test_check_name_of_failures() -> None:
    undefined = UndefinedStatusCode(
        operation="x",
        status_code=418,
        defined_status_codes=[],
        allowed_status_codes=[],
        message="m",
    )
    assert check_name_of(undefined) == "status_code_conformance"
    ours = RuleFailure(
        check="error_body_shape",
        requirement_ids=("ERR-BODY-SHAPE",),
        operation="x",
        title="t",
        message="m",
    )
    assert check_name_of(ours) == "error_body_shape"
    assert (
        check_name_of(Failure(operation="x", title="Custom check failed: `foo`", message=""))
        == "foo"
    )


# ------------------------------------------------------------------ credentials


def test_sdk_key_covers_the_requested_environment(profile: Any) -> None:
    assert sdk_key_for(profile, "production")[0].key == KEYS["prod"]
    assert sdk_key_for(profile, "studio")[0].key == KEYS["dev"]
    widest, replacement = sdk_key_for(profile, "nonsense")
    assert (widest.key, replacement) == (KEYS["all"], None)
    assert sdk_key_for(profile, None)[0].key == KEYS["all"]


def test_credential_headers_per_mode(profile: Any) -> None:
    mgmt = "/application/{applicationId}/v2/configuration"
    assert credential_headers(profile, mgmt, AuthMode.VALID, {}) == {
        "Authorization": f"Bearer {PAT}"
    }
    assert credential_headers(profile, mgmt, AuthMode.MISSING, {}) == {"Authorization": None}
    assert credential_headers(profile, mgmt, AuthMode.WRONG, {}) == {"Authorization": WRONG_PAT}
    sdk = "/sdk/v2/status"
    assert credential_headers(profile, sdk, AuthMode.VALID, {"environment": "production"}) == {
        "authorization": KEYS["prod"]
    }
    assert credential_headers(profile, sdk, AuthMode.WRONG, {}) == {"authorization": WRONG_SDK_KEY}
    for secret in (PAT, *KEYS.values()):
        assert secret not in WRONG_PAT + WRONG_SDK_KEY


# ------------------------------------------------------------------ aiming a case


def fuzz_target(profile: Any) -> FuzzTarget:
    target = FuzzTarget("http://127.0.0.1:1", profile, "cf-unit")
    target.objects = RealObjects(configuration_id=501, experiment_id=601, group_ids=(701, 702))
    return target


def test_prepare_aims_at_the_project_and_real_objects(profile: Any, schema: Any) -> None:
    op = operation(
        schema, "PATCH", "/application/{applicationId}/v2/configuration/{configurationId}"
    )
    aimed = 0
    for generated in range(1, 41):
        case = op.Case(
            path_parameters={"applicationId": 99, "configurationId": generated},
            headers={"environment_id": "5"},
            body={},
        )
        fuzz_target(profile).prepare(case)
        assert case.path_parameters["applicationId"] == 7
        assert case.headers["environment_id"] == "11"
        assert case.headers["Authorization"] == f"Bearer {PAT}"
        aimed += case.path_parameters["configurationId"] == 501
    assert 20 <= aimed < 40  # mostly real, sometimes the generated id (tests "not found")


def test_prepare_prefixes_created_names_and_sets_an_instance_id(profile: Any, schema: Any) -> None:
    create = operation(schema, "POST", "/application/{applicationId}/v2/configuration")
    case = create.Case(path_parameters={"applicationId": 1}, body={"name": "x"})
    fuzz_target(profile).prepare(case)
    assert case.body["name"].startswith("cf-unit-fuzz-")
    status = status_case(schema)
    fuzz_target(profile).prepare(status)
    assert status.headers["server-id"].startswith("cf-unit-fuzz-")
    assert status.headers["authorization"] == KEYS["all"]


def test_prepare_without_credentials(profile: Any, schema: Any) -> None:
    case = status_case(schema)
    case.headers = {"authorization": "something"}
    fuzz_target(profile).prepare(case, AuthMode.MISSING)
    assert "authorization" not in case.headers


# ------------------------------------------------------------------ schema and summary


def test_inferred_links_are_added_and_marked() -> None:
    document = contract_document()
    status = document["paths"]["/sdk/v2/status"]["get"]["responses"]["200"]
    links = status["links"]
    assert links["pollAgainWithETag"]["x-spec"] == "inferred"
    assert len(INFERRED_LINKS) >= 5


def test_header_names_follow_the_profile(profile: Any) -> None:
    data = json.loads(json.dumps(profile.raw))
    data["headers"]["instance_id"] = "x-instance"
    document = contract_document(build(data))
    names = {p["name"] for p in document["components"]["parameters"].values()}
    assert "x-instance" in names and "server-id" not in names


def test_merge_details_sums_workers() -> None:
    one = {
        "tier": "smoke",
        "seed": 1,
        "budget": {},
        "cases": 3,
        "rate_limited": 1,
        "unsent": 0,
        "failures_by_check": {"a": 1},
        "spec_doubts_by_check": {},
        "duration_s": 2.0,
    }
    two = one | {
        "cases": 4,
        "failures_by_check": {"a": 1, "b": 2},
        "duration_s": 3.0,
        "suite_errors": ["GET /x: Unsatisfiable"],
    }
    merged = merge_details([one, two])
    assert merged["suite_errors"] == ["GET /x: Unsatisfiable"]
    assert "  not generated: GET /x: Unsatisfiable" in summary_lines(merged)
    assert merged["cases"] == 7
    assert merged["failures_by_check"] == {"a": 2, "b": 2}
    assert merged["failures"] == 4
    assert merged["duration_s"] == 3.0
    assert merged["seed"] == 1


def test_curl_line_redacts_secrets_as_variables(profile: Any) -> None:
    from conformance.redaction.placeholders import Redactor
    from conformance.stages.fuzz.answers import curl_line

    request = requests.Request(
        "PATCH",
        "http://127.0.0.1:1/application/7/v2/configuration/3",
        headers={"Authorization": f"Bearer {PAT}", "environment_id": "11"},
        json={"operations": []},
    ).prepare()
    line = curl_line(request, Redactor(profile.secret_names()))
    assert PAT not in line
    assert '"Authorization: Bearer $RCES_PAT"' in line
    assert "--data-raw" in line and "-X PATCH" in line


# ------------------------------------------------------------------ records


def test_record_gives_each_requirement_the_evidence_of_its_own_check(profile: Any) -> None:
    run = FuzzCampaign(tier("smoke"), 5, FuzzTarget("http://127.0.0.1:1", profile, "cf-unit"))
    run.tallies[("getSdkStatus", "valid")] = OperationTally(cases=4)

    def seen(check: str, ids: tuple[str, ...], doubt: str | None, curl: str) -> SeenFailure:
        message = f"Expected: {check} to hold\nReceived: not"
        return SeenFailure("getSdkStatus", "valid", check, ids, doubt, "broke", message, curl, 200)

    run.failures = Failures(
        {
            ("getSdkStatus", "valid", "etag_equals_body_hash"): seen(
                "etag_equals_body_hash", ("R-ETAG",), None, "curl etag"
            ),
            ("getSdkStatus", "valid", "response_schema_conformance"): seen(
                "response_schema_conformance", ("R-SHAPE",), "not-shown", "curl shape"
            ),
        }
    )
    record = record_for(run, "t", "getSdkStatus", ("valid",), ("R-ETAG", "R-SHAPE"), 0.1, None)
    assert record.outcomes == {"R-ETAG": Outcome.FAIL, "R-SHAPE": Outcome.SPEC_DOUBT}
    results = {
        r.id: r
        for r in fold([record], [RequirementInfo(i, "4.3", i, "stated") for i in record.outcomes])
    }
    etag, shape = results["R-ETAG"].evidence, results["R-SHAPE"].evidence
    assert [(e.check, e.curl, e.seed) for e in etag] == [("etag_equals_body_hash", "curl etag", 5)]
    assert [(e.check, e.curl) for e in shape] == [("response_schema_conformance", "curl shape")]
    assert "spec-doubt: not-shown" in shape[0].title


def test_curl_line_masks_a_credential_the_profile_does_not_know(profile: Any) -> None:
    """A generated or run-time token is not a profile secret, but it is still a credential."""
    from conformance.redaction.placeholders import Redactor
    from conformance.stages.fuzz.answers import curl_line

    stranger = "svc_pk_generated_0123456789"
    request = requests.Request(
        "GET", "http://127.0.0.1:1/sdk/v2/status", headers={"authorization": stranger}
    ).prepare()
    line = curl_line(request, Redactor(profile.secret_names()))
    assert stranger not in line
    assert "authorization: <redacted>" in line


# ------------------------------------------------------------------ a 429 is judged


def test_a_429_the_fuzzer_did_not_cause_fails_and_its_own_excess_is_excused(
    profile: Any, schema: Any
) -> None:
    """The declared bucket (burst 60, refill 30/s) replayed: one request cannot spend it (a
    fail, with the figure), a burst over it can (not measurable, with the figure)."""
    target = FuzzTarget("http://127.0.0.1:1", profile, "cf-unit")
    run = FuzzCampaign(tier("smoke"), 5, target, ledger=Ledger())
    case = status_case(schema)
    limited = response(429, b'{"errorCode": "RATE_LIMITED", "message": "m"}', {"Retry-After": "1"})
    first = run._replay(case, limited, AuthMode.VALID, sent_at=100.0)
    assert first is not None and not first.suite_exceeded
    tally = OperationTally()
    tally.count_refusal(limited.status_code, first)
    found = run._check(case, limited, AuthMode.VALID, first)
    assert [check_name_of(f) for f in found] == ["unprovoked_rate_limit"]
    assert "sent 1 request(s)" in found[0].message
    assert tally.rate_limited == 0
    for _ in range(70):  # the fuzzer's own burst, all at once, to the same bucket
        last = run._replay(case, limited, AuthMode.VALID, sent_at=100.0)
    assert last is not None and last.suite_exceeded
    tally.count_refusal(limited.status_code, last)
    assert run._check(case, limited, AuthMode.VALID, last) == []
    assert tally.rate_limited == 1 and "sent 71 request(s)" in tally.own_pace
    assert run._replay(case, limited, AuthMode.MISSING, sent_at=100.0) is None


def test_the_fuzzer_counts_in_the_process_ledger_under_the_clients_keys(
    profile: Any, schema: Any
) -> None:
    """One ledger per process: the fuzzer's SDK calls spend the same bucket key a ``Client``
    sending the same key and instance id would, so the two count together."""
    from conformance.traffic.client import Client

    run = FuzzCampaign(tier("smoke"), 5, FuzzTarget("http://127.0.0.1:9/", profile, "cf-unit"))
    assert run.ledger is LEDGER
    first = run._replay(status_case(schema), response(200, b"{}"), AuthMode.VALID, 5000.0)
    assert first is not None
    with Client("http://127.0.0.1:9", profile) as client:
        spend = client._spend("/sdk/v2/status", profile.rate_limit.bucket(None, None))
    assert spend is not None
    try:
        assert LEDGER.record(spend.key, first.limit, at=5000.0).sent == first.sent + 1
    finally:
        LEDGER.forget(spend.key)


def test_invalid_input_may_be_refused_with_the_declared_validation_status(profile: Any) -> None:
    from schemathesis.core.failures import FailureGroup
    from schemathesis.specs.openapi.checks import negative_data_rejection

    from conformance.stages.fuzz.corpus.replay import _meta

    data = json.loads(json.dumps(profile.raw))
    data["errors"]["validation_status"] = 499
    declared = build(data)
    generation = {
        "mode": "negative",
        "negative": ["header"],
        "parameter": "server-id",
        "parameter_location": "header",
        "description": "too long",
    }
    for built, refused in ((build_schema(tier("smoke"), 1, profile=declared), True), (None, False)):
        chosen = built if built is not None else build_schema(tier("smoke"), 1, profile=profile)
        case = operation(chosen, "GET", "/sdk/v2/status").Case(
            headers={"server-id": "x" * 300}, _meta=_meta(generation)
        )
        try:
            case.validate_response(response(499), checks=[negative_data_rejection])
            accepted = True
        except FailureGroup:
            accepted = False
        assert accepted is refused
