"""``conformance selftest``: run the catalogues of one-defect variants and print the mutation score.

Three catalogues, one per side the suite judges, each entry declaring as data the requirement ids
its one defect breaks:

- ``server``: the faulty servers, ``tests/faulty`` (judged by the scenarios stage), with the other
  self-tests of that directory (slow targets, the reference server behind added latency, the
  table of not-measurable paths, the catalogue's reach);
- ``client``: the faulty clients, ``tests/faulty/clients`` (one-defect variants of ``refclient``
  judged by the client stage), with the correct-but-different variants the stage must pass;
- ``load``: the load faults, ``tests/faulty/test_load_faults.py`` (servers whose defect only shows
  under a fleet, judged by the load stage), with the reference server meeting every objective
  they declare.

They live in the source checkout, not in the installed package: they wrap the reference server
and client, which the ``conformance`` package never imports (see ARCHITECTURE.md). This command
runs pytest in this process on each side's tests of the checkout it was loaded from, one side
after the other (the client and load stages judge timing and throughput: a side wants the
machine to itself; within the server and client sides, two entries at a time), and reads each
fault's verdict from the test reports: the declared set (``fault_breaks``) and the set its stage
failed (``fault_failed``). From an installed wheel without the tests it is a usage error that
says so.

The score, per side: faults run, caught with exactly their declared set, caught with another set
(a check too loose or too wide), missed (nothing failed, or no verdict at all); and the side's
requirements broken by a fault (server: of the breakable ones, over the whole catalogue, as
``tests/faulty/test_coverage.py`` records it; client and load: by the faults run, over the
stage's requirements).

Options that belong to some sides only: ``--section`` and ``--full`` (the harness reads
``RCES_SELFTEST_FULL``: the whole suite against each fault) are the server side's, ``--workers``
the server and client sides' (entries run in parallel). ``--only`` names entries of one
catalogue (``RCES_SELFTEST_ONLY``, read by each catalogue's test): the server's unless ``--side``
names another. Given with a side it does not apply to, an option is a usage error.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import UsageError
from conformance.stages import by_name

SERVER, CLIENT, LOAD = "server", "client", "load"
FULL_ENV = "RCES_SELFTEST_FULL"  # read by tests/faulty/harness.py
ONLY_ENV = "RCES_SELFTEST_ONLY"  # read by each catalogue's test (tests/faulty/selection.py)
SECTIONS = ("escapes", "defects")  # defects: every fault outside the escapes section
DEFAULT_WORKERS = "2"  # entries run in parallel (server and client sides)
# What a fault's test records (record_property): its declared set, the set its stage failed, and
# how long its own run took.
DECLARED, FAILED, SECONDS = "fault_breaks", "fault_failed", "fault_seconds"

# pytest's exit statuses a side's run may end with (failures are counted from the reports).
EXPECTED_CODES = (
    pytest.ExitCode.OK,
    pytest.ExitCode.TESTS_FAILED,
    pytest.ExitCode.NO_TESTS_COLLECTED,  # -k matched no entry of this side
)
EXACT, OTHER, MISSED = "caught exactly", "caught with another set", "missed"


@dataclass(frozen=True)
class Side:
    """One catalogue: what pytest collects for it, and which of its tests judge a fault."""

    name: str
    what: str
    paths: tuple[str, ...]  # a whole run, relative to the checkout
    chosen_paths: tuple[str, ...]  # a run of the entries --only/--section choose
    fault_test: str  # the test function that judges one entry
    ignore: tuple[str, ...] = ()
    parallel: bool = False  # --workers applies
    # The stage whose requirements its reach counts; None: the run records the figures itself.
    stage: str | None = None


SIDES: dict[str, Side] = {
    SERVER: Side(
        SERVER,
        "faulty servers, tests/faulty",
        ("tests/faulty",),
        # A chosen subset runs only the catalogue's test (and the reach figures), not the other
        # self-tests of tests/faulty (slow targets and the like).
        ("tests/faulty/test_catalogue.py", "tests/faulty/test_coverage.py"),
        "test_fault_is_caught_exactly",
        ignore=("tests/faulty/clients", "tests/faulty/test_load_faults.py"),
        parallel=True,
    ),
    CLIENT: Side(
        CLIENT,
        "faulty clients, tests/faulty/clients",
        ("tests/faulty/clients",),
        ("tests/faulty/clients",),
        "test_client_variant_fails_exactly_its_declared_set",
        # Two at a time kept every verdict (22/22 in 290 s against about 490 s one at a time; a
        # stage run waits more than it computes: 0.6 of a core).
        parallel=True,
        stage="client",
    ),
    LOAD: Side(
        LOAD,
        "load faults, tests/faulty/test_load_faults.py",
        ("tests/faulty/test_load_faults.py",),
        ("tests/faulty/test_load_faults.py::test_load_fault_is_caught_exactly",),
        "test_load_fault_is_caught_exactly",
        stage="load",
    ),
}
ORDER = (SERVER, CLIENT, LOAD)
# Options that belong to some sides only: option -> the sides it applies to.
APPLIES: dict[str, tuple[str, ...]] = {
    "--section": (SERVER,),
    "--full": (SERVER,),
    "--workers": tuple(name for name in ORDER if SIDES[name].parallel),
}


def checkout_root() -> Path:
    return Path(__file__).resolve().parents[2]


def check_checkout(sides: Sequence[Side], root: Path | None = None) -> None:
    """Every path the sides collect is there; else the usage error of an installed package."""
    root = root or checkout_root()
    missing = [p for side in sides for p in side.paths if not (root / p).exists()]
    if missing:
        raise UsageError(
            "conformance selftest needs the catalogues of one-defect variants (tests/faulty, "
            "tests/faulty/clients, tests/load), which are part of the source checkout and not "
            f"of the installed package (missing: {', '.join(missing)})",
            "run it from a clone of the repository, with the kit installed from it "
            '(python -m pip install -e ".[test]")',
        )


# --- options -----------------------------------------------------------------------------------


DESCRIPTION = """\
Run the three catalogues of one-defect variants, one side after the other, and
check each entry fails exactly the requirements its defect breaks:
  server  the faulty servers, tests/faulty (judged by the scenarios stage; with
          the other self-tests of tests/faulty)
  client  the faulty clients, tests/faulty/clients (the client stage; with the
          correct-but-different clients, which must fail nothing)
  load    the load faults, tests/faulty/test_load_faults.py (the load stage; with
          the reference server meeting the objectives they declare)
