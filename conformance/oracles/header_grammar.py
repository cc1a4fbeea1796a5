"""The RFC 9110 grammars of the header fields the kit reads: a parsed value, or a ``Problem``."""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

# ------------------------------------------------------------------ the rules, as data


@dataclass(frozen=True)
class Rule:
    """One grammar a field value is judged by: its name, where HTTP states it, and its ABNF."""

    field: str  # the header it is the grammar of ("any field": every field value)
    name: str  # the ABNF rule
    section: str
    abnf: str

    @property
    def expected(self) -> str:
        """What a conforming value is, for an ``expected`` line."""
        return f"{self.name} ({self.section}: {self.abnf})"


FIELD_VALUE = Rule(
    "any field",
    "field-value",
    "RFC 9110 section 5.5",
    "*field-content: no CR, LF, NUL or other control character but HTAB, and no leading or "
    "trailing whitespace",
)
ENTITY_TAG = Rule(
    "ETag",
    "entity-tag",
    "RFC 9110 section 8.8.3",
    'entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, "W/" in upper case; '
    "etagc = %x21 / %x23-7E / obs-text",
)
IF_NONE_MATCH = Rule(
    "If-None-Match",
    "If-None-Match",
    "RFC 9110 section 13.1.2",
    'If-None-Match = "*" / #entity-tag',
)
MEDIA_TYPE = Rule(
    "Content-Type",
    "media-type",
    "RFC 9110 sections 8.3.1 and 5.6.6",
    'media-type = token "/" token *( OWS ";" OWS [ token "=" ( token / quoted-string ) ] )',
)
IMF_FIXDATE = Rule(
    "HTTP-date",
    "IMF-fixdate",
    "RFC 9110 section 5.6.7",
    'IMF-fixdate = day-name "," SP 2DIGIT SP month SP 4DIGIT SP 2DIGIT ":" 2DIGIT ":" '
    '2DIGIT SP "GMT" (a sender generates this form only)',
)
RETRY_AFTER = Rule(
    "Retry-After",
    "Retry-After",
    "RFC 9110 section 10.2.3",
    "Retry-After = HTTP-date / delay-seconds; delay-seconds = 1*DIGIT; HTTP-date sent as "
    "IMF-fixdate (section 5.6.7)",
)
RULES: tuple[Rule, ...] = (
    FIELD_VALUE,
    ENTITY_TAG,
    IF_NONE_MATCH,
    MEDIA_TYPE,
    IMF_FIXDATE,
    RETRY_AFTER,
)


@dataclass(frozen=True)
class Problem:
    """A field value that breaks its grammar: which field, which rule, the value and why."""

    field: str
    rule: Rule
    value: str
    detail: str

    def __str__(self) -> str:
        rule = f"{self.rule.name} ({self.rule.section})"
        return f"{self.field} {self.value!r} breaks {rule}: {self.detail}"


# ------------------------------------------------------------------ shared pieces (RFC 9110 5.6)

TCHAR = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
OWS = " \t"


def _obs_text(char: str) -> bool:
    """obs-text = %x80-FF (a decoded byte above 7F may arrive as any code point from 80 up)."""
    return ord(char) >= 0x80


def _vchar(char: str) -> bool:
    return 0x21 <= ord(char) <= 0x7E


def _etagc(char: str) -> bool:
    return ord(char) == 0x21 or 0x23 <= ord(char) <= 0x7E or _obs_text(char)


def _qdtext(char: str) -> bool:
    code = ord(char)
    return (
        char in OWS or code == 0x21 or 0x23 <= code <= 0x5B or 0x5D <= code <= 0x7E or code >= 0x80
    )


def _token_at(value: str, start: int) -> int:
    """The end of the token starting at ``start`` (== start when there is none)."""
    end = start
    while end < len(value) and value[end] in TCHAR:
        end += 1
    return end


def _skip_ows(value: str, start: int) -> int:
    while start < len(value) and value[start] in OWS:
        start += 1
    return start


def field_value(value: str, field: str = "field") -> str | Problem:
    """``value`` when it is a field value any field may carry (RFC 9110 5.5), else the problem."""
    for char in value:
        if char in "\r\n\0":
            return Problem(
                field, FIELD_VALUE, value, f"it holds {char!r} (CR, LF and NUL are invalid)"
            )
        if (ord(char) < 0x20 and char != "\t") or ord(char) == 0x7F:
            return Problem(field, FIELD_VALUE, value, f"it holds the control character {char!r}")
    if value != value.strip(OWS):
        return Problem(field, FIELD_VALUE, value, "it has leading or trailing whitespace")
    return value


# ------------------------------------------------------------- entity-tag (ETag, If-None-Match)


@dataclass(frozen=True)
class EntityTag:
    """A parsed entity-tag: whether it is weak, and its opaque-tag without the double quotes."""

    weak: bool
    opaque: str

    def __str__(self) -> str:
        return ('W/"' if self.weak else '"') + self.opaque + '"'


