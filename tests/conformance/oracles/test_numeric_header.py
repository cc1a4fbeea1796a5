"""The numeric header's grammars (oracles/numeric_header.py): what each reads, and the values no
reader takes (refused at the interface level whatever a profile declares)."""

from __future__ import annotations

import pytest

from conformance.oracles.numeric_header import (
    DECIMAL_DIGITS,
    JAVASCRIPT_NUMBER,
    MAX_SAFE,
    reads_in_bounds,
    some_reader_takes,
)

NO_READER = ("0", "-0", "-1", str(MAX_SAFE + 1), "abc", "-0x1", "Infinity", "NaN", "", " ")


@pytest.mark.parametrize("value", NO_READER)
def test_out_of_bounds_or_text_is_no_number_for_any_reader(value: str) -> None:
    assert not some_reader_takes(value)
    assert not reads_in_bounds(value, DECIMAL_DIGITS)
    assert not reads_in_bounds(value, JAVASCRIPT_NUMBER)


@pytest.mark.parametrize("value", ["1", "17", str(MAX_SAFE)])
def test_decimal_digits_in_bounds_for_both_grammars(value: str) -> None:
    assert reads_in_bounds(value, DECIMAL_DIGITS)
    assert reads_in_bounds(value, JAVASCRIPT_NUMBER)


@pytest.mark.parametrize(
    ("value", "javascript"),
    [("+5", True), ("0x10", True), ("0X1F", True), ("0o17", True), ("0b1", True), ("1e3", True),
     (" 5 ", True), ("1_000", False), ("٣", False)],
)  # fmt: skip
def test_other_spellings_are_the_grammars_choice(value: str, javascript: bool) -> None:
    assert not reads_in_bounds(value, DECIMAL_DIGITS)  # ASCII digits only (the convention)
    assert reads_in_bounds(value, JAVASCRIPT_NUMBER) is javascript
    if value != "٣":  # an Arabic-Indic digit: Python's int() reads it, the regex does not
        assert some_reader_takes(value)  # 1_000: Python's int(); the rest: Number()
