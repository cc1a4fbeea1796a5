"""Stage details as readable lines: the bucketing record as a sentence, the rest as pairs."""

from __future__ import annotations

from conformance.report.html_report import render as render_html
from conformance.report.markdown_report import render as render_markdown
from conformance.report.stage_text import stage_lines, value_text
from tests.support import sample_reports as samples

BUCKETING = {
    "requirement": "EXP-WEIGHTED-SPLIT",
    "units": 3000,
    "observed": [1484, 923, 593],
    "expected": [1500.0, 900.0, 600.0],
    "chi_square": 0.8401,
    "degrees_of_freedom": 2,
    "p_value": 0.6570103182278983,
    "alpha": 0.001,
    "seed": 20261122,
}


def test_bucketing_reads_as_one_sentence() -> None:
    assert stage_lines({"bucketing": BUCKETING}) == [
        "bucketing (EXP-WEIGHTED-SPLIT): 3000 units, observed [1484, 923, 593] against "
        "expected [1500, 900, 600], chi-square 0.8401 with 2 degrees of freedom, "
        "p = 0.657 (fails below 0.001), seed 20261122"
    ]


def test_a_partial_bucketing_record_says_what_it_has() -> None:
    assert stage_lines({"bucketing": {"requirement": "R", "p_value": 0.5}}) == [
        "bucketing (R): p = 0.5"
    ]


def test_other_details_are_key_value_pairs_in_key_order() -> None:
    lines = stage_lines(
        {"tier": "pr", "cases": 1900, "failures_by_check": {"b": 2, "a": 1}, "rate": 0.123456}
    )
    assert lines == ["cases: 1900", "failures_by_check: a 1, b 2", "rate: 0.1235", "tier: pr"]


def test_values_render_compactly() -> None:
    assert value_text(True) == "true"
    assert value_text([1.23456, "x"]) == "[1.235, x]"
    assert value_text({}) == "none"


def test_both_human_reports_show_the_p_value_sentence() -> None:
    report = samples.conformant()
    sentence = "p = 0.657 (fails below 0.001)"
    assert sentence in render_markdown(report)
    assert sentence in render_html(report)
    assert "{" not in render_markdown(report).split("## Stages")[1]
