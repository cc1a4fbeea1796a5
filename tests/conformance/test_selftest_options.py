"""``conformance selftest`` options: --only/--section become the catalogue's selection, --full
reaches the harness through the environment, and each fault's run time is tallied."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

from conformance import selftest


def _options(**given: object) -> argparse.Namespace:
    return argparse.Namespace(**{"only": None, "section": None, "full": False, **given})


def test_selection_joins_section_and_exact_names() -> None:
    assert selftest.selection(_options()) == ""
    assert selftest.selection(_options(section="escapes")) == "section:escapes"
    chosen = selftest.selection(_options(only=" a-b , c ", section="defects"))
    assert chosen == "section:defects,a-b,c"


def test_the_parser_knows_full_only_and_section() -> None:
    parser = argparse.ArgumentParser()
    selftest.add_parser(parser.add_subparsers(dest="command"))
    options = parser.parse_args(["selftest", "--full", "--only", "x,y", "--section", "escapes"])
    assert options.full and options.only == "x,y" and options.section == "escapes"


def test_tally_keeps_each_faults_seconds() -> None:
    tally = selftest.Tally()
    report = SimpleNamespace(
        nodeid=f"tests/faulty/test_catalogue.py::{selftest.FAULT_TEST}[polling-never]",
        user_properties=[("fault_seconds", 12.5)],
        when="call",
        passed=True,
        failed=False,
        skipped=False,
    )
    tally.pytest_runtest_logreport(report)
    assert tally.caught == ["polling-never"]
    assert tally.seconds == {"polling-never": 12.5}
