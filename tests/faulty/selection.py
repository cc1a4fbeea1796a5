"""Which entries of a catalogue a run takes: ``RCES_SELFTEST_ONLY`` (``conformance selftest
--only`` / ``--section``), shared by the three catalogues (servers, clients, load faults).

The value is comma-separated: exact entry names and ``section:NAME`` entries (a catalogue
without sections knows none). Empty: every entry. A name the catalogue does not hold is an
error, not an empty run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

ONLY_ENV = "RCES_SELFTEST_ONLY"
SECTION = "section:"


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


def only_from_environment() -> str:
    return os.environ.get(ONLY_ENV, "")


def selected(
    entries: Sequence[T],
    only: str,
    section_of: Callable[[T], str] | None = None,
    what: str = "fault",
) -> list[T]:
    """The entries ``only`` names, in catalogue order (``only`` empty: all of them)."""
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    if not wanted:
        return list(entries)
    names = {entry.name for entry in entries}
    sections = {w.removeprefix(SECTION) for w in wanted if w.startswith(SECTION)}
    known = {section_of(entry) for entry in entries} if section_of else set()
    unknown = [w for w in wanted if not w.startswith(SECTION) and w not in names]
    unknown += [f"{SECTION}{s}" for s in sorted(sections - known)]
    if unknown:
        raise ValueError(f"{ONLY_ENV} names no {what} called {', '.join(unknown)}")
    return [
        entry
        for entry in entries
        if entry.name in wanted or (section_of is not None and section_of(entry) in sections)
    ]
