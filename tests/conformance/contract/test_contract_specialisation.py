"""The contract specialised by a target profile: the default profile gives the contract back, a
profile that renames everything leaves no default name where a key fills one, and the document
stays valid OpenAPI 3.1 with true examples."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import referencing
import yaml
from openapi_spec_validator import OpenAPIV31SpecValidator
from referencing.jsonschema import DRAFT202012

from conformance.contract import document as contract
from conformance.contract.profile_keys import (
    DECLARED_MARK,
    ENUM,
    ENUM_VALUE,
    MAX_ITEMS,
    MAXIMUM,
    NAME,
    PROPERTY,
    STATUS,
    VALUE_MARK,
    Values,
    marks,
    rule_of,
)
from conformance.contract.renamer import Renamer
from conformance.contract.schema_walk import property_nodes
from conformance.contract.specialisation import default_profile, specialise
from conformance.profile import Profile, parse
from conformance.profile.defaults import DEFAULTS
from tests.conformance.contract import openapi_walk as walk
from tests.support.conformance_cli import run_conformance

# A target that fills every gap a key names differently from the reference server.
RENAMED = """\
profile_version: 1
credentials: {pat: p, sdk_keys: [{key: k, environments: [development]}]}
project: {application_id: 1, environments: {development: 1}}
headers: {environment: x-env, instance_id: x-instance, numeric: x-project, sdk_version: x-sdk,
          unit_id: x-unit, unit_type: x-unit-kind, unit_context: x-unit-ctx}
bodies:
  create: {content: content, private_keys: private, comments: notes}
  patch: {operations: ops, base_hash: base, key_order: order}
errors: {code_field: code, message_field: detail, missing_credentials_status: [401, 419],
         forbidden_status: 451, foreign_project_status: [404], validation_status: 422,
         not_found_status: 410, rate_limited_status: 503, media_type: application/problem+json}
statuses: {create_configuration: 200, create_experiment: 202}
experiments: {unit_types: [player, machine], assignment_modes: [hashed, rotating],
              max_groups: 4, weight_total: 100, page_size_max: 25}
bootstrap_payload: {document: doc, assignments: unitAssignments}
experiment_payload:
  items: results
  next_cursor: next
  cursor_param: after
  limit_param: size
  status: state
  status_param: state
  running: live
  terminated: ended
  member_active: enrolled
  member_unenrolled: left
  changeset: changes
  unit_id: unit
  group_id: group
  experiment_id: experiment
  percentage: share
  weights: split
  rollout_groups: rolloutGroups
  count_active: enrolledUnits
  count_unenrolled: leftUnits
  count_total: allUnits
  count_groups: perGroup
  property_name: property
  create:
    name: title
    unit_type: kind
    assignment_mode: strategy
    base_configuration_id: baseId
    required_properties: requires
    groups: variants
    group_label: tag
    group_weight: share
