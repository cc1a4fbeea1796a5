"""conformance.html: self-contained (no network reference), escaped, filterable, printable."""

from __future__ import annotations

import re
import shutil
import subprocess
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conformance.catalogue.kill_rates import load_kill_rates
from conformance.report.html_report import _e, render
from conformance.verdict.outcome import Outcome
from tests.support import sample_reports as samples

REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)  # http://, https://, //cdn
URL_ATTRIBUTES = {"src", "href", "srcset", "action", "poster", "data", "xlink:href", "formaction"}


class Inventory(HTMLParser):
    """Every tag with its attributes, and the text of <style> and <script> blocks."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.styles: list[str] = []
        self.scripts: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        self._in = tag if tag in ("style", "script") else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "style":
            self.styles.append(data)
        elif self._in == "script":
            self.scripts.append(data)


def inventory(html: str) -> Inventory:
    parser = Inventory()
    parser.feed(html)
    parser.close()
    return parser


def external_references(html: str) -> list[str]:
    """Every reference that would need the network to load."""
    found = []
    parsed = inventory(html)
    css = list(parsed.styles)
    for tag, attrs in parsed.tags:
        for name, value in attrs.items():
            if name in URL_ATTRIBUTES and value and not value.startswith("#"):
                found.append(f"<{tag} {name}={value!r}>")
            if name == "style":
                css.append(value)
        if tag == "link" and "stylesheet" in attrs.get("rel", "").lower():
            found.append(f"<link rel=stylesheet {attrs.get('href')!r}>")
        if tag == "script" and "src" in attrs:
            found.append(f"<script src={attrs['src']!r}>")
        if tag == "meta" and attrs.get("http-equiv", "").lower() == "refresh":
            found.append("<meta http-equiv=refresh>")
    for text in css:
        found += [f"@import {m}" for m in re.findall(r"@import[^;]*", text)]
        found += [
            f"url({m})" for m in re.findall(r"url\(\s*['\"]?([^'\")]*)", text) if REMOTE.match(m)
        ]
    for text in parsed.scripts:
        found += [
            f"script fetch {m}" for m in re.findall(r"(?:fetch|XMLHttpRequest|import)\s*\(", text)
        ]
    return found


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_html_needs_no_network(name: str) -> None:
    html = render(samples.SAMPLES[name]())
    assert external_references(html) == []
    assert "http://" not in "".join(inventory(html).styles + inventory(html).scripts)


def test_the_offline_check_has_teeth() -> None:
    bad = (
        '<html><head><link rel="stylesheet" href="https://cdn.example/x.css">'
        "<style>@import 'x.css'; body{background:url(https://e.example/a.png)}</style>"
        '<script src="https://cdn.example/x.js"></script></head>'
        '<body><img src="http://e.example/a.png"><div style="background:url(//e.example/b)">'
        "</div></body></html>"
    )
    found = " ".join(external_references(bad))
    for expected in (
        "<link rel=stylesheet",
        "@import 'x.css'",
        "url(https://e.example/a.png)",
        "<script src='https://cdn.example/x.js'>",
        "<img src='http://e.example/a.png'>",
        "url(//e.example/b)",
    ):
        assert expected in found


def test_banner_matrix_chart_and_evidence() -> None:
    report = samples.not_conformant()
    html = render(report)
    parsed = inventory(html)
    tags = [tag for tag, _ in parsed.tags]
    banner = next(a for t, a in parsed.tags if t == "header")
    assert banner["data-verdict"] == "not-conformant"
    assert "Not conformant" in html
    rows = [a for t, a in parsed.tags if t == "tbody" and a.get("class") == "req"]
    assert len(rows) == len(report.requirements)
    assert {r["data-outcome"] for r in rows} == {"pass", "fail", "unsupported", "not-measurable"}
    sections = [a["data-section"] for t, a in parsed.tags if t == "section" and "data-section" in a]
    assert sections == ["4.1", "4.2", "4.3", "7", "8", "9"]
    # A failure's evidence is shown once, under Failures; its matrix row links there.
    failed = [r for r in report.requirements if r.evidence and r.outcome is Outcome.FAIL]
    others = [r for r in report.requirements if r.evidence and r.outcome is not Outcome.FAIL]
    assert failed
    assert sum(1 for t, a in parsed.tags if t == "details" and a.get("class") == "failure") == (
        len(others)
    )
    links = [a["href"] for t, a in parsed.tags if t == "a" and a.get("class") == "to-evidence"]
    assert sorted(links) == sorted(f"#fail-{r.id}" for r in failed)
    targets = {a["id"] for t, a in parsed.tags if t == "h3" and "id" in a}
    assert {link[1:] for link in links} <= targets
    for requirement in failed:
        for evidence in requirement.evidence:
            assert html.count(_e(evidence.expected)) == 1, requirement.id
    assert tags.count("svg") == 1
    assert tags.count("rect") == 8  # one bar segment per (section, outcome) present
    filters = [a["data-outcome"] for t, a in parsed.tags if t == "input" and "data-outcome" in a]
    assert sorted(filters) == sorted(o.value for o in Outcome)
    css = "".join(parsed.styles)
    assert "@media print" in css
    assert ".filters" in css.split("@media print", 1)[1]
    assert "beforeprint" in "".join(parsed.scripts)


def test_everything_is_escaped() -> None:
    html = render(samples.not_conformant())
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "(&lt;&quot;&amp;&quot;&gt;)" in html  # requirement text with <"&">
    assert [t for t, _ in inventory(html).tags].count("script") == 1


def test_what_decides_the_verdict_comes_first() -> None:
    """Failures with their evidence, then what was not measured and why, then the matrix."""
    report = samples.not_conformant()
    html = render(report)
    failures = html.index('id="failures"')
    not_measured = html.index('id="not-measured"')
    declared = html.index('id="declared"')
    matrix = html.index('<section class="spec"')
    assert html.index("</header>") < failures < not_measured < declared < matrix
    shown = html[failures:not_measured]
    for requirement in (r for r in report.requirements if r.outcome is Outcome.FAIL):
        assert requirement.id in shown
        for evidence in requirement.evidence:
            for part in (evidence.expected, evidence.received, evidence.curl or ""):
                assert escape(part) in shown
            assert f"Exchange 1: {evidence.exchanges[0].method}" in shown
    reasons = html[not_measured:declared]
    assert "LIMIT-LOAD-SHED-POLLING" in reasons
    assert "took 4.7 s, over the profile&#x27;s 1 s window" in reasons
    assert "VER-LEGACY-SDK-KEY" in html[declared:matrix]


def banner(html: str) -> tuple[str, str]:
    """The banner's heading and its "decided by" sentence, as text."""
    heading = re.search(r"<h1>(.*?)</h1>", html)
    decided = re.search(r'<p class="decided">(.*?)</p>', html)
    assert heading is not None and decided is not None
    return heading.group(1), decided.group(1)


