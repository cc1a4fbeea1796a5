"""Scenarios: the polling hint under load shedding (spec 2.4, 4.3, 8), provoked as the profile says.

``load_shedding.provoke``: ``burst`` sends ``burst_requests`` concurrent status polls with
distinct instance ids (so no rate-limit bucket drains); ``forced`` means the target sheds all the
time, so only presence is measurable; ``none`` leaves every hint requirement not measurable.
Runs alone (``exclusive``), since other traffic would blur "the load is gone".
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from conformance.checks import Soft, expect
from conformance.checks.sdk import Snapshots
from conformance.checks.shapes import problems
from conformance.errors import NotMeasurable

requirement = pytest.mark.requirement
pytestmark = [pytest.mark.xdist_group("exclusive"), pytest.mark.usefixtures("exclusive")]
BOOTSTRAP_SHARE = 10  # one bootstrap in this many requests of the burst, towards its end


def _polling(content: bytes) -> Any:
    try:
        body = json.loads(content)
    except ValueError:
        return None
    return body.get("polling") if isinstance(body, dict) else None


def _provoke(snapshots: Snapshots) -> str:
    return snapshots.profile.load_shedding.provoke


def _burst(snapshots: Snapshots) -> list[tuple[str, int | None, bytes]]:
    shed = snapshots.profile.load_shedding
    key = snapshots.key("development").key
    names = snapshots.profile.headers
    requests = []
    for index in range(shed.burst_requests):
        late = index > shed.burst_requests // 2 and index % BOOTSTRAP_SHARE == 0
        path = (
            "/sdk/v2/bootstrap"
            if late and snapshots.profile.capability("bootstrap")
            else "/sdk/v2/status"
        )
        requests.append(
            (
                path,
                {
                    "authorization": key,
                    names.environment: "development",
                    names.instance_id: snapshots.client.new_instance_id(),
                },
            )
        )
    results = snapshots.client.concurrent_get(requests)
    return [
        (path, status, body) for (path, _), (status, body) in zip(requests, results, strict=True)
    ]


@requirement(
    "POLL-HINT-ABSENT-NORMALLY",
    "POLL-HINT-UNDER-LOAD",
    "POLL-HINT-SHAPE",
    "POLL-HINT-VALUES-USABLE",
    "POLL-HINT-ON-BOOTSTRAP",
    "POLL-HINT-GONE-AFTER-LOAD",
)
def test_hint_under_load_and_after(snapshots: Snapshots) -> None:
    """Burst, check the hint while shedding, wait, check it is gone: the last poll, made with
    no load, also shows that a snapshot served without shedding has no hint."""
    provoke = _provoke(snapshots)
    if provoke == "none" or not snapshots.profile.capability("load_shedding"):
        _absent_only(snapshots)
    if provoke == "forced":
        served: list[tuple[str, int | None, bytes]] = [
            ("/sdk/v2/status", snapshots.status().status, snapshots.status().content),
        ]
        if snapshots.profile.capability("bootstrap"):
            boot = snapshots.bootstrap()
            served.append(("/sdk/v2/bootstrap", boot.status, boot.content))
    else:
        served = _burst(snapshots)
    status_hints = [_polling(b) for p, s, b in served if p.endswith("status") and s == 200]
    status_hints = [h for h in status_hints if h is not None]
    boot_hints = [_polling(b) for p, s, b in served if p.endswith("bootstrap") and s == 200]
    unmeasured: dict[str, str] = {}
    with Soft() as soft:
        took = snapshots.client.last_burst_seconds
        window = snapshots.profile.load_shedding.window_seconds
        if not status_hints and provoke == "burst" and took > window:
            raise NotMeasurable(
                f"the suite sent the {len(served)}-request burst in {took:.2f}s, slower than "
                f"the profile's window_seconds {window}: the load was not delivered"
            )
        if not soft.check(
            bool(status_hints),
            ("POLL-HINT-UNDER-LOAD",),
            "no status response carried a polling hint under load",
            "a polling object in 200 status responses while shedding",
            f"{len(served)} requests, none with polling",
        ):
            return
        hint = status_hints[-1]
        found = problems("polling", hint)
        soft.check(
            not found,
            ("POLL-HINT-SHAPE",),
            "the polling hint is malformed",
            "an object of two numbers",
            f"{hint!r}: {'; '.join(found)}",
        )
        interval = hint.get("intervalSeconds") if isinstance(hint, dict) else None
        jitter = hint.get("jitterRatio") if isinstance(hint, dict) else None
        soft.check(
            isinstance(interval, (int, float))
            and isinstance(jitter, (int, float))
            and interval > 0
            and 0 <= jitter <= 1,
            ("POLL-HINT-VALUES-USABLE",),
            "the polling hint cannot be honoured",
            "intervalSeconds > 0 and jitterRatio in [0, 1]",
            repr(hint),
        )
        if boot_hints:
            soft.check(
                any(h == hint for h in boot_hints),
                ("POLL-HINT-ON-BOOTSTRAP",),
                "bootstrap under load lacks the status polling hint",
                repr(hint),
                repr(boot_hints[:3]),
            )
        else:
            unmeasured["POLL-HINT-ON-BOOTSTRAP"] = "no bootstrap was served during the load"
        if provoke == "forced":
            unmeasured["POLL-HINT-GONE-AFTER-LOAD"] = "shedding is forced: it never goes away"
            unmeasured["POLL-HINT-ABSENT-NORMALLY"] = "shedding is forced: never without it"
        else:
            polling = _hint_after_load(snapshots)
            soft.check(
                polling is None,
                ("POLL-HINT-GONE-AFTER-LOAD", "POLL-HINT-ABSENT-NORMALLY"),
                "the polling hint stayed after the load",
                "no polling field",
                repr(polling),
            )
        if unmeasured and not soft.broken:
            raise NotMeasurable(
                "; ".join(unmeasured.values()), tuple(unmeasured), passed=tuple(soft.checked)
            )


def _absent_only(snapshots: Snapshots) -> None:
    """No way to provoke shedding: only the quiet case can be observed."""
    ids = ("POLL-HINT-ABSENT-NORMALLY",)
    polling = _hint_after_load(snapshots)
    expect(polling is None, ids, "a hint without load", "no polling field", repr(polling))
    raise NotMeasurable(
        "the profile offers no way to provoke load shedding",
        (
            "POLL-HINT-UNDER-LOAD",
            "POLL-HINT-SHAPE",
            "POLL-HINT-VALUES-USABLE",
            "POLL-HINT-ON-BOOTSTRAP",
            "POLL-HINT-GONE-AFTER-LOAD",
        ),
        passed=ids,
    )


def _hint_after_load(snapshots: Snapshots) -> Any:
    """The polling field of a status poll once the load has passed (None when absent)."""
    shed = snapshots.profile.load_shedding
    time.sleep(shed.settle_seconds)
    body = snapshots.snapshot("development", ("POLL-HINT-GONE-AFTER-LOAD",))
    if "polling" in body:  # one more window, in case the target's window trails ours
        time.sleep(shed.window_seconds)
        body = snapshots.snapshot("development", ("POLL-HINT-GONE-AFTER-LOAD",))
    return body.get("polling")
