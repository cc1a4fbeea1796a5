"""``conformance run`` from parsed options to a verdict: the target established once, pytest
started on the chosen stages with the hand-over, the report's verdict turned into an exit status.

Exit status: 0 when the verdict is conformant (with or without declared exceptions), 1 when not
conformant, 2 for a usage error (bad arguments or profile, unreachable target, nothing selected),
3 when incomplete (no failure, but a requirement in scope was not measured for a reason the
profile does not declare), judged at the level ``--level`` names (interface by default; drop-in
also counts every convention the target departs from). ``accept_incomplete`` turns 3 into 0 on
purpose; the verdict still reads incomplete. A run stopped by SIGINT or SIGTERM ends within
seconds with every report written from what was measured (``stop_signals``) and exits 3, or 1
when a failure was already measured; ``accept_incomplete`` does not make a stopped run 0.
``strict`` makes a verdict conformant only with declared exceptions (a capability the spec states
declared absent, an optional input not configured, a baseline entry, a spec doubt) exit 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from conformance.errors import UsageError
from conformance.registry import REGISTRY, Stage, by_name
from conformance.report.headline import blocked_sentence, summary_line
from conformance.report.model import Report
from conformance.report.writer import ALLURE, RUN_FORMATS
from conformance.run import requirement_ids
from conformance.run.collector import ReportCapture
from conformance.run.handover import HandedOver, observe
from conformance.run.selection_size import ONE_PROCESS_BELOW, narrowed, selected
from conformance.run.workers import auto
from conformance.session import stop_signals
from conformance.target.resolution import Target, establish
from conformance.verdict.outcome import DECLARED
from conformance.verdict.run_verdict import Level, Verdict

EXIT_CONFORMANT = 0
EXIT_NOT_CONFORMANT = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3

# What every run loads, with pytest's plugin autoloading off (a stage adds its own plugin
# through the registry).
BASE_PLUGINS = (
    "xdist.plugin",
    "pytest_base_url.plugin",
    "allure_pytest.plugin",
    "conformance.run.plugin",
)
STOP_SIGNALS_PLUGIN = "conformance.session.stop_signals"
PYTEST_INI = """\
[pytest]
addopts = --strict-markers -p no:cacheprovider
xfail_strict = true
"""


def stages_of(choice: str) -> list[Stage]:
    """The stages ``--stage`` selects, in running order."""
    if choice == "all":
        return [stage for stage in REGISTRY if stage.in_all]
    stage = by_name().get(choice)
    if stage is None:
        raise UsageError(f"unknown stage {choice!r}", f"use one of: {', '.join(by_name())}, all")
    return [stage]


def stage_modules(choice: str) -> list[str]:
    """The test packages of the chosen stages; one that is not installed is a usage error."""
    names = [stage.test_package for stage in stages_of(choice)]
    missing = [m for m in names if importlib.util.find_spec(m) is None]
    if missing and choice != "all":
        raise UsageError(
            f"stage {choice!r} is not available in this installation ({', '.join(missing)})",
            "run --stage scenarios",
        )
    return [m for m in names if m not in missing]


def workers_of(value: str) -> int:
    if value == "auto":
        return 2
    try:
        workers = int(value)
    except ValueError:
        raise UsageError(f"--workers {value!r} is not a number", "pass a number or auto") from None
    if workers < 0:
        raise UsageError("--workers must be 0 or more", "pass a number or auto")
    return workers


def pytest_args(options: argparse.Namespace, ini: Path, workers: int) -> list[str]:
    """The pytest arguments of a run: the base plugins, each chosen stage's own arguments, its
    test packages, and the run's options. The target is not among them: it is handed over."""
    chosen = stages_of(options.stage)
    args = [arg for name in (*BASE_PLUGINS, STOP_SIGNALS_PLUGIN) for arg in ("-p", name)]
    for stage in chosen:
        args += stage.pytest_args(options)
    args += ["-c", str(ini), "--rootdir", str(Path(__file__).resolve().parents[2])]
    args += ["--pyargs", *stage_modules(options.stage)]
    report_dir = Path(options.report_dir)
    args += ["--report-dir", str(report_dir)]
    formats = getattr(options, "formats", None) or RUN_FORMATS
    if ALLURE in formats:
        args += ["--alluredir", str(report_dir / "allure-results"), "--clean-alluredir"]
    if tuple(formats) != RUN_FORMATS:
        args += ["--report-formats", ",".join(formats)]
    if getattr(options, "profile", None) and not _judges_a_server(chosen):
        args += ["--target-profile", str(options.profile)]  # a client stage reads its sections
    if options.requirements:
        args += ["--requirements", options.requirements]
    if getattr(options, "run_deadline", None) is not None:
        args += ["--run-deadline", f"{options.run_deadline:g}"]
    if workers:
        args += ["-n", str(workers), "--dist", "loadgroup"]
    if options.quiet:
        args += ["-qq", "--no-header", "-p", "no:warnings"]
    else:  # -v after -- counts from pytest's own default (failure_view: -v, -vv)
        args += ["-rfE"] if asks_verbose(options.pytest_args) else ["-q", "-rfE"]
    return [*args, *options.pytest_args]