def test_the_banner_says_what_decided_the_verdict() -> None:
    heading, decided = banner(render(samples.not_conformant()))
    assert heading == "✗ Not conformant · measured 7 of 9 requirements"
    assert decided == "2 requirements failed: CFG-PATCH-409-STALE, SDK-STATUS-304-IF-NONE-MATCH."
    heading, decided = banner(render(samples.incomplete()))
    assert heading == "◐ Incomplete · measured 6 of 9 requirements"
    assert decided == (
        "2 requirements not measured, for a reason the profile does not declare: "
        "EXP-BUCKETING-UNIFORM, LIMIT-LOAD-SHED-POLLING."
    )


def test_an_incomplete_report_lists_not_configured_as_declared_with_its_profile_key() -> None:
    html = render(samples.incomplete())
    declared = html[html.index('id="declared"') : html.index('<section class="spec"')]
    assert "VER-LEGACY-SDK-KEY" in declared
    assert "not configured: set credentials.legacy_sdk_key in the profile" in declared
    assert (
        "VER-LEGACY-SDK-KEY"
        not in html[html.index('id="not-measured"') : html.index('id="declared"')]
    )


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine")

# Test-only script appended to a copy of the report: untick "pass", then search for one failed
# requirement, and write what the page's own filter script left visible into the title.
PROBE = """<script>
(function () {
  function visible() {
    return Array.prototype.slice.call(document.querySelectorAll('tbody.req'))
      .filter(function (row) { return !row.hidden; })
      .map(function (row) { return row.id + ':' + row.getAttribute('data-outcome'); });
  }
  var before = visible().length;
  var pass = document.querySelector('input[data-outcome="pass"]');
  pass.checked = false;
  pass.dispatchEvent(new Event('change'));
  var noPass = visible();
  var search = document.getElementById('search');
  search.value = 'SDK-STATUS-304';
  search.dispatchEvent(new Event('input'));
  document.title = 'probe ' + before + ' | ' + noPass.join(',') + ' | ' + visible().join(',');
})();
</script>"""


