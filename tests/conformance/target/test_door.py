"""The door: a wrong target or profile stops before any test, as one usage error (exit 2) that
names the key or id, within 5 s; a correct target, and one only partly wrong in a way the run
judges, passes it.

The four door tests run the CLI in a child process against real sockets: a catch-all HTML server,
a profile naming a project the token cannot reach, SDK keys swapped between environments, a typo
in a requirement id (and the same typo through plain pytest). The rest call ``preflight`` in this
process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from conformance.errors import UsageError
from conformance.profile import parse
from conformance.target.resolution import Target, preflight
from refserver.runner import RunningServer, start_server
from tests.support.conformance_cli import child_env, run_conformance
from tests.support.hostile_servers import PROFILE, Hostile, answer, catch_all_html
from tests.support.profiles import merged

DOOR_SECONDS = (
    5.0  # the door's budget on an idle machine: a wrong target is a usage error within it
)


def _budget() -> float:
    """``DOOR_SECONDS``, stretched by the run queue beyond the cores when the machine is busy
    (a child interpreter on 2 cores at load 12 gets a sixth of a core): the door's own work is a
    handful of exchanges; the rest is the interpreter starting and importing the kit."""
    busy = os.getloadavg()[0] / (os.cpu_count() or 1)
    return DOOR_SECONDS * max(1.0, busy)


Scope = MutableMapping[str, Any]
App = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Any]


@pytest.fixture
def reference(tmp_path: Path) -> Iterator[tuple[RunningServer, dict[str, Any]]]:
    """The reference server and the profile it wrote (as data)."""
    written = tmp_path / "reference.yaml"
    server = start_server(tmp_path / "ref.db", profile_path=written)
    try:
        yield server, yaml.safe_load(written.read_text(encoding="utf-8"))
    finally:
        server.stop()


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "profile.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    path.chmod(0o600)
    return path


def _door(
    base_url: str, profile: Path, *more: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = run_conformance(
        "run",
        "--base-url",
        base_url,
        "--profile",
        str(profile),
        "--report-dir",
        str(profile.parent / "reports"),
        *more,
        timeout=60,
    )
    return done, time.monotonic() - started


def _one_usage_error(done: subprocess.CompletedProcess[str], seconds: float) -> str:
    """Exit 2 within the budget, one usage error and nothing else: no test, no report."""
    assert done.returncode == 2, done.stdout + done.stderr
    assert seconds < _budget(), f"the door took {seconds:.1f}s (load {os.getloadavg()[0]:.1f})"
    assert done.stderr.count("usage error") == 1, done.stderr
    assert "passed" not in done.stdout and "failed" not in done.stdout, done.stdout
    return done.stderr


# ------------------------------------------------------------------ the four door tests


def test_a_catch_all_html_server_stops_at_the_door(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yaml"
    profile.write_text(PROFILE, encoding="utf-8")
    profile.chmod(0o600)
    with Hostile([catch_all_html()]).running() as server:
        done, seconds = _door(server.base_url, profile)
    said = _one_usage_error(done, seconds)
    assert "answered 200 text/html" in said and "not a JSON status snapshot" in said
    assert "fix --base-url" in said
    assert not (tmp_path / "reports").exists()


def test_a_project_the_token_cannot_reach_stops_at_the_door(
    tmp_path: Path, reference: tuple[RunningServer, dict[str, Any]]
) -> None:
    server, data = reference
    profile = _write(tmp_path, merged(data, {"project": {"application_id": 7}}))
    done, seconds = _door(server.base_url, profile)
    said = _one_usage_error(done, seconds)
    assert "project.application_id 7" in said and "/application/7/v2/experiments" in said


def test_sdk_keys_swapped_between_environments_stop_at_the_door(
    tmp_path: Path, reference: tuple[RunningServer, dict[str, Any]]
) -> None:
    server, data = reference
    keys = [dict(entry) for entry in data["credentials"]["sdk_keys"]]
    assert keys[0]["environments"] == ["development"] and keys[1]["environments"] == ["production"]
    keys[0]["key"], keys[1]["key"] = keys[1]["key"], keys[0]["key"]
    profile = _write(tmp_path, merged(data, {"credentials": {"sdk_keys": keys}}))
    done, seconds = _door(server.base_url, profile)
    said = _one_usage_error(done, seconds)
    assert "credentials.sdk_keys[0]" in said and "swapped" in said
    assert "takes it in production" in said
    assert all(entry["key"] not in done.stdout + said for entry in keys)  # named, never shown


def test_a_typo_in_a_requirement_id_stops_at_the_door(tmp_path: Path) -> None:
    started = time.monotonic()
    done = run_conformance(
        "run",
        "--requirements",
        "SDK-STATUS-304-IF-NONE-MACH,SDK-STATUS-ETAG-EQUALS-HASH",
        "--report-dir",
        str(tmp_path / "reports"),
        timeout=60,
    )
    said = _one_usage_error(done, time.monotonic() - started)
    assert "unknown requirement id SDK-STATUS-304-IF-NONE-MACH" in said
    assert "did you mean SDK-STATUS-304-IF-NONE-MATCH" in said
    assert "SDK-STATUS-ETAG-EQUALS-HASH" not in said  # the good id is not a problem


def test_plain_pytest_goes_through_the_same_door(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--pyargs",
            "conformance.stages.scenarios",
            "--requirements",
            "SDK-STATUS-304-IF-NONE-MACH",
            "-p",
            "no:cacheprovider",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=child_env(),
        check=False,
    )
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "did you mean SDK-STATUS-304-IF-NONE-MATCH" in done.stdout + done.stderr
    assert "bringing up nodes" not in done.stdout  # stopped before any worker started


# ------------------------------------------------------------------ in this process


def _target(base_url: str, data: dict[str, Any]) -> Target:
    return Target(base_url, parse(yaml.safe_dump(data)), None)


def test_the_reference_server_passes_the_door(
    reference: tuple[RunningServer, dict[str, Any]],
) -> None:
    server, data = reference
    target = _target(server.base_url, data)
    preflight(target)
    assert target.server_header


def test_an_environment_of_another_project_is_named(
    reference: tuple[RunningServer, dict[str, Any]],
) -> None:
    server, data = reference
    wrong = merged(data, {"project": {"environments": {"development": 1, "production": 99}}})
    with pytest.raises(UsageError) as caught:
        preflight(_target(server.base_url, wrong))
    assert caught.value.problem.startswith("project.environments.production (99)")
    assert "development" not in caught.value.problem


def test_without_experiments_the_project_is_proven_by_a_create_that_creates_nothing(
    reference: tuple[RunningServer, dict[str, Any]],
) -> None:
    server, data = reference
    without = merged(data, {"capabilities": {"experiments": False}})
    before = _configurations(server.base_url, data)
    preflight(_target(server.base_url, without))
    with pytest.raises(UsageError, match=r"project\.application_id 7") as caught:
        preflight(_target(server.base_url, merged(without, {"project": {"application_id": 7}})))
    assert "POST /application/7/v2/configuration" in caught.value.problem
    assert _configurations(server.base_url, data) == before


def _configurations(base_url: str, data: dict[str, Any]) -> int:
    """How many configurations the status snapshots of both environments list."""
    key = data["credentials"]["sdk_keys"][2]["key"]  # development and production
    count = 0
    for env in ("development", "production"):
        reply = httpx.get(
            f"{base_url}/sdk/v2/status",
            headers={"authorization": key, "environment": env, "server-id": "door-count"},
        )
        count += len(reply.json()["configurations"])
    return count


def test_a_key_refused_in_one_of_its_environments_is_left_to_the_run(tmp_path: Path) -> None:
    """The two-environment key refused in production only is the target's fault, judged by the
    run (AUTH-SDK-ENV-IN-SCOPE), not a profile mistake: the door lets it through. Declared for
    production alone, and taken in development, it is the profile's mistake."""
    keys: dict[str, str] = {}

    def wrap(app: App) -> App:
        async def refusing(scope: Scope, receive: Any, send: Any) -> None:
            headers = dict(scope.get("headers") or [])
            if (
                scope["type"] == "http"
                and headers.get(b"authorization", b"").decode() == keys.get("all")
                and headers.get(b"environment") == b"production"
            ):
                body = b'{"errorCode": "FORBIDDEN", "message": "no"}'
                head = [(b"content-type", b"application/json")]
                await send({"type": "http.response.start", "status": 403, "headers": head})
                await send({"type": "http.response.body", "body": body})
                return
            await app(scope, receive, send)

        return refusing

    written = tmp_path / "reference.yaml"
    server = start_server(tmp_path / "ref.db", profile_path=written, wrap=wrap)
    try:
        data = yaml.safe_load(written.read_text(encoding="utf-8"))
        keys["all"] = data["credentials"]["sdk_keys"][2]["key"]
        preflight(_target(server.base_url, data))
        swapped = [dict(entry) for entry in data["credentials"]["sdk_keys"]]
        swapped[2]["environments"] = ["production"]  # now refused in every one it declares
        with pytest.raises(UsageError, match=r"refuses credentials\.sdk_keys\[2\]"):
            preflight(
                _target(server.base_url, merged(data, {"credentials": {"sdk_keys": swapped}}))
            )
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("body", "headers", "said"),
    [
        (b'{"status": "ok"}', [("ETag", '"h"')], "without a string `hash` (fields: status)"),
        (b"[]", [("ETag", '"h"')], "not a JSON status snapshot"),
    ],
)
def test_an_answer_that_is_not_a_status_snapshot_stops_at_the_door(
    body: bytes, headers: list[tuple[str, str]], said: str
) -> None:
    with (
        Hostile([answer(200, body, headers)]).running() as server,
        pytest.raises(UsageError) as caught,
    ):
        preflight(Target(server.base_url, parse(PROFILE), None))
    assert said in caught.value.problem


