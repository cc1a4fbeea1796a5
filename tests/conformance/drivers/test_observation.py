"""The observation before the tests, over real HTTP: the reference (the conventions' own spellings)
shows no choice; a server spelling names its own way shows each, unambiguously, and the run's
profile holds them without declaring them; a server whose answers show nothing (5xx) leaves the
conventions in place; a declared key is never observed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.drivers.observation import observe
from conformance.profile import Profile, parse
from refserver.runner import RunningServer, start_server
from tests.faulty.asgi import FaultyApp, Forward, Handler, Request, Response, error_response

EXPERIMENTS = r"/application/\d+/v2/experiments(/.*)?"


def _renaming(request: Request, response: Response) -> Response:
    """Lists under ``results``, the terminated word ``ended``, the counts' total ``sum``."""
    data = response.json()
    if not isinstance(data, dict) or response.status >= 400 or "/experiments" not in request.path:
        return response
    if isinstance(data.get("items"), list):
        data = {("results" if k == "items" else k): v for k, v in data.items()}
    if data.get("status") == "terminated":
        data = {**data, "status": "ended"}
    if "total" in data:
        data = {("sum" if k == "total" else k): v for k, v in data.items()}
    return response.with_json(data)


async def _renamed(request: Request, forward: Forward) -> Response:
    return _renaming(request, await forward(request))


async def _broken(request: Request, forward: Forward) -> Response:
    if "/experiments" in request.path:
        return error_response(500, "BOOM")
    return await forward(request)


def _served(tmp_path: Path, make: Handler | None) -> Iterator[tuple[RunningServer, Path]]:
    written = tmp_path / "profile.yaml"
    wrap = None if make is None else (lambda app: FaultyApp(app, make))
    server = start_server(tmp_path / "db", profile_path=written, wrap=wrap)
    try:
        yield server, written
    finally:
        server.stop()


def _undeclared(written: Path, **declared: Any) -> Profile:
    """The reference's profile without ``conventions: production`` (every unwritten key a
    convention), ``declared`` written over it."""
    data = yaml.safe_load(written.read_text(encoding="utf-8"))
    data.pop("conventions", None)
    data.update(declared)
    return parse(yaml.safe_dump(data), source=str(written))


@pytest.fixture
def reference(tmp_path: Path) -> Iterator[tuple[RunningServer, Path]]:
    yield from _served(tmp_path, None)


@pytest.fixture
def renaming(tmp_path: Path) -> Iterator[tuple[RunningServer, Path]]:
    yield from _served(tmp_path, _renamed)


@pytest.fixture
def broken(tmp_path: Path) -> Iterator[tuple[RunningServer, Path]]:
    yield from _served(tmp_path, _broken)


def test_the_reference_shows_no_choice(reference: tuple[RunningServer, Path]) -> None:
    server, written = reference
    profile = _undeclared(written)
    judged, choices = observe(server.base_url, profile)
    assert choices == ()
    assert judged == profile


def test_own_spellings_are_observed_and_not_declared(renaming: tuple[RunningServer, Path]) -> None:
    server, written = renaming
    judged, choices = observe(server.base_url, _undeclared(written))
    seen = {c.key: c.value for c in choices}
    assert seen == {
        "experiment_payload.items": "results",
        "experiment_payload.terminated": "ended",
        "experiment_payload.count_total": "sum",
    }
    assert judged.experiment_payload.items == "results"
    assert judged.experiment_payload.terminated == "ended"
    assert not judged.declares("experiment_payload.items")
    assert all(c.curl and "/experiments" in c.curl for c in choices)
    assert {c.convention for c in choices} == {"items", "terminated", "total"}


def test_a_declared_key_is_never_observed(renaming: tuple[RunningServer, Path]) -> None:
    server, written = renaming
    declared = {"experiment_payload": {"items": "items", "terminated": "terminated"}}
    judged, choices = observe(server.base_url, _undeclared(written, **declared))
    assert {c.key for c in choices} == {"experiment_payload.count_total"}
    assert judged.experiment_payload.items == "items"


def test_answers_that_show_nothing_leave_the_conventions(
    broken: tuple[RunningServer, Path],
) -> None:
    server, written = broken
    profile = _undeclared(written)
    judged, choices = observe(server.base_url, profile)
    assert choices == ()
    assert judged.experiment_payload == profile.experiment_payload
