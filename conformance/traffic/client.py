"""The suite's one HTTP client: timeouts, redaction, pacing, a transcript and curl reproductions.

Scenarios reach a target only through a ``Client`` (given by the plugin's ``client`` fixture).
Every exchange is recorded redacted; anything shown names secrets by placeholders such as
``$RCES_PAT``.
"""

from __future__ import annotations

import itertools
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Unpack
from urllib.parse import urlencode

import httpx

from conformance.errors import (
    ContractViolation,
    NoAnswer,
    NotMeasurable,
    ServerError,
    UnboundedAnswer,
)
from conformance.profile import Profile
from conformance.profile.limits import RateLimit
from conformance.redaction.placeholders import Redactor
from conformance.report.body_cut import cut as cut_body
from conformance.traffic import raw_socket
from conformance.traffic.call_kind import CallKind, call_kind
from conformance.traffic.curl import curl_command
from conformance.traffic.ledger import (
    LEDGER,
    Ledger,
    Refusal,
    Replay,
    judge_429,
    management_bucket_key,
    sdk_bucket_key,
)
from conformance.traffic.pacing import Allowance, Pacer
from conformance.traffic.raw_socket import RawAnswer
from conformance.traffic.reception import may_resend, receive, transport_problem
from conformance.traffic.sdk_options import UNSET, SdkOptions
from conformance.traffic.token_bucket import Limit
from conformance.traffic.transcript import Reply, Transcript
from conformance.verdict.evidence import Exchange

TIMEOUT = httpx.Timeout(10.0, connect=5.0)
USER_AGENT = "rces-conformance"


@dataclass(frozen=True)
class _Spend:
    """The declared bucket one request spends: its key, this process's allowance of it (None:
    the profile declares no limit there), and whether the run's other workers spend it too."""

    key: tuple[str, ...]
    allowance: Allowance | None
    shared: bool

    def record(self, ledger: Ledger) -> Replay | None:
        return None if self.allowance is None else ledger.record(self.key, self.allowance.left)


def new_http_client(timeout: httpx.Timeout = TIMEOUT) -> httpx.Client:
    """A keep-alive HTTP client; one per session can serve every test's ``Client``."""
    return httpx.Client(timeout=timeout, headers={"user-agent": USER_AGENT})


