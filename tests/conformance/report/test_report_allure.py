"""Allure results: requirement labels, section features, exchange attachments, and a distinct
history id per fuzzed operation; nothing at all without --alluredir."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conformance.report.allure_analytics import main, strip_analytics
from conformance.report.allure_environment import render as render_environment
from conformance.report.allure_labels import labels_for
from conformance.report.writer import write_reports
from tests.support import sample_reports as samples

pytest_plugins = ["pytester"]

CATALOGUE = {
    "SDK-STATUS-ETAG": {"section": "4.3", "text": "ETag"},
    "SDK-STATUS-304-IF-NONE-MATCH": {"section": "4.3", "text": "304"},
    "VER-V2": {"section": "9", "text": "v2"},
}

CONFTEST = f"""
import pytest
from conformance.report.allure_labels import apply_allure_labels

CATALOGUE = {CATALOGUE!r}

@pytest.fixture(autouse=True)
def _allure_labels(request):
    marker = request.node.get_closest_marker("requirement")
    ids = marker.args if marker else ("VER-V2",)
    apply_allure_labels(request.node, ids, CATALOGUE)
"""

TESTS = """
import pytest
import schemathesis
from hypothesis import settings
from conformance.report.allure_labels import attach_exchanges, label_fuzzed_operation
from conformance.verdict.evidence import Exchange

EXCHANGE = Exchange("GET", "http://127.0.0.1:1/sdk/v2/status", {"authorization": "svc_pk_SECRET"},
                    None, 304, {"etag": '"h"'}, None, 1.5)

@pytest.mark.requirement("SDK-STATUS-ETAG", "SDK-STATUS-304-IF-NONE-MATCH")
def test_scenario():
    attach_exchanges([EXCHANGE], secrets=["svc_pk_SECRET"])

schema = schemathesis.openapi.from_dict({
    "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
    "paths": {
        "/sdk/v2/status": {"get": {"operationId": "getSdkStatus",
                                   "responses": {"200": {"description": "ok"}}}},
        "/sdk/v2/bootstrap": {"get": {"operationId": "getSdkBootstrap",
                                      "responses": {"200": {"description": "ok"}}}},
    },
})

def test_loop():
    label_fuzzed_operation("getSdkStatus: GET /sdk/v2/status")

@schema.parametrize()
@settings(max_examples=1, database=None)
def test_fuzz(case):
    pass
"""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_fuzzed=TESTS)
    pytester.makeini("[pytest]\nmarkers =\n    requirement: requirement ids\n")
    return pytester.runpytest_subprocess("-p", "no:conformance", "-p", "no:cacheprovider", *args)


def results(directory: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for path in directory.glob("*-result.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        found[data["name"]] = data
    return found


def labels(result: dict[str, Any], name: str) -> list[str]:
    return [label["value"] for label in result["labels"] if label["name"] == name]


def test_labels_for_is_pure_and_ordered() -> None:
    assert labels_for(["SDK-STATUS-ETAG", "VER-V2", "SDK-STATUS-ETAG"], CATALOGUE) == [
        ("epic", "RCES conformance"),
        ("feature", "§4.3"),
        ("feature", "§9"),
        ("story", "SDK-STATUS-ETAG"),
        ("story", "VER-V2"),
        ("requirement", "SDK-STATUS-ETAG"),
        ("requirement", "VER-V2"),
    ]


def test_allure_results_carry_labels_attachments_and_operations(
    pytester: pytest.Pytester,
) -> None:
    out = pytester.path / "allure-results"
    outcome = run(pytester, f"--alluredir={out}")
    outcome.assert_outcomes(passed=4)
    found = results(out)
    scenario = found["test_scenario"]
    assert labels(scenario, "requirement") == ["SDK-STATUS-ETAG", "SDK-STATUS-304-IF-NONE-MATCH"]
    assert labels(scenario, "feature") == ["§4.3"]
    names = [a["name"] for a in scenario["attachments"]]
    assert names == ["request 1: GET http://127.0.0.1:1/sdk/v2/status", "response 1: 304"]
    for attachment in scenario["attachments"]:
        text = (out / attachment["source"]).read_text(encoding="utf-8")
        assert "svc_pk_SECRET" not in text
    fuzzed = {name: r for name, r in found.items() if name.startswith("test_fuzz[")}
    assert sorted(fuzzed) == ["test_fuzz[GET /sdk/v2/bootstrap]", "test_fuzz[GET /sdk/v2/status]"]
    operations = [
        p["value"] for r in fuzzed.values() for p in r["parameters"] if p["name"] == "operation"
    ]
    assert sorted(operations) == ["'GET /sdk/v2/bootstrap'", "'GET /sdk/v2/status'"]
    assert len({r["historyId"] for r in fuzzed.values()}) == 2  # the allure-pytest pitfall
    looped = found["fuzz: getSdkStatus: GET /sdk/v2/status"]
    assert [p["value"] for p in looped["parameters"]] == ["'getSdkStatus: GET /sdk/v2/status'"]


def test_no_alluredir_means_no_allure_work(pytester: pytest.Pytester) -> None:
    outcome = run(pytester)
    outcome.assert_outcomes(passed=4)
    assert not list(pytester.path.rglob("*-result.json"))


ALLURE_PAGE = """<html><body><div id="app"></div>
    <script async src="https://www.googletagmanager.com/gtag/js?id=G-TEST"></script>
    <script>
        window.dataLayer = window.dataLayer || [];
        function gtag(){dataLayer.push(arguments);}
        gtag('js', new Date());
    </script>
    <script>window.allureReportData = {};</script>
</body></html>"""


def test_strip_analytics_removes_only_the_tag(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text(ALLURE_PAGE, encoding="utf-8")
    assert main([str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "googletagmanager" not in html
    assert "gtag(" not in html
    assert "window.allureReportData = {};" in html
    assert strip_analytics(html) == (html, 0)


def read_properties(text: str) -> dict[str, str]:
    """Java properties as Allure reads them: ``key = value``; \\\\, \\n and \\uXXXX escapes."""
    found = {}
    for line in text.splitlines():
        key, value = line.split(" = ", 1)
        assert re.fullmatch(r"[A-Za-z0-9.]+", key), key
        found[key] = _unescape(value)
    return found


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape.startswith("u"):
            return chr(int(escape[1:], 16))
        return "\n" if escape == "n" else escape

    text = re.sub(r"\\(u[0-9a-f]{4}|.)", one, text)
    return text.encode("utf-16", "surrogatepass").decode("utf-16")


def test_allure_environment_leads_with_the_measured_share_and_the_verdict(tmp_path: Path) -> None:
    (tmp_path / "allure-results").mkdir()
    write_reports(samples.incomplete(), tmp_path, formats=["json"])
    text = (tmp_path / "allure-results" / "environment.properties").read_text(encoding="ascii")
    properties = read_properties(text)
    assert list(properties)[:3] == ["Measured", "Verdict", "Decided.by"]
    assert properties["Measured"] == "measured 6 of 9 requirements"
    assert properties["Verdict"] == "incomplete"
    assert "EXP-BUCKETING-UNIFORM" in properties["Decided.by"]
    assert properties["Target"] == samples.URL


def test_any_text_survives_the_properties_escape() -> None:
    url = "http://ünï.example:8765/a\\u0041\nb 🚧 = c"
    text = render_environment(replace(samples.conformant(), target_url=url))
    assert text.isascii()
    assert read_properties(text)["Target"] == url


def test_no_allure_results_means_no_environment_file(tmp_path: Path) -> None:
    write_reports(samples.incomplete(), tmp_path, formats=["json"])
    assert not (tmp_path / "allure-results").exists()
