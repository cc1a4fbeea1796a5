"""The *rate-limits* section: the rate limit and load shedding, as the edges section had them.

The rate limit off, too strict, shared or per connection, a 429 without ``Retry-After``, with one
that is neither delay-seconds nor an IMF-fixdate, or with a long penalty, and the ``polling`` hint
always or never sent, kept after the load fell, unusable, or missing on bootstrap.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    SNAPSHOT,
    STATUS,
    Fault,
    answer,
    drop,
    edit_json,
    edit_request,
    edit_response,
    fault,
    id_stripped,
    no_rate_limit,
    on_status,
)


def sticky_polling(ctx: Context) -> Handler:
    until: list[float] = [0.0]

    def edit(data: Any, request: Request) -> Any:
        if "polling" in data:
            until[0] = time.monotonic() + 60
        elif time.monotonic() < until[0]:
            data["polling"] = {"intervalSeconds": 30, "jitterRatio": 0.2}
        return data

    return edit_json(SNAPSHOT, edit)


def front_bucket(burst: float, refill: float) -> Callable[[Context], Handler]:
    """A bucket per key and instance id (``burst``, refilling at ``refill``/s) in front of the
    declared 60 + 30/s: the status endpoint serves less than the profile declares."""

    def build(ctx: Context) -> Handler:
        buckets: dict[tuple[str, str], tuple[float, float]] = {}

        def make(request: Request) -> Response | None:
            slot = (request.header("authorization") or "", request.header("server-id") or "ip")
            now = time.monotonic()
            tokens, last = buckets.get(slot, (burst, now))
            tokens = min(burst, tokens + (now - last) * refill)
            if tokens < 1:
                buckets[slot] = (tokens, now)
                return error_response(429, "RATE_LIMITED").with_header("retry-after", "1")
            buckets[slot] = (tokens - 1, now)
            return None

        return answer(STATUS, make)

    return build


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def rfc850_after(seconds: float) -> str:
    """The moment ``seconds`` from now as an rfc850-date (RFC 9110 section 5.6.7: obsolete, a
    form recipients accept and a sender must not generate), e.g. Sunday, 06-Nov-94 08:49:37 GMT."""
    at = datetime.fromtimestamp(math.ceil(time.time() + seconds), UTC)
    return (
        f"{_WEEKDAYS[at.weekday()]}, {at.day:02d}-{_MONTHS[at.month - 1]}-{at.year % 100:02d} "
        f"{at.hour:02d}:{at.minute:02d}:{at.second:02d} GMT"
    )


def retry_after_spelled(spell: Callable[[int], str]) -> Handler:
    """Each status 429's Retry-After (delay-seconds from the reference app) spelled by ``spell``."""

    def edit(request: Request, response: Response) -> Response:
        value = response.headers.get("retry-after")
        if response.status != 429 or value is None or not value.isdigit():
            return response
        return response.with_header("retry-after", spell(int(value)))

    return edit_response(STATUS, edit)


def long_penalty(ctx: Context) -> Handler:
    """Once limited, an instance stays limited for 30 s, whatever Retry-After says."""
    blocked: dict[tuple[str, str], float] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        if not STATUS(request):
            return await forward(request)
        slot = (request.header("authorization") or "", request.header("server-id") or "ip")
        if time.monotonic() < blocked.get(slot, 0):
            return error_response(429, "RATE_LIMITED").with_header("retry-after", "1")
        response = await forward(request)
        if response.status == 429:
            blocked[slot] = time.monotonic() + 30
        return response

    return handler


def _polling(value: Any) -> Callable[[Any, Request], Any]:
    def edit(data: Any, request: Request) -> Any:
        if "polling" in data:
            data["polling"] = value(data["polling"])
        return data

    return edit


def _always_polling(data: Any, request: Request) -> Any:
    data.setdefault("polling", {"intervalSeconds": 30, "jitterRatio": 0.2})
    return data


def _id_per_connection(request: Request) -> Request:
    if request.header("server-id") is None:
        client = request.scope.get("client") or ("", 0)
        return request.with_header("server-id", f"connection-{client[1]}")
    return request


# ------------------------------------------------------------------ the section


