"""conformance.html: one self-contained, offline, printable page (inline CSS, JS and SVG only).

What decides the verdict comes first: the banner says it specifically, then the failures with
their evidence, then what was not measured and why, the declared exceptions, and only then the
summary chart and the requirement matrix.
"""

from __future__ import annotations

from html import escape

from conformance.report import html_kill_rates
from conformance.report.evidence_text import request_text, response_text, truncate
from conformance.report.headline import decided_by, measured_share
from conformance.report.levels import by_key, levels_sentence
from conformance.report.model import Report, RequirementResult, StageSummary
from conformance.report.sections import by_section, outcome_counts
from conformance.report.stage_text import summary_lines
from conformance.report.vocabulary import (
    OUTCOME_ORDER,
    OUTCOME_STYLES,
    VERDICT_STYLES,
    not_measured_sentence,
)
from conformance.verdict.evidence import Evidence, Exchange
from conformance.verdict.outcome import DECLARED, Outcome

BODY_LIMIT = 4000  # characters of expected and received (bodies: ``body_cut``)

CSS = """
:root { --fg:#1b1f23; --muted:#57606a; --line:#d0d7de; --bg:#fff; --soft:#f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 0 1rem 2rem; color: var(--fg);
  background: var(--bg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto,
  "Helvetica Neue", Arial, sans-serif; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12.5px; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 4px;
  padding: .5rem .75rem; white-space: pre-wrap; word-break: break-word; margin: .4rem 0; }
.banner { color: #fff; padding: 1rem 1.25rem; border-radius: 0 0 8px 8px; }
.banner h1 { margin: 0 0 .25rem; font-size: 1.6rem; }
.banner p { margin: 0; }
.banner p.decided { font-size: 1.05rem; font-weight: 600; margin-bottom: .25rem; }
section.decides h3 { margin: 1rem 0 .25rem; font-size: 1rem; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem;
  margin: .75rem 0 0; font-size: 13px; }
.meta dt { opacity: .85; } .meta dd { margin: 0; word-break: break-all; }
h2 { margin: 1.5rem 0 .5rem; font-size: 1.15rem; border-bottom: 1px solid var(--line);
  padding-bottom: .25rem; }
.counts { display: flex; flex-wrap: wrap; gap: .5rem; margin: 1rem 0; }
.chip { border-radius: 999px; padding: .15rem .7rem; color: #fff; font-weight: 600; }
.badge { display: inline-block; border-radius: 4px; padding: 0 .4rem; color: #fff;
  font-size: 12px; font-weight: 600; white-space: nowrap; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
col.c-id { width: 15rem; } col.c-outcome { width: 8.5rem; } col.c-tests { width: 24%; }
td.id { word-break: break-word; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem;
  border-bottom: 1px solid var(--line); }
th { background: var(--soft); font-weight: 600; }
td.id { font-weight: 600; }
td.tests { color: var(--muted); font-size: 12px; word-break: break-all; max-width: 22rem; }
tr.ev td { padding-top: 0; }
tbody.req:has(tr.ev) > tr:first-child > td { border-bottom: none; }
.note { color: var(--muted); font-style: italic; margin-top: .2rem; }
.basis { color: var(--muted); font-size: 12px; }
details { margin: .35rem 0; }
summary { cursor: pointer; font-weight: 600; }
.evidence { border-left: 3px solid var(--line); padding-left: .75rem; margin: .5rem 0; }
.pair { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem; }
.pair dt { font-weight: 600; } .pair dd { margin: 0; }
.filters { position: sticky; top: 0; background: var(--bg); padding: .5rem 0;
  border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: .75rem;
  align-items: center; z-index: 1; }
.filters label { white-space: nowrap; }
.filters input[type=search] { min-width: 14rem; padding: .2rem .4rem; }
svg.chart { width: 100%; max-width: 760px; height: auto; display: block; }
svg.chart text { font: 12px system-ui, sans-serif; fill: #1b1f23; }
.legend { display: flex; flex-wrap: wrap; gap: .75rem; font-size: 12px; margin: .25rem 0; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px;
  vertical-align: -1px; margin-right: .25rem; }
footer { margin-top: 2rem; color: var(--muted); font-size: 12px; }
@media print {
  .filters, .no-print { display: none !important; }
  tbody.req { display: table-row-group !important; }
  section.spec { display: block !important; }
  body { max-width: none; font-size: 11px; }
  .banner { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .badge, .chip, .swatch { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  pre { white-space: pre-wrap; }
  tr { break-inside: avoid; }
  details::details-content { content-visibility: visible; display: contents; }
}
"""

