"""Evidence as plain text: one failure's rule, expected/received, reproduction and exchanges."""

from __future__ import annotations

from conformance.report.body_cut import BODY_BYTES, cut
from conformance.verdict.evidence import Evidence, Exchange

BODY_LIMIT = BODY_BYTES  # bytes of a body shown in text outputs (``body_cut``)


def truncate(text: str, limit: int = BODY_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


def _headers(headers: dict[str, str]) -> list[str]:
    """Sorted by name, so a report re-read from JSON (sorted keys) renders identically."""
    return [f"{name}: {headers[name]}" for name in sorted(headers, key=lambda n: (n.lower(), n))]


def request_text(exchange: Exchange, limit: int = BODY_LIMIT) -> str:
    lines = [f"{exchange.method} {exchange.url}"]
    lines += _headers(exchange.request_headers)
    if exchange.request_body:
        lines += ["", cut(exchange.request_body, limit)]
    return "\n".join(lines)


def response_text(exchange: Exchange, limit: int = BODY_LIMIT) -> str:
    if exchange.status is None:
        return f"(no response after {exchange.elapsed_ms:.0f} ms)"
    lines = [f"HTTP {exchange.status} ({exchange.elapsed_ms:.0f} ms)"]
    lines += _headers(exchange.response_headers)
    if exchange.response_body:
        lines += ["", cut(exchange.response_body, limit)]
    return "\n".join(lines)


def exchange_text(exchange: Exchange, limit: int = BODY_LIMIT) -> str:
    return f"> {request_text(exchange, limit)}\n\n< {response_text(exchange, limit)}"


def evidence_text(evidence: Evidence, limit: int = BODY_LIMIT) -> str:
    """Reads in order: rule, expected, received, reproduction, then the exchanges."""
    lines = [
        f"Rule broken: {', '.join(evidence.requirement_ids) or '(none)'}: {evidence.title}",
        f"Test: {evidence.test_id}",
        f"Expected: {truncate(evidence.expected, limit)}",
        f"Received: {truncate(evidence.received, limit)}",
    ]
    if evidence.check:
        lines.append(f"Check: {evidence.check}")
    if evidence.seed is not None:
        lines.append(f"Seed: {evidence.seed}")
    if evidence.curl:
        lines.append(f"Reproduce: {evidence.curl}")
    for number, exchange in enumerate(evidence.exchanges, start=1):
        lines += ["", f"--- exchange {number} ---", exchange_text(exchange, limit)]
    return "\n".join(lines)
