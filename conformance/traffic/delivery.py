"""Whether an open-loop offer delivered the load a verdict rests on, with the figures when not.

A verdict that rests on the suite's own load ("no polling hint came under the burst", "no 429
came under the drain") first asks whether that load reached the target, counted two ways over
the window that matters:

- **on the wire**: the most requests actually sent inside any window, by their send timestamps
  (what the plan asked for does not count, nor when a request would have left had a connection
  been free: a request that has not left has not loaded anything);
- **at the target**: the most answers that came back inside any window (any status). A service
  behind a queue, a gateway or a slow path counts what it handles, and handles no faster than it
  answers: requests sent at the planned rate but let through at a tenth of it never showed the
  service the planned load.

Both must reach the count. Short of it the verdict is not measurable, with the figures: the
offered rate against the planned one, the counts inside the window and the answers' latency.
A request the target failed (sent, and answered with a 5xx or not at all) is evidence against
the target however much load reached it: it is reported, never excused.
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
    answered: int  # the most answers received inside any window
    failed: tuple[Record, ...]  # sent, and answered with a 5xx or not at all

    @property
    def delivered(self) -> bool:
        """The load reached the target: sent and handled at the needed count inside a window."""
        return self.sent >= self.needed and self.answered >= self.needed

    def shortfall(self) -> str:
        """Why the load did not reach the target, with the figures ("" when it did)."""
        if self.delivered:
            return ""
        where = (
            "the suite did not send it"
            if self.sent < self.needed
            else "the requests were sent, but answered no faster than that: the path or the "
            "target let fewer through"
        )
        return f"the load did not reach the target ({where}): {self.figures()}"

    def figures(self) -> str:
        """The counts inside the window against the need, then the offer's own figures."""
        return (
            f"at most {self.sent} sent and {self.answered} answered inside any "
            f"{self.window:g}s of the {self.needed} needed there; {self.offer.describe()}"
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
