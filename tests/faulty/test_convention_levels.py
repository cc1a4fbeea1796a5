"""End to end: a convention the profile does not declare fails only at the drop-in level. The
reference server behind a wrapper that drops ``Retry-After`` from every 429 (the catalogue's
``429-without-retry-after``) is interface-conformant under a profile without
``conventions: production`` and lists exactly that one difference; with it, it fails."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conformance.catalogue.requirements import load_catalogue
from faulty.catalogue import FAULTS
from faulty.harness import run_fault
from tests.support.report_outcomes import written_report

pytestmark = pytest.mark.long

DROPPED = next(f for f in FAULTS if f.name == "429-without-retry-after")
RATE_LIMIT = frozenset(r.id for r in load_catalogue() if r.id.startswith("LIMIT-RATE-"))
BROKEN = "LIMIT-RATE-429-RETRY-AFTER"


def test_an_undeclared_retry_after_is_one_drop_in_difference(tmp_path: Path) -> None:
    fault = replace(DROPPED, profile={**DROPPED.profile, "conventions": "none"})
    run = run_fault(fault, tmp_path, requirements=RATE_LIMIT)
    report = written_report(tmp_path / "report")
    assert report, run.output[-3000:]
    assert report["levels"]["interface"] == "conformant", run.explain()
    assert report["levels"]["drop_in"] == "not-conformant"
    # the recovery after Retry-After, a convention too, has no Retry-After to wait out
    assert {i: o for i, o in run.outcomes.items() if o != "pass"} == {
        BROKEN: "not-applicable",
        "LIMIT-RATE-RECOVERS": "not-applicable",
    }, run.explain()
    assert "(spec 8)" not in run.output  # the terminal cites no spec words for a convention
    (difference,) = report["differences"]
    assert difference["key"] == "rate_limit.retry_after"  # the key that would declare it
    assert difference["requirement_ids"] == [BROKEN]
    assert difference["convention"] == load_catalogue()[BROKEN].convention


@pytest.mark.parametrize(
    "declaring",
    [{"conventions": "production"}, {"conventions": "none", "rate_limit": {"retry_after": True}}],
    ids=["production", "its-key"],
)
def test_a_declared_retry_after_is_an_interface_failure(
    tmp_path: Path, declaring: dict[str, object]
) -> None:
    fault = replace(DROPPED, profile={**DROPPED.profile, **declaring})
    run = run_fault(fault, tmp_path, requirements=RATE_LIMIT)
    report = written_report(tmp_path / "report")
    assert report["levels"]["interface"] == "not-conformant", run.explain()
    assert run.failed == {BROKEN}, run.explain()
    assert report["differences"] == []
