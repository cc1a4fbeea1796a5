"""Any JSON media type keeps "a JSON body" (RFC 6838 4.2.8 structured suffix); others do not."""

from __future__ import annotations

import pytest

from conformance.checks import is_json_media, json_media_problem


@pytest.mark.parametrize(
    "value",
    ["application/json", "Application/JSON; charset=utf-8", "application/problem+json",
     "application/vnd.api+json"],
)  # fmt: skip
def test_json_media_types_keep_a_json_body(value: str) -> None:
    problem, essence = json_media_problem({"content-type": value})
    assert problem is None
    assert essence is not None and is_json_media(essence)


@pytest.mark.parametrize(
    "value", ["text/plain", "application/jsonx", "text/json+xml", "application/json+xml", "json"]
)
def test_other_media_types_are_not_json(value: str) -> None:
    problem, _ = json_media_problem({"content-type": value})
    assert problem is not None


def test_no_content_type_is_a_problem() -> None:
    assert json_media_problem({}) == ("no Content-Type", None)
