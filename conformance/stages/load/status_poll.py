"""One status poll on the wire and what its answer says, for a fleet instance inside a worker.

The poll goes straight to geventhttpclient's ``HTTPClient`` (the worker's one connection pool,
with its retry of a request that met a stale kept-alive connection), not through Locust's
``FastHttpSession``: that layer (a ``UserAgent`` with its cookie jar, request objects, redirect
loop, and Locust's per-request statistics, which no rule reads) cost more CPU than the exchange
itself. What goes out and what is recorded stay as ``FastHttpUser`` made them: the same headers
(``Accept-Encoding`` included), the body read whole and decoded the same way, and a missing
answer named by the same exception. A redirect is left to Locust's session, which follows it
(``Exchange.send`` answers None).

A 200 body is parsed once per distinct body: the fleet's instances mostly get the same snapshot,
and a reading is a pure function of the bytes (``Readings``).
"""

from __future__ import annotations

import errno
import socket
import ssl
import zlib
from typing import Any, NamedTuple

import brotli  # type: ignore[import-untyped]
import gevent
from geventhttpclient._parser import HTTPParseError
from geventhttpclient.client import HTTPClient
from geventhttpclient.url import URL

from conformance.stages.load.records import TRANSPORT_ERROR
from conformance.stages.load.rules import (
    PollerState,
    Reading,
    error_body_problem,
    read_snapshot,
    retry_after_seconds,
)

STATUS = "/sdk/v2/status"
# What Locust's FastHttpUser sends with every request unless told otherwise.
ACCEPT_ENCODING = ("Accept-Encoding", "gzip, deflate, br")
REDIRECTS = frozenset([301, 302, 303, 307, 308])
# Locust's FastHttpUser: the statuses that are no error (an error's body was read before it let go).
VALID_STATUSES = frozenset(
    [200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 301, 302, 303, 304, 307, 308]
)
# What FastHttpUser counted as no answer (anything else escaped it, as it escapes here).
NO_ANSWER: tuple[type[BaseException], ...] = (OSError, gevent.Timeout, HTTPParseError, zlib.error)
# Errors geventhttpclient's UserAgent retries; with Locust's zero retries it reported them as
# RetriesExceeded, the name a record's problem keeps.
RETRIED_ERRNOS = frozenset([errno.ETIMEDOUT, errno.ENOLINK, errno.ENOENT, errno.EPIPE])
READINGS_KEPT = 16  # distinct 200 bodies remembered (a write, a hint on or off: a few at a time)


class Answer(NamedTuple):
    """What one status poll got: the status (``TRANSPORT_ERROR`` when none), the body, the
    headers a rule reads, and the error's name when there was no answer."""

    status: int
    body: bytes = b""
    content_type: str = ""
    retry_after: str | None = None
    error: str = ""


class Outcome(NamedTuple):
    """What an answer means for the record: the config hash it shows, the hint flag, the
    problem, and a rate-limit refusal's Retry-After in seconds."""

    seen: str
    hint: int
    problem: str
    retry: float | None


def no_answer_name(error: BaseException) -> str:
    """The exception name FastHttpUser gave a missing answer (UserAgent wrapped the errors it
    would retry in ``RetriesExceeded``, and it was told to retry none)."""
    if (
        isinstance(error, socket.timeout | gevent.Timeout)
        or (isinstance(error, OSError) and error.errno in RETRIED_ERRNOS)
        or (isinstance(error, ssl.SSLError) and "read operation timed out" in str(error))
    ):
        return "RetriesExceeded"
    return type(error).__name__


def _header(response: Any, name: str) -> str | None:
    value = response.get(name)
    if isinstance(value, list):  # the field repeated
        return ", ".join(value)
    return value if isinstance(value, str) else None


def _decoded(response: Any) -> bytes:
    """The body read, decoded as geventhttpclient's ``CompatResponse.content`` decodes it."""
    encodings = response.info().getlist("content-encoding")
    encoding = encodings[0].lower() if encodings else "identity"
    body: bytes = response.read()
    if encoding == "identity":
        return body
    if encoding == "gzip":
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    if encoding == "br":
        return bytes(brotli.decompress(body))
    if encoding == "deflate":
        try:
            return zlib.decompress(body, -zlib.MAX_WBITS)
        except zlib.error:
            return zlib.decompress(body)
    raise ValueError(f"Unknown content encoding: {encoding}")


class Exchange:
    """The status endpoint of a worker process: one ``HTTPClient`` (its connection pool shared by
    every poller), the request URI, and the headers every poll of the plan carries."""

    def __init__(self, client: HTTPClient, base_url: str, headers: dict[str, str]) -> None:
        self.client = client
        self.uri = URL(base_url + STATUS).quoted_uri
        self.headers = {**headers, ACCEPT_ENCODING[0]: ACCEPT_ENCODING[1]}

    @staticmethod
    def direct(base_url: str) -> bool:
        """Whether the direct path sends what Locust's session would: not with credentials in
        the base URL (the session turns them into an Authorization header of its own)."""
        return not URL(base_url).user

    def send(self, extra: dict[str, str]) -> Answer | None:
        """One GET of the status with ``extra`` headers; None for a redirect (to be sent again
        through Locust's session, which follows it)."""
        headers = {**self.headers, **extra} if extra else self.headers
        try:
            response = self.client.request("GET", self.uri, headers=headers)
        except NO_ANSWER as error:
            return Answer(TRANSPORT_ERROR, error=no_answer_name(error))
        try:
            status = int(response.status_code)
            if status in REDIRECTS and response.get("location"):
                response.release()
                return None
            try:
                body = _decoded(response)
            except NO_ANSWER as error:
                if status not in VALID_STATUSES:  # UserAgent read it raising: no answer
                    return Answer(TRANSPORT_ERROR, error=type(error).__name__)
                body = _decoded(response)  # cut short: what came before, read again as Locust did
            return Answer(
                status, body, _header(response, "content-type") or "",
                _header(response, "retry-after"),
            )  # fmt: skip
        except NO_ANSWER as error:
            return Answer(TRANSPORT_ERROR, error=no_answer_name(error))
        finally:
            response.release()


class Readings:
    """200 bodies already read: the fleet's instances are mostly sent the same snapshot, and
    reading one is a pure function of its bytes (and the watched configuration)."""

    def __init__(self, configuration_id: int | None) -> None:
        self.configuration_id = configuration_id
        self.known: dict[bytes, Reading] = {}

    def of(self, body: bytes) -> Reading:
        reading = self.known.get(body)
        if reading is None:
            if len(self.known) >= READINGS_KEPT:
                self.known.clear()
            reading = self.known[body] = read_snapshot(body, self.configuration_id)
        return reading


def outcome(
    answer: Answer,
    state: PollerState,
    readings: Readings,
    errors: tuple[str | None, str, int],
) -> Outcome:
    """What ``answer`` means, ``state`` updated by a 200 or 304; ``errors``: the profile's code
    and message fields and its rate-limit status."""
    status = answer.status
    if status == TRANSPORT_ERROR:
        return Outcome("", 0, f"no answer: {answer.error}", None)
    if status == 200:
        reading = readings.of(answer.body)
        return Outcome(
            state.succeeded(200, reading) or "", int(reading.hint_present), reading.problem, None
        )
    if status == 304:
        return Outcome(state.succeeded(304, None) or "", 0, "", None)
    code_field, message_field, rate_limited = errors
    problem = error_body_problem(answer.body, answer.content_type, code_field, message_field)
    retry = retry_after_seconds(answer.retry_after) if status == rate_limited else None
    return Outcome("", 0, problem, retry)
