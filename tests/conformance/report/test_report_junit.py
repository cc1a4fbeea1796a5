"""junit.xml: one suite per section, one case per requirement, ids as properties, honest skips."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace

from conformance.report.junit_report import render
from conformance.verdict.outcome import Outcome
from tests.support import sample_reports as samples


def cases(xml: str) -> dict[str, ET.Element]:
    root = ET.fromstring(xml)
    return {case.get("name", ""): case for case in root.iter("testcase")}


def test_structure_and_totals() -> None:
    report = samples.not_conformant()
    root = ET.fromstring(render(report))
    assert root.tag == "testsuites"
    assert [s.get("name") for s in root.iter("testsuite")] == [
        "§4.1",
        "§4.2",
        "§4.3",
        "§7",
        "§8",
        "§9",
    ]
    totals = (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped"))
    assert totals == ("9", "2", "1", "1")
    for suite in root.iter("testsuite"):
        assert int(suite.get("tests", "0")) == len(suite.findall("testcase"))
        assert int(suite.get("failures", "0")) == len(suite.findall("testcase/failure"))


def test_each_case_names_its_requirement() -> None:
    report = samples.not_conformant()
    found = cases(render(report))
    assert set(found) == {r.id for r in report.requirements}
    for rid, case in found.items():
        requirement = [
            p.get("value") for p in case.iter("property") if p.get("name") == "requirement"
        ]
        assert requirement == [rid]


def test_failure_carries_the_evidence_text() -> None:
    case = cases(render(samples.not_conformant()))["SDK-STATUS-304-IF-NONE-MATCH"]
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message", "").startswith("If-None-Match equal to the current hash")
    text = failure.text or ""
    assert "Expected: status 304 and an empty body" in text
    assert "Received: status 200" in text
    assert "Reproduce: curl " in text
    assert "HTTP 200" in text and "<script>alert(1)</script>" in text  # parsed back, unescaped
    assert "Seed: 12345" in text


def test_exceptions_are_skips_that_say_what_they_are() -> None:
    found = cases(render(samples.with_exceptions()))
    found.update(
        {k: v for k, v in cases(render(samples.incomplete())).items() if k.startswith("EXP-BUCK")}
    )
    expected = {
        "VER-LEGACY-SDK-KEY": (
            "not-configured",
            "not configured (declared): scenarios/test_auth.py::test_legacy_key: not configured: "
            "set credentials.legacy_sdk_key in the profile",
        ),
        "LIMIT-LOAD-SHED-POLLING": ("unsupported", "unsupported: "),
        "SDK-STATUS-ETAG": ("known-failure", "known failure (not counted): "),
        "EXP-LIST": ("spec-doubt", "spec doubt (not counted): "),
    }
    for rid, (kind, prefix) in expected.items():
        case = found[rid]
        assert case.find("failure") is None
        skipped = case.find("skipped")
        assert skipped is not None, rid
        assert skipped.get("type") == kind
        assert skipped.get("message", "").startswith(prefix)
    assert found["CFG-CREATE-RECORD"].find("skipped") is None
    assert found["CFG-CREATE-RECORD"].find("failure") is None


def test_not_measurable_is_an_error_not_a_skip_ci_would_pass() -> None:
    root = ET.fromstring(render(samples.incomplete()))
    case = next(c for c in root.iter("testcase") if c.get("name") == "EXP-BUCKETING-UNIFORM")
    assert case.find("skipped") is None and case.find("failure") is None
    error = case.find("error")
    assert error is not None and error.get("type") == "not-measurable"
    assert error.get("message", "").startswith("not measurable (the verdict is incomplete): ")
    assert int(root.get("errors", "0")) == len(list(root.iter("error"))) >= 1
    for suite in root.iter("testsuite"):
        assert int(suite.get("errors", "0")) == len(suite.findall("testcase/error"))


def test_control_characters_do_not_break_the_xml() -> None:
    report = samples.not_conformant()
    requirements = tuple(
        replace(r, text=r.text + " \x00\x1b[31m") if r.outcome is Outcome.FAIL else r
        for r in report.requirements
    )
    xml = render(replace(report, requirements=requirements))
    assert ET.fromstring(xml) is not None


def suite_properties(xml: str) -> dict[str, str]:
    properties = next(ET.fromstring(xml).iter("testsuite")).find("properties")
    assert properties is not None
    return {p.get("name", ""): p.get("value", "") for p in properties}


def test_every_suite_leads_with_the_measured_share_and_what_decided_the_verdict() -> None:
    properties = suite_properties(render(samples.incomplete()))
    assert list(properties)[:3] == ["measured", "verdict", "decided_by"]
    assert properties["measured"] == "measured 6 of 9 requirements"
    assert properties["verdict"] == "incomplete"
    assert "EXP-BUCKETING-UNIFORM, LIMIT-LOAD-SHED-POLLING" in properties["decided_by"]
    failed = suite_properties(render(samples.not_conformant()))["decided_by"]
    assert failed == "2 requirements failed: CFG-PATCH-409-STALE, SDK-STATUS-304-IF-NONE-MATCH."
