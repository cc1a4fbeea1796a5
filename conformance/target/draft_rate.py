"""The status endpoint's rate limit as ``conformance profile draft`` measures it: a pause, a short
bounded drain of one fresh instance id (200s before the first 429), a pause, a second drain (the
tokens that came back: the refill), then one poll with another key and one with a fresh instance
id on the drained bucket (the scope). Bounded in requests and seconds, to the given URL only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from conformance.profile.access import SdkKey
from conformance.target.draft_probes import Findings
from conformance.traffic.client import Client
from conformance.traffic.transcript import Reply

MAX_REQUESTS = 2000  # per drain
MAX_SECONDS = 10.0  # per drain
PAUSE_SECONDS = 1.0  # between the drains: what comes back in it is the refill


SCOPE_ATTEMPTS = 5  # drains to tell the scope apart from a token that came back meanwhile
SCOPE_POLLS = 20  # the other key's polls in a row that a bucket of its own serves


@dataclass(frozen=True)
class Drain:
    served: int  # 200s (and 304s) before the first 429
    seconds: float  # from the first request to the 429 (or to the bound)
    refused: Reply | None  # the first 429, None when the bound came first


def drain(client: Client, key: SdkKey, instance: str) -> Drain:
    """Poll as fast as one connection goes until the first 429 or a bound."""
    served = 0
    started = time.monotonic()
    while served < MAX_REQUESTS and time.monotonic() - started < MAX_SECONDS:
        reply = _poll(client, key, instance)
        if reply.status == 429:
            return Drain(served, time.monotonic() - started, reply)
        if reply.status in (200, 304):
            served += 1
    return Drain(served, time.monotonic() - started, None)


def _poll(client: Client, key: SdkKey, instance: str) -> Reply:
    return client.status(
        key=key.key,
        environment=key.environments[0] if key.environments else None,
        instance_id=instance,
        allow_rate_limit=True,
        allow_server_error=True,
        pace=False,
    )


def measure(client: Client, keys: list[SdkKey], tag: str, found: Findings) -> None:
    """Burst, refill and scope into ``found``; what could not be measured, with its figure."""
    key = keys[0]
    instance = f"cf-draft-{tag}-rate"
    time.sleep(PAUSE_SECONDS)  # a bucket the probes touched (instance id not read) fills again
    first = drain(client, key, instance)
    if first.refused is None:
        for name in ("rate_limit.burst", "rate_limit.refill_per_second", "rate_limit.scope"):
            found.missed(
                name,
                f"no 429 after {first.served} polls in {first.seconds:.1f}s of one instance id: "
                "the limit is above what one connection reaches, or there is none "
                "(capabilities.rate_limit: false)",
            )
        return
    after = first.refused.headers.get("retry-after")
    if after is not None:
        form = "delta-seconds" if after.strip().isdigit() else "an HTTP date"
        found.notes.append(f"429 Retry-After: {form} ({after!r})")
    time.sleep(PAUSE_SECONDS)
    paused = time.monotonic()
    second = drain(client, key, instance)
    back = second.served
    window = PAUSE_SECONDS + (time.monotonic() - paused)
    if second.refused is None or back == 0:
        found.missed(
            "rate_limit.refill_per_second",
            f"{back} polls came back in {window:.2f}s after the first 429",
        )
        refill = 0.0
    else:
        refill = back / window
        found.saw(
            "rate_limit.refill_per_second",
            _rounded(refill),
            f"measured: {back} polls came back in {window:.2f}s after the first 429",
        )
    burst = max(1, round(first.served - refill * first.seconds))
    found.saw(
        "rate_limit.burst",
        burst,
        f"measured: {first.served} polls served in {first.seconds:.2f}s before the first 429, "
        f"less the refill over that time",
    )
    fresh = _poll(client, key, f"cf-draft-{tag}-fresh")
    if fresh.status == 429:
        found.missed(
            "rate_limit.scope",
            "a fresh instance id was refused on the drained bucket too: the instance id header "
            f"`{client.profile.headers.instance_id}` seems not to be read (set headers.instance_id "
            "to your server's name, then measure the scope again)",
        )
        return
    others = [k for k in keys[1:] if key.environments[:1] == k.environments[:1]]
    if not others:
        found.missed("rate_limit.scope", "one SDK key for that environment: pass another --sdk-key")
        return
    judged = _scope(client, key, others[0], instance, burst)
    if judged is None:
        found.missed(
            "rate_limit.scope",
            f"a token came back between the polls in each of {SCOPE_ATTEMPTS} tries (a slow "
            "machine, or a fast refill): set rate_limit.scope yourself",
        )
        return
    scope, other = judged
    found.saw(
        "rate_limit.scope",
        scope,
        f"another key on the drained instance id answered {other.status}",
    )


def _scope(
    client: Client, key: SdkKey, other_key: SdkKey, instance: str, burst: int
) -> tuple[str, Reply] | None:
    """("instance" or "key-and-instance", the other key's first answer) on a bucket drained right
    before. Refused at once: one bucket for the instance. Served ``n`` times in a row (a bucket
    of its own holds ``burst``; a drained shared one gives back only what refilled meanwhile)
    with the first key still refused right after: a bucket per key. Anything else (a token came
    back in between, on a slow machine): it tries again, on a fresh instance id, so that the
    other key's own bucket is whole again in each try."""
    polls = max(2, min(burst - 1, SCOPE_POLLS))
    for attempt in range(SCOPE_ATTEMPTS):
        tried = instance if attempt == 0 else f"{instance}-{attempt}"
        if drain(client, key, tried).refused is None:
            return None
        answers = [_poll(client, other_key, tried) for _ in range(polls)]
        if answers[0].status == 429:
            return "instance", answers[0]
        served = all(a.status in (200, 304) for a in answers)
        if served and _poll(client, key, tried).status == 429:
            return "key-and-instance", answers[0]
    return None


def _rounded(value: float) -> float | int:
    """Two significant figures: a measured rate, not a promise of its last digit."""
    if value >= 10:
        return round(value, -1) if value >= 100 else round(value)
    return round(value, 1)
