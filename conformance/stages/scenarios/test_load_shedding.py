"""Scenarios: the polling hint under load shedding (spec 2.4, 4.3, 8), provoked as the profile says.

``load_shedding.provoke``: ``burst`` offers ``burst_requests`` status polls with distinct
instance ids (so no rate-limit bucket drains) open-loop (``conformance.traffic.open_loop``) inside
``SEND_SHARE`` of ``window_seconds``, over as many connections as the target's latency needs.
When no hint came, the target is judged only on load that went out
(``conformance.traffic.delivery``): ``burst_requests`` actually sent inside some
``window_seconds``, by send timestamps, never by the plan. Short of that (the suite's own CPU, or
its connection cap while a slow target or path held every connection) the requirement is not
measurable, with the offered rate against the planned one and the answers' latency; a burst that
went out and brought no hint fails, however slowly it was answered.
``forced`` means the target sheds all the time, so only presence is measurable; ``none`` leaves
every hint requirement not measurable. Runs in the serial phase, since other traffic would
blur "the load is gone".
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TypeGuard

import pytest

from conformance.checks import IndependentChecks, expect
from conformance.drivers.sdk import Snapshots
from conformance.errors import NotMeasurable
from conformance.json_types import JsonValue
from conformance.oracles.shapes import problems
from conformance.traffic.delivery import delivery
from conformance.traffic.open_loop import Offer, Planned, send, uniform

requirement = pytest.mark.requirement
pytestmark = pytest.mark.serial(spends=True)  # "the load is gone" needs no other traffic
BOOTSTRAP_SHARE = 10  # one bootstrap in this many requests of the burst, towards its end
SEND_SHARE = 0.8  # the burst is planned inside this share of the window: room for our own lag
STATUS, BOOTSTRAP, BOOTSTRAP_IDENTITY = "status", "bootstrap", "bootstrap with identity"
SAMPLES = 3  # sweeps of every snapshot form after the load: the hint must be gone from each


def _polling(content: bytes) -> JsonValue:
    try:
        body: JsonValue = json.loads(content)
    except ValueError:
        return None
    return body.get("polling") if isinstance(body, dict) else None


def _provoke(snapshots: Snapshots) -> str:
    return snapshots.profile.load_shedding.provoke


def _forms(snapshots: Snapshots) -> list[str]:
    """The bootstrap forms the profile declares (spec 4.3: bootstrap is the status payload with
    the documents, with or without identity): each must carry the hint while shedding."""
    if not snapshots.profile.capability("bootstrap"):
        return []
    if snapshots.profile.capability("bootstrap_identity"):
        return [BOOTSTRAP, BOOTSTRAP_IDENTITY]
    return [BOOTSTRAP]


def _form_headers(
    snapshots: Snapshots, form: str, index: int, environment: str = "development"
) -> dict[str, str]:
    """Headers of one request of ``form``: the environment's key, its own instance id, and for
    the per-unit bootstrap a unit of its own."""
    names = snapshots.profile.headers
    headers = {
        "authorization": snapshots.key(environment).key,
        names.environment: environment,
        names.instance_id: snapshots.client.new_instance_id(),
    }
    if form == BOOTSTRAP_IDENTITY:
        headers[names.unit_id] = snapshots.client.name(f"shed-unit-{index}")
        types = snapshots.profile.experiments.unit_types
        if types:
            headers[names.unit_type] = types[0]
    return headers


def _burst(snapshots: Snapshots) -> Offer:
    shed = snapshots.profile.load_shedding
    latency = snapshots.status().exchange.elapsed_ms / 1000
    times = uniform(shed.burst_requests, shed.window_seconds * SEND_SHARE)
    forms = _forms(snapshots)
    plan = []
    for index, at in enumerate(times):
        late = index > shed.burst_requests // 2 and index % BOOTSTRAP_SHARE == 0
        form = forms[(index // BOOTSTRAP_SHARE) % len(forms)] if late and forms else STATUS
        path = "/sdk/v2/status" if form == STATUS else "/sdk/v2/bootstrap"
        plan.append(Planned(at, path, _form_headers(snapshots, form, index), form))
    return send(snapshots.client, plan, latency, "load-shedding burst")


def _no_hint(snapshots: Snapshots, served: int, offered: Offer | None) -> str:
    """No 200 carried the hint: the evidence against the target, or NotMeasurable when the
    burst never went out (the suite did not send ``burst_requests`` inside any window)."""
    none = f"{served} requests, none with polling"
    if offered is None:  # forced: the target says it sheds all the time
        return none
    shed = snapshots.profile.load_shedding
    burst = delivery(offered, shed.burst_requests, shed.window_seconds)
    if not burst.delivered:
        raise NotMeasurable(burst.shortfall())
    return f"{none}; {burst.figures()}"


@requirement(
    "POLL-HINT-ABSENT-NORMALLY",
    "POLL-HINT-UNDER-LOAD",
    "POLL-HINT-SHAPE",
    "POLL-HINT-VALUES-USABLE",
    "POLL-HINT-JITTER-RATIO-RANGE",
    "POLL-HINT-ON-BOOTSTRAP",
    "POLL-HINT-GONE-AFTER-LOAD",
)
def test_hint_under_load_and_after(snapshots: Snapshots) -> None:
    """Burst, check the hint while shedding, wait, check it is gone: the last poll, made with
    no load, also shows that a snapshot served without shedding has no hint."""
    provoke = _provoke(snapshots)
    if provoke == "none" or not snapshots.profile.capability("load_shedding"):
        _absent_only(snapshots)
    offered: Offer | None = None
    if provoke == "forced":
        served: list[tuple[str, int | None, bytes]] = []
        for index, form in enumerate([STATUS, *_forms(snapshots)]):
            path = "/status" if form == STATUS else "/bootstrap"
            headers = _form_headers(snapshots, form, index)
            reply = snapshots.client.sdk(path, key=headers.pop("authorization"), headers=headers)
            served.append((form, reply.status, reply.content))
    else:
        offered = _burst(snapshots)
        served = [(r.planned.tag, r.status, r.body) for r in offered.records]
    status_hints = [_polling(b) for p, s, b in served if p == STATUS and s == 200]
    status_hints = [h for h in status_hints if h is not None]
    unmeasured: dict[str, str] = {}
    with IndependentChecks() as independent:
        if not independent.check(
            bool(status_hints),
            ("POLL-HINT-UNDER-LOAD",),
            "no status response carried a polling hint under load",
            "a polling object in 200 status responses while shedding",
            "" if status_hints else _no_hint(snapshots, len(served), offered),
        ):
            return
        hint = status_hints[-1]
        found = problems("polling", hint)
        independent.check(
            not found,
            ("POLL-HINT-SHAPE",),
            "the polling hint is malformed",
            "an object of two numbers",
            f"{hint!r}: {'; '.join(found)}",
        )
        interval = hint.get("intervalSeconds") if isinstance(hint, dict) else None
        jitter = hint.get("jitterRatio") if isinstance(hint, dict) else None
        independent.check(
            _number(interval) and _number(jitter) and interval > 0,
            ("POLL-HINT-VALUES-USABLE",),
            "the polling hint cannot be honoured",
            "a numeric intervalSeconds > 0 and a numeric jitterRatio",
            repr(hint),
        )
        independent.check(  # a ratio that is no number is the two checks above's finding
            not _number(jitter) or 0 <= jitter <= 1,
            ("POLL-HINT-JITTER-RATIO-RANGE",),
            "the polling hint's jitterRatio is outside [0, 1]",
            "jitterRatio from 0 to 1 (the production convention)",
            repr(hint),
        )
        forms = _forms(snapshots)
        for form in forms:
            hints = [_polling(b) for p, s, b in served if p == form and s == 200]
            if hints:
                independent.check(
                    any(h == hint for h in hints),
                    ("POLL-HINT-ON-BOOTSTRAP",),
                    f"{form} under load lacks the status polling hint",
                    repr(hint),
                    repr(hints[:3]),
                )
            elif any(p == form for p, _, _ in served):  # sent, never served: judged
                independent.check(
                    False,
                    ("POLL-HINT-ON-BOOTSTRAP",),
                    f"{form} under load was not served",
                    "HTTP 200 with the status polling hint",
                    "statuses "
                    + ", ".join(str(s) for p, s, _ in served if p == form)
                    + (f"; {offered.describe()}" if offered is not None else ""),
                )
        if not forms:
            unmeasured["POLL-HINT-ON-BOOTSTRAP"] = "the profile declares no bootstrap capability"
        if provoke == "forced":
            unmeasured["POLL-HINT-GONE-AFTER-LOAD"] = "shedding is forced: it never goes away"
            unmeasured["POLL-HINT-ABSENT-NORMALLY"] = "shedding is forced: never without it"
        else:
            after = _hint_after_load(snapshots)
            independent.check(
                not after,
                ("POLL-HINT-GONE-AFTER-LOAD", "POLL-HINT-ABSENT-NORMALLY"),
                "the polling hint stayed after the load",
                after.expected,
                after.received,
            )
        if unmeasured and not independent.broken:
            raise NotMeasurable(
                "; ".join(unmeasured.values()), tuple(unmeasured), passed=tuple(independent.checked)
            )


def _absent_only(snapshots: Snapshots) -> None:
    """No way to provoke shedding: only the quiet case can be observed."""
    ids = ("POLL-HINT-ABSENT-NORMALLY",)
    after = _hint_after_load(snapshots)
    expect(not after, ids, "a hint without load", after.expected, after.received)
    raise NotMeasurable(
        "the profile offers no way to provoke load shedding",
        (
            "POLL-HINT-UNDER-LOAD",
            "POLL-HINT-SHAPE",
            "POLL-HINT-VALUES-USABLE",
            "POLL-HINT-JITTER-RATIO-RANGE",
            "POLL-HINT-ON-BOOTSTRAP",
            "POLL-HINT-GONE-AFTER-LOAD",
        ),
        passed=ids,
    )


@dataclass(frozen=True)
class AfterLoad:
    """The sweeps taken once the load has passed, each over every snapshot form and environment
    (``_sweep``): the first answer that carried ``polling`` (the member at all: spec 2.4 has it
    present only while shedding, so ``"polling": null`` is present), else none. True when the
    hint stayed."""

    samples: int
    space: str  # what one sweep asks: its forms and environments
    carried: int | None = None  # the sweep (from 1) that carried the member
    where: str = ""  # the form and environment of the answer that carried it
    value: JsonValue = None
    waited_s: float = 0.0

    def __bool__(self) -> bool:
        return self.carried is not None

    @property
    def expected(self) -> str:
        return (
            f"no polling member in {self.samples} sweeps ({self.space}) {self.waited_s:g}s after "
            "the load"
        )

    @property
    def received(self) -> str:
        return (
            f"polling: {json.dumps(self.value)} on {self.where} in sweep {self.carried} of "
            f"{self.samples}"
        )


def _space(snapshots: Snapshots) -> list[tuple[str, str]]:
    """Every snapshot form (status, and the bootstrap forms the profile declares) in every
    environment a key reaches: the hint's absence is judged over all of them."""
    environments = [
        alias
        for alias in ("development", "production")
        if snapshots.profile.key_for(alias) is not None
        and alias in snapshots.profile.project.environments
    ]
    return [(form, env) for env in environments for form in [STATUS, *_forms(snapshots)]]


