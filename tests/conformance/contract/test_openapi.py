"""The OpenAPI contract: valid 3.1, the agreed operations, honest examples, marked gaps.

Also the unit tests of ``conformance.contract.document``, which loads the document at run time.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
import referencing
from openapi_spec_validator import OpenAPIV31SpecValidator
from referencing.jsonschema import DRAFT202012

from conformance.contract import document as contract
from conformance.contract.profile_keys import marks, rule_of
from tests.conformance.contract import openapi_walk as walk

REPO = Path(__file__).resolve().parents[3]

# The agreed operationIds (prompts/opids.md): operationId -> (METHOD, path).
EXPERIMENTS = "/application/{applicationId}/v2/experiments"
AGREED_OPERATIONS: dict[str, tuple[str, str]] = {
    "createConfiguration": ("POST", "/application/{applicationId}/v2/configuration"),
    "patchConfiguration": (
        "PATCH",
        "/application/{applicationId}/v2/configuration/{configurationId}",
    ),
    "listExperiments": ("GET", EXPERIMENTS),
    "createExperiment": ("POST", EXPERIMENTS),
    "getAnalyticsCatalog": ("GET", f"{EXPERIMENTS}/analytics-catalog"),
    "getAssignmentCounts": ("GET", f"{EXPERIMENTS}/assignment-counts"),
    "listContextProperties": ("GET", f"{EXPERIMENTS}/context-properties"),
    "getExperiment": ("GET", f"{EXPERIMENTS}/{{experimentId}}"),
    "getExperimentAssignmentCounts": ("GET", f"{EXPERIMENTS}/{{experimentId}}/assignment-counts"),
    "listAssignments": ("GET", f"{EXPERIMENTS}/{{experimentId}}/assignments"),
    "setManualAssignment": ("POST", f"{EXPERIMENTS}/{{experimentId}}/assignments"),
    "reactivateMember": ("POST", f"{EXPERIMENTS}/{{experimentId}}/assignments/reactivate"),
    "unenrollMember": ("POST", f"{EXPERIMENTS}/{{experimentId}}/assignments/unenroll"),
    "listMembers": ("GET", f"{EXPERIMENTS}/{{experimentId}}/members"),
    "getRollout": ("GET", f"{EXPERIMENTS}/{{experimentId}}/rollout"),
    "changeRollout": ("PATCH", f"{EXPERIMENTS}/{{experimentId}}/rollout"),
    "terminateExperiment": ("POST", f"{EXPERIMENTS}/{{experimentId}}/terminate"),
    "getSdkStatus": ("GET", "/sdk/v2/status"),
    "getSdkBootstrap": ("GET", "/sdk/v2/bootstrap"),
}
SDK_OPERATIONS = ("getSdkStatus", "getSdkBootstrap")
MARKS = {"stated", "inferred", "not-shown"}
REQUIRED_SCHEMAS = (
    "ConfigurationRecord",
    "CreateConfigurationBody",
    "PatchConfigurationBody",
    "JsonPatchOperation",
    "StatusSnapshot",
    "ConfigurationSummary",
    "ExperimentSummary",
    "Group",
    "BootstrapSnapshot",
    "Assignment",
    "Member",
    "Experiment",
    "CreateExperimentBody",
    "ChangesetOperation",
    "Rollout",
    "ChangeRolloutBody",
    "ExperimentPage",
    "AssignmentPage",
    "MemberPage",
    "AssignmentCounts",
    "ExperimentAssignmentCounts",
    "AnalyticsCatalog",
    "ContextProperties",
    "Polling",
    "ErrorBody",
)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return contract.load_contract()


@pytest.fixture(scope="module")
def registry(document: dict[str, Any]) -> referencing.Registry[Any]:
    resource: referencing.Resource[Any] = DRAFT202012.create_resource(document)
    registry: referencing.Registry[Any] = referencing.Registry().with_resource(
        walk.CONTRACT_URI, resource
    )
    return registry


# --- the document -----------------------------------------------------------------------------


def test_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"] == "3.1.0"
    errors = [e.message for e in OpenAPIV31SpecValidator(document).iter_errors()]
    assert errors == []


def test_validator_rejects_a_broken_document(document: dict[str, Any]) -> None:
    broken = copy.deepcopy(document)
    broken["paths"]["/sdk/v2/status"]["get"]["responses"]["200"].pop("description")
    assert list(OpenAPIV31SpecValidator(broken).iter_errors()) != []


def test_exactly_the_agreed_operations(document: dict[str, Any]) -> None:
    found = {
        op["operationId"]: (method.upper(), path) for path, method, op in walk.operations(document)
    }
    assert found == AGREED_OPERATIONS
    assert len(list(walk.operations(document))) == 19


def test_servers_and_description(document: dict[str, Any]) -> None:
    assert [server["url"] for server in document["servers"]] == ["http://127.0.0.1:8000"]
    assert "interface-specification.md" in document["info"]["description"]


def test_required_schemas_exist(document: dict[str, Any]) -> None:
    missing = [n for n in REQUIRED_SCHEMAS if n not in document["components"]["schemas"]]
    assert missing == []


def test_security_schemes_and_their_use(document: dict[str, Any]) -> None:
    schemes = document["components"]["securitySchemes"]
    assert schemes["personalAccessToken"] == schemes["personalAccessToken"] | {
        "type": "http",
        "scheme": "bearer",
    }
    assert (
        schemes["sdkKey"] | {"type": "apiKey", "in": "header", "name": "authorization"}
        == (schemes["sdkKey"])
    )
    for _path, _method, operation in walk.operations(document):
        expected = "sdkKey" if operation["operationId"] in SDK_OPERATIONS else "personalAccessToken"
        assert operation["security"] == [{expected: []}], operation["operationId"]


def test_configuration_record_allows_extra_properties_and_null_deleted_at(
    document: dict[str, Any],
) -> None:
    record = document["components"]["schemas"]["ConfigurationRecord"]
    assert record["additionalProperties"] is True
    assert "null" in record["properties"]["deletedAt"]["type"]
    assert record["properties"]["deletedAt"]["x-spec"] == "not-shown"


def test_patch_operations_are_one_of_per_op_kind(document: dict[str, Any]) -> None:
    operation = document["components"]["schemas"]["JsonPatchOperation"]
    kinds = {branch["properties"]["op"]["const"] for branch in operation["oneOf"]}
    assert kinds == {"add", "remove", "replace", "move", "copy", "test"}
    body = document["components"]["schemas"]["PatchConfigurationBody"]
    assert set(body["properties"]) == {"operations", "baseHash", "keyOrder"}
    assert "required" not in body


# --- examples ---------------------------------------------------------------------------------


def test_every_example_validates_against_its_schema(
    document: dict[str, Any], registry: referencing.Registry[Any]
) -> None:
    examples = walk.all_examples(document)
    assert len(examples) >= 60, "the example walker lost track of the document"
    failures = [
        f"{label}: {error.message} at {error.json_path}"
        for tokens, label, example in examples
        for error in walk.validator(registry, tokens).iter_errors(example)
    ]
    assert failures == []


def test_main_schemas_and_request_bodies_carry_examples(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    without = [n for n in REQUIRED_SCHEMAS if "example" not in schemas[n]]
    assert without == []
    for _path, _method, operation in walk.operations(document):
        if "requestBody" in operation:
            media = operation["requestBody"]["content"]["application/json"]
            assert "example" in media or "examples" in media, operation["operationId"]


def test_example_check_has_teeth(
    document: dict[str, Any], registry: referencing.Registry[Any]
) -> None:
    record = copy.deepcopy(document["components"]["schemas"]["ConfigurationRecord"]["example"])
    record["deletedAt"] = 5
    del record["contentHash"]
    validator = walk.validator(registry, ("components", "schemas", "ConfigurationRecord"))
    assert len(list(validator.iter_errors(record))) == 2
    status = walk.validator(registry, ("components", "schemas", "StatusSnapshot"))
    snapshot = copy.deepcopy(document["components"]["schemas"]["StatusSnapshot"]["example"])
    snapshot["experiments"]["user"][0]["groups"][0]["weight"] = "half"
    assert list(status.iter_errors(snapshot)) != []


# --- gaps are marked --------------------------------------------------------------------------


def _reference_choice_headers() -> list[str]:
    """Header names of the SDK table in docs/reference-choices.md (second column, in backticks)."""
    text = (REPO / "docs" / "reference-choices.md").read_text(encoding="utf-8")
    table = text.split("| Spec name | Header | Rule |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\|[^|]*\|\s*`([^`]+)`\s*\|", table, flags=re.MULTILINE)


def test_every_not_shown_header_of_the_reference_choices_is_marked(
    document: dict[str, Any],
) -> None:
    headers = _reference_choice_headers()
    assert len(headers) >= 8 and "server-id" in headers
    declared: dict[str, list[dict[str, Any]]] = {}
    for _path, _method, operation in walk.operations(document):
        for name, parameter in walk.parameters(document, operation).items():
            if parameter["in"] == "header":
                declared.setdefault(name, []).append(parameter)
    problems = []
    for name in headers:
        if name == "authorization":  # stated by the spec; a security scheme, not a parameter
            continue
        for parameter in declared.get(name) or [{"name": name, "missing": True}]:
            if parameter.get("x-spec") not in ("not-shown", "inferred"):
                problems.append(f"{name}: x-spec is {parameter.get('x-spec')!r}")
            if not str(parameter.get("x-profile-key", "")).startswith("headers."):
                problems.append(f"{name}: x-profile-key is {parameter.get('x-profile-key')!r}")
    assert problems == []


def test_sdk_header_bounds(document: dict[str, Any]) -> None:
    status = walk.parameters(document, walk.operation(document, "getSdkStatus"))
    bootstrap = walk.parameters(document, walk.operation(document, "getSdkBootstrap"))
    assert status["environment"]["schema"]["enum"] == ["production", "development", "studio"]
    assert status["environment"]["schema"]["minLength"] == 1
    assert (
        status["project-id"]["schema"] | {"exclusiveMinimum": 0} == status["project-id"]["schema"]
    )
    assert status["project-id"]["schema"]["maximum"] == 9007199254740991
    assert (
        status["server-id"]["schema"]["minLength"],
        status["server-id"]["schema"]["maxLength"],
    ) == (
        1,
        128,
    )
    assert status["hash"]["in"] == "query" and status["hash"]["schema"]["minLength"] == 1
    assert {"If-None-Match", "sdkversion"} <= set(status)
    assert (
        bootstrap["unit-id"]["schema"]["minLength"],
        bootstrap["unit-id"]["schema"]["maxLength"],
    ) == (
        1,
        256,
    )
    assert bootstrap["unit-type"]["schema"]["enum"] == ["user", "server"]
    assert bootstrap["unit-context"]["content"]["application/json"]["schema"]["type"] == "object"


def test_environment_id_on_management_and_experiment_operations(
    document: dict[str, Any],
) -> None:
    for _path, _method, operation in walk.operations(document):
        if operation["operationId"] in SDK_OPERATIONS:
            continue
        parameter = walk.parameters(document, operation)["environment_id"]
        assert parameter["in"] == "header" and parameter["required"] is True
        assert parameter["schema"]["type"] == "integer" and parameter["schema"]["minimum"] == 1


def test_list_endpoints_page(document: dict[str, Any]) -> None:
    for operation_id in ("listExperiments", "listAssignments", "listMembers"):
        parameters = walk.parameters(document, walk.operation(document, operation_id))
        limit = parameters["limit"]["schema"]
        assert (parameters["limit"]["in"], limit["minimum"], limit["maximum"]) == ("query", 1, 100)
        assert parameters["cursor"]["in"] == "query"


def test_marks_are_known_values_and_links_carry_none(document: dict[str, Any]) -> None:
    marks = [
        (t, n["x-spec"]) for t, n in walk.nodes(document) if isinstance(n, dict) and "x-spec" in n
    ]
    assert len(marks) > 40
    assert [(t, m) for t, m in marks if m not in MARKS] == []
    in_links = [t for t, _m in marks if "links" in t]
    assert in_links == []


def test_profile_keys_exist_in_the_profile_schema(document: dict[str, Any]) -> None:
    profile_schema = json.loads(
        (REPO / "conformance" / "profile" / "profile.schema.json").read_text()
    )
    keys = {key for _t, n in walk.nodes(document) for key in marks(n)}
    assert len(keys) >= 20
    missing = []
    for key in sorted(keys):
        node = profile_schema
        for part in key.split("."):
            node = walk.resolve(profile_schema, node)
            node = node.get("properties", {}).get(part)
            if node is None:
                missing.append(key)
                break
    assert missing == []


def test_every_profile_key_of_the_contract_has_a_specialisation_rule(
    document: dict[str, Any],
) -> None:
    keys = {key for _t, n in walk.nodes(document) for key in marks(n)}
    assert [key for key in sorted(keys) if rule_of(key) is None] == []


# --- responses --------------------------------------------------------------------------------


def test_304_responses_have_no_content(document: dict[str, Any]) -> None:
    seen = 0
    for _path, _method, operation in walk.operations(document):
        for code, response in walk.responses(document, operation["operationId"]).items():
            if code == "304":
                seen += 1
                assert "content" not in response, operation["operationId"]
    assert seen == 2


def test_status_and_bootstrap_declare_etag_on_200_and_304(document: dict[str, Any]) -> None:
    for operation_id in SDK_OPERATIONS:
        responses = walk.responses(document, operation_id)
        for code in ("200", "304"):
            header = walk.resolve(document, responses[code]["headers"]["ETag"])
            assert header["required"] is True, (operation_id, code)


def test_error_responses_use_error_body(document: dict[str, Any]) -> None:
    for _path, _method, operation in walk.operations(document):
        for code, response in walk.responses(document, operation["operationId"]).items():
            if code.startswith("4"):
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (
                    operation["operationId"],
                    code,
                )


def test_expected_statuses_per_operation(document: dict[str, Any]) -> None:
    # A change to a terminated experiment is refused with any 4xx (states are not shown, spec
    # 3); a patch's conflict is the spec's 409 (4.1 rule 3).
    transitions = {"setManualAssignment", "reactivateMember", "unenrollMember", "changeRollout"}
    transitions |= {"terminateExperiment"}
    for _path, _method, operation in walk.operations(document):
        operation_id = operation["operationId"]
        codes = set(operation["responses"])
        expected = {"400", "401"}
        if operation_id in SDK_OPERATIONS:
            expected |= {"200", "304", "403"}
        else:
            expected |= {"403", "404"}
            expected |= {"201"} if operation_id.startswith("create") else {"200"}
        if operation_id in transitions:
            expected.add("4XX")
        if operation_id == "patchConfiguration":
            expected.add("409")
        if "requestBody" in operation:
            expected |= {"413", "415"}
        if operation_id == "getSdkStatus":
            expected.add("429")
        assert codes == expected, operation_id
    retry_after = walk.responses(document, "getSdkStatus")["429"]["headers"]
    assert "Retry-After" in retry_after


def test_links_from_create_operations(document: dict[str, Any]) -> None:
    links = walk.responses(document, "createConfiguration")["201"]["links"]
    patch = next(iter(links.values()))
    assert patch["operationId"] == "patchConfiguration"
    assert patch["parameters"]["path.configurationId"] == "$response.body#/id"
    assert patch["requestBody"] == {"baseHash": "$response.body#/contentHash"}
    targets = {
        link["operationId"]
        for link in walk.responses(document, "createExperiment")["201"]["links"].values()
    }
    assert {"getExperiment", "getRollout", "terminateExperiment", "listMembers"} <= targets


# --- conformance.contract.document ----------------------------------------------------------------


def test_contract_path_and_digest() -> None:
    path = contract.contract_path()
    assert path.name == "openapi.yaml" and path.is_file()
    assert contract.contract_sha256() == hashlib.sha256(path.read_bytes()).hexdigest()
    assert contract.load_contract() is contract.load_contract()


def test_operations_list() -> None:
    operations = contract.operations()
    assert {o.operation_id: (o.method, o.path) for o in operations} == AGREED_OPERATIONS
    statuses = {o.operation_id: o.spec_status for o in operations}
    assert statuses["getSdkStatus"] == "stated"
    assert statuses["listExperiments"] == "not-shown"


@pytest.mark.parametrize(
    ("operation_id", "location", "expected"),
    [
        ("getSdkStatus", "operation", None),
        ("getSdkStatus", "response:200", None),
        ("getSdkStatus", "response:304", None),
        ("getSdkStatus", "response:200:header:ETag", None),
        ("getSdkStatus", "response:304:header:etag", "inferred"),
        ("getSdkStatus", "response:200:body:hash", None),
        ("getSdkStatus", "response:200:body:polling.intervalSeconds", None),
        ("getSdkStatus", "response:200:body:polling.jitterRatio", "not-shown"),
        ("getSdkStatus", "response:200:body:configurations.hash", None),
        ("getSdkStatus", "response:200:body:configurations.alias", "not-shown"),
        ("getSdkStatus", "response:200:body:experiments.user.unitType", "not-shown"),
        ("getSdkStatus", "response:200:body:experiments.user.groups.label", None),
        ("getSdkStatus", "response:200:body:experiments.user.groups.weight", "not-shown"),
        ("getSdkStatus", "response:429", "inferred"),
        ("getSdkStatus", "response:418", "not-shown"),
        ("getSdkStatus", "parameter:query:hash", None),
        ("getSdkStatus", "parameter:header:server-id", None),  # its bounds are stated (4.3)
        ("getSdkStatus", "parameter:header:SdkVersion", "not-shown"),
        ("getSdkStatus", "parameter:header:no-such-header", "not-shown"),
        ("getSdkStatus", "parameter:header:authorization", None),
        ("listMembers", "parameter:header:Authorization", None),
        ("listMembers", "parameter:query:authorization", "not-shown"),
        ("getSdkBootstrap", "parameter:header:If-None-Match", "inferred"),
        ("getSdkBootstrap", "response:200:body:configurations.hash", "inferred"),
        ("getSdkBootstrap", "response:200:body:configurations.privacy", "not-shown"),
        ("patchConfiguration", "response:409", None),
        ("patchConfiguration", "response:200", "inferred"),
        ("patchConfiguration", "response:200:body:id", None),
        ("getSdkStatus", "response:200:body:configurations.id", None),
        ("getSdkStatus", "response:200:body:experiments.server.groups.ordinal", None),
        ("patchConfiguration", "request-body", None),
        ("patchConfiguration", "request-body:baseHash", "not-shown"),
        ("patchConfiguration", "request-body:operations", "not-shown"),
        ("createConfiguration", "response:201", "not-shown"),
        ("createConfiguration", "response:201:body:contentHash", None),
        ("createConfiguration", "response:201:body:deletedAt", "not-shown"),
        ("createConfiguration", "response:201:body", None),
        ("getExperiment", "operation", "not-shown"),
        ("getExperiment", "parameter:path:applicationId", "inferred"),
        ("getExperiment", "response:200:body:groups.changeset", "not-shown"),
        ("patchConfiguration", "request-body:operations.op", "inferred"),
        ("createExperiment", "request-body:groups.changeset.op", "not-shown"),
        ("terminateExperiment", "request-body", "not-shown"),
    ],
)
def test_doubt_of(operation_id: str, location: str, expected: str | None) -> None:
    assert contract.doubt_of(operation_id, location) == expected


def test_doubt_of_rejects_unknown_operations_and_malformed_locations() -> None:
    with pytest.raises(KeyError):
        contract.doubt_of("noSuchOperation", "operation")
    for location in ("", "parameter:header", "response:", "response:200:cookie:x", "body"):
        with pytest.raises(ValueError):
            contract.doubt_of("getSdkStatus", location)


def test_contract_path_prefers_the_packaged_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packaged = tmp_path / "_contract" / "openapi.yaml"
    source = tmp_path / "openapi" / "openapi.yaml"
    monkeypatch.setattr(contract, "_PACKAGED", packaged)
    monkeypatch.setattr(contract, "_SOURCE", source)
    with pytest.raises(FileNotFoundError):
        contract.contract_path()
    source.parent.mkdir()
    source.write_text("openapi: 3.1.0\n")
    assert contract.contract_path() == source
    packaged.parent.mkdir()
    packaged.write_text("openapi: 3.1.0\n")
    assert contract.contract_path() == packaged
