"""The pytest plugin: options, the ``requirement`` marker, fixtures, and outcome collection.

Thin on purpose: logic lives in ``target``, ``client``, ``outcomes`` and ``profile``. Inert unless
used: nothing starts or reaches a target until a fixture asks for it (or ``--base-url`` is given,
which triggers one pre-flight check), and tests without the ``requirement`` marker are untouched.
Every process of a run also registers ``output_redaction.OutputRedaction`` (no secret in any output)
and keeps the run deadline (``run_deadline``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import (
    ConformanceError,
    NotConfigured,
    NotMeasurable,
    Unsupported,
    UsageError,
)
from conformance.outcomes import USER_PROPERTY, TestRecord, classify
from conformance.output_redaction import OutputRedaction
from conformance.run_deadline import DEFAULT_SECONDS, RunDeadline, seconds_option

TARGET_PROPERTY = "conformance-target"
# A test may add ("conformance-stage", {"name": <stage>, "details": {...}}) to its user
# properties (``record_property``); the details land in that stage's summary in the Report.
STAGE_PROPERTY = "conformance-stage"
# Stages whose details are cumulative per worker, merged by a function of the stage's own.
STAGE_MERGERS: dict[str, str] = {"fuzz": "conformance.fuzz.summary:merge_details"}
DEFAULT_REPORT_DIR = "reports"
RUN_ID = pytest.StashKey[str]()
TARGET_INFO = pytest.StashKey[dict[str, Any]]()
REPORT = pytest.StashKey[Any]()
STARTED = pytest.StashKey[tuple[str, float]]()
TRANSCRIPT = pytest.StashKey[Any]()
DEADLINE = pytest.StashKey[RunDeadline]()
REDACTION_NAME = "conformance-output-redaction"


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
        "--run-deadline",
        metavar="SECONDS",
        type=seconds_option,
        default=DEFAULT_SECONDS,
        help="after this many seconds no further conformance test starts: each fails with the "
        f"note 'the run deadline of N s passed', and the reports are written "
        f"(default: {DEFAULT_SECONDS:g})",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "requirement(*ids): the catalogue requirement ids this conformance scenario checks; "
        "its outcome is reported for exactly these ids",
    )
    config.addinivalue_line(
        "markers", "xdist_group(name): run tests of one group on the same pytest-xdist worker"
    )
    config.addinivalue_line(
        "markers",
        "exclusive: a conformance scenario whose traffic must not overlap other scenarios "
        "(rate-limit exhaustion, load-shedding bursts)",
    )
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and "conformance_run_id" in workerinput:
        config.stash[RUN_ID] = workerinput["conformance_run_id"]
    else:
        from conformance.target import new_run_id

        config.stash[RUN_ID] = new_run_id()
    config.stash[STARTED] = (datetime.now(UTC).isoformat(timespec="seconds"), time.monotonic())
    seconds = float(config.getoption("run_deadline", DEFAULT_SECONDS))
    if workerinput is not None and "conformance_deadline_at" in workerinput:
        config.stash[DEADLINE] = RunDeadline(seconds, float(workerinput["conformance_deadline_at"]))
    else:
        config.stash[DEADLINE] = RunDeadline.starting_now(seconds)
    redaction = OutputRedaction(config, final_pass=not _is_worker(config))
    config.pluginmanager.register(redaction, REDACTION_NAME)
    profile_path = config.getoption("target_profile", None)
    if profile_path:
        _add_profile_secrets(config, profile_path)
    if not _is_worker(config):
        config.pluginmanager.register(RunCollector(config), COLLECTOR_NAME)


def _add_profile_secrets(config: pytest.Config, profile_path: str) -> None:
    """Known from the start, in every process: the profile's secrets (a profile that does not load
    is the pre-flight's usage error to report, not this)."""
    from conformance import profile as profiles

    try:
        loaded = profiles.load(profile_path)
    except Exception:  # the pre-flight reports it
        return
    add_secrets(config, loaded.secret_names())


