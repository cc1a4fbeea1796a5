"""Why a test failed (``Evidence``), with the requests and responses that show it (``Exchange``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Exchange:
    """One request and its response, secrets already redacted, bodies already truncated."""

    method: str
    url: str
    request_headers: dict[str, str]
    request_body: str | None
    status: int | None  # None: no response (transport error)
    response_headers: dict[str, str]
    response_body: str | None
    elapsed_ms: float


@dataclass(frozen=True)
class Evidence:
    """Why a test failed: the rule, expected against received, and how to reproduce it."""

    test_id: str
    requirement_ids: tuple[str, ...]
    title: str
    expected: str
    received: str
    curl: str | None
    exchanges: tuple[Exchange, ...] = ()
    check: str | None = None  # fuzz stage: the schemathesis check that failed
    seed: int | None = None  # fuzz stage: the seed that reproduces it
