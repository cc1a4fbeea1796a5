"""matrix.html in a real headless Chromium: it renders, filters by section and by outcome, shows
a cell's evidence on demand, and asks the network for nothing (a recording proxy sees no request).
Skips where Chromium is absent; CI installs it (.ci/run)."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from conformance.report.matrix import build
from conformance.report.matrix_html import render
from tests.conformance.report.test_report_html import CHROMIUM, needs_chromium
from tests.support import sample_reports as samples

# Test-only script appended to a copy of the page. Each step drives the page's own controls and
# records what its script left visible; the results go into the title as JSON.
PROBE = """<script>
(function () {
  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll('tr.req'))
      .filter(function (row) { return !row.hidden && row.offsetHeight > 0; })
      .map(function (row) { return row.id.slice(4); });
  }
  var out = {rendered: rows(), columns: document.querySelectorAll('th.col').length};
  var section = document.getElementById('section');
  section.value = '4.3';
  section.dispatchEvent(new Event('change'));
  out.section = rows();
  section.value = '';
  section.dispatchEvent(new Event('change'));
  ['pass', 'absent', 'differs'].forEach(function (name) {
    var box = document.querySelector('input[data-filter="' + name + '"]');
    box.checked = false;
    box.dispatchEvent(new Event('change'));
  });
  out.notPass = rows();
  var differs = document.querySelector('input[data-filter="differs"]');
  document.querySelectorAll('input[data-filter]').forEach(function (box) {
    box.checked = box === differs;
    box.dispatchEvent(new Event('change'));
  });
  out.differs = rows();
  document.querySelectorAll('input[data-filter]').forEach(function (box) {
    box.checked = true;
    box.dispatchEvent(new Event('change'));
  });
  var cell = document.getElementById('cell-1-SDK-STATUS-304-IF-NONE-MATCH');
  var detail = cell.querySelector('.detail');
  out.hiddenBefore = !detail.checkVisibility() && !cell.open;
  cell.querySelector('summary').click();
  out.shownAfter = detail.checkVisibility() && cell.open && detail.offsetHeight > 0;
  out.evidence = detail.innerText;
  document.title = 'probe ' + JSON.stringify(out);
})();
</script>"""


# Hosts headless Chromium contacts by itself, with no page asking (a blank page shows them:
# test_a_blank_page_asks_only_for_the_browsers_own_hosts): not the page's requests.
BROWSER_OWN = frozenset(
    {"www.google.com", "accounts.google.com", "clients2.google.com", "update.googleapis.com"}
)  # update.googleapis.com: Debian's Chromium 15x asks its component updater despite the flags
REQUEST_LINE = re.compile(rb"^(?:CONNECT ([^:\s]+)|[A-Z]+ [a-z]+://([^/:\s]+))")


def hosts(requests: list[bytes]) -> set[str]:
    """The host each recorded proxy request is for ("?" when the request line is unreadable)."""
    found = set()
    for request in requests:
        match = REQUEST_LINE.match(request)
        found.add((match.group(1) or match.group(2)).decode() if match else "?")
    return found


def page_requests(requests: list[bytes]) -> set[str]:
    """The hosts asked for beyond the browser's own."""
    return hosts(requests) - BROWSER_OWN


@contextmanager
def recording_proxy() -> Iterator[tuple[int, list[bytes]]]:
    """A loopback listener standing in as Chromium's proxy: every request sent to it is recorded
    (the first bytes of each connection that sends any)."""
    seen: list[bytes] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            with connection:  # a connection that sends nothing is a preconnect, not a request
                connection.settimeout(2)
                with contextlib.suppress(OSError):
                    request = connection.recv(200)
                    if request:
                        seen.append(request)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], seen
    finally:
        stop.set()
        thread.join()
        server.close()


def _dump_dom(page: Path, proxy_port: int) -> str:
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
            f"--proxy-server=127.0.0.1:{proxy_port}",
            "--proxy-bypass-list=<-loopback>",
            "--dump-dom",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout


