"""Long tier: every correct-but-different server of the catalogue is interface-conformant (no
fail, nothing unmeasured in its selection) and lists exactly its own drop-in differences.

What ``conformance selftest --side variants`` tallies: each entry records an empty declared set
(``fault_breaks``: a correct variant breaks nothing) and, as ``fault_failed``, what went wrong:
the ids failed or left unmeasured, ``verdict:<level>`` when the interface level is not
conformant, and ``drop-in:<key>`` for each difference listed but not expected or expected but
not listed (empty: passed exactly)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.faulty.selection import only_from_environment, selected
from variants.catalogue import VARIANTS
from variants.harness import certify, differences
from variants.variant import Variant

pytestmark = pytest.mark.long

CONFORMANT = ("conformant", "conformant-with-declared-exceptions")
# Outcomes that say the target failed, or was not judged, within the selection.
UNJUDGED = ("fail", "not-measurable", "known-failure")
# conformance selftest --side variants --only NAME,...: exact variant names (RCES_SELFTEST_ONLY)
CHOSEN = selected(VARIANTS, only_from_environment(), what="variant")


def _param(variant: Variant) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=variant.kit_gap)] if variant.kit_gap else []
    return pytest.param(variant, id=variant.name, marks=marks)


def departures(variant: Variant, report: dict[str, Any], unjudged: dict[str, str]) -> list[str]:
    """What keeps a run from passing exactly (empty: it passed exactly)."""
    interface = report.get("levels", {}).get("interface")
    out = sorted(unjudged)
    if interface not in CONFORMANT:
        out.append(f"verdict:{interface or 'no report'}")
    listed = differences(report)
    out += sorted(f"drop-in:{k}" for k in listed ^ variant.differences)
    return out


@pytest.mark.parametrize("variant", [_param(v) for v in CHOSEN])
def test_variant_passes_exactly(variant: Variant, tmp_path: Path, record_property: Any) -> None:
    record_property("fault_breaks", [])  # a correct variant: it breaks nothing
    started = time.monotonic()
    departed: list[str] = []
    why: list[str] = []
    for stage in variant.stages:  # every stage the change matters to, one run each
        run = certify(variant, tmp_path / stage, ("--stage", stage))
        found = departures(variant, run.report, run.having(*UNJUDGED))
        departed += [f"{stage}:{d}" if len(variant.stages) > 1 else d for d in found]
        if found:
            levels = run.report.get("levels", {})
            why.append(
                f"{stage}: {found}\ninterface {levels.get('interface')}, drop-in "
                f"{levels.get('drop_in')}; differences {sorted(differences(run.report))} "
                f"(expected {sorted(variant.differences)})\n{run.explain()}"
            )
    record_property("fault_failed", departed)
    record_property("fault_seconds", round(time.monotonic() - started, 1))
    assert not departed, f"{variant.name}: {variant.doc}\n" + "\n".join(why)
