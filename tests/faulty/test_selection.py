"""``RCES_SELFTEST_ONLY`` as each catalogue reads it (``faulty.selection``): exact names and
sections, in catalogue order; an unknown name or section is an error, never an empty run."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from faulty.selection import ONLY_ENV, only_from_environment, selected


@dataclass(frozen=True)
class Entry:
    name: str


ENTRIES = (Entry("a"), Entry("b"), Entry("escape-c"), Entry("d"))


def section(entry: Entry) -> str:
    return "escapes" if entry.name.startswith("escape-") else "defects"


def names(entries: list[Entry]) -> list[str]:
    return [e.name for e in entries]


def test_empty_takes_every_entry_and_names_keep_catalogue_order() -> None:
    assert names(selected(ENTRIES, "")) == ["a", "b", "escape-c", "d"]
    assert names(selected(ENTRIES, " , ")) == ["a", "b", "escape-c", "d"]
    assert names(selected(ENTRIES, "d, a")) == ["a", "d"]


def test_sections_and_names_add_up() -> None:
    assert names(selected(ENTRIES, "section:escapes", section)) == ["escape-c"]
    assert names(selected(ENTRIES, "section:escapes,b", section)) == ["b", "escape-c"]
    assert names(selected(ENTRIES, "section:defects", section)) == ["a", "b", "d"]


def test_an_unknown_name_or_section_is_an_error() -> None:
    with pytest.raises(ValueError, match=f"{ONLY_ENV} names no client variant called zz"):
        selected(ENTRIES, "a,zz", what="client variant")
    with pytest.raises(ValueError, match="no fault called section:nope"):
        selected(ENTRIES, "section:nope", section)
    with pytest.raises(ValueError, match="no fault called section:escapes"):
        selected(ENTRIES, "section:escapes")  # a catalogue without sections knows none


def test_the_value_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ONLY_ENV, "b")
    assert names(selected(ENTRIES, only_from_environment())) == ["b"]
    monkeypatch.delenv(ONLY_ENV)
    assert only_from_environment() == ""