def test_a_snapshot_without_its_etag_is_left_to_the_run() -> None:
    """This interface done wrong (SDK-STATUS-ETAG-EQUALS-HASH fails with a report), not another
    interface: the door lets it through."""
    with Hostile([answer(200, b'{"hash": "h"}')]).running() as server:
        preflight(Target(server.base_url, parse(PROFILE), None))
        assert server.requests == 3  # the status poll, a create of nothing per environment


def test_a_redirect_stops_at_the_door() -> None:
    redirect = answer(302, b"", [("Location", "/login")])
    with (
        Hostile([redirect]).running() as server,
        pytest.raises(UsageError, match=r"answered 302 \(/login\): a redirect"),
    ):
        preflight(Target(server.base_url, parse(PROFILE), None))


def test_a_key_no_environment_serves_is_left_to_the_run(
    reference: tuple[RunningServer, dict[str, Any]],
) -> None:
    """The production key refused (403) in production and development alike (a target that
    takes the production alias for development) is the target's fault, for the run to judge;
    a key the target does not know (401) is the profile's, named by its index."""
    server, data = reference
    alias_ignored = merged(data, {"headers": {"environment": "x-not-read"}})
    preflight(_target(server.base_url, alias_ignored))  # every poll is development's
    keys = [dict(entry) for entry in data["credentials"]["sdk_keys"]]
    keys[1]["key"] = "svc_pk_nobody_has_this_key"
    with pytest.raises(UsageError) as caught:
        preflight(_target(server.base_url, merged(data, {"credentials": {"sdk_keys": keys}})))
    assert caught.value.problem.startswith("the target does not know credentials.sdk_keys[1]")
    assert "svc_pk_nobody_has_this_key" not in str(caught.value)
