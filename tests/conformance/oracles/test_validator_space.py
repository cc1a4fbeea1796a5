"""The sampled space of conditional validators: near misses are never the hash, forms are."""

from __future__ import annotations

import re

import pytest

from conformance.oracles.validator_space import (
    lists_without,
    matching_forms,
    near_misses,
    quoted,
)

HASHES = ["3fa9c0e1b2d4", "0", "a", "ABCdef", "9" * 64, "hash-with-dashes_and.dots"]
TAG = re.compile(r'\s*(W/)?"([^"]*)"\s*')


def tags_of(field: str) -> list[tuple[bool, str]]:
    """(weak, opaque) of each member of an If-None-Match list."""
    found = []
    for member in field.split(","):
        match = TAG.fullmatch(member)
        assert match is not None, member
        found.append((bool(match.group(1)), match.group(2)))
    return found


@pytest.mark.parametrize("current", HASHES)
def test_near_misses_are_never_the_hash_nor_empty(current: str) -> None:
    misses = near_misses(current)
    values = [value for _, value in misses]
    assert len(misses) >= 3
    assert current not in values and "" not in values
    assert len(set(values)) == len(values)


def test_near_misses_cover_the_loose_comparisons() -> None:
    labels = dict(near_misses("3fa9c0e1b2d4"))
    assert labels["all but the last character"] == "3fa9c0e1b2d"
    assert labels["with a suffix"] == "3fa9c0e1b2d40"
    assert labels["upper case"] == "3FA9C0E1B2D4"
    assert labels["last character changed"] == "3fa9c0e1b2d0"


@pytest.mark.parametrize("current", HASHES)
def test_lists_without_never_hold_the_tag(current: str) -> None:
    for _, field in lists_without(current):
        assert "," in field
        assert all(opaque != current for _, opaque in tags_of(field)), field


@pytest.mark.parametrize("current", HASHES)
def test_matching_forms_hold_the_tag_or_are_a_star(current: str) -> None:
    for label, field in matching_forms(current):
        assert field == "*" or any(opaque == current for _, opaque in tags_of(field)), label
    assert quoted(current) == f'"{current}"'
