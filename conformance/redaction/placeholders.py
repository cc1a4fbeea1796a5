"""Redaction: every secret and every credential header is replaced before anything is shown."""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import quote, quote_plus

# Headers whose whole value is a credential, whatever it contains.
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
PLACEHOLDER = "<redacted>"

# How one escaper may spell a secret once it sits in a larger text: Python's repr (tracebacks with
# local variables, assertion diffs, ``str()`` of a dict), JSON, HTML and XML (both quote styles and
# numeric entities), and URLs (each quoting convention).
ESCAPERS: dict[str, Callable[[str], str]] = {
    "python": lambda s: repr(s + '"')[1:-2],  # single-quoted: ' escaped
    "python-double": lambda s: repr(s + '"')[1:-2].replace("\\'", "'"),  # double-quoted form
    "json": lambda s: json.dumps(s, ensure_ascii=False)[1:-1],
    "json-ascii": lambda s: json.dumps(s)[1:-1],
    "html": lambda s: html.escape(s, quote=True),
    "html-text": lambda s: html.escape(s, quote=False),
    "xml-attribute": lambda s: html.escape(s, quote=False).replace('"', "&quot;"),
    "html-numeric": lambda s: (
        html.escape(s, quote=False).replace('"', "&#34;").replace("'", "&#39;")
    ),
    "url": lambda s: quote(s, safe=""),
    "url-path": lambda s: quote(s),
    "url-form": lambda s: quote_plus(s),
}


def _chain(first: Callable[[str], str], second: Callable[[str], str]) -> Callable[[str], str]:
    return lambda s: second(first(s))


# Every spelling a secret may take: as it is, escaped once, or escaped twice (a repr inside a JSON
# file, JSON inside an XML attribute, ...), so no output format hides it from redaction.
SPELLINGS: tuple[Callable[[str], str], ...] = (
    lambda s: s,
    *ESCAPERS.values(),
    *(_chain(first, second) for first in ESCAPERS.values() for second in ESCAPERS.values()),
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


# A repr that truncates ("svc_pat_04f1...", "...e9a1") may cut a secret short: a fragment of at
# least this many characters of a spelling, against an ellipsis, is replaced too.
ELLIPSES = ("...", "\u2026")
MIN_FRAGMENT = 6


class _Fragments:
    """Every fragment of every spelling that starts (a prefix) or ends (a suffix) it, at least
    MIN_FRAGMENT characters long and shorter than the whole, with its name."""

    def __init__(self, forms: list[tuple[str, str]]) -> None:
        self.prefixes: dict[str, str] = {}
        self.suffixes: dict[str, str] = {}
        for form, name in forms:
            for n in range(MIN_FRAGMENT, len(form)):
                self.prefixes.setdefault(form[:n], name)
                self.suffixes.setdefault(form[-n:], name)
        self.longest = max((len(piece) for piece in self.prefixes), default=0)
        # Every MIN_FRAGMENT-long piece of every spelling: a quick test before the search.
        self.pieces = frozenset(
            form[i : i + MIN_FRAGMENT]
            for form, _ in forms
            for i in range(len(form) - MIN_FRAGMENT + 1)
        )

    def before(self, value: str, at: int) -> tuple[int, str] | None:
        """(start, name) of the longest prefix of a spelling that ends at ``at``."""
        if value[max(0, at - MIN_FRAGMENT) : at] not in self.pieces:
            return None
        for n in range(min(self.longest, at), MIN_FRAGMENT - 1, -1):
            name = self.prefixes.get(value[at - n : at])
            if name is not None:
                return at - n, name
        return None

    def after(self, value: str, at: int) -> tuple[int, str] | None:
        """(stop, name) of the longest suffix of a spelling that starts at ``at``."""
        if value[at : at + MIN_FRAGMENT] not in self.pieces:
            return None
        for n in range(min(self.longest, len(value) - at), MIN_FRAGMENT - 1, -1):
            name = self.suffixes.get(value[at : at + n])
            if name is not None:
                return at + n, name
        return None

    def cut_short(self, value: str) -> str:
        """``value`` with each fragment that ends or starts at an ellipsis replaced."""
        cuts: list[tuple[int, int, str]] = []
        for ellipsis in ELLIPSES:
            at = value.find(ellipsis)
            while at >= 0:
                after = at + len(ellipsis)
                before = self.before(value, at)
                if before is not None:
                    cuts.append((before[0], at, before[1]))
                following = self.after(value, after)
                if following is not None:
                    cuts.append((after, following[0], following[1]))
                at = value.find(ellipsis, after)
        end = len(value) + 1
        for start, stop, name in sorted(cuts, reverse=True):
            if stop <= end:  # no overlap with the cut to the right of it
                value = value[:start] + name + value[stop:]
                end = start
        return value


Named = tuple[tuple[str, str], ...]  # (secret or spelling, its placeholder name) pairs


@functools.lru_cache(maxsize=32)
def _spellings(named: Named) -> tuple[Named, _Fragments]:
    """The spellings and fragments of a set of named secrets, worked out once per set (every
    test's client redacts with the same profile's secrets; neither is changed once made)."""
    forms = tuple(spelled(named))
    return forms, _Fragments(list(forms))


class Redactor:
    """Replaces known secrets, in any escaped spelling, with shell-style placeholders such as
    ``$RCES_PAT`` (fragments of a secret cut short at an ellipsis too)."""

    def __init__(self, secrets: Mapping[str, str] | Iterable[str] = ()) -> None:
        named = dict(secrets) if isinstance(secrets, Mapping) else dict.fromkeys(secrets, "")
        self._named = {value: name or PLACEHOLDER for value, name in named.items() if value}
        self._spell()

    def _spell(self) -> None:
        self._secrets, self._fragments = _spellings(tuple(self._named.items()))

    def add(self, value: str, name: str = "") -> None:
        if value and value not in self._named:
            self._named[value] = name or PLACEHOLDER
            self._spell()

    @property
    def known(self) -> bool:
        """True when there is at least one secret to replace."""
        return bool(self._named)

    def text(self, value: str) -> str:
        for secret, name in self._secrets:
            if secret in value:
                value = value.replace(secret, name)
        if self._secrets and any(ellipsis in value for ellipsis in ELLIPSES):
            value = self._fragments.cut_short(value)
        return value

    def binary(self, data: bytes) -> bytes:
        """``data`` (any file's bytes, UTF-8 or not) redacted as ``text`` redacts a string."""
        text = data.decode("utf-8", "surrogateescape")
        redacted = self.text(text)
        return data if redacted == text else redacted.encode("utf-8", "surrogateescape")

    def header(self, name: str, value: str) -> str:
        """A header value as it may be shown: credentials keep only their scheme word."""
        redacted = self.text(value)
        if name.lower() not in CREDENTIAL_HEADERS or redacted != value:
            return redacted
        scheme, _, rest = value.partition(" ")
        return f"{scheme} {PLACEHOLDER}" if rest else PLACEHOLDER

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        return {name: self.header(name, value) for name, value in headers}
