"""The wire from worker to controller: the one home of what a pytest process sends back to the
process that writes the reports.

- **Test records** ride on each test's report, under ``RECORD_KEY`` in its ``user_properties``
  (plain JSON, so they cross pytest-xdist); the first record of a process also carries the target
  as the report describes it (``TARGET_KEY``). A stage may supply its own records for a test
  instead of the generic one: it implements the ``firstresult`` hook
  ``pytest_conformance_records`` (``Hooks``), which the run plugin asks before classifying.
- **Stage details** (what a stage measured, for its summary and charts) are published with
  ``publish(config, stage, details)`` from wherever the stage has them (a session fixture, a
  hook), whichever tests ``--requirements`` selected. Each process keeps them in its stash; an
  xdist worker sends them once, at its session finish, in its ``workeroutput`` (``DETAILS_KEY``),
  and the controller folds them in as the worker goes down (``Carrier``). ``published(config)``
  is every process's details, by stage and source, on the controller.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from conformance.registry.declaration import Details  # a stage's details, JSON values

RECORD_KEY = "conformance"  # a test record (``user_properties``)
TARGET_KEY = "conformance-target"  # the target as the report describes it (``user_properties``)
DETAILS_KEY = "conformance-stage"  # a worker's stage details (``workeroutput``)
CARRIER_NAME = "conformance-wire"

RecordJson = dict[str, object]  # a test record as JSON (``TestRecord.to_json``)
_PUBLISHED = pytest.StashKey[dict[str, dict[str, Details]]]()  # stage -> source -> details


class Hooks:
    """The hooks of the wire (``pluginmanager.add_hookspecs(Hooks)``)."""

    @pytest.hookspec(firstresult=True)
    def pytest_conformance_records(
        self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
    ) -> list[RecordJson] | None:
        """The records (JSON) a stage sends for this test phase instead of the generic one;
        None: the generic record. Asked for every phase of a requirement-marked test that is
        recorded (a failed or skipped setup, the call)."""


def this_process() -> str:
    """The source name of this process's details: its xdist worker id, else "main"."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def publish(
    config: pytest.Config, stage: str, details: Details, *, source: str | None = None
) -> None:
    """A stage's details from this process (``source``: this process; a later publish from the
    same source replaces the earlier one, so cumulative details are simply published again)."""
    by_source = config.stash.setdefault(_PUBLISHED, {}).setdefault(stage, {})
    by_source[source or this_process()] = dict(details)


def published(config: pytest.Config) -> dict[str, dict[str, Details]]:
    """Every stage's details this process holds (on the controller: every worker's), by source."""
    return {stage: dict(sources) for stage, sources in config.stash.get(_PUBLISHED, {}).items()}


class Carrier:
    """Registered in every process of a run: a worker sends what was published at its session
    finish; the controller folds in each worker's as it goes down."""

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[DETAILS_KEY] = published(session.config)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        sent = getattr(node, "workeroutput", None) or {}
        config: pytest.Config = node.config
        for stage, sources in dict(sent.get(DETAILS_KEY) or {}).items():
            for source, details in dict(sources).items():
                publish(config, str(stage), dict(details), source=str(source))
