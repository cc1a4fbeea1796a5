"""A body held to one of the spec's resource shapes (``oracles.shapes``): its departures, as a
violation of the requirements that rest on the shape."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.checks import violation
from conformance.oracles.shapes import problems
from conformance.traffic.transcript import Reply

_SPEC = {"record": "2.1", "snapshot": "2.4", "status-entry": "2.4", "polling": "2.4"}


def expect_shape(
    name: str, instance: object, ids: Sequence[str], title: str, reply: Reply | None = None
) -> None:
    """``instance`` has the named shape, else a violation of ``ids`` listing the first four
    departures."""
    found = problems(name, instance)
    if found:
        raise violation(
            ids,
            title,
            f"a body of shape {name!r} (spec {_SPEC[name]})",
            "; ".join(found[:4]),
            reply,
        )
