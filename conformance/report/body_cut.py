"""How much of a body evidence shows: its first bytes, the cut said with the full length.

A status snapshot on a persistent target grows with every run (46 KB is common), and a failure
that shows whole bodies buries itself. So a body is cut where it is recorded (the suite's client,
the open loop, the client stage) and again wherever it is shown (terminal, every report format,
Allure attachments), always the same way: ``{"hash": ...… (46,213 bytes, first 2,048 shown)``.

A cut body says so once: cutting it again to the same or a larger size leaves it as it is, and
to a smaller size keeps the original full length in the note.
"""

from __future__ import annotations

import re
from dataclasses import replace

from conformance.verdict.evidence import Exchange

BODY_BYTES = 2048  # what evidence keeps of a body, in every format
TERMINAL_BYTES = 512  # what the terminal's transcript (-v) shows of one
DESCRIBED_BYTES = 200  # what a failure's one "Received:" line shows of one (a screen per failure)
_NOTE = re.compile(r"… \((?P<total>[\d,]+) bytes, first [\d,]+ shown\)\Z")


def cut(text: str, limit: int = BODY_BYTES) -> str:
    """``text`` if its UTF-8 form is at most ``limit`` bytes, else its first ``limit`` bytes
    (no character split) and ``… (46,213 bytes, first 2,048 shown)``."""
    note = _NOTE.search(text)
    head, total = (text[: note.start()], int(note["total"].replace(",", ""))) if note else (text, 0)
    encoded = head.encode("utf-8")
    if len(encoded) <= limit:
        return text
    kept = encoded[:limit].decode("utf-8", errors="ignore")
    return f"{kept}… ({total or len(encoded):,} bytes, first {len(kept.encode('utf-8')):,} shown)"


def cut_optional(text: str | None, limit: int = BODY_BYTES) -> str | None:
    """``cut`` for an optional body (None and empty stay as they are)."""
    return cut(text, limit) if text else text


def cut_exchange(exchange: Exchange, limit: int = BODY_BYTES) -> Exchange:
    """``exchange`` with both bodies ``cut`` (the same object when neither needed it)."""
    request = cut_optional(exchange.request_body, limit)
    response = cut_optional(exchange.response_body, limit)
    if request == exchange.request_body and response == exchange.response_body:
        return exchange
    return replace(exchange, request_body=request, response_body=response)