def _entity_tag_at(value: str, start: int, field: str) -> tuple[EntityTag, int] | Problem:
    """The entity-tag starting at ``start`` and the index after it, or the problem."""
    rule = ENTITY_TAG if field == "ETag" else IF_NONE_MATCH
    weak = value.startswith("W/", start)
    if not weak and value.startswith("w/", start):
        return Problem(field, rule, value, 'the weak indicator is case-sensitive: "W/", not "w/"')
    at = start + 2 if weak else start
    if at >= len(value) or value[at] != '"':
        return Problem(field, rule, value, "the opaque-tag does not open with a double quote")
    end = value.find('"', at + 1)
    if end < 0:
        return Problem(field, rule, value, "the opaque-tag does not close with a double quote")
    opaque = value[at + 1 : end]
    bad = next((c for c in opaque if not _etagc(c)), None)
    if bad is not None:
        return Problem(field, rule, value, f"{bad!r} is not an etagc (%x21 / %x23-7E / obs-text)")
    return EntityTag(weak, opaque), end + 1


def entity_tag(value: str) -> EntityTag | Problem:
    """An ``ETag`` value (RFC 9110 8.8.3): one entity-tag, strong or weak."""
    checked = field_value(value, "ETag")
    if isinstance(checked, Problem):
        return checked
    found = _entity_tag_at(value, 0, "ETag")
    if isinstance(found, Problem):
        return found
    tag, end = found
    if end != len(value):
        rest = value[end:]
        return Problem(
            "ETag", ENTITY_TAG, value, f"{rest!r} follows the closing double quote (one tag only)"
        )
    return tag


@dataclass(frozen=True)
class IfNoneMatch:
    """A parsed ``If-None-Match``: ``*`` (any), or the entity-tags listed."""

    any: bool
    tags: tuple[EntityTag, ...]


def if_none_match(value: str) -> IfNoneMatch | Problem:
    """An ``If-None-Match`` value (RFC 9110 13.1.2): ``*`` or a list of entity-tags (empty list
    elements are allowed, RFC 9110 5.6.1, but at least one tag must be there)."""
    checked = field_value(value, "If-None-Match")
    if isinstance(checked, Problem):
        return checked
    if value == "*":
        return IfNoneMatch(True, ())
    tags: list[EntityTag] = []
    at = 0
    while at < len(value):
        at = _skip_ows(value, at)
        if at < len(value) and value[at] == ",":
            at += 1
            continue
        if at >= len(value):
            break
        found = _entity_tag_at(value, at, "If-None-Match")
        if isinstance(found, Problem):
            return found
        tag, at = found
        tags.append(tag)
        at = _skip_ows(value, at)
        if at < len(value) and value[at] != ",":
            return Problem(
                "If-None-Match", IF_NONE_MATCH, value, f"{value[at:]!r} follows an entity-tag"
            )
    if not tags:
        return Problem("If-None-Match", IF_NONE_MATCH, value, "it names no entity-tag")
    return IfNoneMatch(False, tuple(tags))


# ------------------------------------------------------------------ media-type (Content-Type)


@dataclass(frozen=True)
class MediaType:
    """A parsed media-type: type and subtype in lower case, parameters as sent (names lowered,
    quoted values unquoted)."""

    type: str
    subtype: str
    parameters: tuple[tuple[str, str], ...]

    @property
    def essence(self) -> str:
        return f"{self.type}/{self.subtype}"


def _quoted_string_at(value: str, start: int) -> tuple[str, int] | str:
    """The unquoted content of the quoted-string at ``start`` and the index after it, or why
    it is not one (RFC 9110 5.6.4)."""
    out: list[str] = []
    at = start + 1
    while at < len(value):
        char = value[at]
        if char == '"':
            return "".join(out), at + 1
        if char == "\\":
            if at + 1 >= len(value):
                return "a quoted-pair is cut short at the end"
            escaped = value[at + 1]
            if not (escaped in OWS or _vchar(escaped) or _obs_text(escaped)):
                return f"{escaped!r} cannot be escaped in a quoted-string"
            out.append(escaped)
            at += 2
            continue
        if not _qdtext(char):
            return f"{char!r} is not allowed in a quoted-string"
        out.append(char)
        at += 1
    return "the quoted-string does not close with a double quote"


