"""The payload sections of the target profile: loaded, validated, and read by the checks.

``bootstrap_payload`` and ``experiment_payload`` name fields the spec does not show. A profile that
renames them must reach the checks that read them; a bad value is an error naming key and line.
The checks are driven through a real ``Client`` over an in-process transport (a unit test of the
small pieces; the end-to-end proof against a real server is ``test_profile_payload_end_to_end``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.drivers.experiments import Experiments
from conformance.drivers.sdk import Snapshots
from conformance.drivers.unit_view import UnitView
from conformance.errors import ContractViolation, UsageError
from conformance.oracles.shapes import status_entry_problems
from conformance.profile import Profile
from conformance.profile import load as load_profile
from conformance.profile.defaults import DEFAULTS
from conformance.profile.defaults import schema as profile_schema
from conformance.traffic.client import Client

BASE = """\
profile_version: 1
credentials:
  pat: svc_pat_unit
  sdk_keys:
    - {key: svc_pk_dev, environments: [development]}
project:
  application_id: 1
  environments: {development: 1}
"""

RENAMED = (
    BASE
    + """\
bootstrap_payload:
  document: document
experiment_payload:
  items: results
  next_cursor: next
  cursor_param: page
"""
)


def load(tmp_path: Path, text: str) -> Profile:
    path = tmp_path / "target.yaml"
    path.write_text(text, encoding="utf-8")
    return load_profile(path)


def test_renamed_fields_load_and_the_rest_keep_the_reference_defaults(tmp_path: Path) -> None:
    loaded = load(tmp_path, RENAMED)
    assert loaded.bootstrap_payload.document == "document"
    assert loaded.bootstrap_payload.assignments == "assignments"
    assert loaded.experiment_payload.items == "results"
    assert loaded.experiment_payload.next_cursor == "next"
    assert loaded.experiment_payload.cursor_param == "page"
    assert loaded.experiment_payload.limit_param == "limit"
    assert loaded.experiment_payload.unit_id == "unitId"
    default = load(tmp_path, BASE)
    assert default.bootstrap_payload.document == "configuration"
    assert default.experiment_payload.items == "items"
    assert default.experiment_payload.cursor_param == "cursor"


# ------------------------------------------------------------ a target that renames things

PAGES = [{"id": 1}, {"id": 2}, {"id": 3}]


def renamed_target(request: httpx.Request) -> httpx.Response:
    """Lists under ``results``/``next``, paged by ``page``; documents under ``document``."""
    if request.url.path.endswith("/v2/experiments"):
        start = int(request.url.params.get("page", "0"))
        if "cursor" in request.url.params:
            return httpx.Response(400, json={"errorCode": "INVALID_REQUEST", "message": "cursor"})
        following = str(start + 1) if start + 1 < len(PAGES) else None
        return httpx.Response(200, json={"results": [PAGES[start]], "next": following})
    if request.url.path == "/sdk/v2/bootstrap":
        entries = [{"id": 7, "name": "a", "alias": "a", "hash": "h", "document": {"v": 1}}]
        return httpx.Response(200, json={"hash": "s", "configurations": entries})
    return httpx.Response(404, json={"errorCode": "NOT_FOUND", "message": "no"})


def client_for(loaded: Profile) -> Client:
    transport = httpx.Client(transport=httpx.MockTransport(renamed_target))
    return Client("http://127.0.0.1:9", loaded, http=transport)


def test_renamed_list_fields_and_cursor_reach_the_paging_check(tmp_path: Path) -> None:
    driver = Experiments(client_for(load(tmp_path, RENAMED)), cleanup=None)
    assert driver.listed(("EXP-LIST",)) == PAGES


def test_reference_names_do_not_read_the_renamed_list(tmp_path: Path) -> None:
    driver = Experiments(client_for(load(tmp_path, BASE)), cleanup=None)
    with pytest.raises(ContractViolation) as caught:
        driver.listed(("EXP-LIST",))
    assert "'items'" in caught.value.expected


def test_the_cursor_parameter_name_is_the_profiles(tmp_path: Path) -> None:
    """Right list fields but the reference cursor name: page two is refused (400)."""
    text = RENAMED.replace("  cursor_param: page\n", "")
    driver = Experiments(client_for(load(tmp_path, text)), cleanup=None)
    with pytest.raises(ContractViolation) as caught:
        driver.listed(("EXP-LIST",))
    assert "400" in caught.value.received


def test_renamed_document_field_reaches_the_bootstrap_documents(tmp_path: Path) -> None:
    assert Snapshots(client_for(load(tmp_path, RENAMED))).documents() == {7: {"v": 1}}
    assert Snapshots(client_for(load(tmp_path, BASE))).documents() == {7: None}


def test_unit_view_reads_the_profiles_document_and_assignment_fields(tmp_path: Path) -> None:
    text = RENAMED.replace(
        "  document: document\n", "  document: document\n  assignments: enrolments\n"
    )
    loaded = load(tmp_path, text)
    body = {
        "configurations": [{"id": 7, "document": {"v": 2}, "configuration": {"v": 1}}],
        "enrolments": [{"experimentId": 3, "groupId": 30}],
        "assignments": [{"experimentId": 3, "groupId": 99}],
    }
    reply: Any = None  # not read by document() or group_of()
    view = UnitView(body, reply, loaded.experiment_payload, loaded.bootstrap_payload)
    assert view.document(7) == {"v": 2}
    assert view.group_of(3) == 30


def test_status_entry_check_looks_for_the_profiles_document_field(tmp_path: Path) -> None:
    renamed = load(tmp_path, RENAMED).bootstrap_payload.document
    entry = {"id": 1, "name": "n", "alias": "n", "hash": "h"}
    assert status_entry_problems(entry, renamed) == []
    assert status_entry_problems({**entry, "document": {}}, renamed) != []
    # A target whose document field is "document" may carry an extra "configuration" field.
    assert status_entry_problems({**entry, "configuration": 1}, renamed) == []
    assert status_entry_problems({**entry, "configuration": 1}, "configuration") != []


# ------------------------------------------------------------ validation


@pytest.mark.parametrize(
    ("section", "value", "key", "message"),
    [
        ("experiment_payload", "items: 5", "experiment_payload.items", "5 is not of type 'string'"),
        ("experiment_payload", "cursor_param: 'a b'", "experiment_payload.cursor_param", "match"),
        ("experiment_payload", "terminated: ''", "experiment_payload.terminated", "non-empty"),
        ("experiment_payload", "itemz: results", "itemz", "Additional properties"),
        ("bootstrap_payload", "document: [a]", "bootstrap_payload.document", "not of type"),
    ],
)
def test_a_bad_payload_value_names_the_key_and_the_line(
    tmp_path: Path, section: str, value: str, key: str, message: str
) -> None:
    text = BASE + f"rate_limit:\n  burst: 10\n{section}:\n  {value}\n"
    line = text.splitlines().index(f"  {value}") + 1
    with pytest.raises(UsageError) as caught:
        load(tmp_path, text)
    shown = str(caught.value)
    assert key in shown
    assert f"line {line}" in shown
    assert message in shown


def test_every_payload_name_has_a_default() -> None:
    """A target that renames nothing needs no payload section: every name defaults."""
    schema = profile_schema()["properties"]
    for section in ("bootstrap_payload", "experiment_payload"):
        names = schema[section]["properties"]
        undefaulted = [
            name
            for name, node in names.items()
            if "default" not in node
            and not all("default" in inner for inner in node.get("properties", {}).values())
        ]
        assert undefaulted == [], section
        assert set(DEFAULTS[section]) == set(names), section
    assert json.dumps(DEFAULTS["experiment_payload"])  # plain data, writable as YAML
