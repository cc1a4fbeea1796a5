"""Self-test of the suite's verdicts: each one-defect server fails exactly the ids it declares.

Fewer failures than declared means a check is toothless; more means a check is imprecise. A
known mismatch is listed in ``KNOWN_MISMATCHES`` (strict xfail: it flips when the scenario is
fixed) and explained in the report of the catalogue, never loosened here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from faulty.catalogue import FAULTS, Fault
from faulty.escapes import ESCAPE_PREFIX
from faulty.harness import run_fault
from faulty.mismatches import KNOWN_MISMATCHES

pytestmark = [pytest.mark.slow, pytest.mark.long]
ONLY_ENV = "RCES_SELFTEST_ONLY"  # conformance selftest --only / --section


def section_of(fault: Fault) -> str:
    return "escapes" if fault.name.startswith(ESCAPE_PREFIX) else "defects"


def selected(faults: Sequence[Fault], only: str) -> list[Fault]:
    """The faults ``only`` names: ``section:NAME`` entries and exact fault names (empty: all).

    A name that is no fault is an error, not an empty run."""
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    if not wanted:
        return list(faults)
    names = {f.name for f in faults}
    unknown = [w for w in wanted if not w.startswith("section:") and w not in names]
    if unknown:
        raise ValueError(f"{ONLY_ENV} names no fault called {', '.join(unknown)}")
    sections = {w.removeprefix("section:") for w in wanted if w.startswith("section:")}
    return [f for f in faults if f.name in wanted or section_of(f) in sections]


def _param(fault: Fault) -> object:
    reason = KNOWN_MISMATCHES.get(fault.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(fault, id=fault.name, marks=marks)


@pytest.mark.parametrize(
    "fault", [_param(f) for f in selected(FAULTS, os.environ.get(ONLY_ENV, ""))]
)
def test_fault_is_caught_exactly(
    fault: Fault, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    run = run_fault(fault, tmp_path)
    record_property("fault_breaks", sorted(fault.breaks))
    record_property("fault_failed", sorted(run.failed))
    record_property("fault_seconds", round(run.seconds, 1))
    assert run.outcomes, f"the suite produced no report for {fault.name}:\n{run.output[-3000:]}"
    assert run.failed == fault.breaks, run.explain()