def asks_verbose(arguments: Sequence[str]) -> bool:
    """Whether pytest arguments ask for more detail (``-v``, ``-vv``, ``--verbose``)."""
    return any(
        arg == "--verbose" or (arg.startswith("-v") and set(arg[1:]) == {"v"}) for arg in arguments
    )


def _judges_a_server(stages: Sequence[Stage]) -> bool:
    return any(stage.subject == "server" for stage in stages)


@contextmanager
def _no_plugin_autoload() -> Iterator[None]:
    """Turn pytest's plugin autoloading off for this run (xdist workers inherit it)."""
    name = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
    saved = os.environ.get(name)
    os.environ[name] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def run(options: argparse.Namespace, *, announce: str | None = None) -> int:
    """One run of the chosen stages; SIGINT and SIGTERM stop it with its reports. ``announce``:
    the line that says what is certified (default: the target)."""
    started = time.monotonic()
    with stop_signals.handling():
        try:
            return _run(options, started, announce)
        except KeyboardInterrupt:
            return stopped_outside_pytest(started)


def _run(options: argparse.Namespace, started: float, announce: str | None) -> int:
    chosen = stages_of(options.stage)
    requirement_ids.check(options.requirements, chosen)
    workers = 0 if all(stage.one_process for stage in chosen) else workers_of(options.workers)
    target: Target | None = None
    if _judges_a_server(chosen):
        target = establish(options.base_url, options.profile)
        try:
            observe(target, chosen, options.requirements)
        except BaseException:
            target.stop()
            raise
    elif options.base_url:
        raise UsageError(
            f"--stage {options.stage} plays the server itself: --base-url is not used",
            "leave out --base-url (a profile may still describe the client)",
        )
    try:
        if target is not None and options.workers == "auto" and workers:
            workers = auto(target.base_url, target.profile)  # from the round trip
        if not options.quiet:
            if announce is None and target is not None:
                kind = "embedded reference server" if target.embedded else "target"
                announce = f"{kind} at {target.base_url}"
            if announce is not None:
                print(f"conformance: certifying {announce}", flush=True)
        with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
            ini = Path(tmp) / "pytest.ini"
            ini.write_text(PYTEST_INI, encoding="utf-8")
            capture = ReportCapture()
            plugins: list[object] = [capture]
            if target is not None:
                plugins.append(HandedOver(target))
            with _no_plugin_autoload():
                if workers and options.workers == "auto":
                    workers = workers_for_selection(options, ini, workers, plugins[1:])
                code = pytest.main(pytest_args(options, ini, workers), plugins=plugins)
    finally:
        if target is not None:
            target.stop()
    return _verdict(options, capture, code, started)