def add_secrets(config: pytest.Config, secrets: dict[str, str]) -> None:
    """Secret value -> placeholder: redacted from every output of this process from now on."""
    redaction = config.pluginmanager.get_plugin(REDACTION_NAME)
    if isinstance(redaction, OutputRedaction):
        redaction.add(secrets)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: every worker shares the controller's run id (one prefix, one traffic gate)
    and its run deadline."""
    node.workerinput["conformance_run_id"] = node.config.stash[RUN_ID]
    node.workerinput["conformance_deadline_at"] = node.config.stash[DEADLINE].ends_at


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _wants_target(config: pytest.Config) -> bool:
    return bool(config.getoption("base_url", None) or config.getoption("target_profile"))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Pre-flight, once, on the controller: a wrong URL or profile is one usage error."""
    config = session.config
    if _is_worker(config) or not _wants_target(config):
        return
    from conformance.target import preflight, resolve

    try:
        target = resolve(config.getoption("base_url", None), config.getoption("target_profile"))
        preflight(target)
    except UsageError as error:
        pytest.exit(f"conformance usage error: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    add_secrets(config, target.profile.secret_names())
    config.stash[TARGET_INFO] = _target_info(target)
    config.stash[TARGET_INFO]["secrets"] = list(target.profile.secrets())


def _target_info(target: Any) -> dict[str, Any]:
    return {
        "url": target.base_url,
        "fingerprint": target.fingerprint,
        "profile": target.profile.redacted(),
        "baseline": {e.requirement: e.reason for e in target.profile.baseline},
    }


# ------------------------------------------------------------------ selection


def requirement_ids(item: pytest.Item) -> tuple[str, ...]:
    """The requirement ids an item names through its ``requirement`` markers."""
    ids: list[str] = []
    for mark in item.iter_markers("requirement"):
        ids.extend(str(arg) for arg in mark.args)
    return tuple(dict.fromkeys(ids))


def selected_ids(config: pytest.Config) -> set[str] | None:
    raw = config.getoption("requirements")
    if not raw:
        return None
    return {part.strip() for part in str(raw).split(",") if part.strip()}


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
def pytest_runtest_setup(item: pytest.Item) -> Any:
    """A requirement whose capability the profile declares absent is unsupported, not run; once
    the run deadline has passed, no conformance test starts (each fails with the note)."""
    deadline = item.config.stash.get(DEADLINE, None)
    if deadline is not None and deadline.passed() and requirement_ids(item):
        pytest.fail(deadline.note, pytrace=False)
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
    from conformance.outcomes import catalogue_index

    index = catalogue_index()
    return {
        i: tuple(sorted(index[i].capabilities)) for i in ids if i in index and index[i].capabilities
    }


# ------------------------------------------------------------------ fixtures


@dataclass
class Cleanup:
    """Actions run at the end of the session, newest first (e.g. terminate experiments); none
    once the run deadline has passed."""

    actions: list[tuple[str, Callable[[], object]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    deadline: RunDeadline | None = None

    def add(self, description: str, action: Callable[[], object]) -> None:
        self.actions.append((description, action))

    def run(self) -> None:
        while self.actions:
            description, action = self.actions.pop()
            if self.deadline is not None and self.deadline.passed():
                self.problems.append(f"{description}: not run, {self.deadline.note}")
                continue
            try:
                action()
            except Exception as error:  # cleanup must not hide results
                self.problems.append(f"{description}: {type(error).__name__}")


@pytest.fixture(scope="session")
def run_prefix(pytestconfig: pytest.Config) -> str:
    """The per-run prefix of every name the suite creates on a target (``cf-<runid>``)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw")
    return f"cf-{pytestconfig.stash[RUN_ID]}-{worker}"


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Iterator[Any]:
    """The target under test: ``--base-url`` + ``--target-profile``, or the embedded server."""
    from conformance.target import preflight, resolve

    try:
        resolved = resolve(
            pytestconfig.getoption("base_url", None), pytestconfig.getoption("target_profile")
        )
        if resolved.embedded:
            preflight(resolved)
    except UsageError as error:
        pytest.exit(f"conformance usage error: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    add_secrets(pytestconfig, resolved.profile.secret_names())
    pytestconfig.stash[TARGET_INFO] = _target_info(resolved)
    try:
        yield resolved
    finally:
        resolved.stop()


@pytest.fixture(scope="session")
def profile(target: Any) -> Any:
    """The target's loaded ``conformance.profile.Profile``."""
    return target.profile


@pytest.fixture(scope="session")
def pacer(target: Any, pytestconfig: pytest.Config) -> Any:
    from conformance.pacing import Pacer

    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    rate = target.profile.rate_limit
    return Pacer(rate.burst, rate.refill_per_second, workers=workers)


@pytest.fixture(scope="session")
def traffic_gate(pytestconfig: pytest.Config) -> Any:
    """Shared by all workers of one run: exclusive scenarios hold it alone."""
    from conformance.pacing import TrafficGate

    return TrafficGate.for_run(pytestconfig.stash[RUN_ID])


@pytest.fixture(scope="session")
def cleanup(http_session: Any, pytestconfig: pytest.Config) -> Iterator[Cleanup]:
    """Register end-of-session clean-up of what the suite created (``cleanup.add(desc, fn)``)."""
    registry = Cleanup(deadline=pytestconfig.stash.get(DEADLINE, None))
    try:
        yield registry
    finally:
        registry.run()


@pytest.fixture(scope="session")
def http_session() -> Iterator[Any]:
    """One keep-alive ``httpx.Client`` shared by every test's ``client``."""
    from conformance.client import new_http_client

    with new_http_client() as http:
        yield http


@pytest.fixture
def client(
    request: pytest.FixtureRequest,
    target: Any,
    pacer: Any,
    run_prefix: str,
    traffic_gate: Any,
    http_session: Any,
) -> Iterator[Any]:
    """A ``conformance.client.Client`` for this test; its transcript goes into failure reports."""
    from conformance.client import Client

    with Client(
        target.base_url,
        target.profile,
        run_prefix=run_prefix,
        pacer=pacer,
        gate=traffic_gate,
        http=http_session,
    ) as http:
        request.node.stash[TRANSCRIPT] = http.transcript
        yield http


@pytest.fixture
def exclusive(traffic_gate: Any) -> Iterator[None]:
    """Hold the run's traffic gate alone for this test (other workers pause their requests)."""
    with traffic_gate.exclusive():
        yield


# ------------------------------------------------------------------ outcomes


def test_id(item: pytest.Item) -> str:
    """A test id that does not depend on pytest's rootdir: package-relative for the suite's own."""
    package_root = Path(__file__).resolve().parent.parent
    try:
        relative = item.path.resolve().relative_to(package_root)
    except ValueError:
        return item.nodeid
    _, _, rest = item.nodeid.partition("::")
    return f"{relative.as_posix()}::{rest}" if rest else item.nodeid


def _stage_of(item: pytest.Item) -> str:
    module = getattr(getattr(item, "module", None), "__name__", "")
    return "fuzz" if ".fuzz" in module or module.startswith("fuzz") else "scenarios"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """With ``--alluredir``: label by requirement and spec section, attach the exchanges."""
    ids = requirement_ids(item)
    if not ids or not item.config.pluginmanager.has_plugin("allure_listener"):
        return (yield)
    from conformance.outcomes import catalogue_index
    from conformance.report.allure_labels import apply_allure_labels, attach_exchanges

    apply_allure_labels(item, ids, catalogue_index())
    try:
        return (yield)
    finally:
        transcript = item.stash.get(TRANSCRIPT, None)
        if transcript is not None:
            info = item.config.stash.get(TARGET_INFO, None) or {}
            attach_exchanges(transcript.exchanges, info.get("secrets", ()))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    ids = requirement_ids(item)
    if not ids or report.when == "teardown":
        return report
    if report.when == "setup" and report.passed:
        return report
    error = call.excinfo.value if call.excinfo is not None else None
    transcript = item.stash.get(TRANSCRIPT, None)
    exchanges = tuple(transcript.exchanges[-6:]) if transcript is not None else ()
    message = ""
    if report.failed and not isinstance(error, ConformanceError):
        message = str(report.longreprtext)[-2000:]
    if report.skipped and isinstance(report.longrepr, tuple):
        message = str(report.longrepr[2])
    record = classify(
        test_id(item),
        _stage_of(item),
        ids,
        error,
        failed=report.failed and not isinstance(error, (NotMeasurable, Unsupported)),
        duration_s=report.duration,
        exchanges=exchanges,
        message=message,
    )
    if isinstance(error, (NotMeasurable, Unsupported)):
        path, line, _ = item.reportinfo()
        label = "unsupported" if isinstance(error, Unsupported) else "not measurable"
        label = "not configured" if isinstance(error, NotConfigured) else label
        report.outcome = "skipped"
        report.longrepr = (str(path), (line or 0) + 1, f"{label}: {record.message}")
    elif report.failed and transcript is not None and transcript.exchanges:
        report.sections.append(("conformance transcript (redacted)", transcript.render()))
    report.user_properties.append((USER_PROPERTY, record.to_json()))
    info = item.config.stash.get(TARGET_INFO, None)
    if info is not None and not item.config.stash.get(_SENT_TARGET, False):
        item.config.stash[_SENT_TARGET] = True
        report.user_properties.append(
            (TARGET_PROPERTY, {k: v for k, v in info.items() if k != "secrets"})
        )
    return report


_SENT_TARGET = pytest.StashKey[bool]()


class RunCollector:
    """Controller side: gathers test records from every worker and writes the run's Report."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.records: list[TestRecord] = []
        self.stage_details: dict[str, dict[str, dict[str, Any]]] = {}  # stage -> source -> details
        self.report: Any = None
        self.written: list[Path] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == USER_PROPERTY and isinstance(value, dict):
                self.records.append(TestRecord.from_json(value))
            elif name == TARGET_PROPERTY and isinstance(value, dict):
                self.config.stash.setdefault(TARGET_INFO, dict(value))
            elif name == STAGE_PROPERTY and isinstance(value, dict) and "name" in value:
                details = dict(value.get("details") or {})
                source = str(details.get("worker", report.nodeid))
                self.stage_details.setdefault(str(value["name"]), {})[source] = details

    def merged_details(self) -> dict[str, dict[str, Any]]:
        """Each stage's details: merged by the stage's own function, else combined key by key."""
        import importlib

        merged: dict[str, dict[str, Any]] = {}
        for stage, by_source in self.stage_details.items():
            parts = list(by_source.values())
            if stage in STAGE_MERGERS:
                module, _, function = STAGE_MERGERS[stage].partition(":")
                try:
                    merged[stage] = dict(getattr(importlib.import_module(module), function)(parts))
                    continue
                except (ImportError, AttributeError):
                    pass
            combined: dict[str, Any] = {}
            for part in parts:
                combined.update(part)
            merged[stage] = combined
        return merged

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.records:
            return
        from conformance.outcomes import report_for_run

        config = self.config
        info = config.stash.get(TARGET_INFO, {})
        started_at, started = config.stash[STARTED]
        self.report = report_for_run(
            self.records,
            info,
            selected_ids(config),
            started_at=started_at,
            duration_s=round(time.monotonic() - started, 3),
            stage_details=self.merged_details(),
        )
        config.stash[REPORT] = self.report
        report_dir = Path(config.getoption("report_dir") or DEFAULT_REPORT_DIR)
        from conformance.report.writer import write_reports

        redaction = config.pluginmanager.get_plugin(REDACTION_NAME)
        if isinstance(redaction, OutputRedaction):
            redaction.extra_paths.append(report_dir)
        try:
            self.written = write_reports(self.report, report_dir, secrets=info.get("secrets", ()))
        except OSError as error:
            self.written = []
            config.stash[_WRITE_ERROR] = f"could not write reports to {report_dir}: {error}"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.report is None:
            return
        from conformance.report.headline import summary_line

        where = str(self.written[0].parent) if self.written else ""
        problem = self.config.stash.get(_WRITE_ERROR, "")
        if problem:
            terminalreporter.write_line(problem, red=True)
        terminalreporter.write_sep("=", summary_line(self.report, where=where))


_WRITE_ERROR = pytest.StashKey[str]()
COLLECTOR_NAME = "conformance-run-collector"
