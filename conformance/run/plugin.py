"""The pytest plugin's hooks: options, the ``requirement`` marker, selection, outcome records.

Thin on purpose: fixtures live in ``fixtures`` (registered through ``pytest_plugins``), the
controller's collector in ``collector``, the stash keys in ``state``, the run's target in
``handover``, which stage a test belongs to and each stage's options and plugin in the stage
registry (``conformance.registry``). Inert unless used: a run that collects no stage and names no
target starts nothing until a fixture asks for one, and tests without the ``requirement`` marker
are untouched. Every process of a run also registers ``OutputRedaction`` (no secret in any
output) and keeps the run deadline (``deadline``).
"""

from __future__ import annotations

import time
from collections.abc import Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import pytest

from conformance.catalogue.requirements import catalogue_index
from conformance.checks import conventions
from conformance.errors import (
    ConformanceError,
    ConventionMiss,
    NotApplicable,
    NotConfigured,
    NotMeasurable,
    Unsupported,
)
from conformance.profile import reads as profile_reads
from conformance.redaction.run_outputs import OutputRedaction
from conformance.registry import add_pytest_options, collected_by, of_module
from conformance.report.allure_labels import apply_allure_labels, attach_exchanges
from conformance.report.body_cut import cut_exchange
from conformance.run import failure_view, handover
from conformance.run.collector import RunCollector, declaration, selected_ids
from conformance.run.failure_view import TRANSCRIPT_SHOWN
from conformance.run.run_report import selected_requirements
from conformance.session import wire
from conformance.session.deadline import DEFAULT_SECONDS, RunDeadline, seconds_option
from conformance.session.state import (
    COLLECTOR_NAME,
    DEADLINE,
    DEFAULT_REPORT_DIR,
    REDACTION_NAME,
    RUN_ID,
    SECRETS,
    STARTED,
    TARGET_INFO,
    TRANSCRIPT,
    add_secrets,
)
from conformance.target.resolution import Target, new_run_id
from conformance.verdict.classification import classify
from conformance.verdict.levels import at_their_levels
from conformance.verdict.outcome import Outcome
from conformance.verdict.records import TestRecord

pytest_plugins = (
    "conformance.run.fixtures",
    "conformance.run.phases",
    "conformance.run.failure_view",
    "conformance.run.worker_status",
)

__all__ = ["COLLECTOR_NAME", "add_secrets", "requirement_ids", "test_id"]


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(wire.Hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "RCES conformance suite")
    group.addoption(
        "--target-profile",
        metavar="FILE",
        default=None,
        help="target profile (YAML) for --base-url; without --base-url the embedded reference "
        "server is started and its own profile is used",
    )
    group.addoption(
        "--requirements",
        metavar="ID,...",
        default=None,
        help="check only these requirement ids (comma-separated); other tests are deselected",
    )
    group.addoption(
        "--report-dir",
        metavar="DIR",
        default=None,
        help=f"where conformance reports go (default: {DEFAULT_REPORT_DIR}/ when a "
        "conformance test ran)",
    )
    group.addoption(
        "--report-formats",
        metavar="FORMAT,...",
        default=None,
        help="the report files to write: json (always), md, html, junit (default: all four; "
        "allure-pytest's results come with --alluredir)",
    )
    group.addoption(
        "--run-deadline",
        metavar="SECONDS",
        type=seconds_option,
        default=DEFAULT_SECONDS,
        help="after this many seconds no further conformance test starts: each fails with the "
        f"note 'the run deadline of N s passed', and the reports are written "
        f"(default: {DEFAULT_SECONDS:g})",
    )
    add_pytest_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "requirement(*ids): the catalogue requirement ids this conformance scenario checks; "
        "its outcome is reported for exactly these ids",
    )
    config.addinivalue_line(
        "markers", "xdist_group(name): run tests of one group on the same pytest-xdist worker"
    )
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and "conformance_run_id" in workerinput:
        config.stash[RUN_ID] = workerinput["conformance_run_id"]
    else:
        config.stash[RUN_ID] = new_run_id()
    config.stash[STARTED] = (datetime.now(UTC).isoformat(timespec="seconds"), time.monotonic())
    seconds = float(config.getoption("run_deadline", DEFAULT_SECONDS))
    if workerinput is not None and "conformance_deadline_at" in workerinput:
        config.stash[DEADLINE] = RunDeadline(seconds, float(workerinput["conformance_deadline_at"]))
    else:
        config.stash[DEADLINE] = RunDeadline.starting_now(seconds)
    failure_view.condensed(config)
    redaction = OutputRedaction(config, final_pass=not _is_worker(config))
    config.pluginmanager.register(redaction, REDACTION_NAME)
    handover.receive(config)
    config.pluginmanager.register(wire.Carrier(), wire.CARRIER_NAME)
    if not _is_worker(config):
        config.pluginmanager.register(RunCollector(config), COLLECTOR_NAME)
    for stage in collected_by(config.args, config.invocation_params.dir):
        if stage.plugin is not None:  # one way for every stage, however pytest was started
            config.pluginmanager.import_plugin(stage.plugin)


