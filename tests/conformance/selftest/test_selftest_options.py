"""``conformance selftest`` options and score: which sides run, which options apply to which
side (a usage error otherwise), what pytest is asked to run, how each fault was caught as the tally
reads it from the test reports, and the score table built from them."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.catalogue.requirements import load_catalogue
from conformance.cli import selftest as selftest_command
from conformance.errors import UsageError
from conformance.selftest import catches, score, sides
from conformance.selftest import running as selftest
from conformance.selftest.catches import EXACT, MISSED, OTHER, FaultReport, SideResult

ROOT = Path("/checkout")


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    selftest_command.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["selftest", *argv])


def _options(**given: object) -> argparse.Namespace:
    defaults = {"only": None, "section": None, "full": False, "side": None, "workers": None}
    return argparse.Namespace(**{**defaults, "faults": None, **given})


def _sides(*argv: str) -> list[str]:
    return [side.name for side in selftest.sides_of(_parse(*argv))]


# --- options -----------------------------------------------------------------------------------


def test_selection_joins_section_and_exact_names() -> None:
    assert selftest.selection(_options()) == ""
    assert selftest.selection(_options(section="escapes")) == "section:escapes"
    chosen = selftest.selection(_options(only=" a-b , c ", section="defects"))
    assert chosen == "section:defects,a-b,c"


def test_the_parser_knows_every_option() -> None:
    options = _parse(
        "--full", "--only", "x,y", "--section", "escapes", "--side", "server", "-n", "3", "-k", "z"
    )
    assert options.full and options.only == "x,y" and options.section == "escapes"
    assert (options.side, options.workers, options.faults) == ("server", "3", "z")
    with pytest.raises(SystemExit):
        _parse("--side", "fuzz")


def test_all_four_sides_run_by_default_in_order() -> None:
    every = ["server", "client", "load", "variants"]
    assert _sides() == every
    assert _sides("--full") == every  # --full changes the server side only
    assert _sides("-n", "3") == every
    assert _sides("-k", "hint") == every


def test_one_side_with_side_and_the_server_side_for_a_selection_alone() -> None:
    for side in ("server", "client", "load", "variants"):
        assert _sides("--side", side) == [side]
    assert _sides("--only", "polling-never") == ["server"]  # as before there were three sides
    assert _sides("--section", "escapes") == ["server"]
    assert _sides("--side", "client", "--only", "no-hash") == ["client"]
    assert _sides("--side", "load", "--only", "hint-never-goes", "-k", "x") == ["load"]
    assert _sides("--side", "server", "--full", "--section", "defects", "-n", "1") == ["server"]
    assert _sides("--side", "client", "-n", "1") == ["client"]
    assert _sides("--side", "variants", "-n", "2", "--only", "etag-weak") == ["variants"]


@pytest.mark.parametrize(
    ("argv", "option", "applies_to"),
    [
        (("--side", "client", "--full"), "--full", "the server side"),
        (("--side", "load", "--full"), "--full", "the server side"),
        (("--side", "client", "--section", "escapes"), "--section", "the server side"),
        (("--side", "load", "--section", "defects"), "--section", "the server side"),
        (("--side", "load", "-n", "2"), "--workers", "the server, client and variants sides"),
        (("--side", "variants", "--full"), "--full", "the server side"),
        (("--side", "variants", "--section", "escapes"), "--section", "the server side"),
    ],
)
def test_an_option_with_a_side_it_does_not_apply_to_is_a_usage_error(
    argv: tuple[str, ...], option: str, applies_to: str
) -> None:
    with pytest.raises(UsageError) as raised:
        selftest.sides_of(_parse(*argv))
    message = str(raised.value)
    assert f"{option} applies to {applies_to}, not to --side {argv[1]}" in message
    assert raised.value.what_to_do.startswith(f"drop {option}")


def test_workers_must_be_a_number_or_auto() -> None:
    with pytest.raises(UsageError, match="--workers 'many' is not a number"):
        selftest.sides_of(_parse("-n", "many"))
    assert _sides("-n", "auto") == ["server", "client", "load", "variants"]


def test_the_help_says_which_side_each_option_applies_to(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        _parse("--help")
    text = " ".join(capsys.readouterr().out.split())
    for side in ("server", "client", "load"):
        assert f"{side} the faulty" in text or f"{side} the load" in text
    assert "--section {escapes,defects} server side only" in text
    assert "--full server side:" in text
    assert "variants the correct-but-different servers, tests/variants" in text
    assert "-n N, --workers N server, client and variants sides:" in text
    assert "every variant passed exactly" in text  # the exit status
    assert "-k EXPR, --faults EXPR every side:" in text
    assert "the server side's, or the one --side names" in text  # --only
    assert "2 for a usage error" in text


# --- what pytest runs ----------------------------------------------------------------------------


def _args(side: str, chosen: str = "", **given: object) -> list[str]:
    return selftest.pytest_args(sides.SIDES[side], _options(**given), ROOT, chosen)


def test_each_side_collects_its_own_catalogue() -> None:
    server = _args("server")
    assert server[0] == "/checkout/tests/faulty"
    assert server[server.index("--ignore") + 1] == "/checkout/tests/faulty/clients"
    assert server[server.index("-n") + 1] == "2"
    assert _args("server", "section:escapes")[:2] == [
        "/checkout/tests/faulty/test_catalogue.py",
        "/checkout/tests/faulty/test_coverage.py",
    ]
    client = _args("client", "no-hash", workers="3")
    assert client[0] == "/checkout/tests/faulty/clients" and "--ignore" not in client
    assert client[client.index("-n") + 1] == "3"
    load = _args("load", "", faults="hint")
    assert load[0] == "/checkout/tests/faulty/test_load_faults.py"
    assert "-n" not in load and load[load.index("-k") + 1] == "hint"
    chosen_load = _args("load", "hint-never-goes")
    assert chosen_load[0].endswith("test_load_faults.py::test_load_fault_is_caught_exactly")
    variants = _args("variants", "", faults="status")
    assert variants[0] == "/checkout/tests/variants" and "--ignore" not in variants
    assert variants[variants.index("-n") + 1] == "2"
    assert _args("variants", "etag-weak")[0] == "/checkout/tests/variants/test_variants.py"
    for args in (server, client, load, variants):
        assert args[args.index("-m") + 1] == "long or not long"
        assert "no:benchmark" in args and f"pythonpath={ROOT}" in args
    assert "-n" not in _args("server", workers="1")


# --- the tally ------------------------------------------------------------------------------------


def _report(
    name: str,
    test: str = "test_fault_is_caught_exactly",
    when: str = "call",
    outcome: str = "passed",
    **properties: Any,
) -> SimpleNamespace:
    report = SimpleNamespace(
        nodeid=f"tests/x.py::{test}[{name}]" if name else f"tests/x.py::{test}",
        user_properties=list(properties.items()),
        when=when,
        passed=outcome == "passed",
        failed=outcome == "failed",
        skipped=outcome == "skipped",
    )
    return report


def _tally(*reports: SimpleNamespace) -> catches.Tally:
    tally = catches.Tally("test_fault_is_caught_exactly")
    for report in reports:
        tally.pytest_runtest_logreport(report)
    return tally


def test_the_tally_reads_each_faults_declared_and_failed_sets() -> None:
    tally = _tally(
        _report("exact", fault_breaks=["A"], fault_failed=["A"], fault_seconds=12.5),
        _report("wider", outcome="failed", fault_breaks=["A"], fault_failed=["A", "B"]),
        _report("narrower", outcome="failed", fault_breaks=["A", "B"], fault_failed=["B"]),
        _report("missed", outcome="failed", fault_breaks=["A"], fault_failed=[]),
        _report("raised", outcome="failed", fault_breaks=["A"]),  # no verdict
        _report("correct", fault_breaks=[], fault_failed=[]),
        _report("correct-failing", outcome="failed", fault_breaks=[], fault_failed=["A"]),
    )
    caught = {name: report.caught for name, report in tally.faults.items()}
    assert caught == {
        "exact": EXACT,
        "wider": OTHER,
        "narrower": OTHER,
        "missed": MISSED,
        "raised": MISSED,
        "correct": EXACT,
        "correct-failing": OTHER,
    }
    assert tally.faults["exact"].seconds == 12.5
    assert tally.faults["raised"].failed is None
    assert [n for n, r in tally.faults.items() if r.correct] == ["correct", "correct-failing"]
    assert tally.errors == []


def test_the_tally_keeps_other_failures_apart_and_reads_the_reach() -> None:
    tally = _tally(
        _report("a", when="setup", fault_breaks=["A"]),  # a passed setup says nothing yet
        _report("a", fault_breaks=["A"], fault_failed=["A"]),
        _report("a", when="teardown", outcome="failed", fault_breaks=["A"], fault_failed=["A"]),
        _report("b", when="setup", outcome="failed"),  # broke before it could declare
        _report("", test="test_slow_target", outcome="failed"),
        _report("", test="test_every_server_requirement_is_broken_or_listed", **{
            "requirements_checkable": 165, "requirements_with_fault": 160,
            "requirements_breakable": 162,
        }),
    )  # fmt: skip
    assert tally.faults["a"].caught == EXACT
    assert tally.faults["b"].caught == MISSED and tally.faults["b"].declared is None
    assert tally.errors == [
        "tests/x.py::test_fault_is_caught_exactly[a]",
        "tests/x.py::test_slow_target",
    ]
    run = catches.side_result(sides.SIDES["server"], tally, 10.0, pytest.ExitCode.TESTS_FAILED)
    assert run.reach() == "160/162 breakable (3 not)"
    assert not run.ok


def test_a_module_that_does_not_import_fails_the_side_but_not_the_others() -> None:
    tally = _tally(_report("a", fault_breaks=["A"], fault_failed=["A"]))
    for nodeid in ("tests/faulty/test_new.py", "tests/faulty/test_new.py"):  # once per worker
        tally.pytest_collectreport(SimpleNamespace(nodeid=nodeid, failed=True))
    tally.pytest_collectreport(SimpleNamespace(nodeid="tests/faulty/test_ok.py", failed=False))
    run = catches.side_result(sides.SIDES["server"], tally, 1.0, pytest.ExitCode.TESTS_FAILED)
    assert run.errors == ("tests/faulty/test_new.py (collection)",)
    assert run.count(EXACT) == 1 and not run.ok
    lines = score.details([run])
    assert "  server: failed self-tests: tests/faulty/test_new.py (collection)" in lines
    assert "--continue-on-collection-errors" in _args("server")


def test_a_strict_xfail_is_a_known_mismatch_and_not_exact() -> None:
    known = _report("k", outcome="skipped", fault_breaks=["A"], fault_failed=["A", "B"])
    known.wasxfail = "scenario X is imprecise"
    stale = _report("s", outcome="failed", fault_breaks=["A"], fault_failed=["A"])
    stale.wasxfail = "fixed since"  # XPASS(strict): caught exactly, the entry is stale
    tally = _tally(known, stale)
    assert tally.faults["k"].known and tally.faults["k"].caught == OTHER
    assert "known mismatch" in tally.faults["k"].explain()
    assert tally.faults["s"].caught == EXACT and not tally.faults["s"].passed
    assert tally.errors == ["tests/x.py::test_fault_is_caught_exactly[s]"]


def test_client_and_load_reach_is_the_faults_run_over_the_stages_requirements() -> None:
    tally = _tally(
        _report("a", fault_breaks=["POLL-CLIENT-BACKOFF"], fault_failed=["POLL-CLIENT-BACKOFF"]),
        _report("b", fault_breaks=["POLL-CLIENT-BACKOFF", "SDK-CLIENT-INSTANCE-ID"],
                fault_failed=["POLL-CLIENT-BACKOFF", "SDK-CLIENT-INSTANCE-ID"]),
        _report("correct", fault_breaks=[], fault_failed=[]),
    )  # fmt: skip
    run = catches.side_result(sides.SIDES["client"], tally, 1.0, pytest.ExitCode.OK)
    clients = sum(1 for r in load_catalogue() if r.subject == "client")
    assert clients >= 11 and run.reach() == f"2/{clients}"
    assert [f.name for f in run.faults] == ["a", "b"] and [c.name for c in run.correct] == [
        "correct"
    ]
    assert run.ok


# --- the score table ----------------------------------------------------------------------------


def _fault(name: str, declared: set[str], failed: set[str] | None, **more: Any) -> FaultReport:
    failed_set = frozenset(failed) if failed is not None else None
    return FaultReport(
        name,
        frozenset(declared),
        failed_set,
        passed=failed_set == frozenset(declared),
        **more,
    )


def _runs() -> list[SideResult]:
    server = SideResult(
        "server",
        (
            _fault("s1", {"A"}, {"A"}, seconds=20.0),
            _fault("s2", {"A"}, {"A", "B"}, seconds=40.0),
            _fault("s3", {"A"}, None),
        ),
        covered=162,
        requirements=162,
        note=" breakable (3 not)",
        seconds=900.0,
        code=1,
    )
    client = SideResult(
        "client",
        (_fault("c1", {"X"}, {"X"}), _fault("c2", {"X"}, set())),
        correct=(_fault("ok1", set(), set()), _fault("ok2", set(), {"X"})),
        covered=1,
        requirements=9,
        seconds=290.0,
        code=1,
    )
    load = SideResult(
        "load", (_fault("l1", {"L"}, {"L"}),), covered=1, requirements=17, seconds=65.0
    )
    variants = SideResult(
        "variants",
        (),
        correct=(
            _fault("create-status-200", set(), set()),
            _fault("etag-weak", set(), set()),
            _fault("foreign-404", set(), {"drop-in:errors.foreign_project_status"}),
        ),
        seconds=120.0,
        code=1,
    )
    return [server, client, load, variants]


def _cells(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def test_the_score_table_counts_each_side_and_the_whole() -> None:
    table = score.score_table(_runs())
    assert [_cells(line) for line in table] == [
        ["side", "faults", "caught exactly", "caught with another set", "missed", "variants",
         "passed exactly", "requirements with a fault", "wall time"],
        ["server", "3", "1 (33%)", "1", "1", "0", "0", "162/162 breakable (3 not)", "15m00s"],
        ["client", "2", "1 (50%)", "0", "1", "2", "1 (50%)", "1/9", "4m50s"],
        ["load", "1", "1 (100%)", "0", "0", "0", "0", "1/17", "1m05s"],
        ["variants", "0", "0", "0", "0", "3", "2 (67%)", "-", "2m00s"],
        ["all", "6", "3 (50%)", "1", "2", "5", "3 (60%)", "22m55s"],
    ]  # fmt: skip
    assert len({len(line) for line in table}) == 1  # columns aligned, wall time flush right
    assert len(score.score_table(_runs()[2:3])) == 2  # one side: no total row


def test_the_details_name_every_fault_not_caught_exactly_and_the_failing_correct_variants() -> None:
    lines = "\n".join(score.details(_runs()))
    assert "server: CAUGHT WITH ANOTHER SET: s2: declared ['A'], failed ['A', 'B']" in lines
    assert "server: MISSED: s3: declared ['A'], no verdict" in lines
    assert "server: 1 of the 1 missed have no verdict" in lines
    assert "client: 0 of" not in lines
    assert "client: MISSED: c2: declared ['X'], failed nothing" in lines
    assert "client: correct-but-different variants passed 1/2; FAILING: ok2" in lines
    assert "server: 2 runs, 60s in all, median 30s, longest 40s (s2)" in lines
    assert "s1" not in lines.replace("(s1", "")  # an exact fault is not listed
    assert (
        "variants: correct-but-different variants passed 2/3; FAILING: foreign-404: declared [], "
        "failed ['drop-in:errors.foreign_project_status']" in lines
    )


def test_exit_status_is_0_only_when_every_fault_is_caught_exactly() -> None:
    runs = _runs()
    assert score.exit_status(runs) == 1
    assert score.exit_status(runs[2:3]) == 0
    clean_client = SideResult(
        "client", (_fault("c1", {"X"}, {"X"}),), (_fault("ok", set(), set()),)
    )
    assert score.exit_status([clean_client]) == 0
    failing_correct = SideResult("client", (), (_fault("ok2", set(), {"X"}),))
    assert score.exit_status([failing_correct]) == 1
    other_test_failed = SideResult("load", runs[2].faults, errors=("tests/x.py::test_reference",))
    assert score.exit_status([other_test_failed]) == 1
    internal_error = SideResult("load", runs[2].faults, code=pytest.ExitCode.INTERNAL_ERROR)
    assert score.exit_status([internal_error]) == 1
    headline = score.headline(runs, 1375.0)
    assert headline == (
        "conformance selftest: 3 of 6 faults caught exactly; 3 of 5 variants passed exactly "
        "(server 1/3, client 1/2 + 1/2 variants, load 1/1, variants 2/3 variants) in 22m55s"
    )
    assert score.exit_status([runs[3]]) == 1  # a variant that did not pass exactly
    passing = SideResult("variants", (), runs[3].correct[:2])
    assert score.exit_status([passing]) == 0
    assert passing.state() == "2/2 correct variants passed"
