"""``conformance run --strict``: a verdict conformant only with declared exceptions (here a stated
feature, the legacy sdk_ keys of spec 5 and 9.2, declared unsupported) exits 1 with one line
naming the exceptions; without ``--strict`` the same run exits 0 and says "with declared
exceptions" (issue 38: a stated feature declared absent is never plain conformance)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.report.model import Report, RequirementResult
from conformance.run.launch import declared_exceptions
from conformance.verdict.outcome import Outcome
from refserver.runner import start_server
from tests.support.conformance_cli import run_conformance
from tests.support.profiles import with_overrides


def _result(rid: str, outcome: Outcome) -> RequirementResult:
    return RequirementResult(rid, "5", "", "stated", outcome, ())


def test_declared_exceptions_are_counted_by_outcome() -> None:
    report = Report(
        "0", "", "", "", "", {}, "", 0.0,
        (
            _result("A", Outcome.PASS),
            _result("B", Outcome.UNSUPPORTED),
            _result("C", Outcome.NOT_CONFIGURED),
            _result("D", Outcome.UNSUPPORTED),
            _result("E", Outcome.NOT_APPLICABLE),
        ),
    )  # fmt: skip
    assert declared_exceptions(report) == (
        "declared exceptions, not plain conformance: 2 unsupported (B, D); 1 not-configured (C)"
    )


@pytest.fixture(scope="module")
def legacy_declared_absent(tmp_path_factory: pytest.TempPathFactory) -> object:
    workdir = tmp_path_factory.mktemp("strict")
    profile = workdir / "profile.yaml"
    server = start_server(workdir / "refserver.db", profile_path=profile)
    with_overrides(profile, {"capabilities": {"legacy_sdk_key": False}})
    yield server.base_url, profile
    server.stop()


@pytest.mark.parametrize(("strict", "status"), [(False, 0), (True, 1)])
def test_a_stated_feature_declared_absent_fails_the_strict_gate(
    legacy_declared_absent: tuple[str, Path], tmp_path: Path, strict: bool, status: int
) -> None:
    base_url, profile = legacy_declared_absent
    done = run_conformance(
        "run", "--base-url", base_url, "--profile", str(profile), "--report-dir", str(tmp_path),
        "--requirements", "AUTH-SDK-LEGACY-PREFIX", "--quiet", *(["--strict"] if strict else []),
        timeout=180,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == status, output[-2000:]
    report = json.loads((tmp_path / "conformance.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "conformant-with-declared-exceptions", output[-2000:]
    strict_line = "conformance: --strict: declared exceptions, not plain conformance: 1 unsupported"
    assert (strict_line in output) is strict, output[-2000:]
