"""matrix.html: the matrix across implementations as one self-contained, offline page.

Inline CSS and JS only (no network). Above the rows, each column's head: its verdict at both
levels, passes, stages, suite version, catalogue and contract hashes, date. Filters by section and
by cell outcome (absent and drop-in difference included); each cell with something to show opens
its evidence, differences and note on demand (a ``details`` element, also reached by its anchor).
"""

from __future__ import annotations

from html import escape

from conformance.report.evidence_text import truncate
from conformance.report.matrix import ABSENT, DIFFERS, Cell, Column, Matrix, Row
from conformance.report.vocabulary import OUTCOME_ORDER, OUTCOME_STYLES, VERDICT_STYLES
from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence
from conformance.verdict.run_verdict import Level, Verdict

TEXT_LIMIT = 2000
DIFFERS_MARK = "◆"
ABSENT_COLOUR = "#9e9e9e"

CSS = """
:root { --fg:#1b1f23; --muted:#57606a; --line:#d0d7de; --soft:#f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 0 1rem 2rem; color: var(--fg); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
h1 { font-size: 1.5rem; margin: 1rem 0 .25rem; }
h2 { font-size: 1.1rem; margin: 1.25rem 0 .5rem; }
.lead { color: var(--muted); max-width: 60rem; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 4px;
  padding: .4rem .6rem; white-space: pre-wrap; word-break: break-word; margin: .3rem 0; }
table { border-collapse: collapse; }
th, td { text-align: left; vertical-align: top; padding: .3rem .45rem;
  border-bottom: 1px solid var(--line); }
thead th { background: var(--soft); position: sticky; top: 2.6rem; z-index: 1; }
th.col { min-width: 11rem; max-width: 16rem; word-break: break-word; font-weight: 600; }
th.col .badge { white-space: normal; }
td.req { min-width: 16rem; max-width: 26rem; }
td.req .id { font-weight: 600; }
td.req .text { color: var(--muted); font-size: 12.5px; }
td.req .keys { color: var(--muted); font-size: 11.5px; word-break: break-word; }
td.level { font-size: 12px; color: var(--muted); white-space: nowrap; }
tr.sec th { background: #eef1f4; font-size: 13px; }
.badge { display: inline-block; border-radius: 4px; padding: 0 .4rem; color: #fff;
  font-size: 12px; font-weight: 600; white-space: nowrap; }
.absent { display: inline-block; border: 1px dashed #9e9e9e; border-radius: 4px;
  padding: 0 .4rem; color: #616161; font-size: 12px; }
.differs { color: #6a1b9a; font-weight: 700; }
details summary { cursor: pointer; list-style: none; }
details summary::-webkit-details-marker { display: none; }
details[open] { background: var(--soft); border-radius: 4px; padding: .2rem; }
.detail { min-width: 18rem; max-width: 34rem; font-size: 12px; }
.detail dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .5rem;
  margin: .3rem 0; }
.detail dt { font-weight: 600; } .detail dd { margin: 0; word-break: break-word; }
.heads dl { display: grid; grid-template-columns: max-content 1fr; gap: .05rem .5rem;
  margin: .3rem 0 0; font-weight: 400; font-size: 12px; }
.heads dd { margin: 0; word-break: break-all; }
.filters { position: sticky; top: 0; background: #fff; padding: .4rem 0; z-index: 2;
  border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: .6rem;
  align-items: center; }
.filters label { white-space: nowrap; font-size: 13px; }
footer { margin-top: 2rem; color: var(--muted); font-size: 12px; }
"""

