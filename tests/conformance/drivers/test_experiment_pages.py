"""RFC 8288 next links and list names (``conformance.drivers.experiment_pages``)."""

from __future__ import annotations

import httpx
import pytest

from conformance.drivers.experiment_pages import list_name, next_link
from conformance.traffic.transcript import Reply
from conformance.verdict.evidence import Exchange


def _reply(*links: str) -> Reply:
    headers = httpx.Headers([("link", value) for value in links])
    exchange = Exchange("GET", "http://127.0.0.1:1/e", {}, None, 200, {}, "{}", 1.0)
    return Reply(200, headers, b"{}", exchange, "curl ...")


@pytest.mark.parametrize(
    ("headers", "wanted"),
    [
        (['</e?cursor=2&limit=5>; rel="next"'], ("/e", [("cursor", "2"), ("limit", "5")])),
        (["<https://h/e?page=3>; rel=next"], ("/e", [("page", "3")])),
        (['</e?p=1>; rel="prev", </e?p=3>; rel="next"'], ("/e", [("p", "3")])),
        (
            ['</e?p=1>; rel="prev"', '</e?p=3>; title="a; b, c"; REL="last NEXT"'],
            ("/e", [("p", "3")]),
        ),
        (['</e?p=1>; rel="prev"'], None),
        ([], None),
        (['</e?p=9>; rel="nextish"'], None),
    ],
)
def test_next_link(headers: list[str], wanted: object) -> None:
    assert next_link(_reply(*headers)) == wanted


def test_list_names() -> None:
    assert list_name("") == "experiments"
    assert list_name("/analytics-catalog") == "analytics-catalog"
    assert list_name("/12/members") == "members"
    assert list_name("/12/assignments") == "assignments"
