"""The failure corpus in pieces: references and placeholders, stable names, the schema, the once-
per-run replay, the summary; and a corpus of 100 cases replayed against the reference server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from corpus_cases import mixed_cases

from conformance.stages.fuzz import corpus
from conformance.stages.fuzz.corpus import replay
from conformance.stages.fuzz.summary import merge_details, summary_lines

PAT = "svc_pat_0123456789abcdefSECRET"
SDK_KEY = "svc_pk_0123456789+abcdef/SECRET"  # "+" and "/" have an escaped URL spelling
SECRETS = {PAT: "$RCES_PAT", SDK_KEY: "$RCES_SDK_KEY_1"}


def references() -> corpus.References:
    return corpus.References(
        by_name={
            "application_id": 1,
            "environment_id": 1,
            "configuration_id": 5,
            "experiment_id": 5,
            "group_id_0": 9,
        },
        run_prefix="cf-abc123-gw0",
        instance_prefix="cf-abc123-gw0-fuzz-",
        secrets=SECRETS,
    )


def encoded() -> dict[str, Any]:
    return corpus.encode_step(
        "setManualAssignment",
        "post",
        "/application/{applicationId}/v2/experiments/{experimentId}/assignments",
        {
            "path_parameters": {"applicationId": 1, "experimentId": 5},
            "query": {"limit": 5},
            "headers": {
                "Authorization": f"Bearer {PAT}",
                "environment_id": "1",
                "server-id": "cf-abc123-gw0-fuzz-17",
                "X-Schemathesis-TestCaseId": "AbCdEf",
            },
            "body": {
                "name": "cf-abc123-gw0-fuzz-exp",
                "baseConfigurationId": 5,
                "groupId": 9,
                "unitId": 77,
                "note": f"key {SDK_KEY}",
                "url": "https://x/?k=" + quote(SDK_KEY, safe=""),
            },
            "media_type": "application/json",
        },
        references(),
    )


def test_run_bound_values_become_references_and_secrets_placeholders() -> None:
    step = encoded()
    assert step["method"] == "POST"
    # Configuration 5 and experiment 5 share an id: the key says which one is meant.
    assert step["path_parameters"] == {
        "applicationId": "${application_id}",
        "experimentId": "${experiment_id}",
    }
    assert step["query"] == {"limit": 5}  # not an id-like key: a value of its own
    assert step["headers"] == {
        "Authorization": "Bearer $RCES_PAT",
        "environment_id": "${environment_id}",
        "server-id": "${instance_id}",
    }
    assert step["body"] == {
        "name": "${run_prefix}-fuzz-exp",
        "baseConfigurationId": "${configuration_id}",
        "groupId": "${group_id_0}",
        "unitId": 77,
        "note": "key $RCES_SDK_KEY_1",
        "url": "https://x/?k=$RCES_SDK_KEY_1",
    }
    assert PAT not in json.dumps(step) and SDK_KEY not in json.dumps(step)


def test_references_are_filled_in_with_the_new_targets_values_and_types() -> None:
    bound = {
        "application_id": 3,
        "environment_id": 8,
        "configuration_id": 41,
        "experiment_id": 42,
        "group_id_0": 43,
        "run_prefix": "cf-ffffff-gw1",
        "instance_id": "cf-ffffff-gw1-fuzz-1",
    }
    secrets = corpus.secrets_by_placeholder({"new-pat": "$RCES_PAT", "new-key": "$RCES_SDK_KEY_1"})
    step = corpus.decode(encoded(), bound, secrets)
    assert step["path_parameters"] == {"applicationId": 3, "experimentId": 42}
    assert step["headers"]["Authorization"] == "Bearer new-pat"
    assert step["headers"]["server-id"] == "cf-ffffff-gw1-fuzz-1"
    assert step["body"]["baseConfigurationId"] == 41 and step["body"]["groupId"] == 43
    assert step["body"]["name"] == "cf-ffffff-gw1-fuzz-exp"
    assert step["body"]["note"] == "key new-key"
    assert corpus.unbound(encoded(), {}) >= {"configuration_id", "experiment_id"}


def test_the_same_failure_found_again_keeps_its_name_and_is_not_written_twice(
    tmp_path: Path,
) -> None:
    first, again = mixed_cases(1)[0], mixed_cases(1)[0]
    again["found"] = {**again["found"], "seed": 99, "date": "2027-01-01"}
    assert corpus.file_name(first) == corpus.file_name(again)
    assert corpus.write(tmp_path, first) is not None
    assert corpus.write(tmp_path, again) is None
    assert [p.name for p in corpus.files(tmp_path)] == [corpus.file_name(first)]
    assert corpus.read(tmp_path / corpus.file_name(first))["found"]["seed"] == 0  # kept as found
    other = mixed_cases(2)[1]
    assert corpus.file_name(other) != corpus.file_name(first)


def test_a_file_that_is_no_corpus_case_is_refused_with_the_place(tmp_path: Path) -> None:
    data = mixed_cases(1)[0]
    del data["steps"][0]["method"]
    with pytest.raises(ValueError, match="steps/0"):
        corpus.validate(data)
    for case in mixed_cases(8):
        corpus.validate(case)


def test_the_corpus_is_replayed_once_per_run_whatever_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[Path] = []
    result = replay.Replayed("a.json", "0" * 16, "getSdkStatus", "c", ["R"], replay.FAILS, "t")

    def replay_corpus(run: Any, directory: Path) -> list[replay.Replayed]:
        calls.append(directory)
        return [result]

    monkeypatch.setattr(replay, "replay_corpus", replay_corpus)
    run_id = f"unit-{time.monotonic_ns()}"
    try:
        first = replay.replay_once(object(), tmp_path, run_id)  # type: ignore[arg-type]
        second = replay.replay_once(object(), tmp_path, run_id)  # type: ignore[arg-type]
    finally:
        replay.forget(run_id)
    assert calls == [tmp_path]
    assert first == ([result], True) and second == ([result], False)


def test_the_summary_names_regressions_fixes_and_new_cases() -> None:
    part = {
        "directory": "fc",
        "replayed": 3,
        "replay_seconds": 0.4,
        "regressions": ["a.json"],
        "fixed": ["b.json"],
        "inconclusive": [],
        "written": ["c.json"],
    }
    merged = merge_details(
        [{"tier": "smoke", "corpus": part}, {"corpus": {**part, "written": ["d.json"]}}]
    )
    assert merged["corpus"]["written"] == ["c.json", "d.json"]
    lines = summary_lines(merged)
    assert any("3 case(s) replayed" in line and "1 regression(s)" in line for line in lines)
    assert "    regression: a.json" in lines
    assert any(line.startswith("    fixed: b.json") for line in lines)


@pytest.fixture(scope="module")
def fuzz_campaign(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A ``FuzzCampaign`` against the reference server, with its configuration and experiment."""
    from conformance.profile import load
    from conformance.registry.fuzz_budget import tier
    from conformance.stages.fuzz.aiming import FuzzTarget
    from conformance.stages.fuzz.answers import FuzzCampaign
    from conformance.traffic.client import Client
    from refserver.runner import start_server

    server = start_server(tmp_path_factory.mktemp("replay") / "r.db")
    profile = load(server.profile_path)
    target = FuzzTarget(server.base_url, profile, "cf-unit00-gw0")
    with Client(server.base_url, profile, run_prefix=target.run_prefix) as client:
        target.provision(client)
    run = FuzzCampaign(tier("smoke"), 1, target)
    try:
        yield run
    finally:
        run.session.close()
        server.stop()


