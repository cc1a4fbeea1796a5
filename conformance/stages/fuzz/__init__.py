"""The fuzz stage: schemathesis over the OpenAPI contract against any target.

``STAGE`` declares it to the registry. ``pytest_args(tier, seed)`` gives the pytest arguments
that select and configure it outside ``conformance run`` (tests, benchmarks). Nothing here imports
schemathesis: that happens when pytest loads ``plugin`` and collects ``test_fuzz``.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.errors import UsageError
from conformance.stages.declaration import Details, Stage
from conformance.stages.fuzz.budget import DEFAULT_SEED, DEFAULT_TIER, TIERS
from conformance.stages.fuzz.summary import merge_details, summary_lines

__all__ = ["DEFAULT_SEED", "DEFAULT_TIER", "STAGE", "TIERS", "plugin_args", "pytest_args"]

PLUGIN = "conformance.stages.fuzz.plugin"
TEST_MODULE = "conformance.stages.fuzz.test_fuzz"


def plugin_args(tier: str = DEFAULT_TIER, seed: int = DEFAULT_SEED) -> list[str]:
    """The options that load and configure the fuzz plugin (without selecting its tests)."""
    if tier not in TIERS:
        raise UsageError(f"unknown fuzz tier {tier!r}", f"use one of: {', '.join(TIERS)}")
    # --assert=plain: the stage records its failures itself, and pytest's assertion rewriting
    # would recompile schemathesis and hypothesis (pytest11 plugins) at every start whenever
    # bytecode caching is off (PYTHONDONTWRITEBYTECODE): about 2.5 s of a smoke run.
    return ["-p", PLUGIN, "--fuzz-tier", tier, "--fuzz-seed", str(seed), "--assert=plain"]


def pytest_args(tier: str = DEFAULT_TIER, seed: int = DEFAULT_SEED) -> list[str]:
    """The pytest arguments that select and configure the fuzz stage."""
    return [*plugin_args(tier, seed), "--pyargs", TEST_MODULE]


def _add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--tier",
        choices=list(TIERS),
        default=DEFAULT_TIER,
        help=f"fuzz stage budget (docs/fuzzing.md; default: {DEFAULT_TIER})",
    )
    group.add_argument(
        "--seed", type=int, default=None, help="fuzz stage seed, recorded in the report"
    )
    group.add_argument(
        "--fuzz-corpus",
        default=None,
        metavar="DIR",
        help="fuzz failure corpus, replayed before any new case and where new failures are kept "
        "(default: the profile's fuzz.corpus, else <report dir>/fuzz-corpus)",
    )


def _run_args(options: argparse.Namespace) -> list[str]:
    seed = getattr(options, "seed", None)
    args = plugin_args(
        getattr(options, "tier", DEFAULT_TIER), DEFAULT_SEED if seed is None else seed
    )
    corpus = getattr(options, "fuzz_corpus", None)
    return [*args, "--fuzz-corpus", str(corpus)] if corpus else args


def _requirements() -> frozenset[str]:
    from conformance.stages.fuzz.plugin import stage_requirements  # schemathesis: when it runs

    return stage_requirements()


def _merge(parts: Sequence[Details]) -> Details:
    return merge_details(parts)


def _describe(details: Mapping[str, Any]) -> list[str]:
    head, *rest = summary_lines(details)
    return [head.removeprefix("fuzz: "), *(line.strip() for line in rest)]


STAGE = Stage(
    name="fuzz",
    help="schemathesis fuzzing from the OpenAPI contract (budget: --tier)",
    test_package=TEST_MODULE,
    add_options=_add_options,
    pytest_args=_run_args,
    requirements=_requirements,
    merge_details=_merge,
    describe=_describe,
)