JS = """
(function () {
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[data-filter]'));
  var section = document.getElementById('section');
  function apply() {
    var shown = {};
    boxes.forEach(function (b) { shown[b.getAttribute('data-filter')] = b.checked; });
    var wanted = section.value;
    document.querySelectorAll('tbody.section').forEach(function (group) {
      var inSection = !wanted || group.getAttribute('data-section') === wanted;
      var visible = 0;
      group.querySelectorAll('tr.req').forEach(function (row) {
        var tags = row.getAttribute('data-tags').split(' ');
        var ok = inSection && tags.some(function (t) { return shown[t]; });
        row.hidden = !ok;
        if (ok) { visible += 1; }
      });
      group.hidden = visible === 0;
    });
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  section.addEventListener('change', apply);
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.tagName === 'DETAILS') { target.open = true; }
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  apply();
})();
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def cell_anchor(column: int, requirement_id: str) -> str:
    """The id of a cell's evidence: ``cell-<column number from 1>-<requirement id>``."""
    return f"cell-{column}-{requirement_id}"


def _verdict_badge(verdict: Verdict, level: Level) -> str:
    style = VERDICT_STYLES[verdict]
    return (
        f'<span class="badge" data-level="{_e(level.value)}" data-verdict="{_e(verdict.value)}" '
        f'style="background:{style.colour}">{_e(level.value)}: {_e(style.headline)}</span>'
    )


def _head(number: int, column: Column) -> str:
    meta = [
        ("passed", f"{column.passed} of {column.total}"),
        ("stages", ", ".join(column.stages) or "-"),
        ("suite", column.report.suite_version),
        ("catalogue", column.report.catalogue_sha256[:12]),
        ("contract", column.report.contract_sha256[:12]),
        ("date", column.date),
        ("file", column.source),
    ]
    rows = "".join(f"<dt>{_e(k)}</dt><dd class=mono>{_e(v)}</dd>" for k, v in meta)
    return (
        f'<th class="col" data-column="{number}" title="{_e(column.report.target_url)}">'
        f"<div>{_e(column.label)}</div>"
        f"<div>{_verdict_badge(column.interface, Level.INTERFACE)}</div>"
        f"<div>{_verdict_badge(column.drop_in, Level.DROP_IN)}</div>"
        f"<dl>{rows}</dl></th>"
    )


def _evidence(evidence: Evidence) -> str:
    pairs = [
        ("test", evidence.test_id),
        ("expected", truncate(evidence.expected, TEXT_LIMIT)),
        ("received", truncate(evidence.received, TEXT_LIMIT)),
    ]
    if evidence.seed is not None:
        pairs.append(("seed", str(evidence.seed)))
    rows = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in pairs)
    curl = f"<pre>{_e(evidence.curl)}</pre>" if evidence.curl else ""
    return f'<div class="evidence"><strong>{_e(evidence.title)}</strong><dl>{rows}</dl>{curl}</div>'


def _difference(difference: Difference) -> str:
    pairs = [
        ("key", difference.key),
        ("convention", difference.convention),
        ("received", truncate(difference.received, TEXT_LIMIT)),
        ("test", difference.test_id),
    ]
    rows = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in pairs if v)
    return (
        f'<div class="difference"><strong>{DIFFERS_MARK} drop-in difference: '
        f"{_e(difference.title)}</strong><dl>{rows}</dl></div>"
    )


def _mark(cell: Cell) -> str:
    if cell.outcome is None:
        return f'<span class="absent">{ABSENT}</span>'
    style = OUTCOME_STYLES[cell.outcome]
    differs = f' <span class="differs" title="drop-in difference">{DIFFERS_MARK}</span>'
    return f'<span class="badge" style="background:{style.colour}">{_e(style.label)}</span>' + (
        differs if cell.differences else ""
    )


def _cell(number: int, row: Row, cell: Cell) -> str:
    tags = f' data-outcome="{_e(cell.name)}" data-differs="{int(bool(cell.differences))}"'
    if not cell.has_detail:
        return f'<td class="cell"{tags}>{_mark(cell)}</td>'
    note = f"<p>{_e(cell.note)}</p>" if cell.note else ""
    body = "".join(_evidence(e) for e in cell.evidence) + "".join(
        _difference(d) for d in cell.differences
    )
    return (
        f'<td class="cell"{tags}><details id="{_e(cell_anchor(number, row.id))}">'
        f'<summary>{_mark(cell)}</summary><div class="detail">{note}{body}</div></details></td>'
    )


