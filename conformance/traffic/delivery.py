"""Whether an open-loop offer delivered the load a verdict rests on, with the figures when not.

A verdict that rests on the suite's own load ("no polling hint came under the burst", "no 429
came under the drain") first asks whether that load went out: the most requests actually sent
inside any window that matters, by their send timestamps. What the plan asked for does not count,
nor when a request would have left had a connection been free: a request still waiting in the
suite (its own CPU late, or its connection cap reached while a slow target or path held every
connection) has loaded nothing. Short of the count the verdict is not measurable, with the
figures: the counts inside the window, the offered rate against the planned one and the answers'
latency.

Load that went out is the target's to handle. How fast it answered is a figure (the most answers
inside any window, their latency), never an excuse: a target that answers slowly under the load
it was sent, or queues it behind a gateway, was shown the load. The requests that failed (sent,
and answered with a 5xx or not at all) are counted for the evidence; with the load short they
are figures too (a path that drops what it queued looks the same from here), and the other
requirements judge them on the suite's ordinary traffic.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from conformance.traffic.open_loop import Offer, Record

SERVER_ERROR = 500


@dataclass(frozen=True)
class Delivery:
    """How much of a load an ``Offer`` delivered inside ``window`` seconds, against ``needed``."""

    offer: Offer
    needed: int
    window: float
    sent: int  # the most requests sent inside any window
    answered: int  # the most answers received inside any window (a figure)
    failed: tuple[Record, ...]  # sent, and answered with a 5xx or not at all

    @property
    def delivered(self) -> bool:
        """The load went out: the needed count actually sent inside some window."""
        return self.sent >= self.needed

    def shortfall(self) -> str:
        """Why the load did not go out, with the figures ("" when it did)."""
        if self.delivered:
            return ""
        return f"the suite did not send the load: {self.figures()}"

    def figures(self) -> str:
        """The counts inside the window against the need, the failures, the offer's figures."""
        failures = self.failures()
        return (
            f"at most {self.sent} sent and {self.answered} answered inside any "
            f"{self.window:g}s of the {self.needed} needed there; "
            f"{failures + '; ' if failures else ''}{self.offer.describe()}"
        )

    def failures(self) -> str:
        """The failed requests, counted by kind ("" when none)."""
        if not self.failed:
            return ""
        silent = sum(1 for r in self.failed if r.status is None)
        errors = len(self.failed) - silent
        kinds = [
            f"{silent} with no answer ({_first_error(self.failed)})" if silent else "",
            f"{errors} answered 5xx" if errors else "",
        ]
        return f"{len(self.failed)} of {len(self.offer.sent())} requests failed: " + ", ".join(
            k for k in kinds if k
        )


def delivery(offer: Offer, needed: int, window: float) -> Delivery:
    """What ``offer`` delivered inside any ``window`` seconds against ``needed`` requests."""
    failed = tuple(
        r
        for r in offer.sent()
        if r.status is None or r.status >= SERVER_ERROR  # no answer (timeout, reset), or a 5xx
    )
    return Delivery(
        offer=offer,
        needed=needed,
        window=window,
        sent=most_inside([r.sent for r in offer.records if r.sent is not None], window),
        answered=most_inside([r.answered for r in offer.records if r.answered is not None], window),
        failed=failed,
    )


def most_inside(moments: Sequence[float], window: float) -> int:
    """The most of ``moments`` inside any span of ``window`` seconds (both ends included)."""
    times = sorted(moments)
    best = 0
    for start, moment in enumerate(times):
        best = max(best, bisect.bisect_right(times, moment + window) - start)
    return best


def _first_error(records: tuple[Record, ...]) -> str:
    return next((r.error for r in records if r.status is None and r.error), "no error recorded")