def _sweep(snapshots: Snapshots, space: list[tuple[str, str]]) -> tuple[str, JsonValue] | None:
    """One answer of each form and environment of ``space``: the first 200 that carries the
    ``polling`` member (where, and its value), else None. An answer that is no 200 snapshot
    says nothing of the hint (the form's own requirements judge a refusal): passed over."""
    for index, (form, environment) in enumerate(space):
        headers = _form_headers(snapshots, form, index, environment)
        path = "/status" if form == STATUS else "/bootstrap"
        reply = snapshots.client.sdk(
            path,
            key=headers.pop("authorization"),
            headers=headers,
            allow_rate_limit=True,
            allow_server_error=True,
        )
        try:
            body = json.loads(reply.content) if reply.status == 200 else None
        except ValueError:
            body = None
        if isinstance(body, dict) and "polling" in body:
            return f"{form} in {environment}", body["polling"]
    return None


def _release_wait(snapshots: Snapshots) -> float:
    """Seconds to wait after the load for the declared release condition: shedding stops once
    the rate has stayed under the release threshold (``load.release_threshold``, hysteresis)
    for ``window_seconds``. After the burst the suite sends only its samples, so the rate is
    under any threshold one window after the burst, and stays so a window more: then
    ``settle_seconds`` for the answers to show it. Without hysteresis, ``settle_seconds``."""
    shed = snapshots.profile.load_shedding
    hysteresis = snapshots.profile.load.release_threshold is not None
    return shed.settle_seconds + (2 * shed.window_seconds if hysteresis else 0.0)


