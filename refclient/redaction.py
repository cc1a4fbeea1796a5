"""Keeping the SDK key out of every message: logs, exceptions and reprs."""

from __future__ import annotations

from urllib.parse import quote

PLACEHOLDER = "<redacted sdk key>"


def redact(text: str, secret: str) -> str:
    """``text`` with every raw or URL-encoded spelling of ``secret`` replaced."""
    if not secret:
        return text
    for spelling in {secret, quote(secret, safe=""), quote(secret)}:
        text = text.replace(spelling, PLACEHOLDER)
    return text
