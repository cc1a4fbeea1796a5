"""A target's failure reads as the kit's block in the terminal; -v and --tb bring the rest back."""

from __future__ import annotations

from pathlib import Path

import pytest

import conformance.run.plugin  # noqa: F401  (shared with pytester's in-process runs)
from conformance import cli
from conformance.run import launch

pytest_plugins = ("pytester",)

BROKEN = """
import pytest

from conformance.checks import expect
from conformance.session.state import TRANSCRIPT
from conformance.traffic.transcript import Transcript
from conformance.verdict.evidence import Exchange

BIG = "[" + ", ".join(["1234567"] * 6000) + "]"


@pytest.mark.requirement("SDK-STATUS-ETAG-EQUALS-HASH")
def test_target_breaks_a_rule(request):
    transcript = Transcript()
    transcript.add(
        Exchange("GET", "http://t/sdk/v2/status", {}, None, 200, {"etag": '"x"'}, BIG, 1.0)
    )
    request.node.stash[TRANSCRIPT] = transcript
    local_secret_of_the_kit = "kit-local-variable"
    expect(False, ["SDK-STATUS-ETAG-EQUALS-HASH"], "the ETag is not the hash",
           "ETag equal to the body hash", "ETag x, hash y")


@pytest.mark.requirement("ERR-NO-SERVER-ERROR")
def test_a_finding_of_the_whole_test():
    expect(False, [], "5xx answers under load", "no 5xx", "3 x 503")


@pytest.mark.requirement("VER-PATH-V2")
def test_the_kit_crashes():
    crash_marker = {}["missing"]
"""


def _run(pytester: pytest.Pytester, *args: str) -> list[str]:
    pytester.makepyfile(test_broken=BROKEN)
    result = pytester.runpytest("-p", "no:cacheprovider", *args)
    result.assert_outcomes(failed=3)
    return result.outlines


def _block_of(lines: list[str], test: str) -> list[str]:
    """The lines pytest printed for one failure: from its header to the next header."""
    start = next(n for n, line in enumerate(lines) if line.startswith("__") and test in line)
    end = next(
        (n for n in range(start + 1, len(lines)) if lines[n].startswith(("__", "="))), len(lines)
    )
    return lines[start:end]


def test_a_targets_failure_is_its_block_alone(pytester: pytest.Pytester) -> None:
    block = _block_of(_run(pytester), "test_target_breaks_a_rule")
    text = "\n".join(block)
    assert block[1].startswith("Rule broken: SDK-STATUS-ETAG-EQUALS-HASH"), text
    assert [line.split(":")[0] for line in block[2:4]] == ["Expected", "Received"], text
    assert "1 exchange recorded" in block[-1], text
    assert len(block) == 5, text  # header, rule, expected, received, the exchanges' line
    assert "def expect" not in text and "raise violation" not in text
    assert "kit-local-variable" not in text and "1234567" not in text


def test_a_violation_naming_no_requirement_reads_under_its_tests(
    pytester: pytest.Pytester,
) -> None:
    """A load judge's finding speaks for its whole test (no id of its own): the block names the
    test's requirements, as its record does, never "(no requirement id)"."""
    block = _block_of(_run(pytester), "test_a_finding_of_the_whole_test")
    assert block[1].startswith("Rule broken: ERR-NO-SERVER-ERROR: 5xx answers"), "\n".join(block)


def test_the_kits_own_crash_keeps_its_traceback(pytester: pytest.Pytester) -> None:
    text = "\n".join(_block_of(_run(pytester), "test_the_kit_crashes"))
    assert "crash_marker = {}" in text and "KeyError" in text


def test_verbose_adds_the_transcript_with_bodies_cut(pytester: pytest.Pytester) -> None:
    block = "\n".join(_block_of(_run(pytester, "-v"), "test_target_breaks_a_rule"))
    assert "Rule broken: SDK-STATUS-ETAG-EQUALS-HASH" in block
    assert "conformance transcript (redacted)" in block
    assert "bytes, first 512 shown)" in block and "def expect" not in block


@pytest.mark.parametrize("detail", [["-vv"], ["--tb=long"], ["--tb=short"], ["-l"]])
def test_vv_or_an_explicit_tb_brings_the_traceback_back(
    pytester: pytest.Pytester, detail: list[str]
) -> None:
    text = "\n".join(_block_of(_run(pytester, *detail), "test_target_breaks_a_rule"))
    assert "expect(False" in text and "ContractViolation" in text


def test_an_xdist_failure_goes_without_the_workers_platform_line(pytester: pytest.Pytester) -> None:
    block = _block_of(_run(pytester, "-n", "1"), "test_target_breaks_a_rule")
    assert block[1].startswith("Rule broken:"), "\n".join(block)
    assert not any("-- Python" in line for line in block)


def test_conformance_run_passes_v_from_pytests_own_default(tmp_path: Path) -> None:
    quiet = launch.pytest_args(cli._parser().parse_args(["run"]), tmp_path / "i", 0)
    verbose = launch.pytest_args(cli._parser().parse_args(["run", "--", "-v"]), tmp_path / "i", 0)
    assert "-q" in quiet
    assert "-q" not in verbose and verbose[-1] == "-v"  # verbosity 1: the transcript


def test_every_format_shows_a_body_cut_with_its_length(pytester: pytest.Pytester) -> None:
    """The 54 KB body of BROKEN reaches no report whole: JSON, Markdown, HTML, JUnit, Allure."""
    _run(pytester, "--alluredir", "allure")
    outputs = [pytester.path / "reports" / name for name in ("conformance.json", "junit.xml")]
    outputs += [pytester.path / "reports" / "conformance.html"]
    outputs += list((pytester.path / "allure").glob("*-attachment.txt"))
    noted = 0
    for path in [*outputs, pytester.path / "reports" / "conformance.md"]:
        text = path.read_text(encoding="utf-8")
        shown = max(1, text.count("bytes, first 2,048 shown"))  # the evidence may repeat
        assert text.count("1234567") <= shown * (2048 // 9 + 1), path.name  # the first 2 KB
        noted += "(54,000 bytes, first 2,048 shown)" in text
    assert noted >= len(outputs) - 1  # the request attachment holds no body


TIMELINE = """
import pytest

from conformance.checks import expect
from conformance.session.state import TRANSCRIPT
from conformance.verdict.evidence import Exchange


class Timeline:  # as the client stage stashes it: exchanges, and render() without arguments
    exchanges = (Exchange("GET", "/sdk/v2/status", {}, None, 200, {}, None, 1.0),)

    def render(self):
        return "0.00 s  GET /sdk/v2/status -> 200"


@pytest.mark.requirement("POLL-CLIENT-SEND-LAST-HASH")
def test_client_breaks_a_rule(request):
    request.node.stash[TRANSCRIPT] = Timeline()
    expect(False, ["POLL-CLIENT-SEND-LAST-HASH"], "no hash sent", "the last hash", "none")
"""


def test_the_client_stages_timeline_shows_with_v(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_failure_view_timeline=TIMELINE)
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*conformance transcript*", "0.00 s  GET /sdk/v2/status -> 200"])
