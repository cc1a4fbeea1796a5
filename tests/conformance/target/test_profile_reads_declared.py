"""Every profile key a scenario reads is declared by one of its requirements (``rests_on.keys``).

A run of the scenarios stage against the embedded reference server with ``RCES_RECORD_PROFILE_KEYS``
set writes, per test, the keys it read (``conformance.profile.reads``); ``undeclared``
compares them with the catalogue. The quick tier runs a representative subset of requirements (one
or more per scenario module, the key-heavy ones), the long tier the whole stage.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.catalogue.requirements import Catalogue, load_catalogue
from conformance.profile import Profile
from conformance.profile.building import build
from conformance.profile.defaults import DEFAULTS
from conformance.profile.defaults import schema as profile_schema
from conformance.profile.loading import _merge
from conformance.profile.messages import Headers
from conformance.profile.reads import (
    RECORD_ENV,
    RECORDER,
    ProfileKeyLog,
    log_path,
    read_log,
    recording_view,
)
from tests.support.conformance_cli import run_conformance

# Keys a test reads as infrastructure, never as an expectation: how to reach and authenticate
# to the target and which project it works in, bounds on every answer, pacing under the rate
# limits, capability gating (which decides whether a test runs, not what it expects), the
# baseline (applied to outcomes), the other stages' settings, and ``conventions`` (which decides
# the level a key's expectation is judged at, not what it expects).
INFRASTRUCTURE = (
    "conventions",
    "credentials.",
    "project.",
    "responses.",
    "rate_limit.",
    "management_rate_limit",
    "capabilities",
    "baseline",
    "load.",
    "fuzz.",
    "client.",
)

# Keys the shared drivers read to talk to the target and to build the setting a scenario
# stands on, whatever the scenario judges. A requirement about them lists them (the audit of
# requirements.yaml did); a test that only uses them to get there need not.
DRIVING = {
    # conformance/traffic/client.py names the environment and sends the suite's own instance id (its
    # own rate-limit bucket) on every SDK request.
    "headers.environment": "the SDK request's environment alias and instance id",
    "headers.instance_id": "the SDK request's environment alias and instance id",
    # ... and tells a rate-limit refusal (judged against the suite's own traffic) from an answer.
    "errors.rate_limited_status": "telling a rate-limit refusal from an answer, on every request",
    # drivers/management.py: the configurations (and content changes) scenarios stand on.
    "bodies.create.content": "creating the configurations a scenario stands on",
    "statuses.create_configuration": "creating the configurations a scenario stands on",
    "bodies.patch.operations": "changing a configuration's content to move its hash",
    "bodies.patch.base_hash_transport": "how any patch names its base (if at all)",
    "bodies.path_syntax": "how any path the suite sends is spelled",
    "bodies.private_path_syntax": "how any private path the suite sends is spelled",
    # drivers/sdk.py: reading stored documents back through bootstrap.
    "bootstrap_payload.document": "reading stored content back through bootstrap",
    # drivers/experiments.py: the experiments scenarios stand on, and whole lists read page by
    # page.
    "statuses.create_experiment": "creating the experiments a scenario stands on",
    "experiment_payload.changeset": "creating the experiments a scenario stands on",
    "experiment_payload.changeset_format": "creating the experiments a scenario stands on",
    "experiments.unit_types": "creating the experiments a scenario stands on",
    "experiments.weight_total": "creating the experiments a scenario stands on",
    "experiment_payload.manual_weights": "creating the experiments a scenario stands on",
    "experiment_payload.environment_header": "calling the experiment endpoints at all",
    **{
        f"experiment_payload.create.{name}": "creating the experiments a scenario stands on, "
        "and reading their records back"
        for name in (
            "name",
            "unit_type",
            "assignment_mode",
            "base_configuration_id",
            "required_properties",
            "groups",
            "group_label",
            "group_weight",
        )
    },
    "experiment_payload.paged_lists": "reading a whole list page by page",
    "experiment_payload.items": "reading a whole list page by page",
    "experiment_payload.pagination": "reading a whole list page by page",
    "experiment_payload.next_cursor": "reading a whole list page by page",
    "experiment_payload.cursor_param": "reading a whole list page by page",
    "experiment_payload.limit_param": "reading a whole list page by page",
    "experiment_payload.offset_param": "reading a whole list page by page",
    "experiment_payload.page_param": "reading a whole list page by page",
    "experiments.page_size_max": "reading a whole list page by page",
}

# A representative subset for the quick tier: each scenario module, its key-reading tests.
SUBSET = (
    "CFG-CREATE-PRIVACY-AND-COMMENTS",
    "CFG-PATCH-409-STALE-BASE",
    "CFG-PATCH-KEY-ORDER-SIDECAR",
    "CFG-ENV-ID-REQUIRED",
    "SDK-STATUS-IF-NONE-MATCH-FORMS",
    "SDK-HDR-NUMERIC-OUT-OF-BOUNDS",
    "SDK-HDR-ENV-OUT-OF-SCOPE-403",
    "SDK-BOOTSTRAP-ENV-SCOPE-403",
    "SDK-BOOTSTRAP-ID-METADATA",
    "ERR-VALIDATION-STATUS",
    "ERR-BODY-SHAPE",
    "ERR-UNKNOWN-CONFIGURATION",
    "ERR-UNKNOWN-PROJECT",
    "AUTH-PAT-MISSING",
    "AUTH-PAT-FOREIGN-PROJECT",
    "AUTH-SDK-INVALID",
    "EXP-CREATE-INVALID-GROUP-COUNT",
    "EXP-TERMINATE",
    "EXP-MEMBERS",
    "EXP-UNKNOWN-ID",
    "EXP-ROLLOUT-CHANGE",
    "EXP-GROUP-COUNTS",
)

RUN_TIMEOUT = 600


def exempt(key: str) -> bool:
    return key.startswith(INFRASTRUCTURE) or key in DRIVING


def undeclared(lines: Iterable[Mapping[str, Any]], catalogue: Catalogue) -> list[str]:
    """'test: key' for each key a test read that none of its requirements lists."""
    problems = []
    for line in lines:
        ids = [catalogue.current_id(rid) for rid in line["requirements"]]
        declared = {key for rid in ids if rid in catalogue for key in catalogue[rid].keys}
        for key in line["keys"]:
            if not exempt(key) and key not in declared:
                problems.append(f"{line['test']} ({', '.join(ids)}): reads {key}")
    return problems


def record_run(tmp_path: Path, *requirements: str) -> list[dict[str, Any]]:
    """Run the scenarios stage on the embedded server with recording on; the lines written."""
    log = tmp_path / "keys.jsonl"
    args = ["--stage", "scenarios", "--quiet", "--report-dir", str(tmp_path / "reports")]
    if requirements:
        args += ["--requirements", ",".join(requirements)]
    result = run_conformance("run", *args, timeout=RUN_TIMEOUT, env={RECORD_ENV: str(log)})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return read_log(log)


# ------------------------------------------------------------------ the recording view


def _profile() -> Profile:
    return build(
        _merge(
            DEFAULTS,
            {
                "credentials": {"pat": "p", "sdk_keys": [{"key": "k", "environments": ["dev"]}]},
                "project": {"application_id": 1, "environments": {"dev": 1}},
            },
        )
    )


def test_the_view_notes_the_dotted_path_of_every_key_read() -> None:
    view = recording_view(_profile())
    RECORDER.open()
    try:
        assert view.errors.validation_status == (400,)
        assert view.bodies.patch.base_hash == "baseHash"
        assert view.capability("experiments") is True
        assert view.environment_id("dev") == 1
        sections = view.headers  # a section alone is not a key
        _ = repr(view)  # a traceback's repr reads nothing
    finally:
        reads = RECORDER.close()
    assert reads == {
        "errors.validation_status",
        "bodies.patch.base_hash",
        "capabilities",
        "project.environments",
    }
    assert isinstance(view, Profile)
    assert isinstance(sections, Headers)
    assert view.headers.environment == _profile().headers.environment


def test_nothing_is_noted_outside_a_window() -> None:
    view = recording_view(_profile())
    assert view.errors.not_found_status == 404
    RECORDER.open()
    assert RECORDER.close() == frozenset()


def test_recording_is_off_without_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RECORD_ENV, raising=False)
    assert log_path() is None
    monkeypatch.setenv(RECORD_ENV, "/tmp/x.jsonl")
    assert log_path() == Path("/tmp/x.jsonl")


def test_the_log_writes_one_line_per_test(tmp_path: Path) -> None:
    log = ProfileKeyLog(tmp_path / "keys.jsonl")
    view = recording_view(_profile())
    with log.recording("t.py::test_a", ["ERR-VALIDATION-STATUS"]):
        _ = view.errors.validation_status
    with log.recording("t.py::test_b", ["EXP-UNKNOWN-ID"]):
        pass
    assert read_log(tmp_path / "keys.jsonl") == [
        {
            "test": "t.py::test_a",
            "requirements": ["ERR-VALIDATION-STATUS"],
            "keys": ["errors.validation_status"],
        },
        {"test": "t.py::test_b", "requirements": ["EXP-UNKNOWN-ID"], "keys": []},
    ]
    assert json.loads((tmp_path / "keys.jsonl").read_text().splitlines()[0])["test"]


# ------------------------------------------------------------------ the comparison


def test_an_undeclared_key_is_caught() -> None:
    catalogue = load_catalogue()
    line = {
        "test": "t.py::test_x",
        "requirements": ["CFG-PATCH-ATOMIC"],
        "keys": ["errors.validation_status", "credentials.pat", "headers.environment"],
    }
    assert undeclared([line], catalogue) == [
        "t.py::test_x (CFG-PATCH-ATOMIC): reads errors.validation_status"
    ]


def test_a_key_declared_by_any_requirement_of_the_test_or_an_old_id_passes() -> None:
    catalogue = load_catalogue()
    line = {
        "test": "t.py::test_y",
        "requirements": ["CFG-PATCH-ATOMIC", "ERR-VALIDATION-400"],
        "keys": ["errors.validation_status"],
    }
    assert undeclared([line], catalogue) == []


def test_every_exempt_key_exists_in_the_profile_schema() -> None:
    schema = profile_schema()

    def exists(dotted: str) -> bool:
        node: Any = schema
        for part in dotted.split("."):
            node = node.get("properties", {}).get(part)
            if node is None:
                return False
        return True

    assert [key for key in DRIVING if not exists(key)] == []
    assert [p for p in INFRASTRUCTURE if not exists(p.rstrip("."))] == []


# ------------------------------------------------------------------ recording runs


def test_a_recording_run_finds_every_key_read_declared(tmp_path: Path) -> None:
    lines = record_run(tmp_path, *SUBSET)
    catalogue = load_catalogue()
    ran = {catalogue.current_id(rid) for line in lines for rid in line["requirements"]}
    assert set(SUBSET) <= ran, sorted(set(SUBSET) - ran)
    assert any(line["keys"] for line in lines)
    assert undeclared(lines, catalogue) == []


@pytest.mark.long
def test_a_recording_run_of_the_whole_stage_finds_every_key_read_declared(
    tmp_path: Path,
) -> None:
    lines = record_run(tmp_path)
    assert len(lines) > 100
    assert undeclared(lines, load_catalogue()) == []