def rate_limits() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return (
        # ------------------------------------------------------------ rate limit
        fault(
            "rate-limit-off",
            "LIMIT-RATE-ENFORCED LIMIT-RATE-SHARED-WITHOUT-ID",
            "No rate limit: a limited request is retried in a fresh bucket.",
            on_status(STATUS, 429, no_rate_limit),
        ),
        fault(
            "rate-limit-too-strict",
            "LIMIT-RATE-WITHIN-BUDGET",
            "A bucket of 20 (refill 20/s) in front of the declared 60/30.",
            front_bucket(20, 20),
        ),
        fault(
            "rate-limit-burst-smaller",
            "LIMIT-RATE-WITHIN-BUDGET",
            "The status bucket holds 40, two thirds of the declared burst of 60 (refill 30/s).",
            front_bucket(40, 30),
        ),
        fault(
            "rate-limit-refill-slower",
            "LIMIT-RATE-WITHIN-BUDGET",
            "The status bucket refills at 10/s, a third of the declared 30/s (burst 60).",
            front_bucket(60, 10),
        ),
        fault(
            "rate-limit-one-bucket",
            # a fresh instance id finds the bucket the drains before it spent
            "LIMIT-RATE-PER-INSTANCE LIMIT-RATE-WITHIN-BUDGET",
            "One rate-limit bucket is shared across instance ids.",
            edit_request(STATUS, id_stripped),
        ),
        fault(
            "rate-limit-per-connection",
            "LIMIT-RATE-SHARED-WITHOUT-ID",
            "Callers without an instance id get a bucket per connection, not one per address.",
            edit_request(STATUS, _id_per_connection),
        ),
        fault(
            "429-without-retry-after",
            "LIMIT-RATE-429-RETRY-AFTER",
            "A 429 carries no Retry-After.",
            edit_response(
                STATUS,
                lambda r, resp: (
                    resp.with_header("retry-after", None) if resp.status == 429 else resp
                ),
            ),
        ),
        fault(
            "429-retry-after-not-a-delay",
            "LIMIT-RATE-429-RETRY-AFTER",
            "A 429 says `Retry-After: soon`: neither delay-seconds nor an HTTP-date (RFC 9110 "
            "section 10.2.3).",
            retry_after_spelled(lambda seconds: "soon"),
        ),
        fault(
            "429-retry-after-rfc850",
            "LIMIT-RATE-429-RETRY-AFTER",
            "A 429's Retry-After is the right moment as an rfc850-date (`Sunday, 06-Nov-94 "
            "08:49:37 GMT`): an obsolete form a sender must not generate (RFC 9110 section "
            "5.6.7: IMF-fixdate).",
            retry_after_spelled(rfc850_after),
        ),
        fault(
            "rate-limit-long-penalty",
            "LIMIT-RATE-RECOVERS",
            "Once limited, an instance stays limited for 30 s whatever Retry-After says.",
            long_penalty,
        ),
        # ------------------------------------------------------------ load shedding
        fault(
            "polling-always",
            "POLL-HINT-ABSENT-NORMALLY POLL-HINT-GONE-AFTER-LOAD",
            "Snapshots always carry the polling hint.",
            edit_json(SNAPSHOT, _always_polling),
        ),
        fault(
            "polling-never",
            "POLL-HINT-UNDER-LOAD",
            "`polling` is never sent, even under load.",
            edit_json(SNAPSHOT, drop("polling")),
        ),
        fault(
            "polling-sticks",
            "POLL-HINT-GONE-AFTER-LOAD POLL-HINT-ABSENT-NORMALLY",
            "Once sent, the polling hint stays for a minute after the load fell.",
            sticky_polling,
        ),
        fault(
            "polling-strings",
            "POLL-HINT-SHAPE POLL-HINT-VALUES-USABLE",
            "The polling hint's numbers are strings.",
            edit_json(SNAPSHOT, _polling(lambda p: {k: str(v) for k, v in p.items()})),
        ),
        fault(
            "polling-booleans",
            "POLL-HINT-SHAPE POLL-HINT-VALUES-USABLE",
            "The polling hint's numbers are booleans (true is no JSON number).",
            edit_json(SNAPSHOT, _polling(lambda p: dict.fromkeys(p, True))),
        ),
        fault(
            "polling-unusable",
            "POLL-HINT-VALUES-USABLE POLL-HINT-JITTER-RATIO-RANGE",
            "The polling hint says a negative interval and a jitter ratio of 5.",
            edit_json(SNAPSHOT, _polling(lambda p: {"intervalSeconds": -30, "jitterRatio": 5})),
        ),
        fault(
            "polling-jitter-above-one",
            "POLL-HINT-JITTER-RATIO-RANGE",
            "The polling hint's jitter ratio is 1.5 (the interval is fine): outside the "
            "convention's [0, 1], which the spec does not state.",
            edit_json(SNAPSHOT, _polling(lambda p: {**p, "jitterRatio": 1.5})),
        ),
        fault(
            "polling-not-on-bootstrap",
            "POLL-HINT-ON-BOOTSTRAP",
            "Bootstrap never carries the polling hint.",
            edit_json(BOOTSTRAP, drop("polling")),
        ),
    )