def workers_for_selection(
    options: argparse.Namespace, ini: Path, workers: int, plugins: Sequence[object]
) -> int:
    """``--workers auto`` for a run narrowed to fewer than ``ONE_PROCESS_BELOW`` tests: none
    (one process); else ``workers``. ``plugins``: the hand-over, for the counting collection."""
    if not narrowed(options.requirements, options.pytest_args):
        return workers
    arguments = pytest_args(options, ini, 0)
    at = arguments.index(STOP_SIGNALS_PLUGIN)  # a collection must not mark the run finishing
    count = selected([*arguments[: at - 1], *arguments[at + 1 :]], plugins)
    if stop_signals.stopped() is not None:  # pytest took the interrupt: the run stops here
        raise KeyboardInterrupt
    return 0 if count is not None and count < ONE_PROCESS_BELOW else workers


def _verdict(options: argparse.Namespace, capture: ReportCapture, code: int, started: float) -> int:
    report = capture.report
    stop = stop_signals.stopped()
    if report is None:
        if stop is not None:
            return stopped_without_report(stop.note(started))
        if code in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
            return EXIT_USAGE
        raise UsageError(
            f"no conformance test ran (pytest exit status {int(code)})",
            "check --requirements (they must be of the chosen stage) and any pytest arguments "
            "after --",
        )
    where = str(capture.written[0].parent) if capture.written else options.report_dir
    line = summary_line(report, time.monotonic() - started, where)
    if stop is not None:  # one line: the stop, the verdict of what was measured, the reports
        line = f"conformance: {stop.note(started)}, {line.removeprefix('conformance: ')}"
    print(line, flush=True)
    blocked = blocked_sentence(report)
    if blocked:  # one root cause, said once, however many scenarios it blocked
        print(f"conformance: {blocked}", flush=True)
    gated = report.verdict_at(Level(getattr(options, "level", Level.INTERFACE.value)))
    status = exit_status(
        gated, accept_incomplete=options.accept_incomplete, stopped=stop is not None
    )
    if gated is Verdict.INCOMPLETE and status == EXIT_CONFORMANT:
        print(
            "conformance: incomplete verdict accepted on purpose (--accept-incomplete): exit 0",
            flush=True,
        )
    if getattr(options, "strict", False) and gated is Verdict.CONFORMANT_WITH_EXCEPTIONS:
        print(f"conformance: --strict: {declared_exceptions(report)}: exit 1", flush=True)
        return EXIT_NOT_CONFORMANT
    return status


def declared_exceptions(report: Report) -> str:
    """The requirements a run excused on the profile's word, counted by outcome, with the
    first few ids: what ``--strict`` refuses to call conformant."""
    excused = [r for r in report.requirements if r.outcome in DECLARED]
    by_outcome: dict[str, list[str]] = {}
    for result in excused:
        by_outcome.setdefault(result.outcome.value, []).append(result.id)
    parts = [
        f"{len(ids)} {outcome} ({', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''})"
        for outcome, ids in by_outcome.items()
    ]
    return "declared exceptions, not plain conformance: " + "; ".join(parts)


def stopped_outside_pytest(started: float) -> int:
    """A stop signal before pytest started or after it ended: said, and exit incomplete."""
    stop = stop_signals.stopped()
    note = stop.note(started) if stop is not None else "interrupted"
    print(f"conformance: {note}", file=sys.stderr, flush=True)
    return EXIT_INCOMPLETE


def stopped_without_report(note: str) -> int:
    """A run stopped before any test reported: it says so, and exits incomplete."""
    print(f"conformance: {note} before any test reported: no report written", file=sys.stderr)
    return EXIT_INCOMPLETE


def exit_status(verdict: Verdict, *, accept_incomplete: bool = False, stopped: bool = False) -> int:
    """The exit status for a verdict (see the module docstring); a stopped run is never 0."""
    if verdict is Verdict.NOT_CONFORMANT:
        return EXIT_NOT_CONFORMANT
    if stopped:
        return EXIT_INCOMPLETE
    if verdict is Verdict.INCOMPLETE and not accept_incomplete:
        return EXIT_INCOMPLETE
    return EXIT_CONFORMANT