"""


@pytest.fixture(scope="module")
def renamed_profile() -> Profile:
    return parse(RENAMED)


@pytest.fixture(scope="module")
def renamed(renamed_profile: Profile) -> dict[str, Any]:
    return specialise(contract.load_contract(), renamed_profile)


def _without_values(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_values(v) for k, v in node.items() if k != VALUE_MARK}
    if isinstance(node, list):
        return [_without_values(v) for v in node]
    return node


def _default(key: str) -> Any:
    node: Any = DEFAULTS
    for part in key.split("."):
        node = node[part]
    return node


def test_the_default_profile_gives_the_contract_back() -> None:
    original = contract.load_contract()
    before = copy.deepcopy(original)
    specialised = specialise(original, default_profile())
    assert original == before  # the cached contract is not touched
    assert _without_values(specialised) == original
    filled = [n for _t, n in walk.nodes(specialised) if isinstance(n, dict) and VALUE_MARK in n]
    assert len(filled) >= 40
    assert not [
        n
        for _t, n in walk.nodes(specialised)
        if isinstance(n, dict) and n.get(DECLARED_MARK) is True
    ]


def test_the_renamed_document_is_valid_openapi_with_true_examples(
    renamed: dict[str, Any],
) -> None:
    assert [e.message for e in OpenAPIV31SpecValidator(renamed).iter_errors()] == []
    registry: referencing.Registry[Any] = referencing.Registry().with_resource(
        walk.CONTRACT_URI, DRAFT202012.create_resource(renamed)
    )
    failures = []
    for tokens, label, example in walk.all_examples(renamed):
        schema = {"$ref": f"{walk.CONTRACT_URI}#{walk.pointer(tokens)}"}
        validator = jsonschema.Draft202012Validator(schema, registry=registry)
        failures += [f"{label}: {e.message}" for e in validator.iter_errors(example)]
    assert failures == []


def _every_key(document: dict[str, Any]) -> set[str]:
    return {key for _t, n in walk.nodes(document) for key in marks(n)}


def test_no_default_name_is_left_where_a_key_fills_one(renamed: dict[str, Any]) -> None:
    keys = _every_key(contract.load_contract())
    # errors.media_type marks the error answers' media entries it moves: no element carries it
    # in the contract, where every error answer is application/json
    assert _every_key(renamed) - {"errors.media_type"} == keys
    assert "errors.media_type" in _every_key(renamed)
    left = []
    for tokens, node in walk.nodes(renamed):
        if not isinstance(node, dict):
            continue
        for key in marks(node):
            kind, default = rule_of(key), _default(key)
            if kind == NAME and node["name"] == default:
                left.append(("/".join(tokens), key))
            if kind in (MAXIMUM, MAX_ITEMS) and node[kind] == default:
                left.append(("/".join(tokens), key))
            if kind == ENUM and node["enum"] == default:
                left.append(("/".join(tokens), key))
            if kind == ENUM_VALUE and default in node["enum"]:
                left.append(("/".join(tokens), key))
            if kind in (NAME, ENUM, ENUM_VALUE, MAXIMUM, MAX_ITEMS, STATUS, PROPERTY):
                assert VALUE_MARK in node and node[DECLARED_MARK] is True, (tokens, key)
        for name, child in (node.get("properties") or {}).items():
            for key in marks(child):
                if rule_of(key) == PROPERTY and name == _default(key):
                    left.append(("/".join(tokens), key))
            required = node.get("required") or []
            assert set(required) <= set(node["properties"]), tokens
    assert left == []


def test_statuses_move_to_the_declared_ones(renamed: dict[str, Any]) -> None:
    responses = {op["operationId"]: set(op["responses"]) for _p, _m, op in walk.operations(renamed)}
    assert {"200", "422", "401", "419", "451", "404", "410"} <= responses["createConfiguration"]
    assert "201" not in responses["createConfiguration"] | responses["createExperiment"]
    assert "202" in responses["createExperiment"]
    assert "400" not in responses["patchConfiguration"]
    # The SDK key's environment scope is the spec's 403: stated, not a key.
    assert "403" in responses["getSdkStatus"]


def test_examples_and_links_follow_the_renamed_fields(renamed: dict[str, Any]) -> None:
    patch = renamed["paths"]["/application/{applicationId}/v2/configuration/{configurationId}"]
    example = patch["patch"]["requestBody"]["content"]["application/json"]["examples"]
    assert set(example["operations"]["value"]) == {"ops", "base", "order"}
    create = renamed["paths"]["/application/{applicationId}/v2/configuration"]["post"]
    links = create["responses"]["200"]["links"]
    assert links["patchCreatedConfiguration"]["requestBody"] == {
        "base": "$response.body#/contentHash"
    }
    page = renamed["components"]["schemas"]["MemberPage"]
    assert page["required"] == ["results", "next"]
    assert page["example"]["results"][0] == {"unit": "player-42", "group": 6, "state": "enrolled"}
    error = renamed["components"]["schemas"]["ErrorBody"]
    assert set(error["properties"]) == {"code", "detail"} and set(error["example"]) == {
        "code",
        "detail",
    }


def test_the_fuzzed_document_carries_the_declared_marks(renamed: dict[str, Any]) -> None:
    status = renamed["components"]["parameters"]["ServerId"]
    assert (status["name"], status[VALUE_MARK], status[DECLARED_MARK]) == (
        "x-instance",
        "x-instance",
        True,
    )
    assert contract.doubt_of("getSdkStatus", "parameter:header:x-sdk", document=renamed) is None
    assert contract.doubt_of("getSdkStatus", "parameter:header:sdkversion") == "not-shown"


def test_a_request_goes_to_the_target_and_back(renamed_profile: Profile) -> None:
    renamer = Renamer(contract.load_contract(), Values.of(renamed_profile))
    body = {"operations": [{"op": "test", "path": "/a", "value": 1}], "baseHash": "h", "x": 1}
    theirs = renamer.body("patchConfiguration", body, to_target=True)
    assert theirs == {"ops": body["operations"], "base": "h", "x": 1}
    assert renamer.body("patchConfiguration", theirs, to_target=False) == body
    assigned = {"unitId": "u", "groupId": 3}
    assert renamer.body("setManualAssignment", assigned, True) == {"unit": "u", "group": 3}
    headers = {"server-id": "i", "authorization": "k"}
    sent = renamer.headers("getSdkStatus", headers, True)
    assert sent == {"x-instance": "i", "authorization": "k"}
    assert renamer.headers("getSdkStatus", sent, False) == headers
    assert renamer.query("listMembers", {"cursor": "c", "status": "active"}, True) == {
        "after": "c",
        "state": "active",
    }


def test_property_nodes_see_through_references_and_all_of() -> None:
    document = contract.load_contract()
    experiment = document["components"]["schemas"]["Experiment"]
    assert {"id", "status", "groups", "rollout"} <= set(property_nodes(document, experiment))


def test_a_yaml_round_trip_keeps_the_document(renamed: dict[str, Any]) -> None:
    assert yaml.safe_load(yaml.safe_dump(renamed, sort_keys=False)) == renamed


# --- conformance contract ---------------------------------------------------------------------


def _contract_command(*args: str) -> subprocess.CompletedProcess[str]:
    return run_conformance("contract", *args, timeout=120)


def test_the_contract_command_writes_the_specialised_document(tmp_path: Path) -> None:
    profile = tmp_path / "target.yaml"
    profile.write_text(RENAMED, "utf-8")
    output = tmp_path / "target.openapi.yaml"
    done = _contract_command(
        "--profile", str(profile), "--output", str(output), "--level", "drop-in"
    )
    assert done.returncode == 0, done.stderr
    written = yaml.safe_load(output.read_text("utf-8"))
    assert written == specialise(contract.load_contract(), parse(RENAMED))
    assert [e.message for e in OpenAPIV31SpecValidator(written).iter_errors()] == []
    # Without --profile: the contract with every default, on standard output.
    done = _contract_command("--level", "drop-in")
    assert done.returncode == 0, done.stderr
    assert _without_values(yaml.safe_load(done.stdout)) == contract.load_contract()


def test_the_contract_command_writes_the_interface_constraints_by_default(tmp_path: Path) -> None:
    done = _contract_command()
    assert done.returncode == 0, done.stderr
    assert "interface" in done.stderr and "drop-in (left out)" in done.stderr
    written = yaml.safe_load(done.stdout)
    assert [e.message for e in OpenAPIV31SpecValidator(written).iter_errors()] == []
    schemas = written["components"]["schemas"]
    # The reference's spelling of codes and its record fields are conventions, left out...
    assert "pattern" not in schemas["ErrorBody"]["properties"]["errorCode"]
    record = schemas["Experiment"]["allOf"][1]
    assert "rollout" not in record.get("required", [])
    # ...what the specification shows stays: the snapshot's fields, the numeric header's bounds.
    assert "hash" in schemas["StatusSnapshot"]["required"]
    numeric = written["components"]["parameters"]["ProjectId"]["schema"]
    assert (numeric["type"], numeric["maximum"]) == ("number", 9007199254740991)
    # A profile that says conventions: production declares them all.
    profile = tmp_path / "production.yaml"
    profile.write_text("profile_version: 1\nconventions: production\n", "utf-8")
    done = _contract_command("--profile", str(profile))
    assert done.returncode == 0, done.stderr
    production = yaml.safe_load(done.stdout)["components"]["schemas"]
    assert production["ErrorBody"]["properties"]["errorCode"]["pattern"] == "^[A-Z][A-Z0-9_]*$"
    assert "rollout" in production["Experiment"]["allOf"][1]["required"]


def test_the_contract_command_needs_no_credentials(tmp_path: Path) -> None:
    profile = tmp_path / "names.yaml"
    profile.write_text("profile_version: 1\nheaders: {instance_id: x-instance}\n", "utf-8")
    done = _contract_command("--profile", str(profile))
    assert done.returncode == 0, done.stderr
    parameter = yaml.safe_load(done.stdout)["components"]["parameters"]["ServerId"]
    assert (parameter["name"], parameter[DECLARED_MARK]) == ("x-instance", True)


def test_a_bad_profile_is_a_usage_error_naming_the_key_and_line(tmp_path: Path) -> None:
    profile = tmp_path / "bad.yaml"
    profile.write_text("profile_version: 1\nheaders:\n  instance_id: 5\n", "utf-8")
    done = _contract_command("--profile", str(profile))
    assert done.returncode == 2 and done.stdout == ""
    assert "line 3: key headers.instance_id" in done.stderr
    assert "usage error" in done.stderr
    done = _contract_command("--profile", str(tmp_path / "absent.yaml"))
    assert done.returncode == 2 and "target profile not found" in done.stderr


def test_the_contract_command_explains_itself() -> None:
    done = _contract_command("--help")
    assert done.returncode == 0
    assert "--profile FILE" in done.stdout and "x-profile-value" in done.stdout


def test_the_declared_keys_say_what_made_the_document_differ(
    renamed: dict[str, Any], renamed_profile: Profile
) -> None:
    from conformance.contract.specialisation import declared_keys, document_sha256

    declared = declared_keys(contract.load_contract(), renamed_profile)
    assert declared["headers.instance_id"] == "x-instance"
    assert declared["errors.validation_status"] == 422
    assert declared["errors.malformed_body_status"] == 422  # null: the validation status
    assert declared_keys(contract.load_contract(), default_profile()) == {}
    assert document_sha256(renamed) != document_sha256(contract.load_contract())
    assert document_sha256(copy.deepcopy(renamed)) == document_sha256(renamed)


# Every structural choice other than the reference server's.
STRUCTURAL = """\
profile_version: 1
credentials: {pat: p, sdk_keys: [{key: k, environments: [development]}]}
project: {application_id: 1, environments: {development: 1}}
bodies:
  path_syntax: dotted
  patch: {base_hash_transport: if-match, key_order_shape: entries, key_order: order}
