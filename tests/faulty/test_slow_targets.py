"""Self-test of slow targets: slowness is judged, never an excuse, in both directions.

A target controls its own answer time, so slowness may neither hide a fault nor fail a correct
server. Rate limits and the load-shedding burst are offered open-loop (``traffic.open_loop``):
the arrival rate is the suite's whatever the answer time, and the verdict uses the actual send
and answer times against the profile's figures. These cases slow servers down on purpose, in two
ways: every SDK request (the whole target is far away or busy), and only once a 429 has been
served (the case that once let a shared-bucket fault pass, when probes after a drain were slow
enough for refill to cover them). A slowed fault must still fail its requirement; the slowed
reference server must pass every rate-limit and polling-hint requirement, none not measurable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.catalogue.requirements import load_catalogue
from faulty.asgi import Forward, Handler, Request, Response
from faulty.catalogue import FAULTS, Fault, fault
from faulty.harness import run_fault
from faulty.recipes import SDK, STATUS, chain, passthrough

pytestmark = [pytest.mark.long, pytest.mark.timing]  # judged by the clock: one at a time
SLOW_SECONDS = 0.08  # > 1/refill (30/s): every slowed poll finds a fresh token
TIMING_FAMILIES = ("LIMIT-RATE-", "POLL-HINT-")


def slow_after_first_429() -> Handler:
    """Status polls take SLOW_SECONDS each once any 429 has been served (drains stay fast)."""
    limited = False

    async def handler(request: Request, forward: Forward) -> Response:
        nonlocal limited
        if STATUS(request) and limited:
            await asyncio.sleep(SLOW_SECONDS)
        response = await forward(request)
        limited = limited or (STATUS(request) and response.status == 429)
        return response

    return handler


def slow_always() -> Handler:
    """Every SDK request waits SLOW_SECONDS before the server sees it (concurrently, as a
    distant or busy target does: the arrival rate is kept, each answer comes later)."""

    async def handler(request: Request, forward: Forward) -> Response:
        if SDK(request):
            await asyncio.sleep(SLOW_SECONDS)
        return await forward(request)

    return handler


SLOWDOWNS: dict[str, Callable[[], Handler]] = {
    "after-429": slow_after_first_429,
    "always": slow_always,
}


def slowed(name: str | None, how: str) -> Fault:
    """The named fault (None: the reference server itself), slowed ``how``."""
    base = next(f for f in FAULTS if f.name == name) if name else None
    slowdown = SLOWDOWNS[how]
    return fault(
        f"{name or 'reference'}-slow-{how}",
        " ".join(sorted(base.breaks)) if base else "",
        f"SDK requests are slow ({how}).",
        lambda ctx: chain(slowdown(), base.make(ctx) if base else passthrough),
    )


def timing_ids() -> frozenset[str]:
    return frozenset(
        r.id for r in load_catalogue() if r.checkable and r.id.startswith(TIMING_FAMILIES)
    )


@pytest.mark.parametrize(
    ("name", "how", "requirement_id"),
    [
        pytest.param("rate-limit-one-bucket", "after-429", "LIMIT-RATE-PER-INSTANCE"),
        pytest.param("rate-limit-per-connection", "after-429", "LIMIT-RATE-SHARED-WITHOUT-ID"),
        pytest.param("rate-limit-off", "always", "LIMIT-RATE-ENFORCED"),
        pytest.param("rate-limit-one-bucket", "always", "LIMIT-RATE-PER-INSTANCE"),
        pytest.param("polling-never", "always", "POLL-HINT-UNDER-LOAD"),
    ],
)
def test_a_slow_fault_is_still_caught(
    name: str, how: str, requirement_id: str, tmp_path: Path
) -> None:
    run = run_fault(slowed(name, how), tmp_path, frozenset({requirement_id}))
    assert run.outcomes.get(requirement_id) == "fail", run.explain()


@pytest.mark.parametrize("how", sorted(SLOWDOWNS))
def test_a_slow_reference_server_passes(how: str, tmp_path: Path) -> None:
    watched = timing_ids()
    run = run_fault(slowed(None, how), tmp_path, watched)
    assert run.outcomes == dict.fromkeys(watched, "pass"), run.explain()
