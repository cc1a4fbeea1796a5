"""The ``conformance`` command: resolve the target, run the stages under pytest, print the verdict.

Exit status: 0 when the verdict is conformant (with or without declared exceptions), 1 when not
conformant, 2 for a usage error (bad arguments or profile, unreachable target, nothing selected),
3 when incomplete (no failure, but a requirement in scope was not measured for a reason the
profile does not declare). ``--accept-incomplete`` turns 3 into 0 on purpose; the verdict still
reads incomplete.

A run stopped by SIGINT (Ctrl-C) or SIGTERM (a CI cancel, ``timeout``, a container stop) ends
within seconds with every report written from what was measured (``stop_signals``) and exits 3,
or 1 when a failure was already measured; ``--accept-incomplete`` does not make a stopped run 0.
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
from conformance.report.headline import summary_line
from conformance.report.model import Verdict
from conformance.run import stop_signals
from conformance.run.collector import ReportCapture
from conformance.run.deadline import seconds_option
from conformance.run.workers import auto
from conformance.stages import REGISTRY, Stage, by_name
from conformance.target.resolution import preflight, resolve

EXIT_CONFORMANT = 0
EXIT_NOT_CONFORMANT = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3

# Further subcommands: name -> module with add_parser(subparsers) and main(options) -> exit status.
COMMANDS: dict[str, str] = {
    "selftest": "conformance.selftest.command",
    "flaky": "conformance.selftest.flakiness",
    "report": "conformance.report.rerender",
    "diff": "conformance.report.diff",
    "fuzz": "conformance.stages.fuzz.command",
    "contract": "conformance.contract.command",
    "client": "conformance.stages.client.command",
    "load-worker": "conformance.stages.load.command",
}

PYTEST_INI = """\
[pytest]
addopts = --strict-markers -p no:cacheprovider
xfail_strict = true
"""

EPILOG = """\
examples:
  conformance run
      certify the embedded reference server (free loopback port, throwaway database)
  conformance run --base-url http://127.0.0.1:8000 --profile target.yaml
      certify your own server; the profile says how it fills the spec's gaps
  conformance run --requirements SDK-STATUS-304-IF-NONE-MATCH,SDK-STATUS-ETAG-EQUALS-HASH
      check only these requirements
  conformance run --stage all --report-dir out/
      scenarios and fuzzing; reports go to out/
  conformance run -- -k status -x
      pass anything after -- on to pytest
  conformance run --accept-incomplete
      exit 0 even if some requirement could not be measured (the verdict still says incomplete)

exit status: 0 conformant (also "conformant with declared exceptions": unsupported
capabilities, optional profile inputs not configured, baseline known failures, spec doubts),
1 not conformant, 2 usage error, 3 incomplete (no failure, but a requirement in scope was not
measured for a reason the profile does not declare; 0 with --accept-incomplete).

stopping: SIGINT (Ctrl-C) or SIGTERM (a CI cancel, timeout, docker stop) ends a run of any stage
within seconds; every report is written with what was measured until then (verdict incomplete,
the rest noted as stopped) and the exit status is 3, or 1 if a failure was already measured,
even with --accept-incomplete. A signal while the reports are being written is ignored; the next
one ends the process at once.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance",
        description="Certify an implementation of the Remote Configuration and Experiments "
        "Service interface.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="certify a target (default: the embedded reference server)",
        description="Run the conformance stages against a target and write reports.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "--base-url", metavar="URL", help="the target's base URL (default: embedded server)"
    )
    run.add_argument(
        "--profile", metavar="FILE", help="the target profile (YAML); required with --base-url"
    )
    run.add_argument(
        "--report-dir", metavar="DIR", default="reports", help="where reports go (default: reports)"
    )
    run.add_argument(
        "--requirements",
        metavar="ID,...",
        help="check only these requirement ids (comma-separated)",
    )
    run.add_argument(
        "--stage",
        choices=[*by_name(), "all"],
        default="scenarios",
        help="which stage to run (default: scenarios): "
        + "; ".join(f"{s.name}: {s.help}" for s in REGISTRY)
        + "; all: "
        + ", ".join(s.name for s in REGISTRY if s.in_all),
    )
    run.add_argument(
        "-n",
        "--workers",
        metavar="N",
        default="auto",
        help="parallel pytest-xdist workers; 'auto' is 2 on loopback and more the farther the "
        "target (one per 10 ms of round trip, at most 8); 0 runs in one process; the load and "
        "client stages always run in one (default: auto)",
    )
    run.add_argument(
        "--quiet", action="store_true", help="no per-test progress, only the summary lines"
    )
    run.add_argument(
        "--run-deadline",
        metavar="SECONDS",
        type=seconds_option,
        help="after this many seconds no further test starts (each fails with a note); "
        "the reports are still written (default: 1800)",
    )
    run.add_argument(
        "--accept-incomplete",
        action="store_true",
        help="exit 0 for an incomplete verdict (requirements not measured); the reports still "
        "say incomplete",
    )
    run.add_argument("pytest_args", nargs="*", metavar="-- PYTEST-ARGS", help=argparse.SUPPRESS)
    for stage in REGISTRY:
        if stage.add_options is not None:
            stage.add_options(run.add_argument_group(f"{stage.name} stage"))
    for module in COMMANDS.values():
        importlib.import_module(module).add_parser(commands)
    return parser


