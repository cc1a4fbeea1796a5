"""The run deadline (issue 13, item 7): a target slower than the deadline cannot keep a run busy;
the tests not started fail with a note, the verdict is not green, and the reports are written."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.run import launch
from conformance.session.cleanup import Cleanup
from conformance.session.deadline import DEFAULT_SECONDS, RunDeadline, seconds_option
from tests.support.holding_server import holding_server, write_profile
from tests.support.report_outcomes import requirement_outcomes

pytest_plugins = ("pytester",)

IDS = (
    "SDK-STATUS-200-SNAPSHOT",
    "SDK-STATUS-MINIMAL-REQUEST",
    "SDK-STATUS-ETAG-EQUALS-HASH",
    "SDK-STATUS-NO-DOCUMENTS",
    "SDK-STATUS-LISTS-CONFIGURATIONS",
    "SDK-STATUS-PRIMARY-CONFIG",
    "SDK-STATUS-304-IF-NONE-MATCH",
    "SDK-STATUS-304-HASH-QUERY",
)
HOLD_S = 2.0  # every answer of the slow target (the pre-flight's excepted)


def slow_module() -> str:
    """One test per id, in order, each waiting for one answer of the slow target."""
    tests = "".join(
        f"""

@pytest.mark.requirement("{rid}")
def test_{number}(target):
    httpx.get(target.base_url + "/sdk/v2/status", timeout=30)
"""
        for number, rid in enumerate(IDS)
    )
    return "import httpx\nimport pytest\n" + tests


@pytest.fixture(scope="module")
def slow_target() -> Iterator[str]:
    with holding_server(every_hold_s=HOLD_S) as url:
        yield url


def run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, target_url: str, *extra: str
) -> tuple[Any, dict[str, Any]]:
    """The slow module against the slow target, with only the plugins a run needs (as
    ``conformance run`` loads them: xdist workers start in seconds, not tens)."""
    profile = write_profile(pytester.path / "profile.yaml", "svc_pat_deadline", "svc_pk_deadline")
    pytester.makepyfile(test_slow=slow_module())
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    plugins = [arg for name in launch.BASE_PLUGINS for arg in ("-p", name)]
    result = pytester.runpytest_subprocess(
        *plugins,
        "-p",
        "no:cacheprovider",
        "--base-url",
        target_url,
        "--target-profile",
        str(profile),
        "--report-dir",
        "reports",
        "-rfE",
        *extra,
    )
    report = json.loads((pytester.path / "reports" / "conformance.json").read_text("utf-8"))
    return result, report


def test_tests_after_the_deadline_fail_with_a_note_and_the_reports_are_written(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, slow_target: str
) -> None:
    result, report = run(pytester, monkeypatch, slow_target, "--run-deadline", "3")
    # Without the deadline: 8 answers of 2 s each, 16 s. With it: at most two start in time.
    assert report["duration_s"] < 10, f"the run took {report['duration_s']}s"
    seen = requirement_outcomes(report, only=IDS)
    assert seen[IDS[0]] == "pass"  # started well before the deadline
    late = IDS[2:]  # started at 4 s or later
    assert all(seen[rid] == "fail" for rid in late), seen
    assert report["verdict"] == "not-conformant"
    text = json.dumps(report)
    assert text.count("the run deadline of 3 s passed") >= len(late)
    stdout = result.stdout.str()
    assert stdout.count("the run deadline of 3 s passed") >= len(late)
    assert "conformance: not-conformant" in stdout


SHARED = """
from pathlib import Path

import pytest

from conformance.session.state import DEADLINE


@pytest.mark.requirement("VER-PATH-V2")
@pytest.mark.parametrize("n", range(4))
def test_same_end(pytestconfig, n):
    assert hasattr(pytestconfig, "workerinput")
    controller = float(Path("controller-deadline").read_text())
    assert pytestconfig.stash[DEADLINE].ends_at == controller
"""


def test_xdist_workers_keep_the_controllers_deadline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, slow_target: str
) -> None:
    """Each worker ends where the controller's deadline ends, not where its own start plus the
    deadline would (workers start seconds after the controller)."""
    pytester.makeconftest(
        """
from pathlib import Path

from conformance.session.state import DEADLINE

def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):
        Path("controller-deadline").write_text(repr(session.config.stash[DEADLINE].ends_at))
"""
    )
    pytester.makepyfile(test_shared=SHARED)
    result, _ = run(pytester, monkeypatch, slow_target, "-n", "2", "test_shared.py")
    result.assert_outcomes(passed=4)


def test_the_option_takes_positive_seconds(pytester: pytest.Pytester) -> None:
    assert seconds_option("90") == 90.0
    assert seconds_option("0.5") == 0.5
    for bad in ("0", "-1", "soon", "inf", "nan"):
        with pytest.raises(argparse.ArgumentTypeError):
            seconds_option(bad)
    result = pytester.runpytest("-p", "no:cacheprovider", "--run-deadline", "0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "the run deadline must be a positive number" in result.stderr.str()


def test_the_deadline_reads_in_seconds() -> None:
    assert RunDeadline(1800.0, 0.0).note == "the run deadline of 1800 s passed"
    assert RunDeadline(2.5, 0.0).passed()
    assert not RunDeadline.starting_now(DEFAULT_SECONDS).passed()
    assert DEFAULT_SECONDS == 1800.0


def test_cleanup_does_not_start_after_the_deadline() -> None:
    ran: list[str] = []
    cleanup = Cleanup(deadline=RunDeadline(5.0, 0.0))
    cleanup.add("terminate experiment 7", lambda: ran.append("7"))
    cleanup.run()
    assert ran == []
    assert cleanup.problems == ["terminate experiment 7: not run, the run deadline of 5 s passed"]


def test_conformance_run_passes_the_deadline_to_pytest(tmp_path: Path) -> None:
    options = cli._parser().parse_args(["run", "--run-deadline", "90"])
    args = launch.pytest_args(options, tmp_path / "i", 0)
    assert args[args.index("--run-deadline") + 1] == "90"
    default = cli._parser().parse_args(["run"])
    assert "--run-deadline" not in launch.pytest_args(default, tmp_path / "i", 0)
    with pytest.raises(SystemExit):
        cli._parser().parse_args(["run", "--run-deadline", "0"])
