"""Self-test of timing guards: when slowness blurs a verdict, it is not measurable.

A rate-limit check that leans on refill timing must neither pass a faulty server nor fail a
correct one just because the machine was slow enough for refill to cover the probe (CI once saw
the first). These cases add that slowness on purpose, to the faulty server and to the reference
server, and demand "not-measurable" for the id.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from faulty.asgi import Forward, Handler, Request, Response
from faulty.catalogue import FAULTS, Fault, fault
from faulty.harness import run_fault_once
from faulty.recipes import STATUS, chain, passthrough

pytestmark = pytest.mark.slow
SLOW_SECONDS = 0.08  # > 1/refill (30/s): every slowed poll finds a fresh token


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


def slowed(name: str | None) -> Fault:
    """The named fault (None: the reference server itself), slowed after its first 429."""
    base = next(f for f in FAULTS if f.name == name) if name else None
    return fault(
        f"{name or 'reference'}-slow",
        " ".join(sorted(base.breaks)) if base else "",
        "Status polls after the first 429 are slow.",
        lambda ctx: chain(slow_after_first_429(), base.make(ctx) if base else passthrough),
    )


@pytest.mark.parametrize(
    ("name", "requirement_id"),
    [
        pytest.param("rate-limit-one-bucket", "LIMIT-RATE-PER-INSTANCE", id="fault-would-pass"),
        pytest.param(None, "LIMIT-RATE-SHARED-WITHOUT-ID", id="reference-would-fail"),
    ],
)
def test_slowness_that_blurs_a_verdict_is_not_measurable(
    name: str | None, requirement_id: str, tmp_path: Path
) -> None:
    run = run_fault_once(slowed(name), tmp_path, frozenset({requirement_id}))
    assert run.outcomes.get(requirement_id) == "not-measurable", run.explain()
