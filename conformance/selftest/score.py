"""The score table ``conformance selftest`` prints: one row per side, a total, and the details
the table cannot say (correct variants, faults not caught exactly, run times, other failures).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import pytest

from conformance.selftest.catches import EXACT, MISSED, OTHER, SideResult

# pytest's exit statuses a side's run may end with (failures are counted from the reports).
EXPECTED_CODES = (
    pytest.ExitCode.OK,
    pytest.ExitCode.TESTS_FAILED,
    pytest.ExitCode.NO_TESTS_COLLECTED,  # -k matched no entry of this side
)


def duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


def _share(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.0f}%)" if whole else str(part)


def _passed(runs: Sequence[SideResult]) -> int:
    return sum(1 for run in runs for c in run.correct if c.passed)


def _variants(runs: Sequence[SideResult]) -> int:
    return sum(len(run.correct) for run in runs)


def score_table(runs: Sequence[SideResult]) -> list[str]:
    """The score by side, then a total row when several sides ran: faults caught exactly, and
    correct-but-different variants passed exactly, side by side."""
    head = (
        "side",
        "faults",
        EXACT,
        OTHER,
        MISSED,
        "variants",
        "passed exactly",
        "requirements with a fault",
        "wall time",
    )
    rows = [
        (
            run.side,
            str(len(run.faults)),
            _share(run.count(EXACT), len(run.faults)),
            str(run.count(OTHER)),
            str(run.count(MISSED)),
            str(len(run.correct)),
            _share(_passed([run]), len(run.correct)),
            run.reach(),
            duration(run.seconds),
        )
        for run in runs
    ]
    if len(runs) > 1:
        shipped = sum(len(run.faults) for run in runs)
        rows.append(
            (
                "all",
                str(shipped),
                _share(sum(run.count(EXACT) for run in runs), shipped),
                str(sum(run.count(OTHER) for run in runs)),
                str(sum(run.count(MISSED) for run in runs)),
                str(_variants(runs)),
                _share(_passed(runs), _variants(runs)),
                "",
                duration(sum(run.seconds for run in runs)),
            )
        )
    widths = [max(len(row[i]) for row in (head, *rows)) for i in range(len(head))]

    def line(row: Sequence[str]) -> str:
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:7], widths[1:7], strict=True)]
        cells += [row[7].ljust(widths[7]), row[8].rjust(widths[8])]
        return "  " + "  ".join(cells).rstrip()

    return [line(head), *(line(row) for row in rows)]


def details(runs: Sequence[SideResult]) -> list[str]:
    """What the table cannot say: correct variants, faults not caught exactly, run times, other
    failures."""
    lines: list[str] = []
    for run in runs:
        if run.correct:
            passed = sum(1 for c in run.correct if c.passed)
            failing = ", ".join(c.explain() for c in run.correct if not c.passed)
            lines.append(
                f"  {run.side}: correct-but-different variants passed {passed}/{len(run.correct)}"
                + (f"; FAILING: {failing}" if failing else "")
            )
        for fault in run.faults:
            if fault.caught != EXACT:
                lines.append(f"  {run.side}: {fault.caught.upper()}: {fault.explain()}")
        unjudged = sum(1 for f in run.faults if f.failed is None)
        if unjudged:
            lines.append(
                f"  {run.side}: {unjudged} of the {run.count(MISSED)} missed have no verdict "
                "(the stage gave no report, or the run raised): see the failures above"
            )
        times = {f.name: f.seconds for f in (*run.faults, *run.correct) if f.seconds is not None}
        if times:
            slowest = max(times, key=lambda name: times[name])
            lines.append(
                f"  {run.side}: {len(times)} run{'s' if len(times) > 1 else ''}, "
                f"{sum(times.values()):.0f}s in all, median "
                f"{statistics.median(times.values()):.0f}s, longest {times[slowest]:.0f}s "
                f"({slowest})"
            )
        if run.errors:
            lines.append(f"  {run.side}: failed self-tests: {', '.join(run.errors)}")
        if run.code not in EXPECTED_CODES:
            lines.append(f"  {run.side}: pytest ended with exit status {run.code}")
    return lines


def _side_score(run: SideResult) -> str:
    parts = [f"{run.count(EXACT)}/{len(run.faults)}"] if run.faults or not run.correct else []
    if run.correct:
        parts.append(f"{_passed([run])}/{len(run.correct)} variants")
    return f"{run.side} " + " + ".join(parts)


def headline(runs: Sequence[SideResult], seconds: float) -> str:
    """The score in the form the README publishes: "215 of 215 faults caught exactly; 64 of 64
    variants passed exactly", then each side's."""
    shipped = sum(len(run.faults) for run in runs)
    exact = sum(run.count(EXACT) for run in runs)
    per_side = ", ".join(_side_score(run) for run in runs)
    return (
        f"conformance selftest: {exact} of {shipped} faults caught exactly; {_passed(runs)} of "
        f"{_variants(runs)} variants passed exactly ({per_side}) in {duration(seconds)}"
    )


def exit_status(runs: Sequence[SideResult]) -> int:
    return 0 if all(run.ok for run in runs) else 1
