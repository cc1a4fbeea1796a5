"""The fuzz stage: schemathesis over the OpenAPI contract against any target.

``pytest_args(tier, seed)`` gives the pytest arguments that select and configure the stage;
``conformance run --stage fuzz --tier smoke`` uses them.
"""

from __future__ import annotations

from conformance.fuzz.budget import DEFAULT_SEED, DEFAULT_TIER, TIERS

__all__ = ["DEFAULT_SEED", "DEFAULT_TIER", "TIERS", "plugin_args", "pytest_args"]

PLUGIN = "conformance.fuzz.plugin"
TEST_PACKAGE = "conformance.fuzzing"


def plugin_args(tier: str = DEFAULT_TIER, seed: int = DEFAULT_SEED) -> list[str]:
    """The options that load and configure the fuzz plugin (without selecting its tests)."""
    if tier not in TIERS:
        from conformance.errors import UsageError

        raise UsageError(f"unknown fuzz tier {tier!r}", f"use one of: {', '.join(TIERS)}")
    # --assert=plain: the stage records its failures itself, and pytest's assertion rewriting
    # would recompile schemathesis and hypothesis (pytest11 plugins) at every start whenever
    # bytecode caching is off (PYTHONDONTWRITEBYTECODE): about 2.5 s of a smoke run.
    return ["-p", PLUGIN, "--fuzz-tier", tier, "--fuzz-seed", str(seed), "--assert=plain"]


def pytest_args(tier: str = DEFAULT_TIER, seed: int = DEFAULT_SEED) -> list[str]:
    """The pytest arguments that select and configure the fuzz stage."""
    return [*plugin_args(tier, seed), "--pyargs", TEST_PACKAGE]