@needs_chromium
def test_the_matrix_renders_filters_and_shows_evidence_offline(tmp_path: Path) -> None:
    older = replace(
        samples.conformant(),
        requirements=tuple(
            r for r in samples.conformant().requirements if r.id != "CFG-PATCH-409-STALE"
        ),
    )
    matrix = build(
        [
            ("ref", samples.not_conformant()),
            ("other", samples.drop_in_differs()),
            ("older", older),
        ],
        ["ref", "other", "older"],
    )
    page = tmp_path / "matrix.html"
    page.write_text(render(matrix).replace("</body>", PROBE + "</body>"), encoding="utf-8")
    with recording_proxy() as (port, requests):
        dom = _dump_dom(page, port)
    assert page_requests(requests) == set(), f"the page asked the network: {requests}"
    title = re.search(r"<title>probe (.*?)</title>", dom, re.DOTALL)
    assert title is not None, "the probe did not run: the page's script failed or never loaded"
    seen = json.loads(title.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert seen["columns"] == 3
    assert seen["rendered"] == [row.id for row in matrix.rows]
    assert seen["section"] == [row.id for row in matrix.rows if row.section == "4.3"]
    not_pass = [
        row.id
        for row in matrix.rows
        if any(c.outcome is not None and c.outcome.value != "pass" for c in row.cells)
    ]
    assert seen["notPass"] == not_pass and "CFG-PATCH-409-STALE" in not_pass
    assert seen["differs"] == ["CFG-CREATE-RECORD", "EXP-LIST"]
    assert seen["hiddenBefore"] and seen["shownAfter"]
    assert "If-None-Match equal to the current hash must answer 304" in seen["evidence"]
    assert "status 200 with a body of 74 bytes" in seen["evidence"]


@needs_chromium
def test_the_recording_proxy_sees_a_page_that_asks_the_network(tmp_path: Path) -> None:
    page = tmp_path / "remote.html"
    page.write_text(
        '<!DOCTYPE html><html><body><img src="http://example.invalid/pixel.png"></body></html>',
        encoding="utf-8",
    )
    with recording_proxy() as (port, requests):
        _dump_dom(page, port)
    assert "example.invalid" in page_requests(requests), requests


@needs_chromium
def test_a_blank_page_asks_only_for_the_browsers_own_hosts(tmp_path: Path) -> None:
    page = tmp_path / "blank.html"
    page.write_text("<!DOCTYPE html><html><body>blank</body></html>", encoding="utf-8")
    with recording_proxy() as (port, requests):
        _dump_dom(page, port)
    assert hosts(requests) <= BROWSER_OWN, requests


# For any matrix page: rows shown at first, after choosing its first section, and after leaving
# out pass and absent cells.
COUNTS_PROBE = """<script>
(function () {
  function shown() {
    return Array.prototype.slice.call(document.querySelectorAll('tr.req'))
      .filter(function (row) { return !row.hidden && row.offsetHeight > 0; }).length;
  }
  var out = {all: shown()};
  var section = document.getElementById('section');
  section.value = section.options[1].value;
  section.dispatchEvent(new Event('change'));
  out.first = shown();
  section.value = '';
  section.dispatchEvent(new Event('change'));
  ['pass', 'absent'].forEach(function (name) {
    var box = document.querySelector('input[data-filter="' + name + '"]');
    box.checked = false;
    box.dispatchEvent(new Event('change'));
  });
  out.notPass = shown();
  document.title = 'probe ' + JSON.stringify(out);
})();
</script>"""


@needs_chromium
def test_the_corpus_matrix_in_the_repository_passes_too(tmp_path: Path) -> None:
    """The committed matrix of reports/implementations/, as the README shows it."""
    corpus = Path(__file__).resolve().parents[3] / "reports" / "implementations"
    html = (corpus / "matrix.html").read_text(encoding="utf-8")
    page = tmp_path / "matrix.html"
    page.write_text(html.replace("</body>", COUNTS_PROBE + "</body>"), encoding="utf-8")
    with recording_proxy() as (port, requests):
        dom = _dump_dom(page, port)
    assert page_requests(requests) == set(), f"the page asked the network: {requests}"
    title = re.search(r"<title>probe (.*?)</title>", dom, re.DOTALL)
    assert title is not None, "the probe did not run: the page's script failed or never loaded"
    seen = json.loads(title.group(1).replace("&quot;", '"'))
    rows = re.findall(r'<tr class="req" id="req-[^"]+" data-tags="([^"]*)"', html)
    sections = re.findall(r'<tbody class="section" data-section="([^"]*)">(.*?)</tbody>', html)
    first_rows = sections[0][1].count('<tr class="req"')
    not_pass = [tags for tags in rows if set(tags.split()) - {"pass", "absent"}]
    assert (seen["all"], seen["first"], seen["notPass"]) == (len(rows), first_rows, len(not_pass))
    assert len(rows) > 150 and 0 < first_rows < len(rows)
