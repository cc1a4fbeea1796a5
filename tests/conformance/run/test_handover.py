"""One hand-over: the target is resolved, its profile read and its pre-flight sent once per run,
whether ``conformance run`` or plain pytest starts it, and xdist workers receive it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.contract.specialisation import default_profile
from conformance.run import handover
from conformance.session.state import HANDED_OVER, target_of
from conformance.target.resolution import Target
from refserver.runner import start_server
from tests.support.conformance_cli import child_env, run_conformance

Scope = MutableMapping[str, Any]
App = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Any]
PREFLIGHT_INSTANCE = b"cf-preflight"  # the instance id the pre-flight's status poll carries
# Two requirements in two modules, so that two xdist workers each have a test to run. Neither
# judges the snapshot holding still: the 304 test once did, and under CI load a 304 to `*`
# carried another ETag than the hash just read (not diagnosed; the handover is what this tests).
REQUIREMENTS = "SDK-STATUS-MINIMAL-REQUEST,CFG-CREATE-RECORD-SHAPE"


class CountingPreflights:
    """The reference server's app, counting the pre-flight status polls it is sent."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.preflights = 0

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and any(v == PREFLIGHT_INSTANCE for _, v in scope["headers"]):
            self.preflights += 1
        await self.app(scope, receive, send)


@pytest.fixture
def counted(tmp_path: Path) -> Iterator[tuple[str, Path, list[CountingPreflights]]]:
    apps: list[CountingPreflights] = []

    def wrap(app: App) -> CountingPreflights:
        apps.append(CountingPreflights(app))
        return apps[-1]

    profile = tmp_path / "profile.yaml"
    server = start_server(tmp_path / "ref.db", profile_path=profile, wrap=wrap)
    try:
        yield str(server.base_url).rstrip("/"), profile, apps
    finally:
        server.stop()


def test_conformance_run_sends_one_preflight_and_hands_the_target_to_its_workers(
    counted: tuple[str, Path, list[CountingPreflights]], tmp_path: Path
) -> None:
    url, profile, apps = counted
    done = run_conformance(
        "run",
        "--base-url",
        url,
        "--profile",
        str(profile),
        "--requirements",
        REQUIREMENTS,
        "-n",
        "2",
        "--report-dir",
        str(tmp_path / "reports"),
        "--quiet",
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "measured 2 of 2" in done.stdout
    assert apps[0].preflights == 1  # the CLI's, not again in pytest's controller or a worker


def test_plain_pytest_sends_one_preflight_and_hands_the_target_to_its_workers(
    counted: tuple[str, Path, list[CountingPreflights]], tmp_path: Path
) -> None:
    url, profile, apps = counted
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--pyargs",
        "conformance.stages.scenarios",
        "--base-url",
        url,
        "--target-profile",
        str(profile),
        "--requirements",
        REQUIREMENTS,
        "-n",
        "2",
        "--report-dir",
        str(tmp_path / "reports"),
        "-q",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=child_env()
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
    assert apps[0].preflights == 1


def test_a_worker_receives_the_target_without_reading_the_profile_again(tmp_path: Path) -> None:
    profile = default_profile()
    gone = tmp_path / "deleted-profile.yaml"  # a worker that read it would fail
    controller = _config()
    controller.stash[HANDED_OVER] = Target("http://t.invalid", profile, gone, server_header="x")
    packed = handover.packed(controller)  # type: ignore[arg-type]
    assert packed is not None

    worker = _config(workerinput={handover.WORKERINPUT_KEY: packed})
    handover.receive(worker)  # type: ignore[arg-type]
    received = target_of(worker)  # type: ignore[arg-type]
    assert received is not None
    assert (received.base_url, received.profile, received.profile_path) == (
        "http://t.invalid",
        profile,
        gone,
    )
    assert received.server_header == "x" and not received.embedded


def test_the_handed_over_target_never_shows_its_credentials() -> None:
    profile = default_profile()
    target = Target("http://t.invalid", profile, None)
    shown = repr(handover.HandedOver(target)) + repr(target)
    assert profile.credentials.pat not in shown
    assert all(key.key not in shown for key in profile.credentials.sdk_keys)


def _config(**extra: Any) -> Any:
    """Enough of a pytest config for the hand-over: a stash, a plugin manager, options."""
    plugins = SimpleNamespace(get_plugins=lambda: [], get_plugin=lambda name: None)
    return SimpleNamespace(stash=pytest.Stash(), pluginmanager=plugins, **extra)


@pytest.mark.parametrize(
    ("args", "collect_only", "options", "established"),
    [
        (["conformance.stages.scenarios"], False, {}, True),  # runs a server stage: embedded
        (["conformance.stages.scenarios"], True, {}, False),  # only collects: nothing started
        (["conformance.stages.scenarios"], True, {"base_url": "http://t"}, True),  # named: checked
        (["conformance.stages.client"], False, {}, False),  # a client stage plays the server
        (["tests"], False, {}, False),  # no stage, no target named: nothing until a fixture asks
    ],
)
def test_plain_pytest_establishes_a_target_only_when_the_run_needs_one(
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    collect_only: bool,
    options: dict[str, str],
    established: bool,
) -> None:
    calls: list[tuple[object, object]] = []

    def establish(base_url: object, profile_path: object) -> Target:
        calls.append((base_url, profile_path))
        return Target("http://t.invalid", default_profile(), None)

    monkeypatch.setattr(handover, "establish", establish)
    values = {"base_url": None, "target_profile": None, **options}
    config = _config(
        args=args,
        invocation_params=SimpleNamespace(dir=Path.cwd()),
        option=SimpleNamespace(collectonly=collect_only),
        getoption=lambda name, default=None: values.get(name, default),
    )
    handover.at_session_start(SimpleNamespace(config=config))  # type: ignore[arg-type]
    assert bool(calls) is established
    assert (target_of(config) is not None) is established  # type: ignore[arg-type]