COLUMNS = '<colgroup><col class="c-id"><col class="c-outcome"><col><col class="c-tests"></colgroup>'

JS = """
(function () {
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[data-outcome]'));
  var search = document.getElementById('search');
  function apply() {
    var shown = {};
    boxes.forEach(function (b) { shown[b.getAttribute('data-outcome')] = b.checked; });
    var needle = (search.value || '').toLowerCase();
    document.querySelectorAll('section.spec').forEach(function (section) {
      var visible = 0;
      section.querySelectorAll('tbody.req').forEach(function (row) {
        var ok = shown[row.getAttribute('data-outcome')] &&
          (!needle || row.textContent.toLowerCase().indexOf(needle) >= 0);
        row.hidden = !ok;
        if (ok) { visible += 1; }
      });
      section.hidden = visible === 0;
    });
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  search.addEventListener('input', apply);
  document.getElementById('expand').addEventListener('click', function () {
    document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  });
  document.getElementById('collapse').addEventListener('click', function () {
    document.querySelectorAll('details').forEach(function (d) { d.open = false; });
  });
  var closed = [];
  window.addEventListener('beforeprint', function () {
    closed = Array.prototype.slice.call(document.querySelectorAll('details:not([open])'));
    closed.forEach(function (d) { d.open = true; });
  });
  window.addEventListener('afterprint', function () {
    closed.forEach(function (d) { d.open = false; });
    closed = [];
  });
  apply();
})();
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _badge(outcome: Outcome) -> str:
    style = OUTCOME_STYLES[outcome]
    return f'<span class="badge" style="background:{style.colour}">{_e(style.label)}</span>'


def _banner(report: Report) -> str:
    style = VERDICT_STYLES[report.verdict]
    meta = [
        ("Target", report.target_url),
        ("Fingerprint", report.target_fingerprint),
        ("Suite version", report.suite_version),
        ("Contract sha256", report.contract_sha256),
        ("Catalogue sha256", report.catalogue_sha256),
        ("Started", report.started_at),
        ("Duration", f"{report.duration_s:.1f} s"),
        ("Report schema", report.schema_version),
    ]
    rows = "".join(f"<dt>{_e(k)}</dt><dd class=mono>{_e(v)}</dd>" for k, v in meta)
    return (
        f'<header class="banner" style="background:{style.colour}" data-verdict="'
        f'{_e(report.verdict.value)}"><h1>{_e(style.symbol)} {_e(style.headline)} · '
        f"{_e(measured_share(report))}</h1>"
        f'<p class="decided">{_e(decided_by(report))}</p>'
        f'<p class="levels" data-drop-in="{_e(report.drop_in_verdict.value)}">Levels: '
        f"{_e(levels_sentence(report))}.</p>"
        f"<p>{_e(style.explanation)} {_e(not_measured_sentence(len(report.not_measured)))}</p>"
        f"<dl class=meta>{rows}</dl></header>"
    )


def _chips(report: Report) -> str:
    counts = outcome_counts(report.requirements)
    chips = "".join(
        f'<span class="chip" style="background:{OUTCOME_STYLES[o].colour}">'
        f"{counts[o]} {_e(OUTCOME_STYLES[o].label)}</span>"
        for o in OUTCOME_ORDER
    )
    return f'<div class="counts">{chips}<span>of {report.applicable} requirements</span></div>'


def _chart(report: Report) -> str:
    """Outcomes per section as horizontal stacked bars, in inline SVG."""
    groups = by_section(report)
    label_w, bar_w, row_h, gap = 90, 560, 18, 6
    total_w = label_w + bar_w + 50
    height = max(1, len(groups)) * (row_h + gap) + gap
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {total_w} {height}" '
        f'aria-label="Outcomes per spec section">'
    ]
    widest = max((len(reqs) for _, reqs in groups), default=1)
    for row, (section, requirements) in enumerate(groups):
        y = gap + row * (row_h + gap)
        parts.append(
            f'<text x="{label_w - 8}" y="{y + row_h - 5}" text-anchor="end">§{_e(section)}</text>'
        )
        x = float(label_w)
        counts = outcome_counts(requirements)
        for outcome in OUTCOME_ORDER:
            if not counts[outcome]:
                continue
            width = bar_w * counts[outcome] / widest
            style = OUTCOME_STYLES[outcome]
            parts.append(
                f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{row_h}" '
                f'fill="{style.colour}"><title>§{_e(section)}: {counts[outcome]} '
                f"{_e(style.label)}</title></rect>"
            )
            x += width
        parts.append(f'<text x="{x + 6:.1f}" y="{y + row_h - 5}">{len(requirements)}</text>')
    parts.append("</svg>")
    legend = "".join(
        f'<span><span class="swatch" style="background:{OUTCOME_STYLES[o].colour}"></span>'
        f"{_e(OUTCOME_STYLES[o].label)}</span>"
        for o in OUTCOME_ORDER
    )
    return "".join(parts) + f'<div class="legend">{legend}</div>'


def _filters(report: Report) -> str:
    counts = outcome_counts(report.requirements)
    boxes = "".join(
        f'<label><input type="checkbox" checked data-outcome="{_e(o.value)}"> '
        f"{_badge(o)} {counts[o]}</label>"
        for o in OUTCOME_ORDER
    )
    return (
        f'<nav class="filters" aria-label="Filter requirements">{boxes}'
        '<input id="search" type="search" placeholder="Filter by id, text or test">'
        '<button id="expand" type="button">Expand all</button>'
        '<button id="collapse" type="button">Collapse all</button></nav>'
    )


def _exchange(number: int, exchange: Exchange) -> str:
    status = "no response" if exchange.status is None else f"HTTP {exchange.status}"
    return (
        f"<details><summary>Exchange {number}: {_e(exchange.method)} {_e(exchange.url)} → "
        f"{_e(status)}</summary>"
        f"<div>Request</div><pre>{_e(request_text(exchange))}</pre>"
        f"<div>Response</div><pre>{_e(response_text(exchange))}</pre></details>"
    )


def _evidence(evidence: Evidence) -> str:
    pairs: list[tuple[str, str]] = [
        ("Test", evidence.test_id),
        ("Expected", truncate(evidence.expected, BODY_LIMIT)),
        ("Received", truncate(evidence.received, BODY_LIMIT)),
    ]
    if evidence.check:
        pairs.append(("Check", evidence.check))
    if evidence.seed is not None:
        pairs.append(("Seed", str(evidence.seed)))
    rows = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in pairs)
    curl = f"<div>Reproduce</div><pre class=curl>{_e(evidence.curl)}</pre>" if evidence.curl else ""
    exchanges = "".join(_exchange(n, x) for n, x in enumerate(evidence.exchanges, start=1))
    return (
        f'<div class="evidence"><div><strong>{_e(evidence.title)}</strong></div>'
        f'<dl class="pair">{rows}</dl>{curl}{exchanges}</div>'
    )


def _evidence_block(requirement: RequirementResult) -> str:
    if not requirement.evidence:
        return ""
    body = "".join(_evidence(e) for e in requirement.evidence)
    count = len(requirement.evidence)
    return f'<details class="failure"><summary>Evidence ({count})</summary>{body}</details>'


def _row(requirement: RequirementResult) -> str:
    """One requirement as its own <tbody>: its row, then its evidence across the full width."""
    note = f'<div class="note">{_e(requirement.note)}</div>' if requirement.note else ""
    tests = "<br>".join(_e(t) for t in requirement.tests) or "(no test)"
    evidence = _evidence_block(requirement)
    if requirement.outcome is Outcome.FAIL and requirement.evidence:  # shown once, under Failures
        evidence = f'<a class="to-evidence" href="#fail-{_e(requirement.id)}">Evidence above</a>'
    evidence_row = f'<tr class="ev"><td colspan="4">{evidence}</td></tr>' if evidence else ""
    return (
        f'<tbody class="req" id="req-{_e(requirement.id)}" data-outcome="'
        f'{_e(requirement.outcome.value)}" data-subject="{_e(requirement.subject)}"><tr>'
        f'<td class="id">{_e(requirement.id)}{_subject_tag(requirement)}</td>'
        f"<td>{_badge(requirement.outcome)}</td>"
        f'<td>{_e(requirement.text)} <span class="basis">({_e(requirement.basis)})</span>'
        f"{note}{html_kill_rates.judges(requirement.id)}</td>"
        f'<td class="tests">{tests}</td></tr>{evidence_row}</tbody>'
    )


def _subject_tag(requirement: RequirementResult) -> str:
    """A small tag on a client rule (the client stage); nothing on a server's."""
    if requirement.subject == "server":
        return ""
    return f' <span class="basis">({_e(requirement.subject)} rule)</span>'


