"""Contract tests of the requirement catalogue: its file, its schema and its loader."""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from conformance.catalogue.requirements import (
    SCOPES,
    load_catalogue,
    load_catalogue_file,
    parse_catalogue,
)

# The numbering of the interface specification (sections 1 to 9), written out independently of
# the schema so that a wrong enum in the schema is caught too.
SPEC_SECTIONS = {
    "1",
    "2.1",
    "2.2",
    "2.3",
    "2.4",
    "2.5",
    "3",
    "4.1",
    "4.2",
    "4.3",
    "5",
    "6",
    "7",
    "8",
    "9",
}

# The 19 agreed operationIds (OpenAPI document and catalogue use exactly these).
OPERATION_IDS = {
    "createConfiguration",
    "patchConfiguration",
    "listExperiments",
    "createExperiment",
    "getAnalyticsCatalog",
    "getAssignmentCounts",
    "listContextProperties",
    "getExperiment",
    "getExperimentAssignmentCounts",
    "listAssignments",
    "setManualAssignment",
    "reactivateMember",
    "unenrollMember",
    "listMembers",
    "getRollout",
    "changeRollout",
    "terminateExperiment",
    "getSdkStatus",
    "getSdkBootstrap",
}

CAPABILITIES = {
    "experiments",
    "bootstrap",
    "bootstrap_identity",
    "key_order",
    "rate_limit",
    "load_shedding",
    "legacy_sdk_key",
}

# Ids other parts of the kit were promised; renaming one breaks them.
PROMISED_IDS = (
    "SDK-STATUS-304-IF-NONE-MATCH",
    "CFG-PATCH-409-STALE-BASE",
    "CFG-PATCH-ATOMIC",
    "AUTH-SDK-LEGACY-PREFIX",
    "SDK-HDR-INSTANCE-ID-LENGTH",
    "LIMIT-RATE-PER-INSTANCE",
    "POLL-HINT-UNDER-LOAD",
    "EXP-TERMINATE-FINAL",
    "VER-PATH-V2",
)

ID_PATTERN = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")
AREAS = ("CFG", "SDK", "AUTH", "ERR", "LIMIT", "POLL", "EXP", "VER")


def _packaged_bytes(name: str) -> bytes:
    return resources.files("conformance.catalogue").joinpath(name).read_bytes()


def _raw_catalogue() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(_packaged_bytes("requirements.yaml"))
    return data


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(_packaged_bytes("requirements.schema.json"))
    return schema


# ------------------------------------------------------------------ the file and its schema


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = _schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_catalogue_validates_against_the_schema() -> None:
    errors = [e.message for e in Draft202012Validator(_schema()).iter_errors(_raw_catalogue())]
    assert errors == []


def test_catalogue_version_is_1() -> None:
    assert _raw_catalogue()["catalogue_version"] == 1
    assert load_catalogue().version == 1


def test_ids_are_unique() -> None:
    ids = [entry["id"] for entry in _raw_catalogue()["requirements"]]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert duplicates == []


def test_ids_are_upper_kebab_with_a_known_area() -> None:
    bad = [
        r.id
        for r in load_catalogue()
        if not ID_PATTERN.match(r.id) or r.id.split("-", 1)[0] not in AREAS
    ]
    assert bad == []


def test_every_section_exists_in_the_spec_numbering() -> None:
    bad = {r.id: r.section for r in load_catalogue() if r.section not in SPEC_SECTIONS}
    assert bad == {}


def test_every_operation_is_one_of_the_19() -> None:
    bad = {
        r.id: sorted(set(r.operations) - OPERATION_IDS)
        for r in load_catalogue()
        if not set(r.operations) <= OPERATION_IDS
    }
    assert bad == {}


def test_every_one_of_the_19_operations_is_concerned() -> None:
    catalogue = load_catalogue()
    untouched = sorted(op for op in OPERATION_IDS if not catalogue.for_operation(op))
    assert untouched == []


def test_every_operation_has_a_server_requirement_of_its_own() -> None:
    """Beyond the catch-all entries (errors, versioning), each operation has a specific rule."""
    catch_all = {r.id for r in load_catalogue() if set(r.operations) >= OPERATION_IDS}
    specific = {
        op for r in load_catalogue() if r.checkable and r.id not in catch_all for op in r.operations
    }
    assert sorted(OPERATION_IDS - specific) == []


def test_every_spec_section_with_normative_text_is_cited() -> None:
    cited = {r.section for r in load_catalogue()}
    # Section 6 (events) shows nothing; every other section states something testable.
    assert sorted(SPEC_SECTIONS - {"6"} - cited) == []


def test_capabilities_are_known() -> None:
    bad = {
        r.id: r.capabilities for r in load_catalogue() if not set(r.capabilities) <= CAPABILITIES
    }
    assert bad == {}


def test_experiment_area_is_experiment_scope() -> None:
    bad = [r.id for r in load_catalogue() if r.id.startswith("EXP-") and r.scope != "experiments"]
    assert bad == []


