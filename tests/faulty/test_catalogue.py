"""Self-test of the suite's verdicts: each one-defect server fails exactly the ids it declares.

Fewer failures than declared means a check is toothless; more means a check is imprecise. A
known mismatch is listed in ``KNOWN_MISMATCHES`` (strict xfail: it flips when the scenario is
fixed) and explained in the report of the catalogue, never loosened here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from faulty.catalogue import FAULTS, Fault
from faulty.escapes import ESCAPE_PREFIX
from faulty.harness import run_fault
from faulty.mismatches import KNOWN_MISMATCHES, UNSTABLE
from faulty.selection import only_from_environment
from faulty.selection import selected as select

pytestmark = pytest.mark.long


def section_of(fault: Fault) -> str:
    return "escapes" if fault.name.startswith(ESCAPE_PREFIX) else "defects"


def selected(faults: Sequence[Fault], only: str) -> list[Fault]:
    """The faults ``only`` names: ``section:NAME`` entries and exact fault names (empty: all).

    A name that is no fault is an error, not an empty run."""
    return select(faults, only, section_of)


def _param(fault: Fault) -> object:
    reason = KNOWN_MISMATCHES.get(fault.name)
    strict = fault.name not in UNSTABLE
    marks = [pytest.mark.xfail(strict=strict, reason=reason)] if reason else []
    return pytest.param(fault, id=fault.name, marks=marks)


@pytest.mark.parametrize("fault", [_param(f) for f in selected(FAULTS, only_from_environment())])
def test_fault_is_caught_exactly(
    fault: Fault, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    record_property("fault_breaks", sorted(fault.breaks))  # first: known even if the run raises
    run = run_fault(fault, tmp_path)
    record_property("fault_seconds", round(run.seconds, 1))
    if run.outcomes:  # no report (the suite did not start): no verdict, not "failed nothing"
        record_property("fault_failed", sorted(run.failed))
    assert run.outcomes, f"the suite produced no report for {fault.name}:\n{run.output[-3000:]}"
    assert run.failed == fault.breaks, run.explain()