def _sample_gap(snapshots: Snapshots, requests: int = 1) -> float:
    """Seconds between sweeps of ``requests`` each: half a window, and slow enough that the
    sweeps alone stay far under the rate shedding is released at."""
    load, shed = snapshots.profile.load, snapshots.profile.load_shedding
    release = load.release_threshold or load.shedding_threshold
    return max(shed.window_seconds / 2, 4 * requests / release if release else 0.0)


def _hint_after_load(snapshots: Snapshots) -> AfterLoad:
    """Several sweeps once the load has passed (after the declared release condition), each
    over every snapshot form and environment: the first answer that carries a ``polling``
    member, if any. A target whose window trails ours gets one window more before its first
    answer counts; every sweep after it counts."""
    shed = snapshots.profile.load_shedding
    space = _space(snapshots)
    described = f"{len(space)} answers: " + ", ".join(f"{f} in {e}" for f, e in space)
    waited = _release_wait(snapshots)
    time.sleep(waited)
    gap = _sample_gap(snapshots, len(space))
    if _sweep(snapshots, space) is not None:  # one more window: the target's may trail ours
        time.sleep(shed.window_seconds)
        waited += shed.window_seconds
    else:
        time.sleep(gap)
    for index in range(1, SAMPLES + 1):
        if index > 1:
            time.sleep(gap)
        carried = _sweep(snapshots, space)
        if carried is not None:
            where, value = carried
            return AfterLoad(SAMPLES, described, index, where, value, round(waited, 2))
    return AfterLoad(SAMPLES, described, waited_s=round(waited, 2))


def _number(value: object) -> TypeGuard[int | float]:
    """A JSON number (true and false are not: Python's bool is an int)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