Prints a line as each side starts and ends, then one score table. Needs the
source checkout. Exit status: 0 when every fault is caught exactly and every
other self-test passes, 1 otherwise, 2 for a usage error."""

EPILOG = """\
examples:
  conformance selftest                          all three sides
  conformance selftest --full                   the server side against the whole suite
  conformance selftest --side client            the faulty clients only
  conformance selftest --side load --only hint-never-goes
  conformance selftest --section escapes        server side: one section"""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "selftest",
        help="run the catalogues of one-defect servers, clients and load faults and print the "
        "mutation score (source checkout)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument(
        "--side",
        choices=ORDER,
        help="run one catalogue only (default: all three; --only and --section alone mean the "
        "server side)",
    )
    parser.add_argument(
        "-n",
        "--workers",
        default=None,
        metavar="N",
        help=f"server and client sides: entries run in parallel (default: {DEFAULT_WORKERS}); "
        "the load catalogue runs one fault at a time (it judges throughput, on fixed ports)",
    )
    parser.add_argument(
        "-k",
        "--faults",
        metavar="EXPR",
        help="every side: only entries whose name matches (pytest -k); a side where none "
        "matches runs nothing",
    )
    parser.add_argument(
        "--only",
        metavar="NAME,...",
        help="exactly these entries of one catalogue (comma-separated): the server side's, or "
        "the one --side names; an unknown name is a usage error",
    )
    parser.add_argument(
        "--section",
        choices=SECTIONS,
        help="server side only: one section of the catalogue (escapes: faults that hide behind "
        "a not-measurable path; defects: all the others)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="server side: run the whole suite against each fault (every requirement, not only "
        "the declared ids and their families); the failed set must still be exactly the "
        "declared one. The client and load catalogues always run their whole stage, so with "
        "all sides this changes the server side only",
    )


def selection(options: argparse.Namespace) -> str:
    """The ``RCES_SELFTEST_ONLY`` value: ``section:NAME`` and/or entry names, comma-separated."""
    names = [n.strip() for n in (getattr(options, "only", None) or "").split(",") if n.strip()]
    section = getattr(options, "section", None)
    return ",".join(([f"section:{section}"] if section else []) + names)


def _given(options: argparse.Namespace) -> list[str]:
    """The side-bound options given on the command line."""
    given = {
        "--section": getattr(options, "section", None) is not None,
        "--full": bool(getattr(options, "full", False)),
        "--workers": getattr(options, "workers", None) is not None,
    }
    return [flag for flag, present in given.items() if present]


def _sides_text(names: Sequence[str]) -> str:
    return " and ".join(names) + (" side" if len(names) == 1 else " sides")


def sides_of(options: argparse.Namespace) -> list[Side]:
    """The sides to run, in order; an option given with a side it does not apply to is a usage
    error."""
    side = getattr(options, "side", None)
    workers = getattr(options, "workers", None)
    if workers is not None and not (str(workers) == "auto" or str(workers).isdigit()):
        raise UsageError(f"--workers {workers!r} is not a number", "pass a number or auto")
    if side is None:
        if selection(options):
            return [SIDES[SERVER]]  # the names of one catalogue: the server's unless --side says
        return [SIDES[name] for name in ORDER]
    for flag in _given(options):
        if side not in APPLIES[flag]:
            raise UsageError(
                f"{flag} applies to the {_sides_text(APPLIES[flag])}, not to --side {side}",
                f"drop {flag}, or run --side {APPLIES[flag][0]}"
                + (
                    " (the client and load catalogues always run their whole stage)"
                    if flag == "--full"
                    else ""
                ),
            )
    return [SIDES[side]]


# --- what the reports say ----------------------------------------------------------------------


def _names(value: object) -> frozenset[str] | None:
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(str(v) for v in value)
    return None


@dataclass(frozen=True)
class FaultReport:
    """One entry's verdict: what it declares and what its stage failed."""

    name: str
    declared: frozenset[str] | None  # None: not recorded (the test broke before it started)
    failed: frozenset[str] | None  # None: no verdict (no report, or the run raised)
    passed: bool  # its test passed
    known: bool = False  # a strict xfail: a documented mismatch
    seconds: float | None = None

    @property
    def correct(self) -> bool:
        """A correct-but-different variant: it declares nothing and must fail nothing."""
        return self.declared == frozenset()

    @property
    def verdict(self) -> str:
        if self.failed is None or self.declared is None:
            return MISSED
        if self.failed == self.declared:
            return EXACT
        return OTHER if self.failed else MISSED

    def explain(self) -> str:
        declared = sorted(self.declared) if self.declared is not None else "?"
        if self.failed is None:
            got = "no verdict (the stage gave no report, or the run raised: see its failure above)"
        else:
            got = f"failed {sorted(self.failed) if self.failed else 'nothing'}"
        known = " (known mismatch, strict xfail)" if self.known else ""
        return f"{self.name}: declared {declared}, {got}{known}"


