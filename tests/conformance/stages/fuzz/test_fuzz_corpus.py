"""The failure corpus end to end, over real sockets: found, kept, replayed first, fixed, pruned.

A planted defect (the ETag stripped from status answers) is found by a smoke run and lands in
the corpus; the next run (another seed, the smallest tier) replays it first and reports it as a
regression with the original and the new evidence; against a server without the defect the same
case reads as fixed, and ``conformance fuzz prune`` removes it. A second defect fails only on a
configuration that exists: the case kept against one server holds ``${configuration_id}``, and
``conformance fuzz replay`` re-creates it on a second, fresh server whose ids differ.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from stage_runner import ROOT, run_stage, serve
from test_fuzz_catches_planted_defect import (
    App,
    Message,
    Receive,
    Scope,
    Send,
    StripETag,
    answer_500,
)

from conformance.stages.fuzz import corpus
from tests.support.conformance_cli import run_conformance

STATUS_ONLY = ["-k", "test_fuzz and status and not credentials"]
PATCH_ONLY = ["-k", "test_fuzz and PATCH and configuration and not credentials"]


def place(tmp_path: Path, name: str) -> Path:
    """A directory of its own for one server's database."""
    (tmp_path / name).mkdir()
    return tmp_path / name


def secrets_of(server: Any) -> list[str]:
    credentials = yaml.safe_load(Path(server.profile_path).read_text("utf-8"))["credentials"]
    return [credentials["pat"], *(key["key"] for key in credentials["sdk_keys"])]


def fuzz_details(result: Any) -> dict[str, Any]:
    stage = next(s for s in result.report["stages"] if s["name"] == "fuzz")
    details: dict[str, Any] = stage["details"]
    return details


def conformance(*args: str) -> subprocess.CompletedProcess[str]:
    return run_conformance(*args, timeout=300, cwd=ROOT)


