"""The CI job summary: appended to the file GITHUB_STEP_SUMMARY names, the headline and the
failures only, secrets removed; nothing when the variable is unset or empty."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from conformance.report.step_summary import ENV, append
from tests.support import sample_reports as samples


def test_appends_the_headline_and_the_failures(tmp_path: Path) -> None:
    target = tmp_path / "summary.md"
    target.write_text("earlier step\n", encoding="utf-8")
    report = samples.not_conformant()
    assert append(report, environ={ENV: str(target)}) == target
    text = target.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n# ❌ RCES conformance: Not conformant, measured")
    assert "Levels: not-conformant to the interface" in text
    assert "## Failures (2)" in text and "### SDK-STATUS-304-IF-NONE-MATCH (§4.3)" in text
    assert "## Outcomes per section" not in text and "## Stages" not in text  # the short form
    append(samples.conformant(), environ={ENV: str(target)})
    text = target.read_text(encoding="utf-8")
    assert text.count("RCES conformance:") == 2 and "# ✅ RCES conformance: Conformant" in text


def test_no_secret_reaches_the_summary(tmp_path: Path) -> None:
    target = tmp_path / "summary.md"
    report = samples.not_conformant()
    secret = "s3cr3t-token-value"
    leaky = replace(
        report,
        requirements=tuple(
            replace(r, evidence=tuple(replace(e, received=f"got {secret}") for e in r.evidence))
            for r in report.requirements
        ),
    )
    append(leaky, secrets=[secret], environ={ENV: str(target)})
    text = target.read_text(encoding="utf-8")
    assert "Received: got" in text and secret not in text


def test_nothing_without_the_variable(tmp_path: Path) -> None:
    assert append(samples.conformant(), environ={}) is None
    assert append(samples.conformant(), environ={ENV: ""}) is None
    assert list(tmp_path.iterdir()) == []
