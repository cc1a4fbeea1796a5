"""junit.xml against what GitLab and Jenkins document of the JUnit format: a structural check.

Derived from Jenkins' junit-4 schema (the JUnit plugin's ``junit-4.xsd``: ``testsuites`` of
``testsuite`` with ``name``, ``tests``, ``failures``, ``errors``, ``time``, a zone-less
``timestamp``, ``hostname``, ``id`` and ``package``; ``testcase`` with ``name``, ``classname`` and
``time``, at most one of ``skipped``/``error``/``failure`` (``message``, ``type``), then
``system-out``/``system-err``) and GitLab's unit test reports (a case is keyed by ``classname`` and
``name``: a duplicate is dropped; the Suite column shows the classname). A classname reads well in
Jenkins when it splits at its last dot into a package and a class that are identifiers. One
extension both readers accept or ignore is allowed: ``properties`` inside a ``testcase``
(Surefire's and JUnit 5's form), where the requirement ids live.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest

from conformance.report.junit_report import classname, render, timestamp
from conformance.report.model import Report
from tests.support import sample_reports as samples

ZONELESS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
DECIMAL = re.compile(r"^\d+(\.\d+)?$")
JAVA_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
OUTCOMES = ("skipped", "error", "failure")
CASE_ORDER = ("properties", *OUTCOMES, "system-out", "system-err")
SUITE_ORDER = ("properties", "testcase", "system-out", "system-err")


def _count(element: ET.Element, name: str) -> int:
    value = element.get(name, "")
    assert value.isdigit(), f"{element.tag} {name}={value!r} is not a count"
    return int(value)


def _ordered(element: ET.Element, order: tuple[str, ...]) -> None:
    ranks = [order.index(child.tag) if child.tag in order else -1 for child in element]
    assert -1 not in ranks, f"{element.tag} holds {[c.tag for c in element]}"
    assert ranks == sorted(ranks), f"{element.tag} children out of order"


def _properties(element: ET.Element) -> None:
    for holder in element.findall("properties"):
        for prop in holder:
            assert prop.tag == "property" and prop.get("name") and prop.get("value") is not None


def problems_of(xml: str) -> list[str]:
    """Every way ``xml`` departs from the documented structure (empty: it conforms)."""
    found: list[str] = []
    try:
        check(ET.fromstring(xml))
    except AssertionError as error:
        found.append(str(error))
    return found


def check(root: ET.Element) -> None:
    assert root.tag == "testsuites", f"root is {root.tag}"
    assert all(child.tag == "testsuite" for child in root), "testsuites holds only testsuite"
    keys: set[tuple[str, str]] = set()
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for number, suite in enumerate(root):
        for name in ("name", "hostname", "package"):
            assert suite.get(name), f"testsuite without {name}"
        assert suite.get("id") == str(number), "testsuite ids count from 0"
        assert ZONELESS.match(suite.get("timestamp", "")), f"timestamp {suite.get('timestamp')!r}"
        assert DECIMAL.match(suite.get("time", "")), "testsuite time in seconds"
        _ordered(suite, SUITE_ORDER)
        _properties(suite)
        cases = suite.findall("testcase")
        counts = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
        for case in cases:
            name, owner = case.get("name", ""), case.get("classname", "")
            assert name, "testcase without name"
            assert JAVA_NAME.match(owner), f"classname {owner!r} does not split into package.class"
            assert (owner, name) not in keys, f"duplicate case {owner} {name}: GitLab drops it"
            keys.add((owner, name))
            assert DECIMAL.match(case.get("time", "")), "testcase time in seconds"
            _ordered(case, CASE_ORDER)
            _properties(case)
            ends = [child for child in case if child.tag in OUTCOMES]
            assert len(ends) <= 1, f"{name}: more than one of {OUTCOMES}"
            for end in ends:
                if end.tag != "skipped":
                    assert end.get("message") is not None and end.get("type"), f"{name} {end.tag}"
                key = {"failure": "failures", "error": "errors", "skipped": "skipped"}[end.tag]
                counts[key] += 1
        for key, value in counts.items():
            assert _count(suite, key) == value, f"{suite.get('name')} {key}"
            totals[key] += value
    for key, value in totals.items():
        assert _count(root, key) == value, f"testsuites {key}"


@pytest.mark.parametrize("build", list(samples.SAMPLES.values()), ids=list(samples.SAMPLES))
def test_every_sample_report_conforms(build: Callable[[], Report]) -> None:
    assert problems_of(render(build())) == []


def test_classnames_read_as_package_and_section() -> None:
    assert classname("4.2") == "conformance.section_4_2"
    assert classname("(no section)") == "conformance.section_no_section"
    root = ET.fromstring(render(samples.not_conformant()))
    case = next(c for c in root.iter("testcase") if c.get("name") == "CFG-PATCH-409-STALE")
    package, _, cls = case.get("classname", "").rpartition(".")
    assert (package, cls) == ("conformance", "section_4_1")


def test_timestamps_lose_the_zone_not_the_moment() -> None:
    assert timestamp("2026-01-02T03:04:05Z") == "2026-01-02T03:04:05"
    assert timestamp("2026-01-02T05:04:05+02:00") == "2026-01-02T03:04:05"
    assert timestamp("not a date") == "not a date"


def test_the_check_has_teeth() -> None:
    good = render(samples.not_conformant())
    dotted = problems_of(good.replace("conformance.section_4_1", "conformance.section_4.1"))
    assert "does not split into package.class" in " ".join(dotted)
    zoned = good.replace('timestamp="2026-01-02T03:04:05"', 'timestamp="2026-01-02T03:04:05Z"')
    assert "timestamp" in " ".join(problems_of(zoned))
    root = ET.fromstring(good)
    suite = root.find("testsuite")
    assert suite is not None
    suite.append(suite.findall("testcase")[0])
    assert "GitLab drops it" in " ".join(problems_of(ET.tostring(root, encoding="unicode")))
    suite.remove(suite.findall("testcase")[-1])
    failure = next(root.iter("failure"))
    del failure.attrib["type"]
    assert "failure" in " ".join(problems_of(ET.tostring(root, encoding="unicode")))
