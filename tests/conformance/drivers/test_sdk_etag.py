"""The SDK driver's reading of an ETag (``conformance.drivers.sdk``): the value it names, and a
problem that names the RFC rule broken or the opaque tag that differs."""

from __future__ import annotations

from conformance.drivers.sdk import etag_expected, etag_problem, etag_value


def test_etag_problem_names_the_rule_or_the_opaque_tag() -> None:
    assert etag_problem({"etag": '"h"'}, "h") is None
    assert etag_problem({"etag": 'W/"h"'}, "h") is None
    assert etag_problem({}, "h") == "no ETag"
    assert etag_problem({"etag": '"g"'}, "h") == "ETag '\"g\"': opaque-tag 'g'"
    unquoted = etag_problem({"etag": "h"}, "h")
    assert unquoted is not None and "entity-tag (RFC 9110 section 8.8.3)" in unquoted
    assert etag_value({"etag": 'W/"h"'}) == "h"
    assert etag_value({"etag": "h"}) is None and etag_value({}) is None
    assert "entity-tag" in etag_expected("h") and '"h"' in etag_expected("h")
