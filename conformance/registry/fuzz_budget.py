"""The fuzz stage's budgets: the named tiers (examples, time, stateful steps) and the seed.

A tier is data; nothing here runs anything. ``max_examples`` is what bounds the work (the
schemathesis CLI's ``--max-time`` is a budget it fills, not a cap); ``time_budget_s`` is a cap the
stage enforces itself: once it is spent, the remaining examples are not sent and the summary says
so.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from conformance.errors import UsageError
from conformance.json_types import JsonObject

# The seed used when none is given: fixed, so two runs of one tier send the same requests.
DEFAULT_SEED = 20261122


@dataclass(frozen=True)
class Tier:
    name: str
    max_examples: int  # generated examples per operation (valid credentials)
    auth_examples: int  # examples per operation sent with missing and with wrong credentials
    stateful_examples: int  # state-machine scenarios (0: no stateful testing)
    stateful_steps: int  # maximum steps per scenario
    time_budget_s: float  # the whole stage; what is left unsent past it is reported, not failed
    # Also run the engine's coverage phase: deterministic boundary and invalid values of every
    # parameter and field (many cheap cases; a few seconds per operation).
    coverage: bool = False

    def describe(self) -> JsonObject:
        """The tier as the stage summary records it (every field, by name)."""
        described: JsonObject = asdict(self)  # str, int, float and bool fields only
        return described


TIERS: dict[str, Tier] = {
    tier.name: tier
    for tier in (
        Tier(
            "smoke",
            max_examples=8,
            auth_examples=1,
            stateful_examples=3,
            stateful_steps=6,
            time_budget_s=60.0,
        ),
        Tier(
            "pr",
            max_examples=60,
            auth_examples=3,
            stateful_examples=20,
            stateful_steps=10,
            time_budget_s=120.0,
            coverage=True,
        ),
        Tier(
            "nightly",
            max_examples=1000,
            auth_examples=20,
            stateful_examples=200,
            stateful_steps=20,
            time_budget_s=3600.0,
            coverage=True,
        ),
    )
}

DEFAULT_TIER = "smoke"


def tier(name: str) -> Tier:
    """The tier called ``name``; an unknown name is a usage error that lists the known ones."""
    try:
        return TIERS[name]
    except KeyError:
        raise UsageError(
            f"unknown fuzz tier {name!r}",
            f"use one of: {', '.join(TIERS)}",
        ) from None