def _by_id(requirement: RequirementResult) -> str:
    return requirement.id


def _link(requirement: RequirementResult) -> str:
    return f'<a href="#req-{_e(requirement.id)}">{_e(requirement.id)}</a>'


def _failures(report: Report) -> str:
    """Each failed requirement with its evidence in full: the reason for a red verdict."""
    failed = sorted((r for r in report.requirements if r.outcome is Outcome.FAIL), key=_by_id)
    if not failed:
        return ""
    parts = [f'<section class="decides" id="failures"><h2>Failures ({len(failed)})</h2>']
    for requirement in failed:
        evidence = "".join(_evidence(e) for e in requirement.evidence) or (
            '<p class="note">no evidence recorded</p>'
        )
        parts.append(
            f'<h3 id="fail-{_e(requirement.id)}">{_link(requirement)} '
            f"(§{_e(requirement.section)})</h3>"
            f"<p>{_e(requirement.text)}</p>{evidence}"
        )
    return "".join(parts) + "</section>"


def _reasons(title: str, anchor: str, lead: str, requirements: list[RequirementResult]) -> str:
    """A table of requirements and why each ended as it did (the note)."""
    if not requirements:
        return ""
    rows = "".join(
        f'<tr><td class="id">{_link(r)}</td><td>{_badge(r.outcome)}</td>'
        f"<td>{_e(r.note or 'no reason recorded')}</td></tr>"
        for r in requirements
    )
    return (
        f'<section class="decides" id="{anchor}"><h2>{_e(title)} ({len(requirements)})</h2>'
        f"<p>{_e(lead)}</p><table><colgroup><col class=c-id><col class=c-outcome><col>"
        f"</colgroup><thead><tr><th>Requirement</th><th>Outcome</th><th>Why</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></section>"
    )