def chromium(page: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium on a local file, with every network request sent to a dead proxy."""
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={page.parent / 'chromium-profile'}",
            "--proxy-server=127.0.0.1:9",  # any network attempt would fail
            "--proxy-bypass-list=<-loopback>",
            *arguments,
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )


@needs_chromium
def test_filters_work_offline_in_headless_chromium(tmp_path: Path) -> None:
    report = samples.not_conformant()
    page = tmp_path / "conformance.html"
    page.write_text(render(report).replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = chromium(page, "--dump-dom").stdout
    title = re.search(r"<title>probe (.*?)</title>", dom)
    assert title is not None, "the probe did not run: the page's script failed or never loaded"
    before, no_pass, searched = title.group(1).split(" | ")
    assert int(before) == len(report.requirements)
    not_pass = sorted(
        f"req-{r.id}:{r.outcome.value}" for r in report.requirements if r.outcome != Outcome.PASS
    )
    assert sorted(no_pass.split(",")) == not_pass
    assert searched.split(",") == ["req-SDK-STATUS-304-IF-NONE-MATCH:fail"]


@needs_chromium
def test_prints_to_pdf_offline_in_headless_chromium(tmp_path: Path) -> None:
    page = tmp_path / "conformance.html"
    page.write_text(render(samples.not_conformant()), encoding="utf-8")
    pdf = tmp_path / "conformance.pdf"
    chromium(page, f"--print-to-pdf={pdf}", "--no-pdf-header-footer")
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    assert data.count(b"/Type /Page") - data.count(b"/Type /Pages") >= 1


def test_each_requirement_shows_its_statements_and_their_kill_rates() -> None:
    """SDK-STATUS-304-IF-NONE-MATCH judges S96, S106 and S130: each is listed under it, in the
    catalogue's short words, with its kill rate (caught exactly / faults) from the shipped data;
    a requirement that judges no statement (a made-up sample id) lists none."""
    html = render(samples.not_conformant())
    rates = load_kill_rates()
    row = html.split('id="req-SDK-STATUS-304-IF-NONE-MATCH"', 1)[1].split("</tbody>", 1)[0]
    statements = rates.of("SDK-STATUS-304-IF-NONE-MATCH")
    assert [s.id for s in statements] == ["S96", "S106", "S130"]
    for statement in statements:
        assert f'<li data-statement="{statement.id}"><strong>{statement.id}</strong>' in row
        assert _e(statement.words) in row
        figure = f"{statement.caught}/{statement.faults}"
        assert f'data-kill-rate="{figure}">kill rate {figure}</span>' in row
    other = html.split('id="req-CFG-CREATE-RECORD"', 1)[1].split("</tbody>", 1)[0]
    assert "judges" not in other
    lead = next(a for t, a in inventory(html).tags if a.get("class") == "kill-rates")
    assert lead["data-source"] == rates.source
