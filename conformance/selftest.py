"""``conformance selftest``: run the faulty-server catalogue and print the suite's mutation score.

The catalogue of one-defect servers lives in the source checkout (``tests/faulty/``), not in the
installed package: it wraps the reference server, and the ``conformance`` package never imports
``refserver`` (see ARCHITECTURE.md). This command therefore runs pytest on ``tests/faulty`` of the
checkout this package was loaded from, in parallel (pytest-xdist), and reads each fault's verdict
from the test reports. From an installed wheel without the tests it is a usage error that says so.

Mutation score: faults caught with exactly their declared requirement set over shipped faults, and
requirements with a fault over all server requirements.

``--full`` runs the whole suite against every fault (the harness reads ``RCES_SELFTEST_FULL``):
every checkable requirement is judged, not only the declared ids and their families, so a failure
far from the defect counts against the fault's exact set too. ``--only`` and ``--section`` pick
faults by exact name or by catalogue section (``RCES_SELFTEST_ONLY``, read by the catalogue's test).
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.errors import UsageError

FAULT_TEST = "test_fault_is_caught_exactly"
FULL_ENV = "RCES_SELFTEST_FULL"  # read by tests/faulty/harness.py
ONLY_ENV = "RCES_SELFTEST_ONLY"  # read by tests/faulty/test_catalogue.py
SECTIONS = ("escapes", "defects")  # defects: every fault outside the escapes section


def checkout_root() -> Path:
    return Path(__file__).resolve().parent.parent


def faulty_dir() -> Path:
    """``tests/faulty`` of the source checkout; a usage error for an installed package alone."""
    path = checkout_root() / "tests" / "faulty"
    if not (path / "catalogue.py").is_file():
        raise UsageError(
            "conformance selftest needs the faulty-server catalogue (tests/faulty), which is part "
            "of the source checkout and not of the installed package",
            "run it from a clone of the repository, with the kit installed from it "
            '(python -m pip install -e ".[test]")',
        )
    return path


@dataclass
class Tally:
    """What the catalogue's test reports say, gathered on the pytest controller."""

    caught: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)  # strict xfail: a documented mismatch
    missed: list[str] = field(default_factory=list)  # an undocumented mismatch (or an XPASS)
    errors: list[str] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # each fault's own serve-and-run

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.properties.update(dict(report.user_properties))
        name = report.nodeid.rsplit("[", 1)[-1].rstrip("]") if "[" in report.nodeid else ""
        took = dict(report.user_properties).get("fault_seconds")
        if name and isinstance(took, (int, float)):
            self.seconds[name] = float(took)
        if FAULT_TEST not in report.nodeid:
            if report.failed:
                self.errors.append(report.nodeid)
            return
        if report.when == "call" or (report.when == "setup" and not report.passed):
            if hasattr(report, "wasxfail"):
                (self.known if report.skipped else self.missed).append(name)
            elif report.passed:
                self.caught.append(name)
            elif report.failed:
                self.missed.append(name)

    @property
    def shipped(self) -> int:
        return len(self.caught) + len(self.known) + len(self.missed)


@dataclass(frozen=True)
class Score:
    caught: int
    shipped: int
    with_fault: int
    checkable: int
    breakable: int = 0  # checkable requirements not listed as unbreakable from the outside

    def line(self) -> str:
        def share(a: int, b: int) -> str:
            return f"{a}/{b} ({100 * a / b:.1f}%)" if b else f"{a}/{b}"

        return (
            f"mutation score: faults caught exactly {share(self.caught, self.shipped)}; "
            f"breakable requirements with a fault {share(self.with_fault, self.breakable)}; "
            f"requirements with a fault {share(self.with_fault, self.checkable)} "
            f"({self.checkable - self.breakable} not breakable from the outside)"
        )


def score_of(tally: Tally) -> Score:
    return Score(
        caught=len(tally.caught),
        shipped=tally.shipped,
        with_fault=int(tally.properties.get("requirements_with_fault", 0)),
        checkable=int(tally.properties.get("requirements_checkable", 0)),
        breakable=int(tally.properties.get("requirements_breakable", 0)),
    )


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "selftest",
        help="run the faulty-server catalogue and print the mutation score (source checkout)",
        description="Serve each one-defect server of tests/faulty, run the suite against it, "
        "and check it fails exactly the requirements the defect breaks.",
    )
    parser.add_argument(
        "-n", "--workers", default="2", metavar="N", help="parallel faults (default: 2)"
    )
    parser.add_argument(
        "-k", "--faults", metavar="EXPR", help="only faults whose name matches (pytest -k)"
    )
    parser.add_argument(
        "--only", metavar="NAME,...", help="only the faults of these exact names (comma-separated)"
    )
    parser.add_argument(
        "--section",
        choices=SECTIONS,
        help="only one section of the catalogue (escapes: faults that hide behind a "
        "not-measurable path; defects: all the others)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="run the whole suite against each fault (every requirement, not only the declared "
        "ids and their families); the failed set must still be exactly the declared one",
    )


def selection(options: argparse.Namespace) -> str:
    """The ``RCES_SELFTEST_ONLY`` value: ``section:NAME`` and/or fault names, comma-separated."""
    names = [n.strip() for n in (getattr(options, "only", None) or "").split(",") if n.strip()]
    section = getattr(options, "section", None)
    return ",".join(([f"section:{section}"] if section else []) + names)


def main(options: argparse.Namespace) -> int:
    import pytest

    where = faulty_dir()
    root = checkout_root()
    chosen = selection(options)
    # A chosen subset runs only the catalogue's test (and the reach figures), not the other
    # self-tests of tests/faulty (slow targets and the like).
    paths = [where / "test_catalogue.py", where / "test_coverage.py"] if chosen else [where]
    args = [
        *(str(path) for path in paths),
        "--rootdir",
        str(root),
        "-c",
        str(root / "pyproject.toml"),
        "-q",
        "-rfEX",
        "--tb=line",
        "-p",
        "no:randomly",
        "-m",
        "long or not long",  # the catalogue is the project's long tier, deselected by default
    ]
    if str(options.workers) not in ("0", "1"):
        args += ["-n", str(options.workers)]
    if options.faults:
        args += ["-k", options.faults]
    full = bool(getattr(options, "full", False))
    saved = {name: os.environ.get(name) for name in (FULL_ENV, ONLY_ENV)}
    os.environ[FULL_ENV] = "1" if full else ""
    os.environ[ONLY_ENV] = chosen  # xdist workers inherit the environment
    tally = Tally()
    started = time.monotonic()
    try:
        code = pytest.main(args, plugins=[tally])
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    elapsed = time.monotonic() - started
    score = score_of(tally)
    mode = " --full (whole suite against each fault)" if full else ""
    print(f"conformance selftest{mode}: {score.line()}; in {elapsed:.0f}s", flush=True)
    if tally.seconds:
        runs = sorted(tally.seconds.values())
        slowest = max(tally.seconds, key=lambda n: tally.seconds[n])
        print(
            f"  fault runs: {len(runs)}, {sum(runs):.0f}s in all, "
            f"median {runs[len(runs) // 2]:.0f}s, longest {runs[-1]:.0f}s ({slowest})"
        )
    if tally.known:
        print(f"  known mismatches (strict xfail): {', '.join(sorted(tally.known))}")
    if tally.missed:
        print(f"  UNEXPECTED mismatches: {', '.join(sorted(tally.missed))}")
    if tally.errors:
        print(f"  failed self-tests: {', '.join(tally.errors)}")
    if code in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
        return 2
    return 0 if code == pytest.ExitCode.OK else 1