class WorkerNode(Protocol):
    """What ``pytest_configure_node`` uses of pytest-xdist's worker controller."""

    config: pytest.Config
    workerinput: dict[str, object]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: WorkerNode) -> None:
    """pytest-xdist: every worker shares the controller's run id (one prefix), its run deadline
    and its target (``handover``)."""
    node.workerinput["conformance_run_id"] = node.config.stash[RUN_ID]
    node.workerinput["conformance_deadline_at"] = node.config.stash[DEADLINE].ends_at
    target = handover.packed(node.config)
    if target is not None:
        node.workerinput[handover.WORKERINPUT_KEY] = target


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Plain pytest's controller establishes the run's target once (before xdist starts its
    workers, which receive it); ``conformance run`` handed it over already."""
    established = handover.at_session_start(session)
    if established is not None:
        session.config.stash[_ESTABLISHED] = established


def pytest_unconfigure(config: pytest.Config) -> None:
    established = config.stash.get(_ESTABLISHED, None)
    if established is not None:
        established.stop()


# ------------------------------------------------------------------ selection


def requirement_ids(item: pytest.Item) -> tuple[str, ...]:
    """The requirement ids an item names through its ``requirement`` markers."""
    ids: list[str] = []
    for mark in item.iter_markers("requirement"):
        ids.extend(str(arg) for arg in mark.args)
    return tuple(dict.fromkeys(ids))


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    wanted = selected_ids(config)
    if wanted is None:
        return
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        ids = requirement_ids(item)
        (keep if ids and wanted.intersection(ids) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    """A requirement whose capability the profile declares absent is unsupported, not run; once
    the run deadline has passed, no conformance test starts (each fails with the note)."""
    deadline = item.config.stash.get(DEADLINE, None)
    if deadline is not None and deadline.passed() and requirement_ids(item):
        pytest.fail(deadline.note, pytrace=False)
    conventions.NOTEBOOK.open()  # the test's drop-in differences, taken into its record
    result = yield
    ids = requirement_ids(item)
    target = getattr(item, "funcargs", {}).get("target")
    if ids and target is not None:
        absent = {
            rid: capability
            for rid, capabilities in _capabilities_of(ids).items()
            for capability in capabilities
            if not target.profile.capability(capability)
        }
        if absent:
            raise Unsupported(", ".join(sorted(set(absent.values()))), tuple(absent))
    return result


def _capabilities_of(ids: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Requirement id -> every capability it needs (implied ones too), for ids that need any."""

    index = catalogue_index()
    return {
        i: tuple(sorted(index[i].capabilities)) for i in ids if i in index and index[i].capabilities
    }


# ------------------------------------------------------------------ outcomes


def test_id(item: pytest.Item) -> str:
    """A test id that does not depend on pytest's rootdir: package-relative for the suite's own."""
    package_root = Path(__file__).resolve().parents[2]
    try:
        relative = item.path.resolve().relative_to(package_root)
    except ValueError:
        return item.nodeid
    _, _, rest = item.nodeid.partition("::")
    return f"{relative.as_posix()}::{rest}" if rest else item.nodeid


