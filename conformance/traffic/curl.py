"""Reproductions: one shell-safe curl command per request, from values already redacted.

Both the scenario client and the fuzz stage build their reproductions here, so quoting and the
set of transport headers left out cannot drift apart. Callers redact first; secrets appear only
as ``$RCES_...`` placeholders, which stay expandable in the quoted words.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

# Transport headers a reproduction does not need (curl sends its own).
SKIPPED_HEADERS = frozenset(
    {"content-length", "user-agent", "accept-encoding", "connection", "accept", "host"}
)


# Characters that keep a meaning inside double quotes; each is escaped with a backslash.
_ESCAPES = {char: "\\" + char for char in '\\"`$'}


def shell_word(text: str) -> str:
    """POSIX-quoted; ``$RCES_...`` placeholders stay expandable inside double quotes."""
    if "$RCES_" not in text:
        return shlex.quote(text)
    escaped = "".join(_ESCAPES.get(char, char) for char in text)
    return '"' + escaped.replace("\\$RCES_", "$RCES_") + '"'


def curl_command(
    method: str, url: str, headers: Iterable[tuple[str, str]], body: str | None
) -> str:
    """``curl -i -X METHOD URL -H ... --data-raw BODY`` for a redacted request."""
    words = ["curl", "-i", "-X", method, shell_word(url)]
    for name, value in headers:
        if name.lower() not in SKIPPED_HEADERS:
            words += ["-H", shell_word(f"{name}: {value}")]
    if body:
        words += ["--data-raw", shell_word(body)]
    return " ".join(words)
