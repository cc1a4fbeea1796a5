"""The fuzz stage's declaration: schemathesis over the OpenAPI contract against any target.

``STAGE`` declares it to the registry (its machinery: ``conformance.stages.fuzz``; its tiers:
``fuzz_budget``). ``pytest_args(tier, seed)`` gives the pytest arguments that select and configure
it outside ``conformance run`` (tests, benchmarks). Nothing here imports schemathesis: that
happens when pytest loads ``plugin`` and collects ``test_fuzz``.
"""

from __future__ import annotations

from conformance.errors import UsageError
from conformance.registry.declaration import Command, Option, Stage
from conformance.registry.fuzz_budget import DEFAULT_SEED, DEFAULT_TIER, TIERS

__all__ = ["DEFAULT_SEED", "DEFAULT_TIER", "STAGE", "TEST_MODULE", "TIERS", "pytest_args"]

TEST_MODULE = "conformance.stages.fuzz.test_fuzz"
# pytest's assertion rewriting would recompile schemathesis and hypothesis (pytest11 plugins) at
# every start whenever bytecode caching is off; the stage records its failures itself.
PLAIN_ASSERT = "--assert=plain"


def pytest_args(tier: str = DEFAULT_TIER, seed: int = DEFAULT_SEED) -> list[str]:
    """The pytest arguments that select and configure the fuzz stage."""
    if tier not in TIERS:
        raise UsageError(f"unknown fuzz tier {tier!r}", f"use one of: {', '.join(TIERS)}")
    return ["--fuzz-tier", tier, "--fuzz-seed", str(seed), PLAIN_ASSERT, "--pyargs", TEST_MODULE]


STAGE = Stage(
    name="fuzz",
    help="schemathesis fuzzing from the OpenAPI contract (budget: --tier)",
    test_package=TEST_MODULE,
    plugin="conformance.stages.fuzz.plugin",
    options=(
        Option(
            "--fuzz-tier",
            "fuzz stage budget (docs/fuzzing.md)",
            default=DEFAULT_TIER,
            choices=tuple(TIERS),
            run_flag="--tier",
        ),
        Option(
            "--fuzz-seed",
            "fuzz stage seed, recorded in the report",
            type=int,
            default=DEFAULT_SEED,
            run_flag="--seed",
        ),
        Option(
            "--fuzz-max-examples",
            "override the tier's generated examples per operation (benchmarks, debugging)",
            type=int,
            metavar="N",
            run_flag="",
        ),
        Option(
            "--fuzz-corpus",
            "fuzz failure corpus, replayed before any new case and where new failures are kept "
            "(default: the profile's fuzz.corpus, else <report dir>/fuzz-corpus)",
            metavar="DIR",
        ),
    ),
    pytest_extra=(PLAIN_ASSERT,),
    commands=(Command("fuzz", "conformance.cli.fuzz"),),
    merge_details="conformance.stages.fuzz.summary:merge_details",
    describe="conformance.stages.fuzz.summary:describe",
)
