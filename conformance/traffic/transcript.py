"""What a test exchanged with the target: each ``Reply`` as the checks see it, and the
``Transcript`` of every exchange in order.

A ``Client`` (``conformance.traffic.client``) makes both: it returns a ``Reply`` per request and
adds every redacted ``Exchange`` to the test's ``Transcript``. Checks read a ``Reply``
(``status``, ``headers``, ``json()``, ``describe()``); a failing test shows ``render()``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from conformance.errors import ContractViolation
from conformance.report.body_cut import DESCRIBED_BYTES, TERMINAL_BYTES, cut
from conformance.verdict.evidence import Exchange


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
            body = cut(self.exchange.response_body or "", DESCRIBED_BYTES)
            raise ContractViolation(
                requirement_ids,
                "response body is not JSON",
                what,
                f"HTTP {self.status} with body {body!r}",
                self.curl,
            ) from None

    def describe(self) -> str:
        """A one-line summary for 'received': status and a clipped body."""
        body = cut(self.exchange.response_body or "", DESCRIBED_BYTES)
        return f"HTTP {self.status}" + (f" with body {body}" if body else " with an empty body")


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
                lines.append(f"> {cut(ex.request_body, TERMINAL_BYTES)}")
            lines.append(f"< {'no response' if ex.status is None else ex.status}")
            lines += [f"< {k}: {v}" for k, v in ex.response_headers.items()]
            if ex.response_body:
                lines.append(f"< {cut(ex.response_body, TERMINAL_BYTES)}")
            lines.append("")
        return "\n".join(lines)
