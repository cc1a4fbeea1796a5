"""A body in evidence is its first 2 KB, the cut said once with the full length."""

from __future__ import annotations

from conformance.report.body_cut import BODY_BYTES, cut, cut_exchange, cut_optional
from conformance.verdict.evidence import Exchange

BIG = '{"configurations": [' + ", ".join(['{"id": 1}'] * 5000) + "]}"


def test_a_small_body_is_kept_whole() -> None:
    assert cut("{}") == "{}"
    assert cut("x" * BODY_BYTES) == "x" * BODY_BYTES
    assert cut_optional(None) is None and cut_optional("") == ""


def test_a_large_body_keeps_its_first_bytes_and_says_its_length() -> None:
    shown = cut(BIG)
    assert shown.startswith(BIG[:BODY_BYTES])
    assert shown.endswith(f"… ({len(BIG):,} bytes, first 2,048 shown)")
    assert len(shown) < BODY_BYTES + 60


def test_a_cut_body_is_not_cut_again_and_keeps_its_full_length() -> None:
    once = cut(BIG)
    assert cut(once) == once
    smaller = cut(once, 100)
    assert smaller.endswith(f"({len(BIG):,} bytes, first 100 shown)")
    assert smaller.count("bytes, first") == 1


def test_no_character_is_split() -> None:
    shown = cut("é" * 3000, 101)  # two bytes each
    assert shown.startswith("é" * 50 + "…")
    assert shown.endswith("(6,000 bytes, first 100 shown)")


def test_an_exchange_has_both_bodies_cut() -> None:
    exchange = Exchange("PATCH", "http://t/x", {}, BIG, 200, {}, BIG, 1.0)
    cut_one = cut_exchange(exchange)
    assert cut_one.request_body == cut_one.response_body == cut(BIG)
    small = Exchange("GET", "http://t/x", {}, None, 200, {}, "{}", 1.0)
    assert cut_exchange(small) is small
