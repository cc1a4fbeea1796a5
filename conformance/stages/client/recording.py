"""What the scripted server recorded of one request: when it came, what it carried (the SDK key
redacted), and what it was answered."""

from __future__ import annotations

from dataclasses import dataclass

KEY_PLACEHOLDER = "$RCES_SDK_KEY"


@dataclass
class Recorded:
    """One request of one client instance, as the scripted server saw and answered it."""

    instance: str  # "<scenario>#<n>"
    seq: int  # per instance, from 1
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names, the SDK key redacted
    arrived: float  # seconds since the run started (monotonic)
    kind: str  # "status", "refetch" or "other" (a path the script does not serve)
    answered: float = 0.0
    answered_wall: float = 0.0  # epoch seconds (a Retry-After date is judged against it)
    status: int | None = None  # None: the connection was reset
    step: int = -1  # the script step that answered a status request
    snapshot_hash: str | None = None  # the snapshot hash answered (200 or 304)
    hint: tuple[float, float] | None = None  # (intervalSeconds, jitterRatio) sent, scaled
    retry_after_s: float | None = None  # the wait a 429 asked for, in seconds
    refetched: tuple[int, ...] = ()  # configuration ids a refetch answer carried
    changed: tuple[int, ...] | None = None  # status 200: ids whose hash moved since the held one
    note: str = ""
    raw_query: str = ""  # the query string as sent (a refetch template may carry one)
    whole: bool = False  # a refetch answered with the whole bootstrap snapshot
    read: bool = True  # False: a connection reset on accept (a refused one), no request read

    @property
    def attempt(self) -> str:
        """What the client sent, in a few words."""
        if not self.read:
            return "connection refused (reset on accept): no request read"
        target = self.path + (
            "?" + "&".join(f"{k}={v}" for k, v in self.query.items()) if self.query else ""
        )
        return f"{self.method} {target}"

    def sent_hash(self, transport: str) -> str | None:
        """The hash this request carried in the form ``transport`` names (None: none)."""
        if transport == "query":
            return self.query.get("hash")
        value = self.headers.get("if-none-match")
        return None if value is None else strip_tag(value)

    def other_hash(self, transport: str) -> str | None:
        """The hash carried in the form the profile does not name, if any."""
        return self.sent_hash("if-none-match" if transport == "query" else "query")

    @property
    def target(self) -> str:
        """The request target as sent: path, and query string if any."""
        return self.path + (f"?{self.raw_query}" if self.raw_query else "")

    def answer(self) -> str:
        """The answer in a few words."""
        if not self.read:
            return "reset"
        if self.status is None:
            return "connection reset"
        parts = [str(self.status)]
        if self.snapshot_hash and self.status == 200 and self.kind == "status":
            parts.append(f"hash {self.snapshot_hash[:8]}")
        if self.hint is not None:
            parts.append(f"polling {self.hint[0]:g}s/{self.hint[1]:g}")
        if self.retry_after_s is not None:
            parts.append(f"Retry-After {self.retry_after_s:.2f}s")
        if self.changed:
            parts.append(f"moved {list(self.changed)}")
        if self.refetched:
            parts.append(f"documents {list(self.refetched)}")
        return " ".join(parts)

    def line(self, transport: str) -> str:
        """One line of the timeline (a refused connection shows as one: it carried nothing)."""
        if not self.read:
            return f"{self.arrived:8.3f}s {self.instance} {self.attempt}"
        sent = self.sent_hash(transport) if self.kind == "status" else None
        shown = f" hash={sent[:8]}" if sent else (" no hash" if self.kind == "status" else "")
        return f"{self.arrived:8.3f}s {self.instance} {self.attempt}{shown} -> {self.answer()}"


def strip_tag(value: str) -> str:
    """The opaque part of an entity tag (W/ and quotes removed)."""
    tag = value.strip()
    if tag.startswith("W/"):
        tag = tag[2:]
    if len(tag) >= 2 and tag[0] == tag[-1] == '"':
        tag = tag[1:-1]
    return tag


def redacted_headers(raw: list[tuple[bytes, bytes]], key: str) -> dict[str, str]:
    """ASGI headers as a dict with lower-case names; the key is replaced wherever it appears."""
    headers: dict[str, str] = {}
    for name, value in raw:
        text = value.decode("latin-1")
        if key:
            text = text.replace(key, KEY_PLACEHOLDER)
        headers[name.decode("latin-1").lower()] = text
    return headers
