"""The suite's one HTTP client: timeouts, redaction, pacing, a transcript and curl reproductions.

Scenarios reach a target only through a ``Client`` (given by the plugin's ``client`` fixture).
Every exchange is recorded redacted; anything shown names secrets by placeholders such as
``$RCES_PAT``.
"""

from __future__ import annotations

import http.client
import itertools
import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from conformance.errors import ContractViolation, NotMeasurable
from conformance.pacing import Pacer, TrafficGate
from conformance.profile import Profile
from conformance.redaction import Redactor
from conformance.report.model import Exchange
from conformance.reproduction import curl_command

TIMEOUT = httpx.Timeout(10.0, connect=5.0)
BODY_LIMIT = 4000  # characters of a body kept in a transcript
USER_AGENT = "rces-conformance"


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()  # "use the default": distinct from None, which means "omit"


@dataclass(frozen=True)
class Reply:
    """One response as the checks see it, with its redacted exchange and reproduction."""

    status: int
    headers: httpx.Headers
    content: bytes
    exchange: Exchange
    curl: str

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self, requirement_ids: Sequence[str] = (), what: str = "a JSON body") -> Any:
        """The parsed body; a body that is not JSON is a violation of ``requirement_ids``."""
        try:
            return json.loads(self.content)
        except ValueError:
            raise ContractViolation(
                requirement_ids,
                "response body is not JSON",
                what,
                f"HTTP {self.status} with body {_clip(self.exchange.response_body or '', 200)!r}",
                self.curl,
            ) from None

    def describe(self) -> str:
        """A one-line summary for 'received': status and a clipped body."""
        body = _clip(self.exchange.response_body or "", 300)
        return f"HTTP {self.status}" + (f" with body {body}" if body else " with an empty body")


def _clip(text: str, limit: int = BODY_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


@dataclass
class Transcript:
    """Every exchange of one test, redacted, in order."""

    exchanges: list[Exchange] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)

    def render(self, last: int = 6) -> str:
        shown = self.exchanges[-last:]
        skipped = len(self.exchanges) - len(shown)
        lines = [f"({skipped} earlier exchanges not shown)"] if skipped else []
        for ex in shown:
            lines.append(f"> {ex.method} {ex.url}")
            lines += [f"> {k}: {v}" for k, v in ex.request_headers.items()]
            if ex.request_body:
                lines.append(f"> {_clip(ex.request_body, 500)}")
            lines.append(f"< {'no response' if ex.status is None else ex.status}")
            lines += [f"< {k}: {v}" for k, v in ex.response_headers.items()]
            if ex.response_body:
                lines.append(f"< {_clip(ex.response_body, 500)}")
            lines.append("")
        return "\n".join(lines)


def new_http_client(timeout: httpx.Timeout = TIMEOUT) -> httpx.Client:
    """A keep-alive HTTP client; one per session can serve every test's ``Client``."""
    return httpx.Client(timeout=timeout, headers={"user-agent": USER_AGENT})


