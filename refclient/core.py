"""The I/O-free polling state machine both pollers drive: what to send, what a reply means, and
how long to wait.

A driver asks ``poll_request()``, sends it, and hands the reply to ``on_poll_reply()``. That
answers either an ``Outcome`` (the poll is over: wait ``outcome.delay``) or a ``Refetch`` (send
these requests, in order, stopping after the first that does not answer 200, then hand the
replies to ``on_refetch_replies()``). A transport error anywhere goes to
``on_transport_error()``. A permanent refusal raises ``PermanentError``.

The rules kept (spec 4.3, 8 and the observed conventions):

- The first poll sends no hash; every later poll sends the last snapshot hash *kept*.
- 304 changes nothing. A 200 whose hash equals the kept one is read as not modified.
- On any other 200, the configurations whose id, hash or alias moved are refetched, and only
  those. The new snapshot hash is kept only once that refetch succeeded; until then the poller
  keeps sending the old one, so the next poll sees the change again.
- The ``polling`` hint is read from every 200 body: present, it sets the hint; absent, it clears
  it (back to the own cadence). A 304 has no body: it confirms the snapshot that carried the
  hint, so the hint stays (RFC 9110: the stored response is still current). Failures keep it too.
- The wait after a success is ``max(cadence, intervalSeconds)`` spread by the hint's
  ``jitterRatio`` (or the own ``cadence_jitter``) under the configured jitter reading, never
  below the floor.
- 429, 408, 5xx, transport errors and unusable bodies are failures: the wait doubles from
  ``backoff_base`` up to ``backoff_cap``, spread by ``backoff_jitter``, never sooner than
  ``Retry-After`` nor than a held hint. Any other 4xx raises ``PermanentError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from refclient import timing
from refclient.config import BOOTSTRAP_PATH, STATUS_PATH, Config
from refclient.errors import PermanentError, ProtocolError
from refclient.model import Changes, Configuration, Snapshot
from refclient.payload import (
    Document,
    Hint,
    StatusBody,
    Summary,
    configuration_body,
    json_object,
    status_body,
    unquote_etag,
)
from refclient.redaction import redact
from refclient.version import SDK_VERSION

RETRYABLE_4XX = (408, 429)


@dataclass(frozen=True)
class Request:
    """A GET to send: path (joined to the base URL), headers, query, and a label for logs."""

    path: str
    headers: Mapping[str, str]
    params: Mapping[str, str]
    label: str


@dataclass(frozen=True)
class Reply:
    """A response as the core reads it; header names lower-case."""

    status: int
    headers: Mapping[str, str]
    body: bytes = b""


@dataclass(frozen=True)
class Refetch:
    """Documents to fetch before the poll can finish."""

    requests: tuple[Request, ...]


@dataclass(frozen=True)
class Outcome:
    """How one poll ended and how long to wait before the next.

    ``result`` is one of ``not-modified`` (304), ``unchanged`` (a 200 with nothing to refetch),
    ``changed`` (configurations refetched or removed) or ``failed`` (wait is a backoff).
    """

    result: str
    delay: float
    status: int | None
    changes: Changes | None = None
    refetched: tuple[str, ...] = ()
    hint: Hint | None = None
    failures: int = 0
    detail: str = ""

    def describe(self) -> str:
        """One log line; never carries the key."""
        parts = [
            f"status={self.status if self.status is not None else 'none'}",
            f"result={self.result}",
        ]
        if self.changes is not None and self.changes:
            parts.append(f"updated={[c.id for c in self.changes.updated]}")
            parts.append(f"removed={[c.id for c in self.changes.removed]}")
        if self.refetched:
            parts.append("refetch=" + ",".join(self.refetched))
        hint = (
            f"{self.hint.interval:g}s/{self.hint.jitter_ratio:g}"
            if self.hint is not None
            else "none"
        )
        parts.extend([f"hint={hint}", f"failures={self.failures}", f"delay={self.delay:.3f}s"])
        if self.detail:
            parts.append(f"detail={self.detail}")
        return "poll " + " ".join(parts)


@dataclass(frozen=True)
class _Pending:
    """A 200 whose changed configurations are being refetched."""

    body: StatusBody
    changed: tuple[Summary, ...]
    removed: tuple[Configuration, ...]
    requests: tuple[Request, ...]


class PollCore:
    """The state of one poller: the kept snapshot, the hint, the failure count."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._snapshot = Snapshot()
        self._hint: Hint | None = None
        self._failures = 0
        self._pending: _Pending | None = None

    @property
    def snapshot(self) -> Snapshot:
        """The snapshot kept (replaced as a whole, so safe to read from another thread)."""
        return self._snapshot

    @property
    def hint(self) -> Hint | None:
        """The polling hint in force, if any."""
        return self._hint

    @property
    def failures(self) -> int:
        """Consecutive failed polls."""
        return self._failures

    # --- requests ------------------------------------------------------------------------

    def _identity_headers(self) -> dict[str, str]:
        config, names = self.config, self.config.headers
        headers = {
            names.authorization: config.sdk_key,
            names.environment: config.environment,
            names.sdk_version: SDK_VERSION,
        }
        if config.instance_id is not None:
            headers[names.instance_id] = config.instance_id
        if config.project_id is not None:
            headers[names.project_id] = str(config.project_id)
        return headers

    def poll_request(self) -> Request:
        """The next status request: the kept hash, if any, as ETag or ``?hash=``."""
        self._pending = None
        headers = self._identity_headers()
        params: dict[str, str] = {}
        kept = self._snapshot.hash
        if kept is not None:
            if self.config.hash_transport == "query":
                params["hash"] = kept
            else:
                headers[self.config.headers.if_none_match] = f'"{kept}"'
        return Request(STATUS_PATH, MappingProxyType(headers), MappingProxyType(params), "status")

    def _refetch_requests(self, changed: Sequence[Summary]) -> tuple[Request, ...]:
        headers = MappingProxyType(self._identity_headers())
        empty: Mapping[str, str] = MappingProxyType({})
        if self.config.refetch == "bootstrap":
            return (Request(BOOTSTRAP_PATH, headers, empty, "bootstrap"),)
        return tuple(
            Request(
                self.config.configuration_path.format(id=s.id, alias=s.alias or ""),
                headers,
                empty,
                f"configuration-{s.id}",
            )
            for s in changed
        )

    # --- replies -------------------------------------------------------------------------

    def on_poll_reply(self, reply: Reply) -> Outcome | Refetch:
        """What a status reply means: a finished poll, or documents to refetch first."""
        self._pending = None
        if reply.status == 304:
            return self._succeeded("not-modified", 304)
        if reply.status != 200:
            return self._failed_reply(reply, "status")
        try:
            body = status_body(reply.body, unquote_etag(reply.headers.get("etag")))
        except ProtocolError as error:
            return self._failed(200, str(error))
        self._hint = body.hint
        if body.hash == self._snapshot.hash:
            return self._succeeded("unchanged", 200)
        held = self._snapshot.configurations
        changed = tuple(s for s in body.configurations if _moved(held.get(s.id), s))
        present = {s.id for s in body.configurations}
        removed = tuple(c for i, c in held.items() if i not in present)
        if not changed:
            return self._adopt(body, {}, removed, ())
        requests = self._refetch_requests(changed)
        self._pending = _Pending(body, changed, removed, requests)
        return Refetch(requests)

    def on_refetch_replies(self, replies: Sequence[Reply]) -> Outcome:
        """Finish a poll whose refetch answered ``replies`` (the last may be the failing one)."""
        pending = self._pending
        if pending is None:
            raise RuntimeError("on_refetch_replies without a pending refetch")
        self._pending = None
        labels = tuple(
            f"{request.label}:{reply.status}"
            for request, reply in zip(pending.requests, replies, strict=False)
        )
        for request, reply in zip(pending.requests, replies, strict=False):
            if reply.status != 200:
                return self._failed_reply(reply, request.label, labels)
        if len(replies) != len(pending.requests):
            raise RuntimeError("every refetch request must be answered or one must fail")
        try:
            documents = self._documents(pending, replies)
        except ProtocolError as error:
            return self._failed(200, str(error), labels)
        return self._adopt(pending.body, documents, pending.removed, labels)

    def on_transport_error(self, error: BaseException) -> Outcome:
        """A request never got an answer (refused, reset, timed out): back off."""
        self._pending = None
        text = str(error) or type(error).__name__
        return self._failed(None, f"{type(error).__name__}: {text}")

    def _documents(
        self, pending: _Pending, replies: Sequence[Reply]
    ) -> dict[int, tuple[Summary, Document]]:
        if self.config.refetch == "bootstrap":
            reply = replies[0]
            body = status_body(reply.body, unquote_etag(reply.headers.get("etag")), "bootstrap")
            fresh = {s.id: s for s in body.configurations}
            documents = {}
            for summary in pending.changed:
                document = body.documents.get(summary.id)
                if document is None:
                    raise ProtocolError(f"bootstrap: no document for configuration {summary.id}")
                documents[summary.id] = (fresh.get(summary.id, summary), document)
            return documents
        return {
            summary.id: (summary, configuration_body(reply.body, f"configuration {summary.id}"))
            for summary, reply in zip(pending.changed, replies, strict=True)
        }

    # --- outcomes ------------------------------------------------------------------------

    def _adopt(
        self,
        body: StatusBody,
        documents: Mapping[int, tuple[Summary, Document]],
        removed: tuple[Configuration, ...],
        refetched: tuple[str, ...],
    ) -> Outcome:
        held = self._snapshot.configurations
        kept: dict[int, Configuration] = {}
        updated = []
        for summary in body.configurations:
            if summary.id in documents:
                fresh, document = documents[summary.id]
                configuration = Configuration(
                    summary.id,
                    fresh.name,
                    fresh.alias,
                    fresh.hash,
                    document.document,
                    document.privacy,
                )
                updated.append(configuration)
            else:
                old = held[summary.id]
                configuration = Configuration(
                    old.id, summary.name, old.alias, old.hash, old.document, old.privacy
                )
            kept[summary.id] = configuration
        self._snapshot = Snapshot(
            hash=body.hash,
            configurations=MappingProxyType(kept),
            primary_configuration_id=body.primary_configuration_id,
            experiments=MappingProxyType(body.experiments),
            required_properties=body.required_properties,
        )
        changes = Changes(body.hash, tuple(updated), removed)
        result = "changed" if changes else "unchanged"
        return self._succeeded(result, 200, changes, refetched)

    def _succeeded(
        self,
        result: str,
        status: int,
        changes: Changes | None = None,
        refetched: tuple[str, ...] = (),
    ) -> Outcome:
        self._failures = 0
        return Outcome(
            result,
            self.success_delay(),
            status,
            changes,
            refetched,
            self._hint,
            0,
        )

    def _failed_reply(self, reply: Reply, label: str, refetched: tuple[str, ...] = ()) -> Outcome:
        if 400 <= reply.status < 500 and reply.status not in RETRYABLE_4XX:
            raise PermanentError(self._refusal(reply, label), reply.status, _error_code(reply))
        wait = None
        if reply.status == 429:
            wait = timing.retry_after(reply.headers.get("retry-after"), self.config.clock())
        return self._failed(reply.status, f"{label} answered {reply.status}", refetched, wait)

    def _failed(
        self,
        status: int | None,
        detail: str,
        refetched: tuple[str, ...] = (),
        retry_after: float | None = None,
    ) -> Outcome:
        self._failures += 1
        return Outcome(
            "failed",
            self.failure_delay(retry_after),
            status,
            None,
            refetched,
            self._hint,
            self._failures,
            redact(detail, self.config.sdk_key),
        )

    def _refusal(self, reply: Reply, label: str) -> str:
        message = f"{label} answered {reply.status}"
        try:
            body = json_object(reply.body, label)
        except ProtocolError:
            body = {}
        code, text = body.get("errorCode"), body.get("message")
        if isinstance(code, str):
            message += f" {code}"
        if isinstance(text, str):
            message += f": {text[:200]}"
        if reply.status in (401, 403):
            message += " (the SDK key is invalid or not allowed this environment)"
        message += "; polling stopped"
        return redact(message, self.config.sdk_key)

    # --- waits ---------------------------------------------------------------------------

    def success_delay(self) -> float:
        """The wait after a successful poll: own cadence, or the hint while one is held."""
        config = self.config
        interval, ratio = config.scaled(config.cadence), config.cadence_jitter
        if self._hint is not None:
            interval, ratio = max(interval, self._hint.interval), self._hint.jitter_ratio
        wait = timing.spread(interval, ratio, config.random(), config.jitter_reading)
        return max(config.scaled(config.floor), wait)

    def failure_delay(self, retry_after: float | None = None) -> float:
        """The wait after the current run of failures: backoff, never sooner than
        ``Retry-After`` or a held hint."""
        config = self.config
        wait = timing.backoff(
            max(1, self._failures),
            config.scaled(config.backoff_base),
            config.scaled(config.backoff_cap),
            config.backoff_jitter,
            config.random(),
        )
        if retry_after is not None:
            wait = max(wait, retry_after)
        if self._hint is not None:
            wait = max(wait, self.success_delay())
        return max(config.scaled(config.floor), wait)


def _moved(held: Configuration | None, summary: Summary) -> bool:
    """Whether a configuration must be refetched: new, or its hash or alias moved."""
    return held is None or held.hash != summary.hash or held.alias != summary.alias


def _error_code(reply: Reply) -> str | None:
    try:
        code = json_object(reply.body, "error").get("errorCode")
    except ProtocolError:
        return None
    return code if isinstance(code, str) else None
