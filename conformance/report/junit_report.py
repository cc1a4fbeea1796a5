"""junit.xml: one testsuite per spec section, one testcase per requirement, for CI test tabs.

Shaped for the readers that show it: GitLab's unit test reports (a case is keyed and listed by
``classname`` and ``name``; its Suite column is the classname) and Jenkins' JUnit plugin (its
junit-4 schema: ``timestamp`` without a zone; ``classname`` split at the last dot into package and
class). So a case is named by its requirement id, and its classname is
``conformance.section_4_2``: package "conformance", class the section, dots and all.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from conformance.report.evidence_text import evidence_text
from conformance.report.headline import decided_by, measured_share
from conformance.report.levels import levels_sentence
from conformance.report.model import Report, RequirementResult, TestResult
from conformance.report.sections import by_section
from conformance.report.vocabulary import OUTCOME_STYLES
from conformance.verdict.outcome import Outcome

# XML 1.0 cannot carry most control characters, even escaped.
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

# How each outcome appears: (child element or None, its ``type``, message prefix).
ELEMENTS: dict[Outcome, tuple[str | None, str, str]] = {
    Outcome.PASS: (None, "", ""),
    Outcome.FAIL: ("failure", "ContractViolation", ""),
    Outcome.UNSUPPORTED: ("skipped", "unsupported", "unsupported: "),
    Outcome.NOT_APPLICABLE: ("skipped", "not-applicable", "not applicable (not claimed): "),
    Outcome.NOT_CONFIGURED: ("skipped", "not-configured", "not configured (declared): "),
    # An error, not a skip: CI tabs treat skips as fine, and an incomplete verdict is not green.
    Outcome.NOT_MEASURABLE: (
        "error",
        "not-measurable",
        "not measurable (the verdict is incomplete): ",
    ),
    Outcome.KNOWN_FAILURE: ("skipped", "known-failure", "known failure (not counted): "),
    Outcome.SPEC_DOUBT: ("skipped", "spec-doubt", "spec doubt (not counted): "),
}


PACKAGE = "conformance"


def classname(section: str) -> str:
    """A section as a Java-like class name under ``PACKAGE``: "4.2" -> conformance.section_4_2."""
    return f"{PACKAGE}.section_{re.sub(r'[^A-Za-z0-9]+', '_', section).strip('_') or 'none'}"


def timestamp(started_at: str) -> str:
    """The run's start in UTC as junit-4 has it (no zone: ``2026-01-02T03:04:05``); the report's
    own text when it is not an ISO 8601 date."""
    try:
        moment = datetime.fromisoformat(started_at)
    except ValueError:
        return started_at
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _clean(text: str) -> str:
    return _ILLEGAL.sub("\ufffd", text)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _message(requirement: RequirementResult) -> str:
    _element, _kind, prefix = ELEMENTS[requirement.outcome]
    if requirement.evidence:
        reason = "; ".join(e.title for e in requirement.evidence)
    else:
        reason = requirement.note or OUTCOME_STYLES[requirement.outcome].label
    return _clean(prefix + reason)


def _body(requirement: RequirementResult) -> str:
    parts = [requirement.text]
    if requirement.note:
        parts.append(f"Note: {requirement.note}")
    parts += [evidence_text(e) for e in requirement.evidence]
    return _clean("\n\n".join(parts))


def _testcase(
    parent: ET.Element, requirement: RequirementResult, tests: dict[str, TestResult]
) -> tuple[Outcome, float]:
    duration = sum(tests[t].duration_s for t in requirement.tests if t in tests)
    case = ET.SubElement(
        parent,
        "testcase",
        {
            "classname": classname(requirement.section),
            "name": requirement.id,
            "time": _seconds(duration),
        },
    )
    properties = ET.SubElement(case, "properties")
    ET.SubElement(properties, "property", {"name": "requirement", "value": requirement.id})
    ET.SubElement(properties, "property", {"name": "section", "value": requirement.section})
    ET.SubElement(properties, "property", {"name": "basis", "value": requirement.basis})
    if requirement.subject != "server":  # a client rule (the client stage)
        ET.SubElement(properties, "property", {"name": "subject", "value": requirement.subject})
    ET.SubElement(properties, "property", {"name": "outcome", "value": requirement.outcome.value})
    for test_id in requirement.tests:
        ET.SubElement(properties, "property", {"name": "test", "value": _clean(test_id)})
    for difference in requirement.differences:  # the drop-in level: never a failure here
        value = f"{difference.key}: convention {difference.convention}, received "
        ET.SubElement(
            properties,
            "property",
            {"name": "drop_in_difference", "value": _clean(value + difference.received[:300])},
        )
    element, kind, _prefix = ELEMENTS[requirement.outcome]
    if element is not None:
        child = ET.SubElement(case, element, {"type": kind, "message": _message(requirement)})
        if element in ("failure", "error") or requirement.evidence:
            child.text = _body(requirement)
    elif requirement.note:
        ET.SubElement(case, "system-out").text = _clean(requirement.note)
    return requirement.outcome, duration


def render(report: Report) -> str:
    tests = {t.test_id: t for t in report.tests}
    root = ET.Element("testsuites", {"name": "rces-conformance"})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_time = 0.0
    for number, (section, requirements) in enumerate(by_section(report)):
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "id": str(number),
                "package": PACKAGE,
                "name": f"§{section}",
                "timestamp": timestamp(report.started_at),
                "hostname": "conformance",
            },
        )
        properties = ET.SubElement(suite, "properties")
        for name, value in (
            ("measured", measured_share(report)),
            ("verdict", report.verdict.value),
            ("decided_by", decided_by(report)),
            ("verdict_drop_in", report.drop_in_verdict.value),
            ("levels", levels_sentence(report)),
            ("suite_version", report.suite_version),
            ("started_at", report.started_at),
            ("target_url", report.target_url),
            ("target_fingerprint", report.target_fingerprint),
        ):
            ET.SubElement(properties, "property", {"name": name, "value": _clean(value)})
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        time = 0.0
        for requirement in requirements:
            outcome, duration = _testcase(suite, requirement, tests)
            element = ELEMENTS[outcome][0]
            counts["tests"] += 1
            counts["failures"] += element == "failure"
            counts["errors"] += element == "error"
            counts["skipped"] += element == "skipped"
            time += duration
        suite.set("tests", str(counts["tests"]))
        suite.set("failures", str(counts["failures"]))
        suite.set("errors", str(counts["errors"]))
        suite.set("skipped", str(counts["skipped"]))
        suite.set("time", _seconds(time))
        for key in totals:
            totals[key] += counts[key]
        total_time += time
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", str(totals["errors"]))
    root.set("skipped", str(totals["skipped"]))
    root.set("time", _seconds(report.duration_s if report.duration_s else total_time))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
