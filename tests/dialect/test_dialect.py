"""Long tier: the kit certifies a correct server that fills every gap differently from the
reference server (the dialect, every choice declared in its profile), stage by stage, and fails
each one-defect variant of it on exactly the requirements its broken choice breaks."""

from __future__ import annotations

from pathlib import Path

import pytest
from faulty.harness import checkable_ids

from dialect.choices import LOAD_OBJECTIVES
from dialect.harness import Certified, certify, watch_set
from dialect.variants import VARIANTS, Variant

pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def fuzz_pr(tmp_path_factory: pytest.TempPathFactory) -> Certified:
    return certify(tmp_path_factory.mktemp("fuzz"), ("--stage", "fuzz", "--tier", "pr"))


def test_the_scenarios_find_the_dialect_conformant_with_everything_measured(
    tmp_path: Path,
) -> None:
    run = certify(tmp_path)
    not_passed = {i: o for i, o in run.outcomes.items() if o != "pass"}
    assert run.report.get("verdict") == "conformant", run.explain()
    assert not not_passed, run.explain()
    assert set(run.outcomes) == checkable_ids(), run.explain()


def test_the_fuzz_stage_finds_no_failure(fuzz_pr: Certified) -> None:
    assert fuzz_pr.report, fuzz_pr.output[-3000:]
    assert not fuzz_pr.having("fail", "not-measurable"), fuzz_pr.explain()


def test_the_fuzz_stage_finds_no_spec_doubt(fuzz_pr: Certified) -> None:
    assert fuzz_pr.report.get("verdict") == "conformant", fuzz_pr.explain()
    assert not fuzz_pr.having("spec-doubt"), fuzz_pr.explain()


@pytest.mark.timing  # a load stage or a whole run compared: one at a time
def test_the_load_stage_finds_the_dialect_conformant(tmp_path: Path) -> None:
    """Every load requirement passes, the dialect's declared objectives included."""
    run = certify(tmp_path, ("--stage", "load"), overrides=LOAD_OBJECTIVES)
    not_passed = {i: o for i, o in run.outcomes.items() if o != "pass"}
    assert run.report.get("verdict") == "conformant", run.explain()
    assert not not_passed, run.explain()


def _variant_param(variant: Variant) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=variant.kit_gap)] if variant.kit_gap else []
    return pytest.param(variant, id=variant.name, marks=marks)


@pytest.mark.parametrize("variant", [_variant_param(v) for v in VARIANTS])
def test_the_kit_fails_each_variant_on_exactly_its_broken_choice(
    variant: Variant, tmp_path: Path
) -> None:
    watched = watch_set(variant.breaks, checkable_ids())
    run = certify(tmp_path, (), variant.make(), watched, variant.profile)
    failed = {i for i, o in run.outcomes.items() if o == "fail"}
    assert failed == variant.breaks, f"{variant.name}: {variant.doc}\n{run.explain()}"
