"""The invalid requests the error scenarios send (spec 7), one ``Case`` each: the endpoint family,
whether it is a validation failure (answered with the declared validation status), and how to
send it; ``RATE_LIMITED``, the provoked 429, only the body-shape test sends (it drains a bucket)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Unpack

from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots
from conformance.errors import NotConfigured
from conformance.traffic.open_loop import Planned, Record, reply_of, send, uniform
from conformance.traffic.sdk_options import SdkCallOptions
from conformance.traffic.transcript import Reply

UNLIKELY_ID = 2_000_000_017


@dataclass(frozen=True)
class Case:
    label: str
    family: str  # status | bootstrap | management
    validation: bool  # invalid input: answered 400
    send: Callable[[Configurations, Snapshots], Reply]


def _status(**kw: Unpack[SdkCallOptions]) -> Callable[[Configurations, Snapshots], Reply]:
    return lambda c, s: s.status(**kw)


def _numeric(value: str) -> Callable[[Configurations, Snapshots], Reply]:
    return lambda c, s: s.status(headers={s.profile.headers.numeric: value})


def _out_of_scope(snapshots: Snapshots) -> Reply:
    key = min(snapshots.profile.credentials.sdk_keys, key=lambda k: len(k.environments))
    outside = [e for e in ("development", "production") if e not in key.environments]
    if not outside:
        raise NotConfigured(
            "credentials.sdk_keys",
            "every profile key covers every environment: add a key scoped to fewer environments",
        )
    return snapshots.client.status(key=key.key, environment=outside[0])


def _method(method: str, path: str) -> Callable[[Configurations, Snapshots], Reply]:
    """A method the route does not serve (RFC 9110 15.5.6: 405), with valid credentials."""

    def send(c: Configurations, s: Snapshots) -> Reply:
        if path.startswith("/sdk/"):
            names = s.profile.headers
            headers = {"authorization": s.key().key, names.environment: "development"}
        else:
            app = s.profile.project.application_id
            path_sent = f"/application/{app}/v2{path}"
            headers = {
                "Authorization": f"Bearer {s.profile.credentials.pat}",
                "environment_id": str(s.profile.environment_id("development")),
            }
            return c.client.request(method, path_sent, headers=headers)
        return c.client.request(method, path, headers=headers)

    return send


def _rate_limited(c: Configurations, s: Snapshots) -> Reply:
    """Status polls of a fresh instance, open-loop at ``RATE_EXCESS`` times what the declared
    bucket serves (so a distant target is drained as fast as a near one: a round trip per poll
    would let the refill keep up), until the declared bucket refuses one
    (``errors.rate_limited_status``, 429 by default): the first refusal; else the last answer
    (a 200, or none at all: no refusal to judge; other requirements judge that).

    No pause after it: the test runs with the serial tests that spend (``serial(spends=True)``),
    after every read that needs a quiet target; those after it are the shedding test, which
    provokes load itself and waits for its release, and the rate-limit drains, which judge
    statuses, not the hint."""
    limit = s.profile.rate_limit
    names = s.profile.headers
    refusal = s.profile.errors.rate_limited_status
    latency = s.status(instance_id=s.client.new_instance_id()).exchange.elapsed_ms / 1000
    headers = {
        "authorization": s.key().key,
        names.environment: "development",
        names.instance_id: s.client.new_instance_id(),
    }
    count = int(limit.burst + 2 * limit.refill_per_second) + RATE_SPARE
    rate = RATE_EXCESS * (limit.burst + limit.refill_per_second)
    plan = [Planned(at, "/sdk/v2/status", headers) for at in uniform(count, count / rate)]
    offered = send(s.client, plan, latency, "a drain for a 429", until=_refused(refusal))
    answered = sorted(offered.sent(), key=lambda r: r.answered or 0.0)
    refused = [r for r in answered if r.status == refusal]
    if refused:
        return reply_of(s.client, refused[0])
    return reply_of(s.client, ([r for r in answered if r.status] or list(offered.records))[-1])


def _refused(status: int) -> Callable[[Record], bool]:
    return lambda record: record.status == status


RATE_SPARE = 40  # polls past the declared burst and two seconds' refill before giving up
RATE_EXCESS = 2.0  # the drain offers this many times the declared burst and refill a second

CASES: list[Case] = [
    Case("status-no-key", "status", False, lambda c, s: c.client.status(key=None)),
    Case("status-method-not-allowed", "status", False, _method("DELETE", "/sdk/v2/status")),
    Case("bootstrap-method-not-allowed", "bootstrap", False, _method("POST", "/sdk/v2/bootstrap")),
    Case(
        "configuration-method-not-allowed",
        "management",
        False,
        _method("DELETE", "/configuration"),
    ),
    Case(
        "status-unknown-key",
        "status",
        False,
        lambda c, s: c.client.status(key="svc_pk_" + secrets.token_urlsafe(18)),
    ),
    Case(
        "status-bad-alias",
        "status",
        True,
        lambda c, s: c.client.status(key=s.key().key, environment="staging"),
    ),
    Case("status-long-instance-id", "status", True, _status(instance_id="i" * 129)),
    Case("status-numeric-zero", "status", True, _numeric("0")),
    Case("status-numeric-text", "status", True, _numeric("many")),
    Case("status-empty-hash", "status", True, _status(params={"hash": ""})),
    Case("status-out-of-scope", "status", False, lambda c, s: _out_of_scope(s)),
    Case("bootstrap-no-key", "bootstrap", False, lambda c, s: c.client.bootstrap(key=None)),
    Case(
        "bootstrap-bad-alias",
        "bootstrap",
        True,
        lambda c, s: c.client.bootstrap(key=s.key().key, environment="qa"),
    ),
    Case(
        "create-no-token",
        "management",
        False,
        lambda c, s: c.client.management(
            "POST", "/configuration", token=None, json_body={"name": c.client.name("e")}
        ),
    ),
    Case("create-no-name", "management", True, lambda c, s: c.create(body={"description": "x"})),
    Case(
        "create-env-id-text",
        "management",
        True,
        lambda c, s: c.client.management(
            "POST",
            "/configuration",
            environment=None,
            headers={"environment_id": "abc"},
            json_body={"name": c.client.name("e")},
        ),
    ),
    Case(
        "patch-unknown-op",
        "management",
        True,
        lambda c, s: c.patch(
            c.create_ok("err-op", {"a": 1})["id"], [{"op": "merge", "path": "/a", "value": 1}]
        ),
    ),
    Case(
        "patch-unknown-configuration",
        "management",
        False,
        lambda c, s: c.patch(UNLIKELY_ID, [{"op": "add", "path": "/a", "value": 1}]),
    ),
]


# Provoked only by the body-shape test (serial: it drains a bucket of its own).
RATE_LIMITED = Case("status-rate-limited", "status", False, _rate_limited)
