"""The drop-in level: differences from conventions a profile does not declare, noted per test.

An expectation that rests on a profile key takes the key's value. When the profile writes the key
(or says ``conventions: production``) the value is the target's own declaration and a miss is an
interface failure. When the value is only the key's default (a production convention), a miss is
a *difference*: the target may fill the gap its own way and still implement the interface. What
the interface says can still be judged (a status of the same class, a JSON body) and is; the
difference is noted here, and the run's reports list it with the key that would declare it.

``NOTEBOOK`` collects the differences of the test in progress (``conformance.run.plugin`` opens it
before each test and takes its notes into the test's record); nothing is noted while it is shut.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from conformance.catalogue.requirements import sections_of
from conformance.errors import ConventionMiss
from conformance.traffic.transcript import Reply
from conformance.verdict.difference import Difference


class Notebook:
    """The differences noted since ``open`` (thread-safe: drivers may check from threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._notes: list[Difference] | None = None

    def open(self) -> None:
        with self._lock:
            self._notes = []

    def note(self, difference: Difference) -> None:
        with self._lock:
            if self._notes is not None:
                self._notes.append(difference)

    def close(self) -> tuple[Difference, ...]:
        with self._lock:
            notes, self._notes = self._notes or [], None
        return tuple(notes)


NOTEBOOK = Notebook()


def spelled(value: object) -> str:
    """A profile value as a reader writes it in the profile."""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(spelled(v) for v in value) + "]"
    return str(value)


def differs(
    ids: Sequence[str], key: str, convention: object, received: str, title: str, reply: Reply | None
) -> None:
    """Note that the target departs from the convention ``key`` defaults to (a setup step, with
    no requirement of its own, notes nothing: the scenario that judges the step notes it)."""
    if not ids:
        return
    NOTEBOOK.note(
        Difference(
            requirement_ids=tuple(ids),
            key=key,
            convention=spelled(convention),
            received=received,
            title=title,
            curl=reply.curl if reply is not None else None,
        )
    )


def miss(
    ids: Sequence[str],
    key: str,
    convention: object,
    received: str,
    title: str,
    reply: Reply | None = None,
) -> ConventionMiss:
    """The violation of an undeclared convention the test cannot go past (a field it must read):
    its requirements are not judged at the interface level, and the difference is listed."""
    return ConventionMiss(
        ids,
        title,
        f"{convention!r} (the default of {key}, a convention the profile does not declare)",
        received,
        reply.curl if reply is not None else None,
        sections_of(ids),
        key=key,
        convention=spelled(convention),
    )
