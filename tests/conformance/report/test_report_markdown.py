"""conformance.md listings: requirements grouped by reason, not by the test that gave it."""

from __future__ import annotations

from dataclasses import replace

from conformance.report.markdown_report import render
from conformance.verdict.outcome import Outcome
from tests.support import sample_reports as samples


def test_requirements_sharing_a_reason_are_listed_together() -> None:
    """Two tests, one missing profile key: one line naming the key, with both ids."""
    report = samples.conformant()
    notes = {
        "EXP-LIST": "scenarios/test_a.py::test_one: not configured: set "
        "credentials.legacy_sdk_key in the profile",
        "SDK-STATUS-ETAG": "scenarios/test_b.py::test_two: not configured: set "
        "credentials.legacy_sdk_key in the profile; scenarios/test_c.py::test_three: not "
        "configured: set credentials.legacy_sdk_key in the profile",
    }
    requirements = tuple(
        replace(r, outcome=Outcome.NOT_CONFIGURED, note=notes[r.id]) if r.id in notes else r
        for r in report.requirements
    )
    text = render(replace(report, requirements=requirements))
    assert (
        "- not configured (2): set credentials.legacy_sdk_key in the profile: "
        "`EXP-LIST`, `SDK-STATUS-ETAG`"
    ) in text
    assert "test_one" not in text


def test_a_requirement_with_two_reasons_keeps_both() -> None:
    report = samples.conformant()
    note = "scenarios/t.py::test_a: the burst took 4.7 s; scenarios/t.py::test_b: no trigger"
    requirements = tuple(
        replace(r, outcome=Outcome.NOT_MEASURABLE, note=note) if r.id == "EXP-LIST" else r
        for r in report.requirements
    )
    text = render(replace(report, requirements=requirements))
    assert "- not measurable (1): the burst took 4.7 s; no trigger: `EXP-LIST`" in text


def test_stage_times_added_over_workers_are_not_read_as_the_runs_duration() -> None:
    report = replace(samples.conformant(), duration_s=10.0)  # its stages add up to 35.75 s
    assert sum(s.duration_s for s in report.stages) > report.duration_s
    text = render(report)
    stages = text[text.index("## Stages") :]
    assert "| Stage | Tests | Test time | Details |" in stages
    assert "Duration" not in stages
    assert "may exceed the run's own 10.0 s" in stages
    assert "took 10.0 s" in text