def _not_measured(report: Report) -> str:
    missing = [r for r in report.requirements if r.outcome is Outcome.NOT_MEASURABLE]
    return _reasons(
        "Not measured",
        "not-measured",
        "No judgement either way, for a reason the profile does not declare: where nothing "
        "failed, any one of them makes the verdict incomplete.",
        sorted(missing, key=_by_id),
    )


def _declared(report: Report) -> str:
    declared = [r for r in report.requirements if r.outcome in DECLARED]
    return _reasons(
        "Declared exceptions",
        "declared",
        "Left out as the profile declares (capabilities absent, optional inputs not configured, "
        "baseline) or doubting only the contract: they count as declared exceptions, not "
        "against the verdict.",
        sorted(declared, key=lambda r: (OUTCOME_ORDER.index(r.outcome), r.id)),
    )


def _differences(report: Report) -> str:
    """The drop-in level: each convention the target departs from, with the key to declare."""
    entries = by_key(report)
    if not entries:
        return ""
    rows = "".join(
        f"<tr><td class=mono>{_e(entry.key)}</td><td class=mono>{_e(entry.convention)}</td>"
        f"<td>{_e(truncate('; '.join(entry.received), BODY_LIMIT))}</td>"
        f"<td class=mono>{_e(', '.join(entry.requirement_ids))}</td></tr>"
        for entry in entries
    )
    return (
        f'<section class="differences"><h2>Drop-in differences ({len(entries)})</h2>'
        "<p>Production conventions the target departs from and its profile does not declare: "
        "not interface failures, but real game clients of the production service may rely on "
        "them. Declare the target's own choice under the key, or follow the convention.</p>"
        "<table><thead><tr><th>Profile key</th><th>Convention</th><th>Received</th>"
        f"<th>Requirements</th></tr></thead>{rows}</table></section>"
    )


