"""A test record's JSON codec: its evidence and differences (the JSON report's form of them too)."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence, Exchange

# The JSON form of each, as report.schema.json describes it (keys a reader of an older schema
# version may miss are NotRequired).


class ExchangeJson(TypedDict):
    method: str
    url: str
    request_headers: dict[str, str]
    request_body: str | None
    status: int | None
    response_headers: dict[str, str]
    response_body: str | None
    elapsed_ms: float


class EvidenceJson(TypedDict):
    test_id: str
    requirement_ids: list[str]
    title: str
    expected: str
    received: str
    curl: NotRequired[str | None]
    exchanges: NotRequired[list[ExchangeJson]]
    check: NotRequired[str | None]
    seed: NotRequired[int | None]


class DifferenceJson(TypedDict):
    requirement_ids: list[str]
    key: str
    convention: str
    received: str
    title: str
    test_id: NotRequired[str]
    curl: NotRequired[str | None]


def _exchange_to_json(exchange: Exchange) -> ExchangeJson:
    return {
        "method": exchange.method,
        "url": exchange.url,
        "request_headers": exchange.request_headers,
        "request_body": exchange.request_body,
        "status": exchange.status,
        "response_headers": exchange.response_headers,
        "response_body": exchange.response_body,
        "elapsed_ms": exchange.elapsed_ms,
    }


def _exchange_from_json(data: ExchangeJson) -> Exchange:
    return Exchange(
        method=data["method"],
        url=data["url"],
        request_headers=dict(data["request_headers"]),
        request_body=data["request_body"],
        status=data["status"],
        response_headers=dict(data["response_headers"]),
        response_body=data["response_body"],
        elapsed_ms=float(data["elapsed_ms"]),
    )


def evidence_to_json(evidence: Evidence) -> EvidenceJson:
    """One piece of evidence as plain JSON (the report's form, also a test record's)."""
    return {
        "test_id": evidence.test_id,
        "requirement_ids": list(evidence.requirement_ids),
        "title": evidence.title,
        "expected": evidence.expected,
        "received": evidence.received,
        "curl": evidence.curl,
        "exchanges": [_exchange_to_json(e) for e in evidence.exchanges],
        "check": evidence.check,
        "seed": evidence.seed,
    }


def evidence_from_json(data: EvidenceJson) -> Evidence:
    """The ``Evidence`` an ``evidence_to_json`` dict came from."""
    return Evidence(
        test_id=data["test_id"],
        requirement_ids=tuple(data["requirement_ids"]),
        title=data["title"],
        expected=data["expected"],
        received=data["received"],
        curl=data.get("curl"),
        exchanges=tuple(_exchange_from_json(e) for e in data.get("exchanges", ())),
        check=data.get("check"),
        seed=data.get("seed"),
    )


def difference_to_json(difference: Difference) -> DifferenceJson:
    """One drop-in difference as plain JSON (the report's form, also a test record's)."""
    return {
        "requirement_ids": list(difference.requirement_ids),
        "key": difference.key,
        "convention": difference.convention,
        "received": difference.received,
        "title": difference.title,
        "test_id": difference.test_id,
        "curl": difference.curl,
    }


def difference_from_json(data: DifferenceJson) -> Difference:
    """The ``Difference`` a ``difference_to_json`` dict came from."""
    return Difference(
        requirement_ids=tuple(data["requirement_ids"]),
        key=data["key"],
        convention=data["convention"],
        received=data["received"],
        title=data["title"],
        test_id=data.get("test_id", ""),
        curl=data.get("curl"),
    )
