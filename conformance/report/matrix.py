"""The matrix of results across implementations: requirements as rows, reports as columns.

Any number of ``conformance.json`` files (implementations, versions of one, stages) set side by
side. A column is one report, labelled by its target's fingerprint or a given label, headed by
its verdict at both levels and what it was judged under (suite version, catalogue and contract
hashes, date). A row is one requirement id found in any report, with the profile keys the
catalogue says it rests on (where a key is left at its default, its expectation is a production
convention: the drop-in level). A cell is the report's outcome for the id, or absent: an id a
report does not hold (another catalogue version, another stage's scope) is never a pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from conformance.catalogue.requirements import Catalogue, load_catalogue
from conformance.report.model import Report, RequirementResult
from conformance.report.sections import UNSECTIONED, section_key
from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence
from conformance.verdict.outcome import Outcome
from conformance.verdict.run_verdict import Level, Verdict

ABSENT = "absent"  # a cell's outcome when its report does not hold the id
DIFFERS = "differs"  # the filter name of a cell with a drop-in difference


@dataclass(frozen=True)
class Column:
    """One report: its label, where it came from, and the report itself."""

    label: str
    source: str
    report: Report

    @property
    def interface(self) -> Verdict:
        return self.report.verdict

    @property
    def drop_in(self) -> Verdict:
        return self.report.drop_in_verdict

    @property
    def stages(self) -> tuple[str, ...]:
        """The stages the run reported on (its summaries, else its tests' stages)."""
        named = [s.name for s in self.report.stages] or [t.stage for t in self.report.tests]
        return tuple(dict.fromkeys(named))

    @property
    def passed(self) -> int:
        return self.report.counts[Outcome.PASS.value]

    @property
    def total(self) -> int:
        return len(self.report.requirements)

    @property
    def date(self) -> str:
        return self.report.started_at


@dataclass(frozen=True)
class Cell:
    """One report's result for one requirement; ``outcome`` None: the report does not hold it."""

    outcome: Outcome | None
    evidence: tuple[Evidence, ...] = ()
    differences: tuple[Difference, ...] = ()
    note: str = ""
    tests: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The outcome's value, or "absent"."""
        return ABSENT if self.outcome is None else self.outcome.value

    @property
    def has_detail(self) -> bool:
        """Whether there is anything to show on demand (evidence, differences or a note)."""
        return bool(self.evidence or self.differences or self.note)


@dataclass(frozen=True)
class Row:
    """One requirement across every column. ``keys`` None: the id is not in this suite's
    catalogue (a report made under another catalogue version)."""

    id: str
    section: str
    text: str
    subject: str
    keys: tuple[str, ...] | None
    cells: tuple[Cell, ...]

    @property
    def levels(self) -> tuple[Level, ...]:
        """The levels its expectation can be judged at: the interface always; the drop-in level
        too when it rests on a profile key (a key left at its default is a convention); none
        known for an id this suite's catalogue does not hold."""
        if self.keys is None:
            return ()
        return (Level.INTERFACE, Level.DROP_IN) if self.keys else (Level.INTERFACE,)

    @property
    def differs(self) -> bool:
        return any(cell.differences for cell in self.cells)


@dataclass(frozen=True)
class Matrix:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(row.section for row in self.rows))

    @property
    def catalogues(self) -> tuple[str, ...]:
        """The distinct catalogue hashes the columns were judged under."""
        return tuple(dict.fromkeys(c.report.catalogue_sha256 for c in self.columns))


def _cell(result: RequirementResult | None) -> Cell:
    if result is None:
        return Cell(outcome=None)
    return Cell(
        outcome=result.outcome,
        evidence=result.evidence,
        differences=result.differences,
        note=result.note,
        tests=result.tests,
    )


def default_label(report: Report) -> str:
    """A column's label when none is given: the target fingerprint and the stages it ran."""
    stages = ", ".join(dict.fromkeys(s.name for s in report.stages))
    fingerprint = report.target_fingerprint or report.target_url or "unnamed target"
    return f"{fingerprint} · {stages}" if stages else fingerprint


def labels_for(reports: Sequence[Report], given: Sequence[str]) -> list[str]:
    """One label per report: the given ones in order, then defaults; repeated labels numbered."""
    labels = [*given[: len(reports)], *(default_label(r) for r in reports[len(given) :])]
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return unique


def build(
    reports: Sequence[tuple[str, Report]],
    labels: Sequence[str] = (),
    catalogue: Catalogue | None = None,
) -> Matrix:
    """The matrix of ``reports`` (source, report), labelled by ``labels`` where given."""
    catalogue = catalogue if catalogue is not None else load_catalogue()
    names = labels_for([report for _, report in reports], labels)
    columns = tuple(
        Column(label=name, source=source, report=report)
        for name, (source, report) in zip(names, reports, strict=True)
    )
    by_column = [{r.id: r for r in column.report.requirements} for column in columns]
    first: dict[str, RequirementResult] = {}
    for results in by_column:
        for requirement_id, result in results.items():
            first.setdefault(requirement_id, result)
    rows = []
    for requirement_id, seen in first.items():
        entry = catalogue.get(requirement_id)
        rows.append(
            Row(
                id=requirement_id,
                section=seen.section or UNSECTIONED,
                text=seen.text,
                subject=seen.subject,
                keys=None if entry is None else entry.keys,
                cells=tuple(_cell(results.get(requirement_id)) for results in by_column),
            )
        )
    rows.sort(key=lambda row: (section_key(row.section), row.id))
    return Matrix(columns=columns, rows=tuple(rows))