def _stage_of(item: pytest.Item) -> str:
    return of_module(getattr(getattr(item, "module", None), "__name__", ""))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    """With ``RCES_RECORD_PROFILE_KEYS``: the profile keys a conformance test reads, from its
    setup to its teardown, go to that file (``profile_reads``)."""
    log = profile_reads.active_log()
    ids = requirement_ids(item) if log is not None else ()
    if log is None or not ids:
        return (yield)
    with log.recording(test_id(item), ids):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """With ``--alluredir``: label by requirement and spec section, attach the exchanges."""
    ids = requirement_ids(item)
    if not ids or not item.config.pluginmanager.has_plugin("allure_listener"):
        return (yield)

    apply_allure_labels(item, ids, catalogue_index())
    try:
        return (yield)
    finally:
        transcript = item.stash.get(TRANSCRIPT, None)
        if transcript is not None:
            secrets: tuple[str, ...] = item.config.stash.get(SECRETS, ())
            attach_exchanges(transcript.exchanges, secrets)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    ids = requirement_ids(item)
    if not ids or report.when == "teardown":
        return report
    if report.when == "setup" and report.passed:
        item.stash[_SETUP_S] = report.duration  # a stage's work may sit in a fixture's setup
        return report
    error = call.excinfo.value if call.excinfo is not None else None
    transcript = item.stash.get(TRANSCRIPT, None)
    kept = transcript.exchanges[-TRANSCRIPT_SHOWN:] if transcript is not None else []
    exchanges = tuple(cut_exchange(e) for e in kept)  # whoever recorded them
    message = ""
    if report.failed and not isinstance(error, ConformanceError):
        message = str(report.longreprtext)[-2000:]
    if report.skipped and isinstance(report.longrepr, tuple):
        message = str(report.longrepr[2])
    differences = conventions.NOTEBOOK.close()
    own = item.config.hook.pytest_conformance_records(item=item, call=call, report=report)
    record = classify(
        test_id(item),
        _stage_of(item),
        ids,
        error,
        failed=report.failed and not isinstance(error, UNJUDGED),
        duration_s=report.duration + item.stash.get(_SETUP_S, 0.0),
        exchanges=exchanges,
        message=message,
        differences=differences,
    )
    drop_in = _drop_in_only(item.config, record) if report.failed else None
    if drop_in is not None:  # undeclared conventions alone failed: the interface level holds
        path, line, _ = item.reportinfo()
        report.outcome = "skipped"
        report.longrepr = (str(path), (line or 0) + 1, drop_in)
    elif isinstance(error, UNJUDGED):
        path, line, _ = item.reportinfo()
        label = "unsupported" if isinstance(error, Unsupported) else "not measurable"
        label = "not configured" if isinstance(error, NotConfigured) else label
        label = "not applicable" if isinstance(error, NotApplicable) else label
        report.outcome = "skipped"
        report.longrepr = (str(path), (line or 0) + 1, f"{label}: {record.message}")
    else:
        failure_view.shape(report, error, transcript, item.config, ids)
    records = [record.to_json()] if own is None else own
    report.user_properties.extend((wire.RECORD_KEY, sent) for sent in records)
    info = item.config.stash.get(TARGET_INFO, None)
    if info is not None and not item.config.stash.get(_SENT_TARGET, False):
        item.config.stash[_SENT_TARGET] = True
        report.user_properties.append((wire.TARGET_KEY, dict(info)))
    return report


def _drop_in_only(config: pytest.Config, record: TestRecord) -> str | None:
    """The skip note of a failed test whose every failure is an undeclared convention's (a
    drop-in difference, ``verdict.levels``); None when an interface failure remains."""
    if record.outcome is not Outcome.FAIL:
        return None
    production, declares = declaration(config)
    infos = selected_requirements(
        set(record.requirement_ids), (), production=production, declares=declares
    )
    (folded,) = at_their_levels([record], infos)
    if folded.outcome is Outcome.FAIL:
        return None
    keys = ", ".join(dict.fromkeys(d.key for d in folded.differences)) or "conventions"
    return f"drop-in difference (a convention the profile does not declare: {keys})"


# What ends a test without a judgement at the interface level: shown as a skip with its note.
UNJUDGED = (NotMeasurable, Unsupported, ConventionMiss, NotApplicable)
_SENT_TARGET = pytest.StashKey[bool]()
_ESTABLISHED = pytest.StashKey[Target]()
_SETUP_S = pytest.StashKey[float]()