def test_identity_bootstrap_rules_need_the_identity_capability() -> None:
    bad = [
        r.id
        for r in load_catalogue()
        if r.id.startswith("SDK-BOOTSTRAP-ID-") and "bootstrap_identity" not in r.capabilities
    ]
    assert bad == []


def test_bootstrap_rules_are_gated_by_bootstrap() -> None:
    bad = [
        r.id
        for r in load_catalogue()
        if r.id.startswith("SDK-BOOTSTRAP-") and "bootstrap" not in r.capabilities
    ]
    assert bad == []


def test_client_only_rules_are_few() -> None:
    """The client stage judges them (spec 4.3 and 8); the catalogue stays mostly server rules."""
    clients = [r.id for r in load_catalogue() if r.subject == "client"]
    assert 0 < len(clients) <= 12


def test_titles_are_short_and_texts_are_single_spaced() -> None:
    catalogue = load_catalogue()
    assert [r.id for r in catalogue if len(r.title) >= 60] == []
    assert [r.id for r in catalogue if "  " in r.text or "\n" in r.text] == []


def test_size_is_in_the_expected_range() -> None:
    assert 100 <= len(load_catalogue()) <= 200


@pytest.mark.parametrize("requirement_id", PROMISED_IDS)
def test_promised_ids_exist(requirement_id: str) -> None:
    assert requirement_id in load_catalogue()


# ------------------------------------------------------------------ the loader


def test_loader_is_cached_and_hashes_the_file_bytes() -> None:
    catalogue = load_catalogue()
    assert load_catalogue() is catalogue
    expected = hashlib.sha256(_packaged_bytes("requirements.yaml")).hexdigest()
    assert catalogue.sha256 == expected


def test_loader_keeps_file_order_and_fields() -> None:
    catalogue = load_catalogue()
    raw = _raw_catalogue()["requirements"]
    assert catalogue.ids() == tuple(entry["id"] for entry in raw)
    first = catalogue.requirements[0]
    assert first.operations == tuple(raw[0]["operations"])
    assert first.capability == raw[0].get("capability")
    assert first.text == " ".join(raw[0]["text"].split())
    assert first.spec_quote == raw[0]["rests_on"]["spec"]
    assert first.keys == tuple(raw[0]["rests_on"]["keys"])
    renamed = next(r for r in catalogue if r.replaces)
    assert renamed.replaces == tuple(next(e for e in raw if e["id"] == renamed.id)["replaces"])


def test_lookups() -> None:
    catalogue = load_catalogue()
    requirement = catalogue["CFG-PATCH-ATOMIC"]
    assert catalogue.get("CFG-PATCH-ATOMIC") is requirement
    assert catalogue.get("NO-SUCH-ID") is None
    with pytest.raises(KeyError, match="NO-SUCH-ID"):
        catalogue["NO-SUCH-ID"]
    assert requirement in catalogue.for_operation("patchConfiguration")


def test_in_scope_partitions_the_catalogue() -> None:
    catalogue = load_catalogue()
    parts = [catalogue.in_scope(scope) for scope in SCOPES]
    assert sum(len(p) for p in parts) == len(catalogue)
    assert all(parts)
    assert all(r.scope == "core" for r in catalogue.in_scope("core"))
    with pytest.raises(ValueError, match="unknown scope"):
        catalogue.in_scope("everything")


def test_capability_gating_follows_implications() -> None:
    catalogue = load_catalogue()
    assert catalogue["SDK-BOOTSTRAP-ID-MERGE"].capabilities == (
        "experiments",
        "bootstrap_identity",
        "bootstrap",
    )
    assert catalogue["EXP-LIST"].capabilities == ("experiments",)
    assert catalogue["SDK-STATUS-304-IF-NONE-MATCH"].capabilities == ()
    gated = catalogue.gated_by("experiments")
    assert {r.id for r in catalogue.in_scope("experiments")} <= {r.id for r in gated}
    assert catalogue["SDK-BOOTSTRAP-ID-MERGE"] in catalogue.gated_by("bootstrap")
    # A rule checked only on bootstrap needs bootstrap even without naming it.
    assert catalogue["POLL-HINT-ON-BOOTSTRAP"].capabilities == ("load_shedding", "bootstrap")
    # A rule that can be checked on any of several operations is not gated by one of them.
    assert catalogue["CFG-PATCH-PERSISTS"].capabilities == ()
    assert catalogue["ERR-BODY-JSON"].capabilities == ()


def test_loader_reads_a_catalogue_file(tmp_path: Path) -> None:
    path = tmp_path / "requirements.yaml"
    path.write_bytes(_packaged_bytes("requirements.yaml"))
    assert load_catalogue_file(path).ids() == load_catalogue().ids()


DEFAULT_STAGES = {"server": ["scenarios"], "client": ["client"]}

GOOD_ENTRY: dict[str, Any] = {
    "id": "CFG-GOOD-ONE",
    "section": "4.1",
    "title": "A good entry",
    "text": "A conforming server does the good thing.",
    "basis": "stated",
    "operations": ["createConfiguration"],
    "scope": "core",
    "subject": "server",
    "rests_on": {"spec": "Both send Content-Type: application/json.", "keys": []},
}


