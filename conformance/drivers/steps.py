"""The steps a scenario needs but does not check: whether one worked, and its body.

A scenario creates, reads and cleans up on the way to the one exchange it judges. When such a
step fails, ``setup_failed`` is the violation that fails the whole test (every id of it) with
the exchange as evidence; the step's own requirement judges it again in its own test. ``ok``
says a reply succeeded; ``body_of`` parses a body without judging it.
"""

from __future__ import annotations

import json

from conformance.checks import violation
from conformance.errors import ContractViolation
from conformance.json_types import JsonValue
from conformance.traffic.transcript import Reply


def setup_failed(
    what: str, reply: Reply | None = None, seen: str | None = None
) -> ContractViolation:
    """A step the scenario needs (not the one it checks) did not work: the target refused or
    garbled a valid request the interface serves, so the test fails (every id of it), with the
    exchange as evidence. The step's own requirement judges it too, in its own test.
    ``seen``: what showed the step had no effect, when its answer looked fine."""
    received = [reply.describe()] if reply is not None else []
    if seen is not None:
        received.append(seen)
    return violation(
        (),
        f"the target did not let the suite {what}",
        "the step to succeed: a valid request the interface serves (its own requirement "
        "judges it too)",
        "; then ".join(received) or "an answer without what the step needs",
        reply,
    )


def ok(reply: Reply) -> bool:
    """The reply is a success (2xx)."""
    return 200 <= reply.status < 300


def body_of(reply: Reply) -> JsonValue:
    """The parsed body, or None when it is not JSON (for checks that judge it themselves)."""
    try:
        parsed: JsonValue = json.loads(reply.content)
    except ValueError:
        return None
    return parsed
