"""Each faulty (or correct-but-different) client as a patch of the reference client, applied in
the client's own process before ``refclient.cli.main`` runs: one small defect each."""

from __future__ import annotations

import dataclasses
import os
import random
import threading
from collections.abc import Callable
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qsl

from refclient import core, environment, timing
from refclient.core import PollCore, Request
from tests.faulty.clients.adversarial_patches import ADVERSARIAL_PATCHES

INSTANCE_HEADER = "server-id"


def _config(**changes: Any) -> None:
    """Start the client with these ``Config`` fields changed."""
    original = environment.launch_from

    def launch_from(environ: Any) -> environment.Launch:
        launch = original(environ)
        return dataclasses.replace(launch, config=dataclasses.replace(launch.config, **changes))

    environment.launch_from = launch_from
    import refclient.cli

    refclient.cli.launch_from = launch_from  # type: ignore[attr-defined]


def _request(change: Callable[[PollCore, dict[str, str], dict[str, str]], None]) -> None:
    """Rewrite every status request's headers and query."""
    original = PollCore.poll_request

    def poll_request(self: PollCore) -> Request:
        request = original(self)
        headers, params = dict(request.headers), dict(request.params)
        change(self, headers, params)
        return Request(request.path, MappingProxyType(headers), MappingProxyType(params), "status")

    PollCore.poll_request = poll_request  # type: ignore[method-assign]


def _identity(change: Callable[[dict[str, str]], None]) -> None:
    """Rewrite the identity headers of every request (status and refetch)."""
    original = PollCore._identity_headers

    def identity(self: PollCore) -> dict[str, str]:
        headers = original(self)
        change(headers)
        return headers

    PollCore._identity_headers = identity  # type: ignore[method-assign]


def polls_through_hint() -> None:
    def success_delay(self: PollCore) -> float:
        c = self.config
        wait = timing.spread(c.scaled(c.cadence), c.cadence_jitter, c.random(), c.jitter_reading)
        return max(c.scaled(c.floor), wait)

    PollCore.success_delay = success_delay  # type: ignore[method-assign]


def no_jitter() -> None:
    timing.spread = lambda interval, ratio, u, reading: interval


def shared_seed() -> None:
    random.seed(1234)


def slow_after_hint() -> None:
    original = PollCore.on_poll_reply

    def on_poll_reply(self: PollCore, reply: core.Reply) -> Any:
        outcome = original(self, reply)
        if self._hint is not None:
            self._kept_hint = self._hint  # type: ignore[attr-defined]
        elif getattr(self, "_kept_hint", None) is not None:
            self._hint = self._kept_hint  # type: ignore[attr-defined]
        return outcome

    PollCore.on_poll_reply = on_poll_reply  # type: ignore[method-assign]


def no_hash() -> None:
    def drop(core_: PollCore, headers: dict[str, str], params: dict[str, str]) -> None:
        headers.pop("if-none-match", None)
        params.pop("hash", None)

    _request(drop)


def stale_hash() -> None:
    def first(core_: PollCore, headers: dict[str, str], params: dict[str, str]) -> None:
        kept = getattr(core_, "_first_hash", None) or core_.snapshot.hash
        core_._first_hash = kept  # type: ignore[attr-defined]
        if kept is not None and "if-none-match" in headers:
            headers["if-none-match"] = f'"{kept}"'

    _request(first)


def refetch_everything() -> None:
    core._moved = lambda held, summary: True  # type: ignore[assignment]


def ignores_retry_after() -> None:
    original = PollCore.failure_delay

    def failure_delay(self: PollCore, retry_after: float | None = None) -> float:
        return original(self, None)

    PollCore.failure_delay = failure_delay  # type: ignore[method-assign]


def tight_5xx_loop() -> None:
    def failure_delay(self: PollCore, retry_after: float | None = None) -> float:
        return max(0.05, retry_after or 0.0)

    PollCore.failure_delay = failure_delay  # type: ignore[method-assign]


def no_backoff_jitter() -> None:
    _config(backoff_jitter=0.0)


def no_instance_id() -> None:
    _identity(lambda headers: headers.pop(INSTANCE_HEADER, None))


def long_instance_id() -> None:
    def lengthen(headers: dict[str, str]) -> None:
        headers[INSTANCE_HEADER] = (headers.get(INSTANCE_HEADER, "x") * 200)[:200]

    _identity(lengthen)


def project_id_zero() -> None:
    _identity(lambda headers: headers.__setitem__("project-id", "0"))


def symmetric() -> None:
    """Jitter symmetrically whatever RCES_JITTER_READING says (the observed clients' formula)."""
    _config(jitter_reading="symmetric")


def exits_early() -> None:
    threading.Timer(1.0, lambda: os._exit(0)).start()


def _backoff(policy: Callable[[PollCore, int, float, float], float]) -> None:
    """Back off by ``policy(core, failures, base, cap)`` in place of the reference's doubling
    (Retry-After and a held hint still honoured; no floor: a wait may be close to 0)."""

    def failure_delay(self: PollCore, retry_after: float | None = None) -> float:
        c = self.config
        wait = policy(
            self, max(1, self._failures), c.scaled(c.backoff_base), c.scaled(c.backoff_cap)
        )
        if retry_after is not None:
            wait = max(wait, retry_after)
        if self._hint is not None:
            wait = max(wait, self.success_delay())
        return wait

    PollCore.failure_delay = failure_delay  # type: ignore[method-assign]


def _doubled(failures: int, base: float, cap: float) -> float:
    return min(cap, base * 2.0 ** min(failures - 1, 64))


