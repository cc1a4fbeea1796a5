"""The suite's own fuzz checks, one answer at a time: ETag, 304, error bodies, Retry-After and
content types judged against the profile and the header grammars. No target, no sockets."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.profile.building import build
from conformance.profile.defaults import DEFAULTS
from conformance.stages.fuzz.response_checks import RuleFailure
from tests.conformance.stages.fuzz.conftest import PAT, operation, response, run_check, status_case

# ------------------------------------------------------------------ the suite's own checks


def test_etag_must_equal_body_hash(profile: Any, schema: Any) -> None:
    case = status_case(schema)
    good = response(200, b'{"hash": "abc"}', {"ETag": '"abc"'})
    assert run_check("etag_equals_body_hash", profile, case, good) is True
    weak = response(200, b'{"hash": "abc"}', {"ETag": 'W/"abc"'})
    assert run_check("etag_equals_body_hash", profile, case, weak) is True
    for bad in (
        response(200, b'{"hash": "abc"}', {"ETag": '"abd"'}),
        response(200, b'{"hash": "abc"}'),
    ):
        with pytest.raises(RuleFailure) as caught:
            run_check("etag_equals_body_hash", profile, case, bad)
        assert caught.value.requirement_ids == ("SDK-STATUS-ETAG-EQUALS-HASH",)


def test_etag_check_ignores_other_operations(profile: Any, schema: Any) -> None:
    case = operation(schema, "GET", "/application/{applicationId}/v2/experiments").Case()
    assert run_check("etag_equals_body_hash", profile, case, response(200, b"{}")) is None


def test_not_modified_must_be_empty(profile: Any, schema: Any) -> None:
    case = status_case(schema)
    assert run_check("not_modified_has_no_body", profile, case, response(304)) is True
    with pytest.raises(RuleFailure):
        run_check("not_modified_has_no_body", profile, case, response(304, b"{}"))


def test_error_body_uses_the_profile_field_names(profile: Any, schema: Any) -> None:
    case = status_case(schema)
    ok = response(400, b'{"errorCode": "INVALID", "message": "bad"}')
    assert run_check("error_body_shape", profile, case, ok) is True
    for body in (
        b'{"code": "INVALID", "message": "bad"}',
        b"oops",
        b"",
        b'{"errorCode": 1, "message": ""}',
    ):
        with pytest.raises(RuleFailure) as caught:
            run_check("error_body_shape", profile, case, response(400, body))
        assert caught.value.requirement_ids == ("ERR-BODY-SHAPE",)
    other = DEFAULTS["errors"] | {"code_field": "code"}
    data = json.loads(json.dumps(DEFAULTS))
    data["errors"] = other
    data["credentials"] = {"pat": PAT, "sdk_keys": [{"key": "k", "environments": ["development"]}]}
    data["project"] = {"application_id": 1, "environments": {"development": 1}}
    renamed = build(data)
    assert run_check(
        "error_body_shape", renamed, case, response(400, b'{"code": "X", "message": "m"}')
    )


LIMITED = b'{"errorCode": "RATE_LIMITED", "message": "m"}'


def test_rate_limited_needs_retry_after(profile: Any, schema: Any) -> None:
    case = status_case(schema)
    for value in ("3", "Wed, 21 Oct 2015 07:28:00 GMT", "soon"):  # its grammar: the next test
        reply = response(429, LIMITED, {"Retry-After": value})
        assert run_check("rate_limited_has_retry_after", profile, case, reply) is True
    with pytest.raises(RuleFailure):
        run_check("rate_limited_has_retry_after", profile, case, response(429, b"{}"))


def test_retry_after_is_judged_by_its_grammar(profile: Any, schema: Any) -> None:
    case = status_case(schema)
    for value in ("3", "0", "Wed, 21 Oct 2015 07:28:00 GMT"):
        reply = response(429, LIMITED, {"Retry-After": value})
        assert run_check("retry_after_grammar", profile, case, reply) is True
    assert run_check("retry_after_grammar", profile, case, response(429, LIMITED)) is None
    for value, rule in (
        ("soon", "Retry-After (RFC 9110 section 10.2.3)"),
        ("1.5", "Retry-After (RFC 9110 section 10.2.3)"),
        ("Wednesday, 21-Oct-15 07:28:00 GMT", "IMF-fixdate (RFC 9110 section 5.6.7)"),
        ("Wed Oct 21 07:28:00 2015", "IMF-fixdate (RFC 9110 section 5.6.7)"),
    ):
        reply = response(429, LIMITED, {"Retry-After": value})
        with pytest.raises(RuleFailure) as caught:
            run_check("retry_after_grammar", profile, case, reply)
        assert caught.value.requirement_ids == ("LIMIT-RATE-429-RETRY-AFTER",)
        assert rule in caught.value.title and value in caught.value.message
    # Only where a requirement reads it: a 503's Retry-After, another operation's.
    assert (
        run_check("retry_after_grammar", profile, case, response(503, b"{}", {"Retry-After": "x"}))
        is None
    )


def test_an_etag_the_suite_reads_is_an_entity_tag(profile: Any, schema: Any) -> None:
    status, boot = status_case(schema), operation(schema, "GET", "/sdk/v2/bootstrap").Case()
    body = b'{"hash": "abc"}'
    for value in ('"abc"', 'W/"abc"', '"other"'):  # the value is etag_equals_body_hash's
        assert run_check("etag_grammar", profile, status, response(200, body, {"ETag": value}))
    assert run_check("etag_grammar", profile, status, response(200, body)) is None
    for case, status_code, rid in (
        (status, 200, "SDK-STATUS-ETAG-EQUALS-HASH"),
        (status, 304, "SDK-STATUS-304-ETAG"),
        (boot, 200, "SDK-BOOTSTRAP-ETAG-EQUALS-HASH"),
    ):
        for value in ("abc", '"a b"', 'w/"abc"', '"abc", "abd"'):
            reply = response(status_code, body if status_code == 200 else b"", {"ETag": value})
            with pytest.raises(RuleFailure) as caught:
                run_check("etag_grammar", profile, case, reply)
            assert caught.value.requirement_ids == (rid,)
            assert "entity-tag (RFC 9110 section 8.8.3)" in caught.value.title
    # An unquoted ETag equal to the hash is the grammar's business, not the value check's.
    unquoted = response(200, body, {"ETag": "abc"})
    assert run_check("etag_equals_body_hash", profile, status, unquoted) is True
    # Not read by any requirement: a bootstrap 304's, an error's.
    assert run_check("etag_grammar", profile, boot, response(304, b"", {"ETag": "x"})) is None
    assert run_check("etag_grammar", profile, status, response(400, b"{}", {"ETag": "x"})) is None


def test_every_content_type_is_a_media_type(profile: Any, schema: Any) -> None:
    listing = operation(schema, "GET", "/application/{applicationId}/v2/experiments").Case()
    status = status_case(schema)
    for value in ("application/json", "application/JSON ; charset=UTF-8", "text/plain;"):
        reply = response(200, b"{}", {"Content-Type": value})
        assert run_check("content_type_grammar", profile, listing, reply) is True
    assert run_check("content_type_grammar", profile, listing, response(304)) is None
    for case, rid in (
        (listing, "EXP-RESPONSE-CONTENT-TYPE-JSON"),
        (status, "SDK-STATUS-200-SNAPSHOT"),
    ):
        for value in ("application/json; charset", "application/json; charset = utf-8", "json"):
            reply = response(200, b"{}", {"Content-Type": value})
            with pytest.raises(RuleFailure) as caught:
                run_check("content_type_grammar", profile, case, reply)
            assert caught.value.requirement_ids == (rid,)
            assert "media-type (RFC 9110 sections 8.3.1 and 5.6.6)" in caught.value.title
