"""The headline of every format: measured share first, no success mark unless conformant."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest

from conformance.report.allure_environment import render as render_environment
from conformance.report.headline import decided_by, measured_share, summary_line
from conformance.report.html_report import render as render_html
from conformance.report.json_report import dumps
from conformance.report.junit_report import render as render_junit
from conformance.report.markdown_report import render as render_markdown
from conformance.report.model import Report
from tests.support import sample_reports as samples

SUCCESS_MARKS = ("✅", "✓", "✔", "☑", "🟢", "👍")


def markdown_headline(report: Report) -> str:
    return render_markdown(report).splitlines()[0]


def html_headline(report: Report) -> str:
    html = render_html(report)
    title = re.search(r"<title>(.*?)</title>", html)
    heading = re.search(r"<h1>(.*?)</h1>", html)
    decided = re.search(r'<p class="decided">(.*?)</p>', html)
    assert title and heading and decided
    return f"{title.group(1)} | {heading.group(1)} | {decided.group(1)}"


def junit_headline(report: Report) -> str:
    properties = next(ET.fromstring(render_junit(report)).iter("testsuite")).find("properties")
    assert properties is not None
    return " | ".join(p.get("value", "") for p in list(properties)[:3])


def json_headline(report: Report) -> str:
    data = json.loads(dumps(report))
    return f"{data['verdict']} measured {data['measured']['count']} of {data['measured']['of']}"


def allure_headline(report: Report) -> str:
    return " | ".join(render_environment(report).splitlines()[:3])


def terminal_headline(report: Report) -> str:
    return summary_line(report, 9.6, "reports")


HEADLINES: dict[str, Callable[[Report], str]] = {
    "allure": allure_headline,
    "markdown": markdown_headline,
    "html": html_headline,
    "junit": junit_headline,
    "json": json_headline,
    "terminal": terminal_headline,
}


@pytest.mark.parametrize("name", ["incomplete", "not-conformant"])
@pytest.mark.parametrize("fmt", sorted(HEADLINES))
def test_no_success_mark_in_a_headline_that_is_not_conformant(fmt: str, name: str) -> None:
    headline = HEADLINES[fmt](samples.SAMPLES[name]())
    assert not [mark for mark in SUCCESS_MARKS if mark in headline], headline
    assert "conformant" not in headline.lower().replace("not conformant", "").replace(
        "not-conformant", ""
    ), headline


@pytest.mark.parametrize("fmt", sorted(HEADLINES))
@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_every_headline_carries_the_measured_share(fmt: str, name: str) -> None:
    report = samples.SAMPLES[name]()
    share = f"measured {report.measured} of {len(report.requirements)}"
    assert share in HEADLINES[fmt](report)


def test_the_conformant_headline_may_show_success() -> None:
    assert markdown_headline(samples.conformant()).startswith("# ✅ ")
    assert "✓ Conformant" in html_headline(samples.conformant())


def test_the_markdown_headline_leads_with_the_verdict_and_the_share() -> None:
    assert markdown_headline(samples.incomplete()) == (
        "# 🚧 RCES conformance: Incomplete, measured 6 of 9 requirements"
    )
    assert markdown_headline(samples.with_exceptions()) == (
        "# ⚠️ RCES conformance: Conformant with declared exceptions, measured 7 of 9 requirements"
    )


def test_the_terminal_line_leads_with_the_measured_share() -> None:
    assert summary_line(samples.incomplete(), 9.6, "reports") == (
        "conformance: incomplete: measured 6 of 9 requirements "
        "(6 pass, 2 not-measurable, 1 not-configured) in 9.6s; drop-in: incomplete, as the "
        "interface; reports in reports/"
    )
    assert summary_line(samples.not_conformant()) == (
        "conformance: not-conformant: measured 7 of 9 requirements "
        "(5 pass, 2 fail, 1 not-measurable, 1 unsupported); drop-in: not-conformant, as the "
        "interface"
    )


def test_what_decided_each_verdict() -> None:
    assert decided_by(samples.conformant()) == "All 9 requirements in scope passed."
    assert decided_by(samples.with_exceptions()) == (
        "No failure; declared exceptions: 1 known failure, 1 spec doubt, 1 not configured, "
        "1 unsupported."
    )
    assert measured_share(samples.with_exceptions()) == "measured 7 of 9 requirements"


def test_markdown_lists_not_configured_as_a_declared_exception_with_its_profile_key() -> None:
    text = render_markdown(samples.incomplete())
    declared = text[text.index("## Declared exceptions") : text.index("## Outcomes per section")]
    assert "- not configured (1): " in declared
    assert "set credentials.legacy_sdk_key in the profile: `VER-LEGACY-SDK-KEY`" in declared
    not_measured = text[text.index("## Not measured") : text.index("## Declared exceptions")]
    assert "VER-LEGACY-SDK-KEY" not in not_measured
    assert "`EXP-BUCKETING-UNIFORM`" in not_measured