errors: {malformed_body_status: 415}
experiment_payload: {pagination: page, page_param: p, changeset_format: json-patch}
"""


@pytest.fixture(scope="module")
def structural_profile() -> Profile:
    return parse(STRUCTURAL)


@pytest.fixture(scope="module")
def structural(structural_profile: Profile) -> dict[str, Any]:
    return specialise(contract.load_contract(), structural_profile)


def test_structural_choices_give_a_valid_document_with_true_examples(
    structural: dict[str, Any],
) -> None:
    test_the_renamed_document_is_valid_openapi_with_true_examples(structural)


def test_structural_choices_take_their_declared_form(structural: dict[str, Any]) -> None:
    schemas = structural["components"]["schemas"]
    patch = schemas["PatchConfigurationBody"]
    assert "baseHash" not in patch["properties"]  # sent as If-Match instead
    order = patch["properties"]["order"]
    assert order["type"] == ["array", "null"]
    dotted = order["items"]["properties"]["path"]
    assert dotted["type"] == "string" and "dotted" in dotted["description"]
    assert "pattern" not in dotted  # the grammar of a dotted path is the target's own
    assert patch["example"]["order"] == [{"path": "economy", "keys": ["startingGold"]}]
    create = schemas["CreateConfigurationBody"]["properties"]["privateKeys"]["items"]
    assert "$ref" not in create and create[DECLARED_MARK] is True
    assert schemas["ChangesetOperation"]["$ref"] == "#/components/schemas/JsonPatchOperation"
    assert schemas["ExperimentGroup"]["example"]["changeset"] == [
        {"op": "add", "path": "/economy/startingGold", "value": 200}
    ]
    operations = {op["operationId"]: op for _p, _m, op in walk.operations(structural)}
    patching = operations["patchConfiguration"]
    if_match = [p for p in patching["parameters"] if p.get("name") == "If-Match"]
    assert len(if_match) == 1 and if_match[0][DECLARED_MARK] is True
    links = operations["createConfiguration"]["responses"]["201"]["links"]
    assert "requestBody" not in links["patchCreatedConfiguration"]
    assert "415" in operations["patchConfiguration"]["responses"]
    paging = structural["components"]["parameters"]["Cursor"]
    assert (paging["name"], paging["schema"]) == ("p", {"type": "integer", "minimum": 1})
    assert "nextCursor" not in schemas["MemberPage"]["required"]


def test_a_structured_body_goes_to_the_target_and_back(structural_profile: Profile) -> None:
    renamer = Renamer(contract.load_contract(), Values.of(structural_profile))
    body = {"keyOrder": {"/economy": ["gold"], "": ["economy"]}, "operations": []}
    theirs = renamer.body("patchConfiguration", body, to_target=True)
    assert theirs == {
        "order": [{"path": "economy", "keys": ["gold"]}, {"path": "", "keys": ["economy"]}],
        "operations": [],
    }
    assert renamer.body("patchConfiguration", theirs, to_target=False) == body
    create = {"name": "n", "privateKeys": ["/economy/secretSeed"]}
    sent = renamer.body("createConfiguration", create, to_target=True)
    assert sent == {"name": "n", "privateKeys": ["economy.secretSeed"]}
    assert renamer.body("createConfiguration", sent, to_target=False) == create
    group = {"label": "g", "changeset": [{"op": "delete", "path": ["a", "b"]}]}
    patched = renamer.body("createExperiment", {"groups": [group]}, to_target=True)
    assert patched["groups"][0]["changeset"] == [{"op": "remove", "path": "/a/b"}]
    assert renamer.body("createExperiment", patched, to_target=False) == {"groups": [group]}


# Private paths spelled apart from the sidecar's, no members filter, the target's active word.
PRIVATE_APART = """\
profile_version: 1
credentials: {pat: p, sdk_keys: [{key: k, environments: [development]}]}
project: {application_id: 1, environments: {development: 1}}
bodies: {private_path_syntax: dotted}
experiment_payload: {status_param: null, running: live}
"""


def test_private_paths_take_their_own_syntax_and_the_sidecar_keeps_pointers() -> None:
    profile = parse(PRIVATE_APART)
    assert (
        profile.bodies.private_syntax == "dotted" and profile.bodies.path_syntax == "json-pointer"
    )
    specialised = specialise(contract.load_contract(), profile)
    test_the_renamed_document_is_valid_openapi_with_true_examples(specialised)
    schemas = specialised["components"]["schemas"]
    private = schemas["CreateConfigurationBody"]["properties"]["privateKeys"]["items"]
    assert "$ref" not in private and private[DECLARED_MARK] is True
    sidecar = schemas["PatchConfigurationBody"]["properties"]["keyOrder"]["propertyNames"]
    assert sidecar["$ref"] == "#/components/schemas/JsonPointer"
    assert schemas["ExperimentStatus"]["enum"] == ["live", "terminated"]
    renamer = Renamer(contract.load_contract(), Values.of(profile))
    body = {"keyOrder": {"/economy": ["gold"]}, "privateKeys": ["/economy/secretSeed"]}
    assert renamer.body("patchConfiguration", {"keyOrder": body["keyOrder"]}, to_target=True) == {
        "keyOrder": {"/economy": ["gold"]}
    }
    create = {"name": "n", "privateKeys": body["privateKeys"]}
    sent = renamer.body("createConfiguration", create, to_target=True)
    assert sent == {"name": "n", "privateKeys": ["economy.secretSeed"]}


def test_an_error_body_without_a_code_field_and_its_media_and_refusal_status() -> None:
    """errors.code_field: null leaves the code out of the error body (and out of required);
    errors.media_type moves every error answer's media entry but the configuration endpoints'
    (spec 4.1: application/json); errors.rate_limited_status moves the 429 response."""
    profile = parse(
        "profile_version: 1\n"
        "credentials: {pat: p, sdk_keys: [{key: k, environments: [development]}]}\n"
        "project: {application_id: 1, environments: {development: 1}}\n"
        "errors: {code_field: null, message_field: detail, rate_limited_status: 503,\n"
        "         media_type: application/problem+json}\n",
        source="test",
    )
    document = specialise(contract.load_contract(), profile)
    body = document["components"]["schemas"]["ErrorBody"]
    assert set(body["properties"]) == {"detail"} and body["required"] == ["detail"]
    status = document["paths"]["/sdk/v2/status"]["get"]["responses"]
    assert "429" not in status and "503" in status
    assert list(status["503"]["content"]) == ["application/problem+json"]
    assert list(status["200"]["content"]) == ["application/json"]
    create = document["paths"]["/application/{applicationId}/v2/configuration"]["post"]
    assert all("problem" not in json.dumps(r) for r in create["responses"].values())


def test_experiments_without_an_environment_header_lose_the_parameter() -> None:
    """Declared ``experiment_payload.environment_header: false`` (spec 4.2 names no environment
    input): no experiment operation lists the environment header; the configuration ones keep
    theirs (4.1 states it)."""
    text = yaml.safe_dump(
        {
            **yaml.safe_load(
                'profile_version: 1\ncredentials: {pat: "-", sdk_keys: [{key: "-", '
                "environments: [development]}]}\nproject: {application_id: 1, environments: "
                "{development: 1}}\n"
            ),
            "experiment_payload": {"environment_header": False},
        }
    )
    document = specialise(contract.load_contract(), parse(text))
    kept = contract.load_contract()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "parameters" not in operation:
                continue
            refs = [p.get("$ref", "") for p in operation["parameters"]]
            before = [p.get("$ref", "") for p in kept["paths"][path][method]["parameters"]]
            if "/experiments" in path:
                assert not any(r.endswith("/ExperimentEnvironmentId") for r in refs), path
                assert len(before) - len(refs) == 1, (path, method)
            else:
                assert refs == before, path
