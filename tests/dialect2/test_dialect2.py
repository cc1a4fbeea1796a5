"""Long tier: the kit certifies a second correct server that keeps none of the reference server's
unkeyed structure (every keyed choice declared, no ``conventions: production``): interface-
conformant in the scenarios and load stages, its drop-in differences listed; and each variant that
leaves one convention undeclared is interface-conformant with exactly that drop-in difference."""

from __future__ import annotations

from pathlib import Path

import pytest
from dialect.choices import LOAD_OBJECTIVES
from dialect.harness import Certified

from dialect2.harness import certify, differences
from dialect2.variants import VARIANTS, Variant

pytestmark = pytest.mark.long

# Optional capabilities the second dialect does not claim (its profile): not applicable.
UNCLAIMED = {"EXP-WEIGHTED-HASH-GOLDEN", "EXP-ROUND-ROBIN-BALANCED"}


def _levels(run: Certified) -> dict[str, str]:
    levels: dict[str, str] = run.report.get("levels", {})
    return levels


def test_the_scenarios_find_the_second_dialect_interface_conformant(tmp_path: Path) -> None:
    run = certify(tmp_path)
    not_passed = {i: o for i, o in run.outcomes.items() if o != "pass"}
    assert run.report.get("verdict") == "conformant", run.explain()
    assert set(not_passed) == UNCLAIMED, run.explain()
    assert set(not_passed.values()) == {"not-applicable"}, run.explain()


@pytest.mark.timing  # a load stage or a whole run compared: one at a time
def test_the_load_stage_finds_the_second_dialect_conformant(tmp_path: Path) -> None:
    run = certify(tmp_path, ("--stage", "load"), overrides=LOAD_OBJECTIVES)
    assert run.report.get("verdict") == "conformant", run.explain()
    assert not {i: o for i, o in run.outcomes.items() if o != "pass"}, run.explain()


# Issue 30's bar for the fuzz stage on a server that keeps none of the reference's structure.
MOST_SPEC_DOUBTS = 3


def test_the_fuzz_stage_finds_the_second_dialect_interface_conformant(tmp_path: Path) -> None:
    """pr tier: no failure and nothing unmeasured at the interface level; what departs from the
    reference's unkeyed structure (kebab-case codes, records without its fields) is listed at
    the drop-in level, never failed; at most three spec doubts."""
    run = certify(tmp_path, ("--stage", "fuzz", "--tier", "pr"))
    assert run.report, run.output[-3000:]
    assert not run.having("fail", "not-measurable"), run.explain()
    assert len(run.having("spec-doubt")) <= MOST_SPEC_DOUBTS, run.explain()
    assert _levels(run)["interface"] in ("conformant", "conformant-with-declared-exceptions")
    assert _levels(run)["drop_in"] == "not-conformant", run.explain()
    assert differences(run.report), run.explain()


def _variant_param(variant: Variant) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=variant.kit_gap)] if variant.kit_gap else []
    return pytest.param(variant, id=variant.name, marks=marks)


@pytest.mark.parametrize("variant", [_variant_param(v) for v in VARIANTS])
def test_each_undeclared_convention_is_a_drop_in_difference_only(
    variant: Variant, tmp_path: Path
) -> None:
    assert variant.requirements, f"no checkable requirement rests on {variant.key}"
    run = certify(tmp_path, requirements=variant.requirements, left_out=(variant.key,))
    levels = _levels(run)
    assert levels.get("interface") in ("conformant", "conformant-with-declared-exceptions"), (
        f"{variant.name}: {variant.doc}\n{run.explain()}"
    )
    assert levels.get("drop_in") == "not-conformant", run.explain()
    assert differences(run.report) == {variant.key}, run.explain()