@pytest.mark.long
def test_a_found_failure_is_kept_replayed_as_a_regression_then_reads_fixed(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "corpus"
    option = ["--fuzz-corpus", str(kept)]
    with serve(place(tmp_path, "faulty"), wrap=StripETag) as server:
        found = run_stage(server, tmp_path / "r1", extra=[*STATUS_ONLY, *option])
        again = run_stage(server, tmp_path / "r2", seed=7, extra=[*STATUS_ONLY, *option])
        secrets = secrets_of(server)
    # 1. Found, and kept as one small readable file per failure, secrets as placeholders.
    assert found.returncode == 1, found.output
    files = corpus.files(kept)
    names = [path.name for path in files]
    etag_case = next(path for path in files if "etag_equals_body_hash" in path.name)
    data = corpus.read(etag_case)  # validates against corpus.schema.json
    assert data["requirement_ids"] == ["SDK-STATUS-ETAG-EQUALS-HASH"]
    assert data["found"]["seed"] == 20261122 and data["found"]["tier"] == "smoke"
    key = data["steps"][0]["headers"]["authorization"]  # the key the case's environment takes
    assert re.fullmatch(r"\$RCES_SDK_KEY_\d", key), key
    for path in files:
        text = path.read_text("utf-8")
        assert not [secret for secret in secrets if secret in text], path.name
    assert fuzz_details(found)["corpus"]["written"] == names
    # 2. The next run (another seed) replays it first: a regression, with old and new evidence.
    assert again.returncode == 1, again.output
    assert corpus.files(kept) == files  # found again: not kept twice
    details = fuzz_details(again)["corpus"]
    assert etag_case.name in details["regressions"] and details["written"] == []
    broken = again.requirement("SDK-STATUS-ETAG-EQUALS-HASH")
    assert broken["outcome"] == "fail"
    regression = next(e for e in broken["evidence"] if e["title"].startswith("regression:"))
    assert regression["received"].startswith("now: no ETag; when found (")
    assert regression["seed"] == 20261122 and key in regression["curl"]
    assert f"regression: {etag_case.name}" in again.output
    # 3. Without the defect the case reads as fixed; prune removes it when asked.
    with serve(place(tmp_path, "clean")) as server:
        fixed = run_stage(server, tmp_path / "r3", seed=11, extra=[*STATUS_ONLY, *option])
        pruned = conformance(
            "fuzz", "prune", "--corpus", str(kept),
            "--base-url", server.base_url, "--profile", str(server.profile_path),
        )  # fmt: skip
    assert fixed.returncode == 0, fixed.output
    assert sorted(fuzz_details(fixed)["corpus"]["fixed"]) == names
    assert fixed.requirement("SDK-STATUS-ETAG-EQUALS-HASH")["outcome"] == "pass"
    assert f"fixed: {etag_case.name}" in fixed.output
    assert pruned.returncode == 0, pruned.stdout + pruned.stderr
    assert corpus.files(kept) == []


class ErrorOnExistingConfiguration:
    """Answers 500 to a PATCH of a configuration that exists (breaks ERR-NO-SERVER-ERROR only
    where the fuzzer aimed at its real configuration: a literal id would not reproduce it)."""

    PATH = re.compile(r"/configuration/\d+$")

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "PATCH"
            or not self.PATH.search(scope["path"])
        ):
            await self.app(scope, receive, send)
            return
        started: list[Message] = []

        async def hold(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.append(message)
                return
            if started[0]["status"] == 404:
                await send(started[0])
                await send(message)
            elif message.get("more_body") is not True:
                await answer_500(send)

        await self.app(scope, receive, hold)


@pytest.mark.long
def test_ids_only_the_first_server_had_are_re_created_on_a_fresh_one(tmp_path: Path) -> None:
    kept = tmp_path / "corpus"
    with serve(place(tmp_path, "a"), wrap=ErrorOnExistingConfiguration) as first:
        run = run_stage(first, tmp_path / "r1", extra=[*PATCH_ONLY, "--fuzz-corpus", str(kept)])
    assert run.returncode == 1, run.output
    kept_steps = [corpus.read(path)["steps"][0] for path in corpus.files(kept)]
    # An id sent in a header is kept as a placeholder too, wherever one was sent (which cases
    # fail first depends on the generated data: a negative case may leave the header out).
    sent_headers = [step["headers"] for step in kept_steps if "environment_id" in step["headers"]]
    assert all(h["environment_id"] == "${environment_id}" for h in sent_headers), sent_headers
    case = next(p for p in corpus.files(kept) if "not_a_server_error" in p.name)
    data = corpus.read(case)
    first_id = int(re.findall(r"/v2/configuration/(\d+)", data["found"]["curl"])[0])
    step = data["steps"][0]
    assert step["path_parameters"]["configurationId"] == "${configuration_id}", step
    assert step["path_parameters"]["applicationId"] == "${application_id}"
    assert str(first_id) not in json.dumps(step["path_parameters"])
    with serve(place(tmp_path, "b"), wrap=ErrorOnExistingConfiguration) as second:
        profile = yaml.safe_load(Path(second.profile_path).read_text("utf-8"))
        base = f"{second.base_url}/application/{profile['project']['application_id']}/v2"
        headers = {
            "authorization": f"Bearer {profile['credentials']['pat']}",
            "environment_id": str(profile["project"]["environments"]["development"]),
        }
        for number in range(3):  # the second server's next id is not the first one's
            reply = httpx.post(
                f"{base}/configuration", headers=headers, json={"name": f"other-{number}"}
            )
            assert reply.status_code == 201, reply.text
        replayed = conformance(
            "fuzz", "replay", str(case),
            "--base-url", second.base_url, "--profile", str(second.profile_path),
        )  # fmt: skip
        secrets = secrets_of(second)
    output = replayed.stdout + replayed.stderr
    assert replayed.returncode == 1, output  # fails again: the id was re-created
    assert "verdict: not_a_server_error FAILS AGAIN" in output
    sent = re.findall(r"/v2/configuration/(\d+)", output)
    assert sent and all(int(number) > 3 and int(number) != first_id for number in sent), sent
    assert "$RCES_PAT" in output and not [s for s in secrets if s in output]