def _with_second_entry(**changes: Any) -> dict[str, Any]:
    bad = {**GOOD_ENTRY, "id": "CFG-BROKEN-ENTRY", **changes}
    bad = {k: v for k, v in bad.items() if v is not None}
    return {
        "catalogue_version": 1,
        "default_stages": DEFAULT_STAGES,
        "requirements": [GOOD_ENTRY, bad],
    }


BROKEN = {
    "bad basis": (_with_second_entry(basis="maybe"), "CFG-BROKEN-ENTRY"),
    "unknown operation": (_with_second_entry(operations=["deleteEverything"]), "CFG-BROKEN-ENTRY"),
    "no operation": (_with_second_entry(operations=[]), "CFG-BROKEN-ENTRY"),
    "section not in the spec": (_with_second_entry(section="4.4"), "CFG-BROKEN-ENTRY"),
    "unknown capability": (_with_second_entry(capability="teleport"), "CFG-BROKEN-ENTRY"),
    "bad scope": (_with_second_entry(scope="everything"), "CFG-BROKEN-ENTRY"),
    "bad subject": (_with_second_entry(subject="nobody"), "CFG-BROKEN-ENTRY"),
    "missing text": (_with_second_entry(text=None), "CFG-BROKEN-ENTRY"),
    "extra field": (_with_second_entry(owner="me"), "CFG-BROKEN-ENTRY"),
    "long title": (_with_second_entry(title="x" * 60), "CFG-BROKEN-ENTRY"),
    "lower-case id": (_with_second_entry(id="cfg-broken"), "cfg-broken"),
    "id without area": (_with_second_entry(id="BROKEN-ENTRY"), "BROKEN-ENTRY"),
    "duplicate id": (_with_second_entry(id="CFG-GOOD-ONE"), "#2 (CFG-GOOD-ONE): duplicate id"),
    "stated without a quote": (
        _with_second_entry(rests_on={"keys": []}),
        "CFG-BROKEN-ENTRY",
    ),
    "no rests_on": (_with_second_entry(rests_on=None), "CFG-BROKEN-ENTRY"),
    "quote too long": (
        _with_second_entry(rests_on={"spec": "x" * 161, "keys": []}),
        "CFG-BROKEN-ENTRY",
    ),
    "key not a dotted path": (
        _with_second_entry(rests_on={"keys": ["capabilities"]}, basis="inferred"),
        "CFG-BROKEN-ENTRY",
    ),
    "replaces a malformed id": (_with_second_entry(replaces=["old id"]), "CFG-BROKEN-ENTRY"),
    "replaces a current id": (
        _with_second_entry(replaces=["CFG-GOOD-ONE"]),
        "replaces CFG-GOOD-ONE, which is a current id",
    ),
    "wrong version": (
        {"catalogue_version": 2, "default_stages": DEFAULT_STAGES, "requirements": [GOOD_ENTRY]},
        "catalogue_version",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_loader_rejects_a_broken_catalogue_naming_the_entry(tmp_path: Path, case: str) -> None:
    data, named = BROKEN[case]
    path = tmp_path / "requirements.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        load_catalogue_file(path)
    message = str(caught.value)
    assert named in message
    assert str(path) in message


def test_loader_rejects_a_section_written_as_a_number(tmp_path: Path) -> None:
    text = yaml.safe_dump(_with_second_entry(), sort_keys=False).replace(
        "section: '4.1'", "section: 4.1", 1
    )
    assert "section: 4.1" in text
    path = tmp_path / "requirements.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"requirement #1 \(CFG-GOOD-ONE\), field 'section'"):
        load_catalogue_file(path)


def test_loader_rejects_a_duplicate_key_with_its_line() -> None:
    raw = b"catalogue_version: 1\ncatalogue_version: 1\nrequirements: []\n"
    with pytest.raises(ValueError, match="duplicate key 'catalogue_version' at line 2"):
        parse_catalogue(raw, source="dup.yaml")


def test_loader_rejects_unreadable_yaml() -> None:
    with pytest.raises(ValueError, match=r"bad\.yaml: not a readable YAML"):
        parse_catalogue(b"requirements: [unclosed\n", source="bad.yaml")


def test_a_good_catalogue_round_trips_through_the_loader() -> None:
    raw = yaml.safe_dump(
        {"catalogue_version": 1, "default_stages": DEFAULT_STAGES, "requirements": [GOOD_ENTRY]}
    ).encode()
    catalogue = parse_catalogue(raw)
    assert catalogue.ids() == ("CFG-GOOD-ONE",)
    assert catalogue["CFG-GOOD-ONE"].capability is None
    assert catalogue["CFG-GOOD-ONE"].spec_quote == "Both send Content-Type: application/json."
    assert catalogue["CFG-GOOD-ONE"].keys == ()
    assert catalogue["CFG-GOOD-ONE"].replaces == ()
    assert catalogue.sha256 == hashlib.sha256(raw).hexdigest()