def equal_jitter() -> None:
    def policy(core_: PollCore, failures: int, base: float, cap: float) -> float:
        d = _doubled(failures, base, cap)
        return d / 2 + d / 2 * core_.config.random()

    _backoff(policy)


def full_jitter() -> None:
    def policy(core_: PollCore, failures: int, base: float, cap: float) -> float:
        return _doubled(failures, base, cap) * core_.config.random()

    _backoff(policy)


def decorrelated_jitter() -> None:
    def policy(core_: PollCore, failures: int, base: float, cap: float) -> float:
        previous = base if failures == 1 else getattr(core_, "_previous", base)
        wait = min(cap, base + (3 * previous - base) * core_.config.random())
        core_._previous = wait  # type: ignore[attr-defined]
        return wait

    _backoff(policy)


def per_configuration() -> None:
    _config(refetch="per-configuration")


ENVIRONMENT_HEADER = "environment"


def alias(value: str | None) -> Callable[[], None]:
    """Send the environment alias ``value`` (None: no alias header at all)."""

    def patch() -> None:
        def change(headers: dict[str, str]) -> None:
            if value is None:
                headers.pop(ENVIRONMENT_HEADER, None)
            else:
                headers[ENVIRONMENT_HEADER] = value

        _identity(change)

    return patch


def bearer_authorization() -> None:
    _identity(
        lambda headers: headers.__setitem__("authorization", "Bearer " + headers["authorization"])
    )


def bootstrap_first() -> None:
    """Fetch a bootstrap snapshot before the first poll and hold it (its hash the first poll
    sends back); polling as the reference client from there."""
    from refclient import sync_poller
    from refclient.core import BOOTSTRAP_PATH, Reply
    from refclient.payload import status_body, unquote_etag

    original = sync_poller.Poller.run_forever

    def run_forever(self: sync_poller.Poller) -> None:
        core_ = self.core
        request = Request(
            BOOTSTRAP_PATH, MappingProxyType(core_._identity_headers()), MappingProxyType({}), "b"
        )
        reply: Reply = self._send(request)
        if reply.status == 200:
            body = status_body(reply.body, unquote_etag(reply.headers.get("etag")), "bootstrap")
            documents = {s.id: (s, body.documents[s.id]) for s in body.configurations}
            core_._adopt(body, documents, (), ("bootstrap",))
        original(self)

    sync_poller.Poller.run_forever = run_forever  # type: ignore[method-assign]


def backoff_cadence_floor() -> None:
    """After a failure, wait the client's own cadence (never less), Retry-After and a held hint
    still honoured: a flat retry that never hammers."""

    def failure_delay(self: PollCore, retry_after: float | None = None) -> float:
        c = self.config
        wait = timing.spread(c.scaled(c.cadence), c.cadence_jitter, c.random(), "above")
        if retry_after is not None:
            wait = max(wait, retry_after)
        if self._hint is not None:
            wait = max(wait, self.success_delay())
        return wait

    PollCore.failure_delay = failure_delay  # type: ignore[method-assign]


def query_template_refetch() -> None:
    """Refetch per configuration through a template with a query string (the query sent as the
    request's parameters: httpx drops a query written in the path when params are given)."""
    _config(refetch="per-configuration", configuration_path="/sdk/v2/bootstrap?configuration={id}")
    original = PollCore._refetch_requests

    def refetch_requests(self: PollCore, changed: Any) -> tuple[Request, ...]:
        split = []
        for request in original(self, changed):
            path, _, query = request.path.partition("?")
            params = MappingProxyType({**request.params, **dict(parse_qsl(query))})
            split.append(Request(path, request.headers, params, request.label))
        return tuple(split)

    PollCore._refetch_requests = refetch_requests  # type: ignore[method-assign]


def unchanged() -> None:
    """The reference client, or a variant that differs only by the environment it is given."""


PATCHES: dict[str, Callable[[], None]] = {
    "polls-through-hint": polls_through_hint,
    "symmetric-under-default": symmetric,
    "no-jitter": no_jitter,
    "shared-seed": shared_seed,
    "slow-after-hint": slow_after_hint,
    "no-hash": no_hash,
    "stale-hash": stale_hash,
    "refetch-everything": refetch_everything,
    "ignores-retry-after": ignores_retry_after,
    "tight-5xx-loop": tight_5xx_loop,
    "no-backoff-jitter": no_backoff_jitter,
    "no-instance-id": no_instance_id,
    "long-instance-id": long_instance_id,
    "project-id-zero": project_id_zero,
    "alias-out-of-scope": alias("production"),
    "alias-unknown": alias("staging"),
    "bearer-authorization": bearer_authorization,
    "bootstrap-first-declared-status": bootstrap_first,
    "exits-early": exits_early,
    **ADVERSARIAL_PATCHES,
    "reference": unchanged,
    "query-hash": unchanged,
    "symmetric-declared": symmetric,
    "per-configuration": per_configuration,
    "equal-jitter": equal_jitter,
    "full-jitter": full_jitter,
    "decorrelated-jitter": decorrelated_jitter,
    "bare-if-none-match-declared": ADVERSARIAL_PATCHES["adv-if-none-match-unquoted"],
    "bare-if-none-match-any": ADVERSARIAL_PATCHES["adv-if-none-match-unquoted"],
    "bare-if-none-match-undeclared": ADVERSARIAL_PATCHES["adv-if-none-match-unquoted"],
    "bootstrap-first-declared": bootstrap_first,
    "bootstrap-first-undeclared": bootstrap_first,
    "backoff-cadence-floor": backoff_cadence_floor,
    "query-template-refetch": query_template_refetch,
    "studio-alias": alias("studio"),
    "no-alias": alias(None),
}