def media_type(value: str) -> MediaType | Problem:
    """A ``Content-Type`` value (RFC 9110 8.3.1): type "/" subtype, then parameters."""
    checked = field_value(value, "Content-Type")
    if isinstance(checked, Problem):
        return checked

    def problem(detail: str) -> Problem:
        return Problem("Content-Type", MEDIA_TYPE, value, detail)

    slash = _token_at(value, 0)
    if slash == 0:
        return problem("it does not start with a type token")
    if slash >= len(value) or value[slash] != "/":
        return problem(f"the type {value[:slash]!r} is not followed by '/'")
    end = _token_at(value, slash + 1)
    if end == slash + 1:
        return problem("no subtype token follows the '/'")
    parameters: list[tuple[str, str]] = []
    at = end
    while at < len(value):
        at = _skip_ows(value, at)
        if at >= len(value) or value[at] != ";":
            return problem(f"{value[at:]!r} follows the media type where only ';' may")
        at = _skip_ows(value, at + 1)
        if at >= len(value) or value[at] == ";":
            continue  # an empty parameter: allowed
        name_end = _token_at(value, at)
        if name_end == at:
            return problem(f"{value[at:]!r} does not start with a parameter name token")
        name = value[at:name_end]
        if name_end >= len(value) or value[name_end] != "=":
            return problem(
                f"the parameter {name!r} is not followed by '=' "
                "(no value, or whitespace around '=')"
            )
        at = name_end + 1
        if at < len(value) and value[at] == '"':
            quoted = _quoted_string_at(value, at)
            if isinstance(quoted, str):
                return problem(f"the value of {name!r}: {quoted}")
            text, at = quoted
        else:
            value_end = _token_at(value, at)
            if value_end == at:
                return problem(f"the parameter {name!r} has no token or quoted-string value")
            text, at = value[at:value_end], value_end
        parameters.append((name.lower(), text))
    return MediaType(value[:slash].lower(), value[slash + 1 : end].lower(), tuple(parameters))


# ------------------------------------------------------------------ HTTP-date and Retry-After

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_IMF = re.compile(
    rf"({'|'.join(_DAYS)}), ([0-9]{{2}}) ({'|'.join(_MONTHS)}) ([0-9]{{4}}) "
    r"([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT"
)
_RFC850 = re.compile(
    r"(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), [0-9]{2}-"
    rf"({'|'.join(_MONTHS)})-[0-9]{{2}} [0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}} GMT"
)
_ASCTIME = re.compile(
    rf"({'|'.join(_DAYS)}) ({'|'.join(_MONTHS)}) ( [0-9]|[0-9]{{2}}) "
    r"[0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}"
)
_DIGITS = re.compile(r"[0-9]+")
IMF_EXAMPLE = "Sun, 06 Nov 1994 08:49:37 GMT"


def http_date(value: str, field: str = "Date") -> datetime | Problem:
    """An HTTP-date as a sender must generate it (RFC 9110 5.6.7: IMF-fixdate), in UTC. The two
    obsolete forms (rfc850-date, asctime-date) are named as such: recipients accept them, a
    sender must not send them."""
    checked = field_value(value, field)
    if isinstance(checked, Problem):
        return checked
    match = _IMF.fullmatch(value)
    if match is None:
        if _RFC850.fullmatch(value):
            kind = "an rfc850-date"
        elif _ASCTIME.fullmatch(value):
            kind = "an asctime-date"
        else:
            return Problem(field, IMF_FIXDATE, value, f"not a date of the form {IMF_EXAMPLE!r}")
        return Problem(
            field,
            IMF_FIXDATE,
            value,
            f"{kind}, an obsolete form recipients accept but a sender must not generate",
        )
    day, month = int(match.group(2)), _MONTHS.index(match.group(3)) + 1
    year, hour, minute, second = (int(match.group(n)) for n in (4, 5, 6, 7))
    if year < 1 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return Problem(
            field, IMF_FIXDATE, value, f"there is no day {day} in {match.group(3)} {year}"
        )
    if hour > 23 or minute > 59 or second > 60:  # 60: a leap second
        return Problem(field, IMF_FIXDATE, value, "the time of day is out of range")
    return datetime(year, month, day, hour, minute, min(second, 59), tzinfo=UTC)


def retry_after(value: str, now: float | None = None) -> float | Problem:
    """The seconds a ``Retry-After`` value asks to wait (RFC 9110 10.2.3), from ``now`` (epoch
    seconds, default the current time) for a date, never below 0; or the problem when it is
    neither delay-seconds (1*DIGIT) nor an IMF-fixdate (the form a sender must use)."""
    checked = field_value(value, "Retry-After")
    if isinstance(checked, Problem):
        return checked
    if _DIGITS.fullmatch(value):
        return float(value)
    moment = http_date(value, "Retry-After")
    if isinstance(moment, Problem):
        if moment.rule is IMF_FIXDATE and moment.detail.startswith("not a date"):
            return Problem(
                "Retry-After",
                RETRY_AFTER,
                value,
                f"neither delay-seconds (digits only) nor an HTTP-date such as {IMF_EXAMPLE!r}",
            )
        return moment
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


# ------------------------------------------------------------------ by field name

Parser = Callable[[str], object]

# Lower-case field name -> its grammar; any other field is judged as a plain field value.
GRAMMARS: Mapping[str, Parser] = {
    "etag": entity_tag,
    "if-none-match": if_none_match,
    "content-type": media_type,
    "retry-after": retry_after,
}


def problem_of(name: str, value: str) -> Problem | None:
    """The problem of field ``name``'s value by its grammar (a plain field value when the kit
    knows no grammar of it), or None when it conforms."""
    parser = GRAMMARS.get(name.lower())
    found = parser(value) if parser is not None else field_value(value, name)
    return found if isinstance(found, Problem) else None
