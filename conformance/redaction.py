"""Redaction: every secret and every credential header is replaced before anything is shown."""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import quote, quote_plus

# Headers whose whole value is a credential, whatever it contains.
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
PLACEHOLDER = "<redacted>"

# Every spelling a secret may take once something has escaped it (JSON, HTML, a URL).
SPELLINGS: tuple[Callable[[str], str], ...] = (
    lambda s: s,
    lambda s: json.dumps(s, ensure_ascii=False)[1:-1],
    lambda s: json.dumps(s)[1:-1],
    lambda s: html.escape(s, quote=True),
    lambda s: html.escape(s, quote=False),
    lambda s: quote(s, safe=""),
    lambda s: quote_plus(s),
)


def spelled(secrets: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(every escaped form of each non-empty secret, its name), longest form first, so a secret
    that contains another is replaced whole and no partial leftovers remain."""
    forms: dict[str, str] = {}
    for value, name in secrets:
        for spell in SPELLINGS:
            form = spell(value) if value else ""
            if form:
                forms.setdefault(form, name)
    return sorted(forms.items(), key=lambda pair: (-len(pair[0]), pair[0]))


class Redactor:
    """Replaces known secrets, in any escaped spelling, with shell-style placeholders such as
    ``$RCES_PAT``."""

    def __init__(self, secrets: Mapping[str, str] | Iterable[str] = ()) -> None:
        named = dict(secrets) if isinstance(secrets, Mapping) else dict.fromkeys(secrets, "")
        self._named = {value: name or PLACEHOLDER for value, name in named.items() if value}
        self._secrets = spelled(self._named.items())

    def add(self, value: str, name: str = "") -> None:
        if value and value not in self._named:
            self._named[value] = name or PLACEHOLDER
            self._secrets = spelled(self._named.items())

    def text(self, value: str) -> str:
        for secret, name in self._secrets:
            value = value.replace(secret, name)
        return value

    def header(self, name: str, value: str) -> str:
        """A header value as it may be shown: credentials keep only their scheme word."""
        redacted = self.text(value)
        if name.lower() not in CREDENTIAL_HEADERS or redacted != value:
            return redacted
        scheme, _, rest = value.partition(" ")
        return f"{scheme} {PLACEHOLDER}" if rest else PLACEHOLDER

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        return {name: self.header(name, value) for name, value in headers}
