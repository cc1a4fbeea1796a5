"""Redaction: every secret and every credential header is replaced before anything is shown."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# Headers whose whole value is a credential, whatever it contains.
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
PLACEHOLDER = "<redacted>"


class Redactor:
    """Replaces known secrets with shell-style placeholders such as ``$RCES_PAT``."""

    def __init__(self, secrets: Mapping[str, str] | Iterable[str] = ()) -> None:
        named = dict(secrets) if isinstance(secrets, Mapping) else dict.fromkeys(secrets, "")
        # Longest first, so a secret that contains another is replaced whole.
        self._secrets = sorted(
            ((value, name or PLACEHOLDER) for value, name in named.items() if value),
            key=lambda pair: -len(pair[0]),
        )

    def add(self, value: str, name: str = "") -> None:
        if value and all(value != known for known, _ in self._secrets):
            self._secrets.append((value, name or PLACEHOLDER))
            self._secrets.sort(key=lambda pair: -len(pair[0]))

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
