"""The run collector: on the controller, gathers every worker's test records and stage details
(``conformance.session.wire``), builds the run's ``Report`` and writes it in every format (also
when a stop signal ended the run: what was measured, the rest noted as stopped)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from conformance.profile.loading import written_keys
from conformance.redaction.run_outputs import OutputRedaction
from conformance.registry import Stage, answered_by, by_name, named
from conformance.registry.declaration import Details
from conformance.report import step_summary
from conformance.report.headline import blocked_sentence, summary_line
from conformance.report.model import Report
from conformance.report.writer import FORMATS, run_formats, write_reports
from conformance.run import requirement_ids
from conformance.run.run_report import report_for_run
from conformance.session import stop_signals, wire
from conformance.session.state import (
    COLLECTOR_NAME,
    DEFAULT_REPORT_DIR,
    REDACTION_NAME,
    REPORT,
    SECRETS,
    STARTED,
    TARGET_INFO,
    target_of,
)
from conformance.target.resolution import Target
from conformance.verdict.outcome import Outcome
from conformance.verdict.records import TestRecord

_WRITE_ERROR = pytest.StashKey[str]()


def selected_ids(config: pytest.Config) -> set[str] | None:
    """The ``--requirements`` ids (None: every requirement)."""
    return requirement_ids.selected(config.getoption("requirements"))


def observation_records(target: Target | None, records: Sequence[TestRecord]) -> list[TestRecord]:
    """The observation before the tests (``run.handover.observe``) as one record of its own:
    each spelling the target showed, a drop-in difference on the requirements the run judged
    that rest on its key (a requirement no test of the run judged is not brought in)."""
    judged = {rid for record in records for rid in record.requirement_ids}
    differences = [
        replace(d, requirement_ids=tuple(i for i in d.requirement_ids if i in judged))
        for d in (target.observed if target is not None else ())
    ]
    differences = [d for d in differences if d.requirement_ids]
    if not differences:
        return []
    ids = tuple(dict.fromkeys(i for d in differences for i in d.requirement_ids))
    stage = records[0].stage  # the stage it ran for (scenarios, or fuzz alone)
    return [TestRecord(differences[0].test_id, stage, ids, {}, differences=tuple(differences))]


class RunCollector:
    """Controller side: gathers test records from every worker and writes the run's Report."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.records: list[TestRecord] = []
        self.report: Report | None = None
        self.written: list[Path] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == wire.RECORD_KEY and isinstance(value, dict):
                self.records.append(TestRecord.from_json(value))
            elif name == wire.TARGET_KEY and isinstance(value, dict):
                self.config.stash.setdefault(TARGET_INFO, dict(value))

    def merged_details(self) -> dict[str, Details]:
        """Each stage's published details (``conformance.session.wire``), merged across workers
        as the stage declares."""

        merged: dict[str, Details] = {}
        for name, by_source in wire.published(self.config).items():
            stage = named(name) or Stage(name=name, help="", test_package=name)
            merged[name] = stage.merged(list(by_source.values()))
        return merged

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.records:
            return

        config = self.config
        info = config.stash.get(TARGET_INFO, {})
        started_at, started = config.stash[STARTED]
        production, declares = declaration(config)
        self.report = report_for_run(
            [*self.records, *observation_records(target_of(config), self.records)],
            info,
            selected_ids(config),
            started_at=started_at,
            duration_s=round(time.monotonic() - started, 3),
            stage_details=self.merged_details(),
            answers_for=answered_by(r.stage for r in self.records),
            production=production,
            declares=declares,
        )
        stop = stop_signals.stopped()
        if stop is not None:
            self.report = noted_stop(self.report, stop.note(started))
        config.stash[REPORT] = self.report
        report_dir = Path(config.getoption("report_dir") or DEFAULT_REPORT_DIR)

        redaction = config.pluginmanager.get_plugin(REDACTION_NAME)
        if isinstance(redaction, OutputRedaction):
            redaction.extra_paths.append(report_dir)
        secrets: tuple[str, ...] = config.stash.get(SECRETS, ())
        try:
            formats = config.getoption("report_formats", None)
            chosen = run_formats(formats) if formats else FORMATS
            self.written = write_reports(
                self.report, report_dir, chosen, secrets=secrets, readings=by_name()
            )
        except OSError as error:
            self.written = []
            config.stash[_WRITE_ERROR] = f"could not write reports to {report_dir}: {error}"
        try:  # a CI job summary (GitHub Actions), when the environment names one
            step_summary.append(self.report, secrets)
        except OSError as error:
            config.stash[_WRITE_ERROR] = f"could not append to ${step_summary.ENV}: {error}"

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.report is None:
            return

        where = str(self.written[0].parent) if self.written else ""
        problem = self.config.stash.get(_WRITE_ERROR, "")
        if problem:
            terminalreporter.write_line(problem, red=True)
        if not captured(self.config):  # else the command says it once, with the time it took
            terminalreporter.write_sep("=", summary_line(self.report, where=where))
            blocked = blocked_sentence(self.report)
            if blocked:  # one root cause, said once, however many scenarios it blocked
                terminalreporter.write_line(f"conformance: {blocked}", yellow=True)


def declaration(config: pytest.Config) -> tuple[bool, Callable[[str], bool]]:
    """What the run's profile declares: ``conventions: production``, and ``Profile.declares``.
    The run's target's profile; with no target (a client-only run), the client's profile file
    read for its written keys; with neither, nothing is declared."""
    target = target_of(config)
    if target is not None:
        return target.profile.conventions == "production", target.profile.declares
    path = config.getoption("client_profile", None) or config.getoption("target_profile", None)
    if not path:
        return False, _nothing
    try:
        data = yaml.safe_load(Path(str(path)).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):  # the client stage has refused it already
        return False, _nothing
    if not isinstance(data, dict):
        return False, _nothing
    production = data.get("conventions") == "production"
    written = written_keys(data)

    def declares(key: str) -> bool:
        parts = key.split(".")
        return production or any(".".join(parts[:e]) in written for e in range(1, len(parts) + 1))

    return production, declares


def _nothing(key: str) -> bool:
    return False


def noted_stop(report: Report, how: str) -> Report:
    """The report of a run a signal stopped: each requirement no test reported on says so."""
    note = f"not measured: the run was {how}, before a test of it reported"
    return replace(
        report,
        requirements=tuple(
            replace(r, note=note) if r.outcome is Outcome.NOT_MEASURABLE and not r.tests else r
            for r in report.requirements
        ),
    )


def captured(config: pytest.Config) -> bool:
    """Whether a command runs this pytest and reads its report (``ReportCapture``)."""
    return any(isinstance(p, ReportCapture) for p in config.pluginmanager.get_plugins())


class ReportCapture:
    """A pytest plugin object that picks up the Report the collector built, once the run ends
    (what ``conformance run`` and ``conformance client`` read after ``pytest.main``)."""

    def __init__(self) -> None:
        self.report: Report | None = None
        self.written: list[Path] = []

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        collector = config.pluginmanager.get_plugin(COLLECTOR_NAME)
        if isinstance(collector, RunCollector):
            self.report = collector.report
            self.written = collector.written