@dataclass(eq=False)  # a plugin object: pytest keeps it in sets
class Tally:
    """What one side's test reports say, gathered on the pytest controller."""

    fault_test: str
    faults: dict[str, FaultReport] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # other tests that failed
    collection_errors: list[str] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.collection_errors.append(str(report.nodeid) or "(collection)")

    def pytest_runtest_logreport(self, report: Any) -> None:
        recorded = dict(report.user_properties)
        self.properties.update(recorded)
        if self.fault_test not in report.nodeid:
            if report.failed:
                self.errors.append(report.nodeid)
            return
        name = report.nodeid.rsplit("[", 1)[-1].rstrip("]") if "[" in report.nodeid else ""
        if report.when == "teardown":
            if report.failed:
                self.errors.append(report.nodeid)
            return
        if report.when == "setup" and report.passed:
            return
        known = hasattr(report, "wasxfail")
        seconds = recorded.get(SECONDS)
        self.faults[name] = FaultReport(
            name=name,
            declared=_names(recorded.get(DECLARED)),
            failed=_names(recorded.get(FAILED)),
            passed=bool(report.passed) and not known,
            known=known and bool(report.skipped),
            seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
        )
        if report.failed and self.faults[name].verdict == EXACT:
            self.errors.append(report.nodeid)  # exact, yet failed: a stale xfail, or unjudged


@dataclass(frozen=True)
class SideRun:
    """One side's run as the score table shows it."""

    side: str
    faults: tuple[FaultReport, ...]
    correct: tuple[FaultReport, ...] = ()  # correct-but-different variants
    errors: tuple[str, ...] = ()  # other self-tests that failed
    covered: int | None = None  # requirements broken by a fault
    requirements: int | None = None  # the side's requirements (server: the breakable ones)
    note: str = ""  # how ``requirements`` reads (server: how many are not breakable)
    seconds: float = 0.0
    code: int = 0  # pytest's exit status

    def count(self, verdict: str) -> int:
        return sum(1 for f in self.faults if f.verdict == verdict)

    @property
    def exact(self) -> bool:
        return all(f.verdict == EXACT for f in self.faults)

    @property
    def ok(self) -> bool:
        """Every fault caught exactly, every correct variant passed, no other failure."""
        return (
            self.exact
            and all(c.passed for c in self.correct)
            and not self.errors
            and self.code in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
        )

    @property
    def ran_nothing(self) -> bool:
        """No entry was selected (-k matched none of this side's)."""
        return self.code == pytest.ExitCode.NO_TESTS_COLLECTED

    def state(self) -> str:
        """One line for the end of the side's run."""
        if self.ran_nothing:
            return "ran nothing (no entry selected)"
        text = f"{self.count(EXACT)}/{len(self.faults)} faults caught exactly"
        if self.correct:
            passed = sum(1 for c in self.correct if c.passed)
            text += f", {passed}/{len(self.correct)} correct variants passed"
        return text + ("" if self.ok else "; NOT all as expected (details below)")

    def reach(self) -> str:
        if self.covered is None or not self.requirements:
            return "-"
        return f"{self.covered}/{self.requirements}{self.note}"


