"""One instance's polls as gaps: how long the client waited after each status answer, and what
that answer asked for (a hint's lower bound, a Retry-After, nothing).

A gap runs from a status request's arrival (or, after a 429 or a failure, from its answer) to
the next request's arrival at the scripted server; the last one is *open*: it runs to when the
stage stopped the client.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.stages.client.recording import Recorded
from conformance.stages.client.runs import InstanceRun

# Scheduling noise the timing checks tolerate: a wait may look this much shorter than asked
# (the server stamps an arrival a little late while busy). It can never pass a client that
# ignores a hint: 0.05 s + 2 % of the hint's 2 s bound (the default 'above' reading) is 0.09 s,
# and of its 1.4 s bound under a declared 'symmetric' one 0.08 s, far from a 0.6 s cadence.
MARGIN_S = 0.05
MARGIN_SHARE = 0.02


def margin(bound_s: float) -> float:
    return MARGIN_S + MARGIN_SHARE * bound_s


def hint_bound(interval: float, ratio: float, reading: str) -> float:
    """The shortest wait a hint allows under a jitter reading (ratio clamped to [0, 1]): the
    interval itself ('above', the default: spec 4.3 "no faster than", 8.2 "a minimum interval"),
    or the interval times one minus the ratio where the profile declares 'symmetric'."""
    r = min(max(ratio, 0.0), 1.0)
    return interval * (1 - r) if reading == "symmetric" else interval


def hint_width(interval: float, ratio: float, reading: str) -> float:
    """How wide the waits of a jittered client spread under a reading."""
    r = min(max(ratio, 0.0), 1.0)
    return interval * (2 * r if reading == "symmetric" else r)


@dataclass(frozen=True)
class Gap:
    """The wait after one status answer."""

    after: Recorded
    following: Recorded | None  # None: the gap is open (the client was stopped)
    seconds: float
    hint: tuple[float, float] | None = None  # the hint in force after the answer (see gaps)

    @property
    def open(self) -> bool:
        return self.following is None

    @property
    def failed(self) -> bool:
        return self.after.status is None or self.after.status >= 500

    @property
    def rate_limited(self) -> bool:
        return self.after.status == 429

    @property
    def hinted(self) -> bool:
        """A poll's wait under a hint: after a 200 carrying it or a 304 while it is held."""
        return self.hint is not None and self.after.status in (200, 304)


def gaps(instance: InstanceRun) -> list[Gap]:
    """The gaps between consecutive status requests (refetches in between belong to the gap).

    After a 429 or a failure the gap starts at the answer (the wait a Retry-After or a backoff
    asks for starts there); otherwise at the arrival (a poll rate is arrival to arrival).

    The hint in force: the ``polling`` of the last 200. Only a 200 sets or releases it (spec 4.3:
    "until polling is gone from a response"); a 304 has no body, so it cannot say polling is
    gone, and neither can a failure: the hint stays in force through them.
    """
    polls = instance.status_records()
    found = []
    held: tuple[float, float] | None = None
    for index, record in enumerate(polls):
        if record.status == 200:
            held = record.hint
        start = record.answered if _waits_from_answer(record) else record.arrived
        following = polls[index + 1] if index + 1 < len(polls) else None
        end = following.arrived if following is not None else instance.ended
        found.append(Gap(record, following, max(0.0, end - start), held))
    return found


def _waits_from_answer(record: Recorded) -> bool:
    return record.status is None or record.status == 429 or record.status >= 500