def _matrix(report: Report) -> str:
    sections = []
    for section, requirements in by_section(report):
        ordered = sorted(requirements, key=lambda r: (OUTCOME_ORDER.index(r.outcome), r.id))
        rows = "".join(_row(r) for r in ordered)
        sections.append(
            f'<section class="spec" data-section="{_e(section)}"><h2>§{_e(section)}</h2>'
            f"<table>{COLUMNS}<thead><tr><th>Requirement</th><th>Outcome</th><th>Text</th>"
            f"<th>Tests</th></tr></thead>{rows}</table></section>"
        )
    return "".join(sections)


def _stages(report: Report) -> str:
    if not report.stages:
        return ""
    rows = "".join(
        f"<tr><td>{_e(s.name)}</td><td>{s.tests}</td><td>{s.duration_s:.1f} s</td>"
        f"<td>{'<br>'.join(_e(d) for d in summary_lines(s))}</td></tr>"
        for s in report.stages
    )
    return (
        "<h2>Stages</h2><table><thead><tr><th>Stage</th><th>Tests</th>"
        '<th title="test durations added up: parallel workers run tests at once">Test time</th>'
        f"<th>Details</th></tr></thead><tbody>{rows}</tbody></table>"
        + "".join(_stage_html(s) for s in report.stages)
    )


def _stage_html(stage: StageSummary) -> str:
    """What a stage draws itself (``StageSummary.html``), in a section of its own."""
    if stage.html is None:
        return ""
    return f'<section class="stage" data-stage="{_e(stage.name)}">{stage.html}</section>'


def render(report: Report) -> str:
    style = VERDICT_STYLES[report.verdict]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>RCES conformance: {_e(style.headline)}, {_e(measured_share(report))}</title>"
        f"<style>{CSS}{html_kill_rates.CSS}</style></head><body>"
        f"{_banner(report)}"
        f"{_failures(report)}{_differences(report)}{_not_measured(report)}{_declared(report)}"
        f"<h2>Summary</h2>{_chips(report)}{_chart(report)}"
        f"<h2>Requirements</h2>{html_kill_rates.lead()}{_filters(report)}{_matrix(report)}"
        f"{_stages(report)}"
        f"<footer>Written by the RCES conformance suite {_e(report.suite_version)}. "
        "This file is self-contained and needs no network.</footer>"
        f"<script>{JS}</script></body></html>\n"
    )
