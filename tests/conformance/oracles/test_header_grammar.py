"""The header grammars (``conformance.oracles.header_grammar``): valid and invalid values of each,
and that a problem names its field, its RFC rule and what is wrong."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conformance.checks import media_expected, media_problem
from conformance.oracles.header_grammar import (
    ENTITY_TAG,
    FIELD_VALUE,
    GRAMMARS,
    IF_NONE_MATCH,
    IMF_FIXDATE,
    MEDIA_TYPE,
    RETRY_AFTER,
    RULES,
    EntityTag,
    IfNoneMatch,
    MediaType,
    Problem,
    entity_tag,
    field_value,
    http_date,
    if_none_match,
    media_type,
    problem_of,
    retry_after,
)

# ------------------------------------------------------------------ any field value (RFC 9110 5.5)


@pytest.mark.parametrize("value", ["", "a", "a b", "a\tb", "caf\u00e9", "x" * 300])
def test_plain_field_values(value: str) -> None:
    assert field_value(value, "X") == value


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("a\r\nb", "CR, LF and NUL"),
        ("a\nb", "CR, LF and NUL"),
        ("a\0b", "CR, LF and NUL"),
        ("a\x01b", "control character"),
        ("a\x7fb", "control character"),
        (" a", "leading or trailing whitespace"),
        ("a\t", "leading or trailing whitespace"),
    ],
)
def test_field_values_http_refuses(value: str, detail: str) -> None:
    found = field_value(value, "X-Thing")
    assert isinstance(found, Problem)
    assert found.rule is FIELD_VALUE
    assert detail in found.detail
    assert str(found).startswith(f"X-Thing {value!r} breaks field-value (RFC 9110 section 5.5)")


# ------------------------------------------------------------------ ETag (RFC 9110 8.8.3)


@pytest.mark.parametrize(
    ("value", "weak", "opaque"),
    [
        ('"abc"', False, "abc"),
        ('W/"abc"', True, "abc"),
        ('""', False, ""),
        ('"a,b;c\\d"', False, "a,b;c\\d"),  # etagc takes , ; and backslash
        ('"!#~"', False, "!#~"),
        ('"\u00e9t\u00e9"', False, "\u00e9t\u00e9"),  # obs-text
        ('"' + "f" * 64 + '"', False, "f" * 64),
    ],
)
def test_entity_tags(value: str, weak: bool, opaque: str) -> None:
    assert entity_tag(value) == EntityTag(weak, opaque)
    assert str(EntityTag(weak, opaque)) == value


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("abc", "does not open with a double quote"),
        ("W/abc", "does not open with a double quote"),
        ('w/"abc"', 'case-sensitive: "W/"'),
        ('"abc', "does not close with a double quote"),
        ('abc"', "does not open with a double quote"),
        ('"a b"', "' ' is not an etagc"),
        ('"a\tb"', "'\\t' is not an etagc"),
        ('"a"b"', "follows the closing double quote"),
        ('"a", "b"', "follows the closing double quote"),  # two ETag fields, joined
        ('W/ "abc"', "does not open with a double quote"),
        ("", "does not open with a double quote"),
        (' "abc"', "leading or trailing whitespace"),
    ],
)
def test_values_that_are_not_entity_tags(value: str, detail: str) -> None:
    found = entity_tag(value)
    assert isinstance(found, Problem), found
    assert found.field == "ETag"
    assert found.rule in (ENTITY_TAG, FIELD_VALUE)
    assert detail in found.detail
    if found.rule is ENTITY_TAG:
        assert "entity-tag (RFC 9110 section 8.8.3)" in str(found)


# ------------------------------------------------------------------ If-None-Match (RFC 9110 13.1.2)


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("*", IfNoneMatch(True, ())),
        ('"a"', IfNoneMatch(False, (EntityTag(False, "a"),))),
        ('"a", W/"b"', IfNoneMatch(False, (EntityTag(False, "a"), EntityTag(True, "b")))),
        ('"a",W/"b"', IfNoneMatch(False, (EntityTag(False, "a"), EntityTag(True, "b")))),
        ('"a,b"', IfNoneMatch(False, (EntityTag(False, "a,b"),))),
        (',"a",, "b"', IfNoneMatch(False, (EntityTag(False, "a"), EntityTag(False, "b")))),
    ],
)
def test_if_none_match_values(value: str, parsed: IfNoneMatch) -> None:
    assert if_none_match(value) == parsed


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("abc", "does not open with a double quote"),
        ('"a" "b"', "follows an entity-tag"),
        ('"a", *', "does not open with a double quote"),
        ("", "names no entity-tag"),
        (",", "names no entity-tag"),
        ('"a', "does not close with a double quote"),
    ],
)
def test_if_none_match_values_refused(value: str, detail: str) -> None:
    found = if_none_match(value)
    assert isinstance(found, Problem), found
    assert found.rule is IF_NONE_MATCH
    assert detail in found.detail


# ------------------------------------------------------------------ Content-Type (RFC 9110 8.3.1)


JSON = ("application", "json")
UTF8 = (("charset", "utf-8"),)


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("application/json", MediaType(*JSON, ())),
        ("application/JSON; charset=UTF-8", MediaType(*JSON, (("charset", "UTF-8"),))),
        ("Application/Json", MediaType(*JSON, ())),
        ("application/json;charset=utf-8", MediaType(*JSON, UTF8)),
        ("application/json ; charset=utf-8", MediaType(*JSON, UTF8)),
        ("application/json\t;\tcharset=utf-8", MediaType(*JSON, UTF8)),
        ('application/json; charset="utf-8"', MediaType(*JSON, UTF8)),
        ('text/plain; a="x \\" y"', MediaType("text", "plain", (("a", 'x " y'),))),
        ("application/json;", MediaType(*JSON, ())),  # an empty parameter
        ("application/json;;a=b", MediaType(*JSON, (("a", "b"),))),
        (
            "application/problem+json; A=1; b=2",
            MediaType("application", "problem+json", (("a", "1"), ("b", "2"))),
        ),
    ],
)
def test_media_types(value: str, parsed: MediaType) -> None:
    assert media_type(value) == parsed


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("json", "is not followed by '/'"),
        ("application", "is not followed by '/'"),
        ("application/", "no subtype token"),
        ("/json", "does not start with a type token"),
        ("application json", "is not followed by '/'"),
        ("application/json charset=utf-8", "follows the media type where only ';' may"),
        ("application/json, text/plain", "follows the media type where only ';' may"),
        ("application/json; charset", "is not followed by '='"),
        ("application/json; charset = utf-8", "is not followed by '='"),
        ("application/json; charset= utf-8", "has no token or quoted-string value"),
        ("application/json; charset=", "has no token or quoted-string value"),
        ('application/json; charset="utf-8', "does not close with a double quote"),
        ("application/json; charset=utf 8", "follows the media type where only ';' may"),
        ("application/json; =utf-8", "does not start with a parameter name token"),
        ('"application/json"', "does not start with a type token"),
        ("", "does not start with a type token"),
        ("application/json\r\n", "CR, LF and NUL"),
    ],
)
def test_values_that_are_not_media_types(value: str, detail: str) -> None:
    found = media_type(value)
    assert isinstance(found, Problem), found
    assert found.field == "Content-Type"
    assert detail in found.detail
    if found.rule is MEDIA_TYPE:
        assert "media-type (RFC 9110 sections 8.3.1 and 5.6.6)" in str(found)


def test_a_media_type_has_its_essence_in_lower_case() -> None:
    parsed = media_type("Application/JSON ; Charset=UTF-8")
    assert isinstance(parsed, MediaType)
    assert parsed.essence == "application/json"
    assert parsed.parameters == (("charset", "UTF-8"),)


# ------------------------------------------------------------------ HTTP-date and Retry-After

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC).timestamp()


def test_an_imf_fixdate_is_read_in_utc() -> None:
    assert http_date("Sun, 06 Nov 1994 08:49:37 GMT") == datetime(
        1994, 11, 6, 8, 49, 37, tzinfo=UTC
    )
    assert http_date("Wed, 31 Dec 2025 23:59:60 GMT") == datetime(
        2025, 12, 31, 23, 59, 59, tzinfo=UTC
    )  # a leap second


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("Sunday, 06-Nov-94 08:49:37 GMT", "an rfc850-date"),
        ("Sun Nov  6 08:49:37 1994", "an asctime-date"),
        ("Sun, 6 Nov 1994 08:49:37 GMT", "not a date of the form"),
        ("Sun, 06 Nov 1994 08:49:37 UTC", "not a date of the form"),
        ("Sun, 06 Nov 1994 08:49:37 +0000", "not a date of the form"),
        ("sun, 06 nov 1994 08:49:37 GMT", "not a date of the form"),  # case-sensitive
        ("Sun, 06 Nov 1994 08:49 GMT", "not a date of the form"),
        ("1994-11-06T08:49:37Z", "not a date of the form"),
        ("Mon, 31 Feb 2026 08:49:37 GMT", "there is no day 31 in Feb 2026"),
        ("Mon, 02 Feb 2026 24:00:00 GMT", "out of range"),
        ("Mon, 02 Feb 2026 23:60:00 GMT", "out of range"),
    ],
)
def test_dates_a_sender_must_not_send(value: str, detail: str) -> None:
    found = http_date(value, "Retry-After")
    assert isinstance(found, Problem), found
    assert found.rule is IMF_FIXDATE
    assert detail in found.detail
    assert "IMF-fixdate (RFC 9110 section 5.6.7)" in str(found)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("0", 0.0),
        ("1", 1.0),
        ("120", 120.0),
        ("007", 7.0),
        ("Thu, 01 Jan 2026 12:00:30 GMT", 30.0),
        ("Thu, 01 Jan 2026 11:59:00 GMT", 0.0),  # in the past: no wait, never below 0
    ],
)
def test_retry_after_seconds(value: str, seconds: float) -> None:
    assert retry_after(value, now=NOW) == seconds


def test_retry_after_of_a_date_counts_from_the_current_time_by_default() -> None:
    found = retry_after("Sun, 06 Nov 1994 08:49:37 GMT")
    assert found == 0.0
    assert retry_after("9" * 400, now=NOW) == float("inf")  # no overflow


@pytest.mark.parametrize(
    ("value", "rule", "detail"),
    [
        ("soon", RETRY_AFTER, "neither delay-seconds"),
        ("1.5", RETRY_AFTER, "neither delay-seconds"),
        ("-1", RETRY_AFTER, "neither delay-seconds"),
        ("+3", RETRY_AFTER, "neither delay-seconds"),
        ("3s", RETRY_AFTER, "neither delay-seconds"),
        ("\u0663", RETRY_AFTER, "neither delay-seconds"),  # an Arabic-Indic digit is no DIGIT
        ("", RETRY_AFTER, "neither delay-seconds"),
        ("Thursday, 01-Jan-26 12:00:30 GMT", IMF_FIXDATE, "an rfc850-date"),
        ("Thu Jan  1 12:00:30 2026", IMF_FIXDATE, "an asctime-date"),
        (" 3", FIELD_VALUE, "leading or trailing whitespace"),
    ],
)
def test_retry_after_values_refused(value: str, rule: object, detail: str) -> None:
    found = retry_after(value, now=NOW)
    assert isinstance(found, Problem), found
    assert found.field == "Retry-After"
    assert found.rule is rule
    assert detail in found.detail


# ------------------------------------------------------------------ by field name


def test_every_grammar_is_listed_by_field_name() -> None:
    assert set(GRAMMARS) == {"etag", "if-none-match", "content-type", "retry-after"}
    assert {rule.field for rule in RULES} >= {"ETag", "Content-Type", "Retry-After"}
    for rule in RULES:
        assert rule.section.startswith("RFC 9110 section")
        assert rule.name in rule.expected and rule.abnf in rule.expected


@pytest.mark.parametrize(
    ("name", "value", "broken"),
    [
        ("ETag", '"x"', False),
        ("etag", "x", True),
        ("Content-Type", "application/json; charset=utf-8", False),
        ("CONTENT-TYPE", "application/json; charset", True),
        ("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT", False),
        ("Retry-After", "Sunday, 06-Nov-94 08:49:37 GMT", True),
        ("If-None-Match", "*", False),
        ("Server", "anything at all", False),  # no grammar known: a plain field value
        ("Server", "a\x01b", True),
    ],
)
def test_problem_of_judges_a_field_by_its_name(name: str, value: str, broken: bool) -> None:
    found = problem_of(name, value)
    assert (found is not None) == broken
    if found is not None and name.lower() == "server":
        assert found.field == "Server"


# ------------------------------------------------------------------ as the scenarios read them


def test_media_problem_names_the_rule_or_the_media_type() -> None:
    assert media_problem({"content-type": "application/json"}) is None
    assert media_problem({"content-type": 'application/JSON ; charset="UTF-8"'}) is None
    assert media_problem({}) == "no Content-Type"
    assert media_problem({"content-type": "text/plain"}) == (
        "Content-Type 'text/plain': media type text/plain"
    )
    broken = media_problem({"content-type": "application/json; charset"})
    assert broken is not None and "media-type (RFC 9110 sections 8.3.1 and 5.6.6)" in broken
    assert "media-type" in media_expected() and "RFC 9110" in media_expected()
