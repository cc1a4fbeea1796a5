"""``conformance selftest``: its arguments, handed to ``conformance.selftest.running``."""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.selftest.running import DEFAULT_WORKERS, run_selftest
from conformance.selftest.sides import ORDER, SECTIONS

DESCRIPTION = """\
Run the catalogues of one-defect variants, one side after the other, and
check each entry fails exactly the requirements its defect breaks, and the
catalogue of correct-but-different servers, each of which must pass exactly:
  server  the faulty servers, tests/faulty (judged by the scenarios stage; with
          the other self-tests of tests/faulty)
  client  the faulty clients, tests/faulty/clients (the client stage; with the
          correct-but-different clients, which must fail nothing)
  load    the load faults, tests/faulty/test_load_faults.py (the load stage; with
          the reference server meeting the objectives they declare)
  variants  the correct-but-different servers, tests/variants (interface-
          conformant with exactly their drop-in differences)
Prints a line as each side starts and ends, then one score table. Needs the
source checkout. Exit status: 0 when every fault is caught exactly, every
variant passed exactly and every other self-test passes, 1 otherwise, 2 for a
usage error."""

EPILOG = """\
examples:
  conformance selftest                          all four sides
  conformance selftest --side variants -k status  some correct variants
  conformance selftest --full                   the server side against the whole suite
  conformance selftest --side client            the faulty clients only
  conformance selftest --side load --only hint-never-goes
  conformance selftest --section escapes        server side: one section
  conformance selftest --record run.json        also each entry's verdict as JSON"""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        help="run one catalogue only (default: all four; --only and --section alone mean the "
        "server side)",
    )
    parser.add_argument(
        "-n",
        "--workers",
        default=None,
        metavar="N",
        help="server, client and variants sides: entries run in parallel (default: "
        f"{DEFAULT_WORKERS}); the load catalogue runs one fault at a time (it judges "
        "throughput, on fixed ports)",
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
    parser.add_argument(
        "--record",
        metavar="FILE",
        type=Path,
        help="also write each entry's side, declared set, failed set and whether it came out "
        "exactly as JSON to FILE (python tests/spec_trace/generate.py --record FILE reads it "
        "for the kill rates of docs/trace.md and the HTML report)",
    )


def main(options: argparse.Namespace) -> int:
    return run_selftest(options)