def side_run(side: Side, tally: Tally, seconds: float, code: int) -> SideRun:
    """Fold a side's tally into its row of the table."""
    reports = list(tally.faults.values())
    faults = tuple(f for f in reports if not f.correct)
    correct = tuple(f for f in reports if f.correct)
    covered: int | None = None
    requirements: int | None = None
    note = ""
    requirements_of = by_name()[side.stage].requirements if side.stage else None
    if requirements_of is None:
        props = tally.properties
        if "requirements_checkable" in props:
            covered = int(props.get("requirements_with_fault", 0))
            requirements = int(props.get("requirements_breakable", 0))
            unbreakable = int(props["requirements_checkable"]) - requirements
            note = f" breakable ({unbreakable} not)"
    else:
        scope = requirements_of()
        broken = set().union(*(f.declared or frozenset() for f in faults))
        covered, requirements = len(scope & broken), len(scope)
    return SideRun(
        side.name,
        faults,
        correct,
        errors=(
            *(f"{e} (collection)" for e in sorted(set(tally.collection_errors))),
            *tally.errors,
        ),
        covered=covered,
        requirements=requirements,
        note=note,
        seconds=seconds,
        code=int(code),
    )


# --- the score table ---------------------------------------------------------------------------


def duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


def _share(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.0f}%)" if whole else str(part)


def score_table(runs: Sequence[SideRun]) -> list[str]:
    """The score by side, then a total row when several sides ran."""
    head = ("side", "faults", EXACT, OTHER, MISSED, "requirements with a fault", "wall time")
    rows = [
        (
            run.side,
            str(len(run.faults)),
            _share(run.count(EXACT), len(run.faults)),
            str(run.count(OTHER)),
            str(run.count(MISSED)),
            run.reach(),
            duration(run.seconds),
        )
        for run in runs
    ]
    if len(runs) > 1:
        shipped = sum(len(run.faults) for run in runs)
        rows.append(
            (
                "all",
                str(shipped),
                _share(sum(run.count(EXACT) for run in runs), shipped),
                str(sum(run.count(OTHER) for run in runs)),
                str(sum(run.count(MISSED) for run in runs)),
                "",
                duration(sum(run.seconds for run in runs)),
            )
        )
    widths = [max(len(row[i]) for row in (head, *rows)) for i in range(len(head))]

    def line(row: Sequence[str]) -> str:
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:5], widths[1:5], strict=True)]
        cells += [row[5].ljust(widths[5]), row[6].rjust(widths[6])]
        return "  " + "  ".join(cells).rstrip()

    return [line(head), *(line(row) for row in rows)]


def details(runs: Sequence[SideRun]) -> list[str]:
    """What the table cannot say: correct variants, faults not caught exactly, run times, other
    failures."""
    lines: list[str] = []
    for run in runs:
        if run.correct:
            passed = sum(1 for c in run.correct if c.passed)
            failing = ", ".join(c.explain() for c in run.correct if not c.passed)
            lines.append(
                f"  {run.side}: correct-but-different variants passed {passed}/{len(run.correct)}"
                + (f"; FAILING: {failing}" if failing else "")
            )
        for fault in run.faults:
            if fault.verdict != EXACT:
                lines.append(f"  {run.side}: {fault.verdict.upper()}: {fault.explain()}")
        unjudged = sum(1 for f in run.faults if f.failed is None)
        if unjudged:
            lines.append(
                f"  {run.side}: {unjudged} of the {run.count(MISSED)} missed have no verdict "
                "(the stage gave no report, or the run raised): see the failures above"
            )
        times = {f.name: f.seconds for f in (*run.faults, *run.correct) if f.seconds is not None}
        if times:
            slowest = max(times, key=lambda name: times[name])
            lines.append(
                f"  {run.side}: {len(times)} run{'s' if len(times) > 1 else ''}, "
                f"{sum(times.values()):.0f}s in all, median "
                f"{statistics.median(times.values()):.0f}s, longest {times[slowest]:.0f}s "
                f"({slowest})"
            )
        if run.errors:
            lines.append(f"  {run.side}: failed self-tests: {', '.join(run.errors)}")
        if run.code not in EXPECTED_CODES:
            lines.append(f"  {run.side}: pytest ended with exit status {run.code}")
    return lines