class Client:
    """Talks to one target for one test. Paces SDK traffic, records and redacts everything."""

    _instance_counter = itertools.count(1)

    def __init__(
        self,
        base_url: str,
        profile: Profile,
        *,
        run_prefix: str = "cf",
        pacer: Pacer | None = None,
        redactor: Redactor | None = None,
        transcript: Transcript | None = None,
        timeout: httpx.Timeout = TIMEOUT,
        gate: TrafficGate | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.profile = profile
        self.run_prefix = run_prefix
        self.pacer = pacer or Pacer(profile.rate_limit.burst, profile.rate_limit.refill_per_second)
        self.redactor = redactor or Redactor(profile.secret_names())
        self.transcript = transcript if transcript is not None else Transcript()
        self.timeout = timeout
        self.gate = gate or TrafficGate(None)
        self._owns_http = http is None
        self._http = http or new_http_client(timeout)
        self.instance_id = self.new_instance_id()
        self.last_burst_seconds = 0.0

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ naming

    def new_instance_id(self) -> str:
        """A fresh server instance id for this run (so each test has its own rate bucket)."""
        return f"{self.run_prefix}-{next(self._instance_counter)}"

    def name(self, label: str) -> str:
        """A resource name carrying the run prefix, so a shared target stays sorted out."""
        return f"{self.run_prefix}-{label}"

    # ------------------------------------------------------------ requests

    def request(
        self,
        method: str,
        path: str,
        *,
        headers: Mapping[str, str] | None = None,
        json_body: Any = UNSET,
        content: bytes | None = None,
        params: Mapping[str, str] | None = None,
        allow_rate_limit: bool = False,
        pace_bucket: tuple[str, str | None] | None = None,
    ) -> Reply:
        """Send one request; a 429 the test did not mean to provoke is not measurable."""
        if pace_bucket is not None:
            self.pacer.wait(pace_bucket, shared=pace_bucket[1] is None)
        body = content
        sent_headers = dict(headers or {})
        if json_body is not UNSET:
            body = json.dumps(json_body).encode()
            sent_headers.setdefault("content-type", "application/json")
        request = self._http.build_request(
            method, self.base_url + path, headers=sent_headers, content=body, params=params
        )
        started = time.perf_counter()
        try:
            with self.gate.shared():
                response = self._http.send(request)
        except httpx.TransportError as error:
            exchange = self._exchange(request, None, started)
            self.transcript.add(exchange)
            raise NotMeasurable(
                f"the target did not answer {method} {path}: {type(error).__name__}"
            ) from None
        exchange = self._exchange(request, response, started)
        self.transcript.add(exchange)
        reply = Reply(
            status=response.status_code,
            headers=response.headers,
            content=response.content,
            exchange=exchange,
            curl=self.curl(exchange),
        )
        if reply.status == 429 and not allow_rate_limit:
            raise NotMeasurable(
                f"the suite's own traffic hit the target's rate limit on {method} {path}; "
                "lower rate_limit.burst/refill_per_second in the profile if the target is stricter"
            )
        return reply

    def management(
        self,
        method: str,
        path: str,
        *,
        environment: str | int | None = "development",
        token: str | None = UNSET,
        json_body: Any = UNSET,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
        application_id: int | None = None,
    ) -> Reply:
        """A management call under ``/application/{id}/v2``: PAT and environment_id headers."""
        sent: dict[str, str] = {}
        token = self.profile.credentials.pat if token is UNSET else token
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        if environment is not None:
            env_id = (
                environment
                if isinstance(environment, int)
                else self.profile.environment_id(environment)
            )
            sent["environment_id"] = str(env_id)
        sent.update(headers or {})
        app = self.profile.project.application_id if application_id is None else application_id
        return self.request(
            method, f"/application/{app}/v2{path}", headers=sent, json_body=json_body, params=params
        )

    def sdk(
        self,
        path: str,
        *,
        key: str | None,
        environment: str | None = None,
        instance_id: str | None = UNSET,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
        allow_rate_limit: bool = False,
        pace: bool = True,
    ) -> Reply:
        """A GET under ``/sdk/v2``. ``instance_id``: UNSET uses this client's own, None omits it."""
        names = self.profile.headers
        sent: dict[str, str] = {}
        if key is not None:
            sent["authorization"] = key
        if environment is not None:
            sent[names.environment] = environment
        instance = self.instance_id if instance_id is UNSET else instance_id
        if instance is not None:
            sent[names.instance_id] = instance
        sent.update(headers or {})
        bucket = (key or "", instance) if pace else None
        return self.request(
            "GET",
            f"/sdk/v2{path}",
            headers=sent,
            params=params,
            allow_rate_limit=allow_rate_limit,
            pace_bucket=bucket,
        )

    def status(self, **kwargs: Any) -> Reply:
        return self.sdk("/status", **kwargs)

    def bootstrap(self, **kwargs: Any) -> Reply:
        return self.sdk("/bootstrap", **kwargs)

    def concurrent_get(
        self, requests: Sequence[tuple[str, Mapping[str, str]]], streams: int = 4
    ) -> list[tuple[int | None, bytes]]:
        """Send many GETs at once (load provocation): (status, body) each, in request order.

        ``streams`` keep-alive connections send in parallel. Not paced, and not recorded one
        by one: the transcript gets one summary line."""
        results: list[tuple[int | None, bytes]] = [(None, b"")] * len(requests)
        target = urlsplit(self.base_url)
        connection_class = (
            http.client.HTTPSConnection if target.scheme == "https" else http.client.HTTPConnection
        )
        seconds = self.timeout.read or 10.0

        def stream(offset: int) -> None:
            # Plain http.client: this is the one path where the client's own CPU bounds the
            # rate (thousands of requests on two cores); it sends about twice what httpx does.
            connection = connection_class(target.hostname or "", target.port, timeout=seconds)
            try:
                for index in range(offset, len(requests), streams):
                    path, headers = requests[index]
                    try:
                        connection.request(
                            "GET", target.path + path, headers={"user-agent": USER_AGENT, **headers}
                        )
                        response = connection.getresponse()
                        results[index] = (response.status, response.read())
                    except (OSError, http.client.HTTPException):
                        connection.close()  # the next request opens a fresh connection
            finally:
                connection.close()

        started = time.perf_counter()
        with self.gate.shared():
            threads = [threading.Thread(target=stream, args=(n,)) for n in range(streams)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        self.last_burst_seconds = time.perf_counter() - started
        statuses = [status for status, _ in results]
        summary = ", ".join(
            f"{status} x{statuses.count(status)}" for status in sorted(set(statuses), key=str)
        )
        self.transcript.add(
            Exchange(
                method="GET",
                url=f"{self.base_url} ({len(requests)} parallel requests)",
                request_headers={},
                request_body=None,
                status=None,
                response_headers={},
                response_body=f"statuses: {summary} in {self.last_burst_seconds:.2f}s",
                elapsed_ms=self.last_burst_seconds * 1000,
            )
        )
        return results

    # ------------------------------------------------------------ recording

    def _exchange(
        self, request: httpx.Request, response: httpx.Response | None, started: float
    ) -> Exchange:
        redact = self.redactor
        request_body = (
            request.content.decode("utf-8", errors="replace") if request.content else None
        )
        return Exchange(
            method=request.method,
            url=redact.text(str(request.url)),
            request_headers=redact.headers(
                (k, v) for k, v in request.headers.items() if k not in _TRANSPORT_HEADERS
            ),
            request_body=_clip(redact.text(request_body)) if request_body else None,
            status=None if response is None else response.status_code,
            response_headers={} if response is None else redact.headers(response.headers.items()),
            response_body=(
                None
                if response is None or not response.content
                else _clip(redact.text(response.text))
            ),
            elapsed_ms=(time.perf_counter() - started) * 1000,
        )

    def curl(self, exchange: Exchange) -> str:
        """A curl line that reproduces the exchange, credentials as shell placeholders."""
        return curl_command(
            exchange.method, exchange.url, exchange.request_headers.items(), exchange.request_body
        )


_TRANSPORT_HEADERS = frozenset({"host", "accept-encoding", "connection", "accept"})
