"""The pytest plugin's options, one small pytester run each, plus its inertness."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import httpx
import pytest
import yaml

# Imported here so pytester's in-process runs share these modules instead of re-importing them
# (a re-imported httpcore no longer matches the exception classes httpx maps).
import conformance.run.plugin
import conformance.target.resolution
import conformance.traffic.client  # noqa: F401
from tests.support.report_outcomes import requirement_outcomes

pytest_plugins = ("pytester",)


@pytest.fixture(autouse=True, scope="module")
def _warm_transport_errors() -> None:
    """Load httpx's lazily imported connect path once, outside any pytester run."""
    with httpx.Client() as http, contextlib.suppress(httpx.TransportError):
        http.get("http://127.0.0.1:9/")


MARKED = """
import pytest

@pytest.mark.requirement("REQ-A")
def test_a():
    pass

@pytest.mark.requirement("REQ-B")
def test_b():
    assert False, "b breaks"
"""

USES_PROFILE = """
import pytest

@pytest.mark.requirement("VER-PATH-V2")
def test_profile(profile, target):
    assert profile.project.application_id == 1
    assert target.base_url.startswith("http://127.0.0.1:")
    assert not target.embedded
"""


def _report(pytester: pytest.Pytester, folder: str = "reports") -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((pytester.path / folder / "conformance.json").read_text())
    return loaded


def test_target_profile_and_base_url_reach_the_target(
    pytester: pytest.Pytester, reference_server: Any
) -> None:
    pytester.makepyfile(test_uses_profile=USES_PROFILE)
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--base-url",
        reference_server.base_url,
        "--target-profile",
        str(reference_server.profile_path),
    )
    result.assert_outcomes(passed=1)
    assert requirement_outcomes(_report(pytester))["VER-PATH-V2"] == "pass"


def test_base_url_without_profile_is_one_usage_error(
    pytester: pytest.Pytester, reference_server: Any
) -> None:
    pytester.makepyfile(test_uses_profile=USES_PROFILE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--base-url", reference_server.base_url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*conformance usage error*without a target profile*"])
    assert "passed" not in result.stdout.str()


def test_unreachable_target_is_one_usage_error(
    pytester: pytest.Pytester, reference_server: Any, closed_port_url: str
) -> None:
    pytester.makepyfile(test_uses_profile=USES_PROFILE)
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--base-url",
        closed_port_url,
        "--target-profile",
        str(reference_server.profile_path),
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stdout.str()
    assert text.count("cannot reach the target") == 1
    assert "What to do" in text
    assert "FAILED" not in text and "Traceback" not in text


def test_wrong_profile_is_one_usage_error(pytester: pytest.Pytester, reference_server: Any) -> None:
    pytester.makepyfile(test_uses_profile=USES_PROFILE)
    bad = pytester.path / "bad.yaml"
    bad.write_text("credentials:\n  pat: svc_pat_nope\n  sdk_keys: []\nproject: {}\n")
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--base-url",
        reference_server.base_url,
        "--target-profile",
        str(bad),
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*bad.yaml, line 3: key credentials.sdk_keys*"])


def test_requirements_selects_by_marker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_marked=MARKED)
    result = pytester.runpytest("-p", "no:cacheprovider", "--requirements", "REQ-A")
    result.assert_outcomes(passed=1, deselected=1)
    assert requirement_outcomes(_report(pytester)) == {"REQ-A": "pass"}


def test_report_dir_receives_the_result_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_marked=MARKED)
    result = pytester.runpytest("-p", "no:cacheprovider", "--report-dir", "out/here")
    result.assert_outcomes(passed=1, failed=1)
    report = _report(pytester, "out/here")
    outcomes = requirement_outcomes(report)
    assert outcomes["REQ-A"] == "pass"
    assert outcomes["REQ-B"] == "fail"
    assert report["verdict"] == "not-conformant"
    result.stdout.fnmatch_lines(["*conformance: not-conformant*out/here*"])


def test_a_tests_duration_counts_its_fixture_setup(pytester: pytest.Pytester) -> None:
    """A stage whose work runs in a session fixture (client, load) shows that time."""
    pytester.makepyfile(
        test_setup="""
import time
import pytest

@pytest.fixture(scope="session")
def fleet():
    time.sleep(0.4)

@pytest.mark.requirement("REQ-A")
def test_a(fleet):
    pass
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    report = _report(pytester)
    (test,) = report["tests"]
    assert test["duration_s"] >= 0.4
    assert sum(stage["duration_s"] for stage in report["stages"]) >= 0.4


def test_unmarked_tests_are_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "reports").exists()
    assert "conformance:" not in result.stdout.str()


def test_requirement_marker_is_declared(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.requirement(*ids): *"])


NEEDS_BOOTSTRAP = """
import pytest

@pytest.mark.requirement("SDK-BOOTSTRAP-ID-MERGE")
def test_identity(target):
    pass
"""


def test_an_implied_capability_declared_absent_makes_the_requirement_unsupported(
    pytester: pytest.Pytester, reference_server: Any
) -> None:
    """Bootstrap with identity needs ``bootstrap`` too, though the catalogue names only
    ``bootstrap_identity``: declaring ``bootstrap: false`` must not leave it passing."""
    data = yaml.safe_load(reference_server.profile_path.read_text(encoding="utf-8"))
    data.setdefault("capabilities", {})["bootstrap"] = False
    profile = yaml.safe_dump(data)
    (pytester.path / "profile.yaml").write_text(profile, encoding="utf-8")
    pytester.makepyfile(test_identity=NEEDS_BOOTSTRAP)
    pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--base-url",
        reference_server.base_url,
        "--target-profile",
        str(pytester.path / "profile.yaml"),
    )
    assert requirement_outcomes(_report(pytester))["SDK-BOOTSTRAP-ID-MERGE"] == "unsupported"