def _workers(value: str) -> int:
    if value == "auto":
        return 2
    try:
        workers = int(value)
    except ValueError:
        raise UsageError(f"--workers {value!r} is not a number", "pass a number or auto") from None
    if workers < 0:
        raise UsageError("--workers must be 0 or more", "pass a number or auto")
    return workers


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


def one_process(choice: str) -> bool:
    """Whether the chosen stages run without xdist workers (each measures in one fixture)."""
    return all(stage.one_process for stage in stages_of(choice))


def stage_plugins(choice: str) -> tuple[str, ...] | None:
    """The plugins the chosen stages load with autoloading off; None: autoload (some stage needs
    installed plugins)."""
    chosen = stages_of(choice)
    if any(stage.plugins is None for stage in chosen):
        return None
    return tuple(dict.fromkeys(p for stage in chosen for p in stage.plugins or ()))


def pytest_args(
    options: argparse.Namespace, base_url: str, profile_path: Path, ini: Path, workers: int
) -> list[str]:
    root = Path(__file__).resolve().parent.parent
    plugins = stage_plugins(options.stage)
    args = [
        arg for name in [*(plugins or ()), "conformance.run.stop_signals"] for arg in ("-p", name)
    ]
    for stage in stages_of(options.stage):
        if stage.pytest_args is not None:
            args += stage.pytest_args(options)
    args += [
        "-c",
        str(ini),
        "--rootdir",
        str(root),
        "--pyargs",
        *stage_modules(options.stage),
        "--base-url",
        base_url,
        "--target-profile",
        str(profile_path),
        "--report-dir",
        str(options.report_dir),
        "--alluredir",
        str(Path(options.report_dir) / "allure-results"),
        "--clean-alluredir",
    ]
    if options.requirements:
        args += ["--requirements", options.requirements]
    if getattr(options, "run_deadline", None) is not None:
        args += ["--run-deadline", f"{options.run_deadline:g}"]
    if workers:
        args += ["-n", str(workers), "--dist", "loadgroup"]
    args += ["-qq", "--no-header", "-p", "no:warnings"] if options.quiet else ["-q", "-rfE"]
    return [*args, *options.pytest_args]


@contextmanager
def _plugin_autoload(enabled: bool) -> Iterator[None]:
    """Turn pytest's plugin autoloading off for this run (xdist workers inherit it)."""
    name = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
    saved = os.environ.get(name)
    if not enabled:
        os.environ[name] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def run(options: argparse.Namespace) -> int:
    """``conformance run``; SIGINT and SIGTERM stop it with its reports (``stop_signals``)."""
    started = time.monotonic()
    with stop_signals.handling():
        try:
            return _run(options, started)
        except KeyboardInterrupt:
            return stopped_outside_pytest(started)


def _run(options: argparse.Namespace, started: float) -> int:
    workers = _workers(options.workers)
    if one_process(options.stage):
        workers = 0
    target = resolve(options.base_url, options.profile)
    try:
        preflight(target)
        if (
            options.workers == "auto" and workers
        ):  # from the round trip (conformance/run/workers.py)
            workers = auto(target.base_url, target.profile)
        if not options.quiet:
            kind = "embedded reference server" if target.embedded else "target"
            print(f"conformance: certifying {kind} at {target.base_url}", flush=True)
        with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
            ini = Path(tmp) / "pytest.ini"
            ini.write_text(PYTEST_INI, encoding="utf-8")

            capture = ReportCapture()
            args = pytest_args(
                options, target.base_url, target.profile_path or Path(), ini, workers
            )
            autoload = stage_plugins(options.stage) is None
            with _plugin_autoload(autoload):
                code = pytest.main(args, plugins=[capture])
    finally:
        target.stop()
    elapsed = time.monotonic() - started
    report = capture.report
    stop = stop_signals.stopped()
    if report is None:
        if stop is not None:
            return stopped_without_report(stop.note(started))
        if code in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
            return EXIT_USAGE
        raise UsageError(
            f"no conformance test ran (pytest exit status {int(code)})",
            "check --requirements and any pytest arguments after --",
        )
    where = str(capture.written[0].parent) if capture.written else options.report_dir
    print(summary_line(report, elapsed, where), flush=True)
    if stop is not None:
        print(f"conformance: {stop.note(started)}: the reports hold what was measured", flush=True)
    status = exit_status(
        report.verdict, accept_incomplete=options.accept_incomplete, stopped=stop is not None
    )
    if report.verdict is Verdict.INCOMPLETE and status == EXIT_CONFORMANT:
        print(
            "conformance: incomplete verdict accepted on purpose (--accept-incomplete): exit 0",
            flush=True,
        )
    return status


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
    """The exit status of ``conformance run`` for a verdict (see the module docstring); a run
    stopped by a signal is never 0."""
    if verdict is Verdict.NOT_CONFORMANT:
        return EXIT_NOT_CONFORMANT
    if stopped:
        return EXIT_INCOMPLETE
    if verdict is Verdict.INCOMPLETE and not accept_incomplete:
        return EXIT_INCOMPLETE
    return EXIT_CONFORMANT


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    options = parser.parse_args(argv)
    if options.command != "run" and options.command not in COMMANDS:
        parser.print_help()
        return EXIT_USAGE
    try:
        if options.command in COMMANDS:
            return int(importlib.import_module(COMMANDS[options.command]).main(options))
        return run(options)
    except UsageError as error:
        print(f"conformance: usage error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("conformance: interrupted", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
