"""Long tier: every correct-but-different server of the catalogue is interface-conformant (no
fail, nothing unmeasured in its selection) and lists exactly its own drop-in differences."""

from __future__ import annotations

from pathlib import Path

import pytest

from variants.catalogue import VARIANTS
from variants.harness import certify, differences
from variants.variant import Variant

pytestmark = pytest.mark.long

CONFORMANT = ("conformant", "conformant-with-declared-exceptions")
# Outcomes that say the target was not judged (or failed) within the selection.
UNJUDGED = ("fail", "not-measurable", "known-failure")


def _param(variant: Variant) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=variant.kit_gap)] if variant.kit_gap else []
    return pytest.param(variant, id=variant.name, marks=marks)


@pytest.mark.parametrize("variant", [_param(v) for v in VARIANTS])
def test_variant_passes_exactly(variant: Variant, tmp_path: Path) -> None:
    run = certify(variant, tmp_path)
    levels = run.report.get("levels", {})
    listed = differences(run.report)
    why = (
        f"{variant.name}: {variant.doc}\ninterface {levels.get('interface')}, drop-in "
        f"{levels.get('drop_in')}; differences {sorted(listed)} (expected "
        f"{sorted(variant.differences)})\n{run.explain()}"
    )
    assert run.report, why
    assert levels.get("interface") in CONFORMANT, why
    assert not run.having(*UNJUDGED), why
    assert listed == variant.differences, why
