"""The steps a scenario needs but does not check: whether one worked, and its body.

A scenario creates, reads and cleans up on the way to the one exchange it judges. When such a
step fails, ``setup_failed`` says the test is not measurable, blocked by that one cause, with the
exchange as its detail; the step's own requirement judges it in its own test. ``ok``
says a reply succeeded; ``body_of`` parses a body without judging it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from conformance.catalogue.requirements import catalogue_index
from conformance.errors import SetupRefused
from conformance.json_types import JsonValue
from conformance.traffic.transcript import Reply


def setup_failed(what: str, reply: Reply | None = None, seen: str | None = None) -> SetupRefused:
    """A step the scenario needs (not the one it checks) did not work: the target refused or
    garbled a valid request the interface serves. The test is not measurable, blocked by that
    cause (one cause for every scenario it blocks, never a failure of each); the step's own
    requirement judges it in its own test. A 5xx or no answer never gets here: the client raises
    it as the breakdown it is. ``seen``: what showed the step had no effect, when its answer
    looked fine."""
    received = [reply.describe()] if reply is not None else []
    if seen is not None:
        received.append(seen)
    cause = f"{what} (HTTP {reply.status})" if reply is not None else what
    return SetupRefused(
        cause,
        "; then ".join(received) or "an answer without what the step needs",
        reply.curl if reply is not None else None,
    )


def judges(ids: Sequence[str], operation: str) -> bool:
    """Whether any of ``ids`` judges ``operation`` (the catalogue's ``operations``): a call of
    it is then the test's own business; else it is a step the test needs (``setup_failed``)."""
    index = catalogue_index()
    return any(operation in index[i].operations for i in ids if i in index)


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
