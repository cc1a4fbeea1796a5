"""Running the catalogues of one-defect variants (``conformance selftest``) and scoring them.

Four catalogues: one per side the suite judges, each entry declaring as data the requirement ids
its one defect breaks, and the correct-but-different servers, which must break none:

- ``server``: the faulty servers, ``tests/faulty`` (judged by the scenarios stage), with the other
  self-tests of that directory (slow targets, the reference server behind added latency, the
  table of not-measurable paths, the catalogue's reach);
- ``client``: the faulty clients, ``tests/faulty/clients`` (one-defect variants of ``refclient``
  judged by the client stage), with the correct-but-different variants the stage must pass;
- ``load``: the load faults, ``tests/faulty/test_load_faults.py`` (servers whose defect only shows
  under a fleet, judged by the load stage), with the reference server meeting every objective
  they declare;
- ``variants``: the correct-but-different servers, ``tests/variants`` (the reference server behind
  one rewrite that fills a gap of the specification another way, or many at once), each
  *passed exactly* when the kit finds it interface-conformant with exactly its drop-in
  differences.

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
``--record FILE`` also writes each entry's side, declared set, failed set and exactness as JSON
(``record.py``), which ``tests/spec_trace/generate.py --record FILE`` reads for the kill rates.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from conformance.errors import UsageError
from conformance.report import step_summary
from conformance.selftest.catches import SideResult, Tally, side_result
from conformance.selftest.record import write_record
from conformance.selftest.score import details, duration, exit_status, headline, score_table
from conformance.selftest.sides import (
    APPLIES,
    ORDER,
    SERVER,
    SIDES,
    Side,
    check_checkout,
    checkout_root,
)

FULL_ENV = "RCES_SELFTEST_FULL"  # read by tests/faulty/harness.py
ONLY_ENV = "RCES_SELFTEST_ONLY"  # read by each catalogue's test (tests/faulty/selection.py)
DEFAULT_WORKERS = "2"  # entries run in parallel (server and client sides)


# --- options -----------------------------------------------------------------------------------


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
    if len(names) == 1:
        return f"{names[0]} side"
    return ", ".join(names[:-1]) + f" and {names[-1]} sides"


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


def run_side(side: Side, options: argparse.Namespace, root: Path, position: str) -> SideResult:
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
    # The catalogues' runs are not the job's: none of them appends to a CI job summary.
    quiet = {step_summary.ENV: ""}
    with environment({FULL_ENV: "1" if full else "", ONLY_ENV: chosen, **quiet}):
        code = pytest.main(pytest_args(side, options, root, chosen), plugins=[tally])
    run = side_result(side, tally, time.monotonic() - started, int(code))
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


def run_selftest(options: argparse.Namespace) -> int:
    """``conformance selftest``: the chosen sides in turn, the score, the exit status."""
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
    if getattr(options, "record", None) is not None:
        chosen = {
            "only": selection(options),
            "faults": getattr(options, "faults", None) or "",
            "full": bool(getattr(options, "full", False)),
        }
        write_record(options.record, runs, chosen)
        print(f"conformance selftest: recorded each entry's verdict in {options.record}")
    return exit_status(runs)