def test_a_corpus_of_100_cases_replays_in_seconds(fuzz_campaign: Any, tmp_path: Path) -> None:
    for data in mixed_cases(100):
        corpus.write(tmp_path, data)
    started = time.perf_counter()
    results = replay.replay_corpus(fuzz_campaign, tmp_path)
    seconds = time.perf_counter() - started
    print(f"replayed 100 corpus cases in {seconds:.2f}s")
    assert [r.came_out for r in results] == [replay.FIXED] * 100, [
        (r.path, r.reason) for r in results if r.came_out != replay.FIXED
    ]
    assert seconds < 20  # about 1 s here; a tier's budget is 60 s and more
    sent = "".join(e["request"] for r in results for e in r.exchanges)
    assert f"/configuration/{fuzz_campaign.target.objects.configuration_id}" in sent
    assert f"/experiments/{fuzz_campaign.target.objects.experiment_id}" in sent
    assert "$RCES_PAT" in sent and fuzz_campaign.target.profile.credentials.pat not in sent


def test_a_call_sequence_refers_to_what_earlier_steps_received() -> None:
    from types import SimpleNamespace

    from conformance.profile import parse
    from conformance.stages.fuzz.aiming import FuzzTarget
    from conformance.stages.fuzz.corpus.capture import encode_steps
    from conformance.stages.fuzz.failures import Sent

    profile = parse(
        f"credentials:\n  pat: {PAT}\n  sdk_keys:\n    - {{key: {SDK_KEY}, "
        "environments: [development]}\nproject:\n  application_id: 1\n"
        "  environments: {development: 1}\n"
    )
    target = FuzzTarget("http://127.0.0.1:9", profile, "cf-abc123-gw0")
    target.objects.configuration_id = 5

    def sent(operation_id: str, method: str, path: str, answer: Any, **parts: Any) -> Sent:
        response = SimpleNamespace(
            headers={"etag": ['"h-57"']} if answer else {},
            content=json.dumps(answer).encode() if answer else b"",
        )
        return Sent(
            operation_id=operation_id,
            method=method,
            path=path,
            headers=parts.get("headers", {}),
            path_parameters=parts.get("path_parameters", {}),
            query={},
            body=parts.get("body"),
            has_body="body" in parts,
            media_type="application/json" if "body" in parts else None,
            meta=None,
            response=response,  # type: ignore[arg-type]
        )

    app = "/application/{applicationId}/v2"
    steps = encode_steps(
        target,
        [
            sent("createConfiguration", "POST", f"{app}/configuration", {"id": 57},
                 path_parameters={"applicationId": 1}, body={"name": "cf-abc123-gw0-fuzz-a"},
                 headers={"Authorization": f"Bearer {PAT}", "environment_id": "1"}),
            sent("getSdkStatus", "GET", "/sdk/v2/status", None,
                 headers={"authorization": SDK_KEY, "If-None-Match": '"h-57"'}),
            sent("patchConfiguration", "PATCH", f"{app}/configuration/{{configurationId}}",
                 None, path_parameters={"applicationId": 1, "configurationId": 57},
                 body={"operations": []}),
        ],
    )  # fmt: skip
    assert steps[0]["body"] == {"name": "${run_prefix}-fuzz-a"}
    assert steps[1]["headers"] == {
        "authorization": "$RCES_SDK_KEY_1",
        "If-None-Match": "${step1.etag}",
    }
    assert steps[2]["path_parameters"] == {
        "applicationId": "${application_id}",
        "configurationId": "${step1.id}",
    }
    bound = {"application_id": 2, "step1.id": 900, "step1.etag": '"new"'}
    assert corpus.decode(steps[2]["path_parameters"], bound, {}) == {
        "applicationId": 2,
        "configurationId": 900,
    }