class Client:
    """Talks to one target for one test. Paces SDK traffic, records and redacts everything."""

    _instance_counter = itertools.count(1)
    _name_counter = itertools.count(1)

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
        http: httpx.Client | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.profile = profile
        self.run_prefix = run_prefix
        self.pacer = pacer or Pacer()
        self.redactor = redactor or Redactor(profile.secret_names())
        self.transcript = transcript if transcript is not None else Transcript()
        self.timeout = timeout
        self.ledger = ledger or LEDGER
        self._owns_http = http is None
        self._http = http or new_http_client(timeout)
        self.instance_id = self.new_instance_id()

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sibling(self) -> Client:
        """A client of the same target, pacer, ledger and connection pool, with a transcript of
        its own: traffic sent for another test at the same time, kept apart until it joins it."""
        return Client(
            self.base_url,
            self.profile,
            run_prefix=self.run_prefix,
            pacer=self.pacer,
            redactor=self.redactor,
            timeout=self.timeout,
            http=self._http,
            ledger=self.ledger,
        )

    # ------------------------------------------------------------ naming

    def new_instance_id(self) -> str:
        """A fresh server instance id for this run (so each test has its own rate bucket). It
        starts with random characters: two ids of the run differ from their first character on,
        so a target that scopes its buckets by less than the whole id (a prefix) still gives
        each test its own, and only the test that judges the scope meets ids sharing most."""
        return f"{secrets.token_hex(4)}-{self.run_prefix}-{next(self._instance_counter)}"

    def name(self, label: str) -> str:
        """A resource name carrying the run prefix, so a shared target stays sorted out, and a
        number no other name of this process carries: the spec says only "name: string,
        required", so a target may hold names unique, and nothing the kit creates collides."""
        return f"{self.run_prefix}-{label}-{next(self._name_counter)}"

    # ------------------------------------------------------------ requests

    def request(
        self,
        method: str,
        path: str,
        *,
        headers: Mapping[str, str] | None = None,
        json_body: object = UNSET,
        content: bytes | None = None,
        params: Mapping[str, str] | None = None,
        allow_rate_limit: bool = False,
        allow_server_error: bool = False,
        pace_bucket: tuple[str, str | None] | None = None,
        rate_bucket: tuple[str, str | None] | None = None,
    ) -> Reply:
        """Send one request and judge that the target answered it.

        No answer (after one retry of the same request when resending is safe: an idempotent
        method, or a connection that never opened), an answer over the size cap or the
        deadline, a 5xx (unless ``allow_server_error``) or a 429 the suite did not provoke
        (unless ``allow_rate_limit``) is a ``ContractViolation`` of the test's requirements,
        with the exchange as evidence. A 429 is excused only when the suite's own traffic to
        that bucket could have emptied the bucket the profile declares: then it is
        ``NotMeasurable``, with the figure. ``pace_bucket``: the SDK bucket to wait on before
        sending; ``rate_bucket``: the SDK bucket the request spends (default ``pace_bucket``).
        """
        spend = self._spend(path, rate_bucket or pace_bucket)
        paced = pace_bucket is not None or (spend is not None and spend.key[0] == "management")
        if paced and spend is not None and spend.allowance is not None:
            self.pacer.wait(spend.key, spend.allowance.paced)
        body = content
        sent_headers = dict(headers or {})
        if json_body is not UNSET:
            body = json.dumps(json_body).encode()
            sent_headers.setdefault("content-type", "application/json")
        request = self._http.build_request(
            method,
            self.base_url + path,
            headers=sent_headers,
            content=body,
            params=params,
            timeout=self.timeout,
        )
        replay = None if spend is None else spend.record(self.ledger)
        reply = self._send(request, retries=1)
        refusal = judge_429(reply.status, replay, self.profile.errors.rate_limited_status)
        if refusal is not None and not allow_rate_limit:
            self._judge_rate_limit(reply, f"{method} {path}", refusal, replay, spend)
        if reply.status >= 500 and not allow_server_error and refusal is None:
            # a 5xx that is the declared rate-limit refusal (errors.rate_limited_status: 503,
            # say) was judged as a refusal above, not as a server error
            raise ServerError(
                (),
                f"the target answered {method} {path} with a server error",
                "an answer to a valid exchange, not a 5xx (the suite judges what the target does, "
                "and a 5xx says it failed)",
                f"{reply.describe()} after {reply.exchange.elapsed_ms:.0f} ms",
                reply.curl,
            )
        return reply

    # ------------------------------------------------------------ receiving

    def _send(self, request: httpx.Request, retries: int) -> Reply:
        """One exchange, read to the end under the size cap and the total deadline."""
        limits = self.profile.responses
        failures: list[str] = []
        unanswered: Exchange | None = None
        for attempt in range(retries + 1):
            started = time.perf_counter()
            deadline = started + limits.max_seconds
            try:
                response, content, cut = receive(self._http, request, deadline, limits.max_bytes)
            except httpx.TransportError as error:
                exchange = unanswered = self._exchange(request, None, b"", started)
                self.transcript.add(exchange)
                failures.append(
                    f"attempt {attempt + 1}: {transport_problem(error)} "
                    f"after {exchange.elapsed_ms / 1000:.2f}s"
                )
                if not may_resend(request.method, error):
                    failures.append(f"not resent: {request.method} is not idempotent")
                    break
                continue
            exchange = self._exchange(request, response, content, started)
            self.transcript.add(exchange)
            curl = self.curl(exchange)
            if cut is not None:
                status = "no status line" if response is None else f"HTTP {response.status_code}"
                first = cut_body(exchange.response_body or "", 200)
                raise UnboundedAnswer(
                    (),
                    f"the target's answer to {request.method} {request.url.path} is unbounded",
                    f"a whole answer of at most {limits.max_bytes} bytes within "
                    f"{limits.max_seconds:g}s (profile responses.max_bytes / max_seconds)",
                    f"{status}, then {cut} (elapsed {exchange.elapsed_ms / 1000:.2f}s)"
                    + (f"; first bytes: {first!r}" if first else ""),
                    curl,
                )
            assert response is not None  # a response without a cut came whole
            return Reply(response.status_code, response.headers, content, exchange, curl)
        assert unanswered is not None  # every attempt ended in a transport error
        raise NoAnswer(
            (),
            f"the target did not answer {request.method} {request.url.path}",
            f"an HTTP answer within {self._seconds_to_answer():g}s (one retry where resending "
            "is safe)",
            "; ".join(failures),
            self.curl(unanswered),
        )

    def _seconds_to_answer(self) -> float:
        read = self.timeout.read if self.timeout.read is not None else 0.0
        return min(self.profile.responses.max_seconds, read)

    # ------------------------------------------------------------ rate limits

    def _spend(self, path: str, sdk_bucket: tuple[str, str | None] | None) -> _Spend | None:
        """The declared bucket a request spends, with this process's allowance of it."""
        declared: RateLimit | None
        if call_kind(path) is CallKind.MANAGEMENT:
            declared = self.profile.management_rate_limit
            key = management_bucket_key(self.base_url)
            shared = True
        elif sdk_bucket is not None:
            declared = self.profile.rate_limit
            key = sdk_bucket_key(self.base_url, sdk_bucket)
            shared = sdk_bucket[1] is None
        else:
            return None
        if declared is None:
            return _Spend(key, None, shared)
        limit = Limit(declared.burst, declared.refill_per_second)
        return _Spend(key, self.pacer.allowance(limit, shared=shared), shared)

    def forget_bucket(self, sdk_bucket: tuple[str, str | None]) -> None:
        """After a test drained an SDK bucket on purpose and waited it out: pace it afresh."""
        key = sdk_bucket_key(self.base_url, sdk_bucket)
        self.pacer.reset(key)
        self.ledger.forget(key)

    def _judge_rate_limit(
        self,
        reply: Reply,
        where: str,
        refusal: Refusal,
        replay: Replay | None,
        spend: _Spend | None,
    ) -> None:
        """A 429 the test did not provoke: the suite's excess (not measurable) or a fail."""
        if refusal is Refusal.OWN and replay is not None:
            raise NotMeasurable(
                f"the suite's own traffic spent the target's declared rate limit on {where}: "
                f"{replay.describe()}"
                + (
                    " (a bucket shared with the run's other workers)"
                    if spend and spend.shared
                    else ""
                )
            )
        management = call_kind(where.split(" ", 1)[1]) is CallKind.MANAGEMENT
        figure = (
            replay.describe()
            if replay is not None
            else "the profile declares no rate limit for this endpoint"
            + (" (management_rate_limit)" if management else "")
        )
        raise ContractViolation(
            (),
            f"the target refused {where} with {reply.status} (profile "
            "errors.rate_limited_status) though the suite kept under the declared limit",
            "an answer: the suite's own traffic stayed within the rate limit the profile declares",
            f"{reply.describe()}; {figure}",
            reply.curl,
        )

    def management(
        self,
        method: str,
        path: str,
        *,
        environment: str | int | None = "development",
        token: str | None = UNSET,
        json_body: object = UNSET,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
        application_id: int | None = None,
        allow_rate_limit: bool = False,
        allow_server_error: bool = False,
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
            method,
            f"/application/{app}/v2{path}",
            headers=sent,
            json_body=json_body,
            params=params,
            allow_rate_limit=allow_rate_limit,
            allow_server_error=allow_server_error,
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
        allow_server_error: bool = False,
        pace: bool = True,
    ) -> Reply:
        """A GET under ``/sdk/v2``. ``instance_id``: UNSET uses this client's own, None omits it."""
        instance = self.instance_id if instance_id is UNSET else instance_id
        sent = self._sdk_headers(key, environment, instance, headers)
        bucket = self.profile.rate_limit.bucket(key, instance)
        return self.request(
            "GET",
            f"/sdk/v2{path}",
            headers=sent,
            params=params,
            allow_rate_limit=allow_rate_limit,
            allow_server_error=allow_server_error,
            pace_bucket=bucket if pace else None,
            rate_bucket=bucket,
        )

    def _sdk_headers(
        self,
        key: str | None,
        environment: str | None,
        instance: str | None,
        headers: Mapping[str, str] | None,
    ) -> dict[str, str]:
        names = self.profile.headers
        sent: dict[str, str] = {}
        if key is not None:
            sent["authorization"] = key
        if environment is not None:
            sent[names.environment] = environment
        if instance is not None:
            sent[names.instance_id] = instance
        sent.update(headers or {})
        return sent

    def raw_sdk(
        self,
        path: str,
        *,
        key: str,
        environment: str,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> tuple[RawAnswer, str]:
        """``sdk`` over a plain socket (``raw_socket``), for the bytes HTTP framing hides; paced
        and counted like any SDK request, recorded in the transcript. Returns the answer and
        its curl line."""
        sent = self._sdk_headers(key, environment, self.instance_id, headers)
        spend = self._spend("/sdk/v2" + path, self.profile.rate_limit.bucket(key, self.instance_id))
        if spend is not None and spend.allowance is not None:
            self.pacer.wait(spend.key, spend.allowance.paced)
            spend.record(self.ledger)
        limits = self.profile.responses
        started = time.perf_counter()
        answer = raw_socket.exchange(
            self.base_url,
            "/sdk/v2" + path,
            sent,
            params=params,
            max_bytes=limits.max_bytes,
            max_seconds=limits.max_seconds,
        )
        redact = self.redactor
        query = f"?{urlencode(params)}" if params else ""
        exchange = Exchange(
            method="GET",
            url=redact.text(f"{self.base_url}/sdk/v2{path}{query}"),
            request_headers=redact.headers(sent.items()),
            request_body=None,
            status=answer.status,
            response_headers=redact.headers(answer.headers.items()),
            response_body=(
                cut_body(redact.text(answer.after_head.decode("utf-8", errors="replace")))
                if answer.after_head
                else None
            ),
            elapsed_ms=(time.perf_counter() - started) * 1000,
        )
        self.transcript.add(exchange)
        return answer, self.curl(exchange)

    def status(self, **options: Unpack[SdkOptions]) -> Reply:
        """``sdk`` of ``/status``."""
        return self.sdk("/status", **options)

    def bootstrap(self, **options: Unpack[SdkOptions]) -> Reply:
        """``sdk`` of ``/bootstrap``."""
        return self.sdk("/bootstrap", **options)

    # ------------------------------------------------------------ recording

    def _exchange(
        self,
        request: httpx.Request,
        response: httpx.Response | None,
        content: bytes,
        started: float,
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
            request_body=cut_body(redact.text(request_body)) if request_body else None,
            status=None if response is None else response.status_code,
            response_headers={} if response is None else redact.headers(response.headers.items()),
            response_body=(
                None
                if response is None or not content
                else cut_body(redact.text(content.decode("utf-8", errors="replace")))
            ),
            elapsed_ms=(time.perf_counter() - started) * 1000,
        )

    def curl(self, exchange: Exchange) -> str:
        """A curl line that reproduces the exchange, credentials as shell placeholders."""
        return curl_command(
            exchange.method, exchange.url, exchange.request_headers.items(), exchange.request_body
        )


_TRANSPORT_HEADERS = frozenset({"host", "accept-encoding", "connection", "accept"})
