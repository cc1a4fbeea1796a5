"""The wire from worker to controller (``conformance.session.wire``): what a worker published
reaches the controller once, at its session finish, whichever tests ran; a crashed worker's
adds nothing; a later publish from one source replaces the earlier one."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conformance.session import wire

pytest_plugins = ("pytester",)


def _worker_finishes(pytester: pytest.Pytester, published: dict[str, wire.Details]) -> object:
    """A worker that published ``published`` (stage -> details) and finished its session."""
    config = pytester.parseconfig()
    config.workeroutput = {}  # type: ignore[attr-defined]  # what xdist gives a worker
    for stage, details in published.items():
        wire.publish(config, stage, details)
    wire.Carrier().pytest_sessionfinish(SimpleNamespace(config=config))  # type: ignore[arg-type]
    return config.workeroutput  # type: ignore[attr-defined]


def test_each_workers_details_reach_the_controller(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    first = _worker_finishes(pytester, {"load": {"a": 1}})
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    second = _worker_finishes(pytester, {"load": {"a": 2}, "fuzz": {"cases": 3}})
    controller = pytester.parseconfig()
    carrier = wire.Carrier()
    for output in (first, second):
        carrier.pytest_testnodedown(SimpleNamespace(config=controller, workeroutput=output), None)
    carrier.pytest_testnodedown(SimpleNamespace(config=controller), "crashed")  # sent nothing
    assert wire.published(controller) == {
        "load": {"gw0": {"a": 1}, "gw1": {"a": 2}},
        "fuzz": {"gw1": {"cases": 3}},
    }


def test_without_xdist_the_process_keeps_its_own(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    config = pytester.parseconfig()
    wire.publish(config, "fuzz", {"cases": 1})
    wire.publish(config, "fuzz", {"cases": 5})  # cumulative: published again, replaces
    wire.publish(config, "client", {"scenarios": {"a": {}}}, source="test_a")
    wire.publish(config, "client", {"scenarios": {"b": {}}}, source="test_b")
    wire.Carrier().pytest_sessionfinish(SimpleNamespace(config=config))  # type: ignore[arg-type]
    assert wire.published(config) == {
        "fuzz": {"main": {"cases": 5}},
        "client": {"test_a": {"scenarios": {"a": {}}}, "test_b": {"scenarios": {"b": {}}}},
    }