def test_a_corpus_that_cannot_be_written_is_reported_not_fatal(tmp_path: Path) -> None:
    from conformance.stages.fuzz.corpus.keeping import CorpusKeeper

    blocked = tmp_path / "file-not-dir"
    blocked.write_text("", "utf-8")
    kept = CorpusKeeper(blocked / "corpus")
    assert kept.keep(mixed_cases(1)) == []
    assert kept.problems and corpus.file_name(mixed_cases(1)[0]) in kept.problems[0]
    assert any("not kept:" in line for line in summary_lines({"corpus": kept.details()}))


def test_a_case_is_kept_in_the_contracts_names_and_replayed_in_the_runs() -> None:
    from types import SimpleNamespace

    from conformance.profile import parse
    from conformance.registry.fuzz_budget import tier
    from conformance.stages.fuzz.aiming import FuzzTarget
    from conformance.stages.fuzz.answers import FuzzCampaign
    from conformance.stages.fuzz.corpus.capture import encode_steps
    from conformance.stages.fuzz.failures import Sent

    def profile(names: str) -> Any:
        return parse(
            f"credentials:\n  pat: {PAT}\n  sdk_keys:\n    - {{key: {SDK_KEY}, "
            "environments: [development]}\nproject:\n  application_id: 1\n"
            f"  environments: {{development: 1}}\n{names}"
        )

    found_on = FuzzTarget(
        "http://127.0.0.1:9",
        profile(
            "headers: {instance_id: x-instance}\nbodies: {patch: {operations: ops}}\n"
            "experiment_payload: {cursor_param: after, unit_id: unit}\n"
        ),
        "cf-abc123-gw0",
    )
    app = "/application/{applicationId}/v2"

    def sent(operation_id: str, method: str, path: str, **parts: Any) -> Sent:
        return Sent(
            operation_id=operation_id,
            method=method,
            path=path,
            headers=parts.get("headers", {}),
            path_parameters=parts.get("path_parameters", {}),
            query=parts.get("query", {}),
            body=parts.get("body"),
            has_body="body" in parts,
            media_type="application/json" if "body" in parts else None,
            meta=None,
            response=SimpleNamespace(headers={}, content=b""),  # type: ignore[arg-type]
        )

    steps = encode_steps(
        found_on,
        [
            sent("getSdkStatus", "GET", "/sdk/v2/status",
                 headers={"authorization": SDK_KEY, "x-instance": "eu-1"}),
            sent("patchConfiguration", "PATCH", f"{app}/configuration/{{configurationId}}",
                 path_parameters={"applicationId": 1, "configurationId": 3},
                 body={"ops": [{"op": "remove", "path": "/a"}], "extra": 1}),
            sent("listMembers", "GET", f"{app}/experiments/{{experimentId}}/members",
                 path_parameters={"applicationId": 1, "experimentId": 4},
                 query={"after": "c1", "limit": 5}),
            sent("unenrollMember", "POST",
                 f"{app}/experiments/{{experimentId}}/assignments/unenroll",
                 path_parameters={"applicationId": 1, "experimentId": 4}, body={"unit": "u-1"}),
        ],
    )  # fmt: skip
    # Kept in the contract's own names, whatever the target it was found on called them.
    assert steps[0]["headers"] == {"authorization": "$RCES_SDK_KEY_1", "server-id": "eu-1"}
    assert steps[1]["body"] == {"operations": [{"op": "remove", "path": "/a"}], "extra": 1}
    assert steps[2]["query"] == {"cursor": "c1", "limit": 5}
    assert steps[3]["body"] == {"unitId": "u-1"}

    # Replayed in the names of the run's profile (another target's).
    replaying = FuzzTarget(
        "http://127.0.0.1:9",
        profile(
            "headers: {instance_id: instance}\nbodies: {patch: {operations: patch}}\n"
            "experiment_payload: {cursor_param: from, unit_id: member}\n"
        ),
        "cf-def456-gw0",
    )
    run = FuzzCampaign(tier("smoke"), 1, replaying)
    try:
        schema = replay.replay_schema(run)
        bound = {"application_id": 1, "step1.id": 9}
        cases = [replay._case(schema, step, bound, run) for step in steps]
    finally:
        run.session.close()
    assert cases[0].headers["instance"] == "eu-1" and "server-id" not in cases[0].headers
    assert cases[1].body == {"patch": [{"op": "remove", "path": "/a"}], "extra": 1}
    assert cases[2].query == {"from": "c1", "limit": 5}
    assert cases[3].body == {"member": "u-1"}