def headline(runs: Sequence[SideRun], seconds: float) -> str:
    shipped = sum(len(run.faults) for run in runs)
    exact = sum(run.count(EXACT) for run in runs)
    per_side = ", ".join(f"{run.side} {run.count(EXACT)}/{len(run.faults)}" for run in runs)
    return (
        f"conformance selftest: {exact}/{shipped} faults caught exactly ({per_side}) "
        f"in {duration(seconds)}"
    )


def exit_status(runs: Sequence[SideRun]) -> int:
    return 0 if all(run.ok for run in runs) else 1


# --- running -----------------------------------------------------------------------------------


@contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """Set these variables (xdist workers inherit them), and restore what was there."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def pytest_args(side: Side, options: argparse.Namespace, root: Path, chosen: str) -> list[str]:
    paths = side.chosen_paths if chosen else side.paths
    args = [
        *(str(root / path) for path in paths),
        *(arg for path in side.ignore for arg in ("--ignore", str(root / path))),
        "--rootdir",
        str(root),
        "-c",
        str(root / "pyproject.toml"),
        "-o",
        f"pythonpath={root}",  # tests/faulty/clients imports itself as tests.faulty.clients
        "-q",
        "-rfEX",
        "--tb=line",
        # A module that does not import (another self-test, in the middle of an edit) is
        # reported as a failure of the side; the catalogue still runs.
        "--continue-on-collection-errors",
        "-p",
        "no:randomly",
        "-p",
        "no:benchmark",  # it warns under xdist, and warnings are errors in this project
        "-m",
        "long or not long",  # the catalogues are the project's long tier, deselected by default
    ]
    workers = str(options.workers or DEFAULT_WORKERS) if side.parallel else "0"
    if workers not in ("0", "1"):
        args += ["-n", workers]
    if getattr(options, "faults", None):
        args += ["-k", options.faults]
    return args


def run_side(side: Side, options: argparse.Namespace, root: Path, position: str) -> SideRun:
    chosen = selection(options)
    full = bool(getattr(options, "full", False)) and side.name == SERVER
    mode = " --full" if full else ""
    print(
        f"conformance selftest: [{position}] {side.name} side{mode} ({side.what}): started at "
        f"{time.strftime('%H:%M:%S')}",
        flush=True,
    )
    tally = Tally(side.fault_test)
    started = time.monotonic()
    with environment({FULL_ENV: "1" if full else "", ONLY_ENV: chosen}):
        code = pytest.main(pytest_args(side, options, root, chosen), plugins=[tally])
    run = side_run(side, tally, time.monotonic() - started, int(code))
    if code == pytest.ExitCode.USAGE_ERROR or (
        tally.collection_errors and (chosen or options.faults)
    ):
        raise UsageError(
            f"the {side.name} catalogue could not be collected with this selection "
            f"({', '.join(sorted(set(tally.collection_errors))) or 'pytest usage error'}: see "
            "above)",
            f"give --only names of the {side.name} catalogue ({', '.join(side.paths)}); "
            "without --side, --only names server faults",
        )
    if code == pytest.ExitCode.INTERRUPTED and not tally.collection_errors:
        raise KeyboardInterrupt
    print(
        f"conformance selftest: [{position}] {side.name} side finished in "
        f"{duration(run.seconds)}: {run.state()}",
        flush=True,
    )
    return run


def main(options: argparse.Namespace) -> int:
    sides = sides_of(options)
    root = checkout_root()
    check_checkout(sides, root)
    started = time.monotonic()
    runs = [run_side(side, options, root, f"{i}/{len(sides)}") for i, side in enumerate(sides, 1)]
    if all(run.ran_nothing for run in runs):
        raise UsageError("no entry of any catalogue was selected", "check -k, --only and --side")
    mode = " --full" if getattr(options, "full", False) else ""
    print(f"conformance selftest{mode}: score by side", flush=True)
    for line in (*score_table(runs), *details(runs)):
        print(line)
    print(headline(runs, time.monotonic() - started), flush=True)
    return exit_status(runs)
