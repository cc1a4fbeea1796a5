"""matrix.md: the matrix across implementations as Markdown tables, for a README or a CI summary.

First the columns (each report's verdict at both levels, passes, stages, suite, hashes, date),
then one row per requirement by section: its level and each report's outcome, linked to the
evidence in matrix.html where there is some; "absent" where a report does not hold the id.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.report.matrix import ABSENT, Cell, Column, Matrix, Row
from conformance.report.matrix_html import DIFFERS_MARK, cell_anchor
from conformance.report.vocabulary import OUTCOME_STYLES, VERDICT_STYLES
from conformance.verdict.run_verdict import Verdict

HTML_FILE = "matrix.html"
ESCAPED = frozenset("\\|<>[]`*_")


def _cell(text: str) -> str:
    """Text on one line, safe in a table cell."""
    return "".join(f"\\{c}" if c in ESCAPED else c for c in " ".join(text.split()))


def _columns(matrix: Matrix) -> list[str]:
    lines = [
        "| | " + " | ".join(f"**{_cell(c.label)}**" for c in matrix.columns) + " |",
        "|---|" + "---|" * len(matrix.columns),
    ]
    facts: list[tuple[str, Callable[[Column], str]]] = [
        ("Interface", lambda c: _verdict(c.interface)),
        ("Drop-in", lambda c: _verdict(c.drop_in)),
        ("Passed", lambda c: f"{c.passed} of {c.total}"),
        ("Stages", lambda c: ", ".join(c.stages) or "-"),
        ("Suite", lambda c: c.report.suite_version),
        ("Catalogue sha256", lambda c: f"`{c.report.catalogue_sha256[:12]}`"),
        ("Contract sha256", lambda c: f"`{c.report.contract_sha256[:12]}`"),
        ("Date", lambda c: c.date),
    ]
    for name, value in facts:
        lines.append(f"| {name} | " + " | ".join(value(c) for c in matrix.columns) + " |")
    return lines


def _verdict(verdict: Verdict) -> str:
    return f"{VERDICT_STYLES[verdict].mark} {verdict.value}"


def _outcome(number: int, row: Row, cell: Cell, html: str) -> str:
    if cell.outcome is None:
        return ABSENT
    style = OUTCOME_STYLES[cell.outcome]
    text = f"{style.mark} {style.label}" + (f" {DIFFERS_MARK}" if cell.differences else "")
    if cell.has_detail and html:
        return f"[{text}]({html}#{cell_anchor(number, row.id)})"
    return text


def level_text(row: Row) -> str:
    if row.keys is None:
        return "not in this catalogue"
    if not row.keys:
        return "interface"
    return "interface + drop-in (" + ", ".join(f"`{key}`" for key in row.keys) + ")"


def requirement_lines(matrix: Matrix, html: str = HTML_FILE) -> list[str]:
    """The requirement table: one row per requirement, in section order."""
    lines = [
        "| Requirement | § | Level | " + " | ".join(_cell(c.label) for c in matrix.columns) + " |",
        "|---|---|---|" + "---|" * len(matrix.columns),
    ]
    for row in matrix.rows:
        cells = " | ".join(
            _outcome(n, row, cell, html) for n, cell in enumerate(row.cells, start=1)
        )
        subject = "" if row.subject == "server" else f" ({_cell(row.subject)} rule)"
        lines.append(
            f"| `{row.id}`{subject} | {_cell(row.section)} | {level_text(row)} | {cells} |"
        )
    return lines


def render(matrix: Matrix, html: str = HTML_FILE) -> str:
    catalogues = matrix.catalogues
    mixed = (
        f" The reports were judged under {len(catalogues)} catalogue versions."
        if len(catalogues) > 1
        else ""
    )
    lines = [
        "# RCES conformance matrix",
        "",
        f"{len(matrix.columns)} reports, {len(matrix.rows)} requirements. A requirement a report "
        f"does not hold is *{ABSENT}* there, never a pass.{mixed} {DIFFERS_MARK}: a drop-in "
        "difference (a production convention the profile leaves at its default, departed from; "
        "the outcome shown is the interface's). Linked cells open their evidence in "
        f"[{html}]({html}).",
        "",
        *_columns(matrix),
        "",
        "## Requirements",
        "",
        *requirement_lines(matrix, html),
    ]
    return "\n".join(lines) + "\n"