def level_text(row: Row) -> str:
    """What a row's expectation rests on, in words: the interface alone, or keys too."""
    if row.keys is None:
        return "not in this suite's catalogue"
    if not row.keys:
        return "the specification's words alone"
    return "keys (drop-in where the profile leaves them at the default): " + ", ".join(row.keys)


def _row(row: Row) -> str:
    tags = {cell.name for cell in row.cells} | ({DIFFERS} if row.differs else set())
    subject = "" if row.subject == "server" else f" ({_e(row.subject)} rule)"
    levels = " ".join(level.value for level in row.levels)
    cells = "".join(_cell(n, row, cell) for n, cell in enumerate(row.cells, start=1))
    return (
        f'<tr class="req" id="req-{_e(row.id)}" data-tags="{_e(" ".join(sorted(tags)))}" '
        f'data-levels="{_e(levels)}"><td class="req"><div class="id">{_e(row.id)}{subject}</div>'
        f'<div class="text">{_e(row.text)}</div><div class="keys">{_e(level_text(row))}</div></td>'
        f'<td class="level">{"<br>".join(_e(level.value) for level in row.levels) or "?"}</td>'
        f"{cells}</tr>"
    )


def _body(matrix: Matrix) -> str:
    width = 2 + len(matrix.columns)
    parts = []
    for section in matrix.sections:
        rows = "".join(_row(r) for r in matrix.rows if r.section == section)
        parts.append(
            f'<tbody class="section" data-section="{_e(section)}">'
            f'<tr class="sec"><th colspan="{width}">§{_e(section)}</th></tr>{rows}</tbody>'
        )
    return "".join(parts)


def _filters(matrix: Matrix) -> str:
    counts: dict[str, int] = {}
    for row in matrix.rows:
        for cell in row.cells:
            counts[cell.name] = counts.get(cell.name, 0) + 1
            if cell.differences:
                counts[DIFFERS] = counts.get(DIFFERS, 0) + 1
    choices = [(o.value, OUTCOME_STYLES[o].label) for o in OUTCOME_ORDER]
    choices += [(ABSENT, ABSENT), (DIFFERS, f"{DIFFERS_MARK} drop-in difference")]
    boxes = "".join(
        f'<label><input type="checkbox" checked data-filter="{_e(name)}"> {_e(label)} '
        f"({counts.get(name, 0)})</label>"
        for name, label in choices
    )
    options = "".join(f'<option value="{_e(s)}">§{_e(s)}</option>' for s in matrix.sections)
    return (
        '<nav class="filters" aria-label="Filter the matrix"><label>Section '
        f'<select id="section"><option value="">all</option>{options}</select></label>'
        f"{boxes}</nav>"
    )


def _lead(matrix: Matrix) -> str:
    catalogues = matrix.catalogues
    mixed = (
        f" The reports were judged under {len(catalogues)} catalogue versions."
        if len(catalogues) > 1
        else ""
    )
    return (
        f'<p class="lead">{len(matrix.columns)} reports, {len(matrix.rows)} requirements. A '
        "requirement a report does not hold is <em>absent</em> there (another catalogue version "
        f"or another stage's scope), never a pass.{mixed} {DIFFERS_MARK} marks a drop-in "
        "difference: a production convention the target's profile leaves at its default and the "
        "target departs from; the cell keeps its interface outcome. Open a cell for its evidence."
        "</p>"
    )


def render(matrix: Matrix) -> str:
    heads = "".join(_head(n, c) for n, c in enumerate(matrix.columns, start=1))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>RCES conformance matrix: {len(matrix.columns)} reports</title>"
        f"<style>{CSS}</style></head><body>"
        f"<h1>RCES conformance matrix</h1>{_lead(matrix)}{_filters(matrix)}"
        '<table class="matrix"><thead class="heads"><tr><th>Requirement</th><th>Level</th>'
        f"{heads}</tr></thead>{_body(matrix)}</table>"
        "<footer>Written by the RCES conformance suite (conformance matrix). This file is "
        f"self-contained and needs no network.</footer><script>{JS}</script></body></html>\n"
    )
