"""The failures a fuzz run notes: each distinct one, its level, its count, the requests behind it.

``Sent`` is a cheap snapshot of one request taken when a failure is noted (the case object is
reused and re-aimed, so its headers are copied); nothing is encoded until the test ends and the
corpus keeps the last one (``corpus.capture``). ``SeenFailure`` is one distinct failure:
(operation, mode, check), a check's failures kept apart by level so that a drop-in difference
seen first does not hide a real failure of the same check. ``Failures`` holds a run's, by key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from conformance.stages.fuzz.failure_level import INTERFACE, Judged

if TYPE_CHECKING:
    from schemathesis import Response
    from schemathesis.generation.meta import CaseMetadata
    from schemathesis.specs.openapi.schemas import OpenApiCase

# (operation, mode, check): the check with "@<level>:<key>" when it is no interface failure.
FailureKey = tuple[str, str, str]


@dataclass(frozen=True, repr=False)  # the headers hold the credentials sent
class Sent:
    """One request as it was sent, and the response it got."""

    operation_id: str
    method: str
    path: str
    headers: dict[str, object]
    path_parameters: dict[str, object]
    query: dict[str, object]
    body: object
    has_body: bool
    media_type: str | None
    meta: CaseMetadata | None
    response: Response

    @classmethod
    def of(cls, operation_id: str, case: OpenApiCase, response: Response) -> Sent:
        from schemathesis.core import NOT_SET

        return cls(
            operation_id=operation_id,
            method=str(case.method),
            path=str(case.operation.path),
            headers=dict(case.headers or {}),
            path_parameters=dict(case.path_parameters or {}),
            query=dict(case.query or {}),
            body=case.body,
            has_body=case.body is not NOT_SET,
            media_type=case.media_type,
            meta=case.meta,
            response=response,
        )


@dataclass
class SeenFailure:
    """One distinct failure: (operation, mode, check) seen at least once."""

    operation_id: str
    mode: str
    check: str
    requirement_ids: tuple[str, ...]
    doubt: str | None  # "not-shown" / "inferred": only a gap of the contract is touched
    title: str
    message: str
    curl: str
    status: int | None
    count: int = 1
    # What the corpus keeps: the last request that failed (the shrunk one), or for a stateful
    # failure the shortest call sequence that ended in it.
    sent: list[Sent] = field(default_factory=list)
    chained: bool = False  # ``sent`` is a stateful call sequence (``Failures.keep_chain``)
    # The level of the constraint it breaks (``failure_level.judge``): an interface one fails
    # its requirements, a drop-in one is a difference from a convention, a doubt a spec-doubt.
    judged: Judged = field(default_factory=lambda: Judged(INTERFACE))

    @property
    def real(self) -> bool:
        """Whether it fails its requirements (an interface constraint broken)."""
        return self.doubt is None and self.judged.level == INTERFACE

    @property
    def key(self) -> FailureKey:
        """Where a run keeps it: its check's failures apart by level (and key)."""
        level = self.judged
        suffix = "" if level.level == INTERFACE else f"@{level.level}:{level.key}"
        return (self.operation_id, self.mode, self.check + suffix)


class Failures(dict[FailureKey, SeenFailure]):
    """Every distinct failure a run noted, by ``FailureKey``, in the order first seen."""

    def note(self, seen: SeenFailure) -> bool:
        """Remember one failure; return whether it is real (an interface constraint broken).
        Seen again, it counts once more and keeps the last request, curl line, message and
        status (the one Hypothesis shrank to: the simplest reproduction); a stateful failure
        keeps the call sequence ``keep_chain`` gave it."""
        known = self.setdefault(seen.key, seen)
        if known is not seen:
            known.count += 1
            if not known.chained:
                known.sent = seen.sent
            known.curl, known.message, known.status = seen.curl, seen.message, seen.status
            known.doubt = known.doubt if known.doubt is None else seen.doubt
        return known.real

    def keep_chain(self, key: FailureKey, chain: list[Sent]) -> None:
        """Keep ``chain`` (the calls a stateful failure needs) if it is the shortest yet."""
        seen = self.get(key)
        if seen is not None and chain and (not seen.chained or len(chain) < len(seen.sent)):
            seen.sent, seen.chained = chain, True

    def of(self, operation_id: str | None, modes: tuple[str, ...]) -> list[SeenFailure]:
        """The failures of one operation (None: any) in ``modes``, in the order first seen."""
        return [
            seen
            for (op, mode, _check), seen in self.items()
            if operation_id in (None, op) and mode in modes
        ]

    def real_lines(self, kind: str, operation_id: str | None = None) -> list[str]:
        """One line per distinct real (not spec-doubt) failure noted under ``kind`` (for one
        operation; None: any)."""
        return [
            f"[{seen.check}] {seen.operation_id}: {seen.title} (x{seen.count})"
            for seen in self.values()
            if seen.mode == kind and seen.real and operation_id in (None, seen.operation_id)
        ]
