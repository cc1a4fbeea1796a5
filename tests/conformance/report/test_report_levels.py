"""Both levels in every format: the interface verdict, and drop-in compatibility with the
conventions the target departs from, each named by the key that would declare its choice."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from conformance.report.allure_environment import render as render_allure_environment
from conformance.report.diff import diff_reports, format_diff
from conformance.report.headline import summary_line
from conformance.report.html_report import render as render_html
from conformance.report.json_report import dumps, loads
from conformance.report.junit_report import render as render_junit
from conformance.report.levels import by_key, drop_in_phrase, levels_sentence
from conformance.report.markdown_report import render as render_markdown
from conformance.report.report_schema import schema_errors
from conformance.verdict.run_verdict import Level, Verdict, drop_in_verdict_of
from tests.support import sample_reports as samples

KEYS = ("statuses.create_configuration", "errors.code_field")


def test_a_difference_is_never_an_interface_failure() -> None:
    report = samples.drop_in_differs()
    assert report.verdict is Verdict.CONFORMANT
    assert report.drop_in_verdict is Verdict.NOT_CONFORMANT
    assert report.verdict_at(Level.INTERFACE) is Verdict.CONFORMANT
    assert report.verdict_at(Level.DROP_IN) is Verdict.NOT_CONFORMANT
    assert tuple(entry.key for entry in by_key(report)) == KEYS


def test_without_differences_the_drop_in_level_follows_the_interface() -> None:
    assert samples.conformant().drop_in_verdict is Verdict.CONFORMANT
    assert drop_in_phrase(samples.conformant()) == "drop-in compatible"
    assert samples.not_conformant().drop_in_verdict is Verdict.NOT_CONFORMANT
    for verdict in Verdict:
        assert drop_in_verdict_of(verdict, False) is verdict
        assert drop_in_verdict_of(verdict, True) is Verdict.NOT_CONFORMANT


def test_the_sentence_names_each_key() -> None:
    sentence = levels_sentence(samples.drop_in_differs())
    assert sentence == (
        "conformant to the interface; not drop-in compatible: 2 conventions differ "
        "(statuses.create_configuration, errors.code_field)"
    )


def test_every_format_shows_both_levels() -> None:
    report = samples.drop_in_differs()
    line = summary_line(report, 1.0, "reports")
    assert line.startswith("conformance: conformant: ")
    assert "not drop-in compatible: 2 conventions differ" in line
    markdown = render_markdown(report)
    assert "Levels: conformant to the interface; not drop-in compatible" in markdown
    table = markdown[markdown.index("## Drop-in differences (2)") :]
    assert "| `statuses.create_configuration` | 201 | HTTP 200 application/json |" in table
    html = render_html(report)
    assert 'data-drop-in="not-conformant"' in html
    assert "Drop-in differences (2)" in html and "errors.code_field" in html
    junit = ET.fromstring(render_junit(report))
    properties = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert properties["verdict"] == "conformant"
    assert properties["verdict_drop_in"] == "not-conformant"
    assert any(
        p.get("name") == "drop_in_difference"
        and str(p.get("value")).startswith("statuses.create_configuration: convention 201")
        for p in junit.iter("property")
    )
    assert "Levels = conformant to the interface" in render_allure_environment(report)


def test_the_json_report_keeps_both_levels_and_every_difference() -> None:
    report = samples.drop_in_differs()
    text = dumps(report)
    data = json.loads(text)
    assert schema_errors(data) == []
    assert data["levels"] == {"interface": "conformant", "drop_in": "not-conformant"}
    assert [d["key"] for d in data["differences"]] == list(KEYS)
    again = loads(text)
    assert again == report
    assert again.drop_in_verdict is Verdict.NOT_CONFORMANT


def test_the_diff_shows_conventions_that_newly_differ_and_gates_on_them_when_asked() -> None:
    old, new = samples.conformant(), samples.drop_in_differs()
    diff = diff_reports(old, new)
    assert diff.newly_differing == KEYS
    assert diff.exit_code_at(Level.INTERFACE) == 0  # never an interface regression
    assert diff.exit_code_at(Level.DROP_IN) == 1
    text = format_diff(diff)
    assert "Drop-in: conformant -> not-conformant" in text
    assert "Conventions newly differing (2):" in text
    back = diff_reports(new, old)
    assert back.no_longer_differing == KEYS
    assert back.exit_code_at(Level.DROP_IN) == 0
