"""Reusable assertions: each raises a ``ContractViolation``: rule, expected, received, curl."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from conformance.catalogue.requirements import sections_of
from conformance.errors import ConformanceError, ContractViolation
from conformance.oracles.header_grammar import MEDIA_TYPE, Problem, media_type
from conformance.traffic.transcript import Reply


def violation(
    ids: Sequence[str], title: str, expected: str, received: str, reply: Reply | None = None
) -> ContractViolation:
    return ContractViolation(
        ids, title, expected, received, reply.curl if reply else None, sections_of(ids)
    )


def expect(
    ok: bool,
    ids: Sequence[str],
    title: str,
    expected: str,
    received: str,
    reply: Reply | None = None,
) -> None:
    """Raise a violation of ``ids`` unless ``ok``."""
    if not ok:
        raise violation(ids, title, expected, received, reply)


def expect_status(
    reply: Reply, statuses: int | Collection[int], ids: Sequence[str], title: str
) -> None:
    wanted = {statuses} if isinstance(statuses, int) else set(statuses)
    expect(
        reply.status in wanted,
        ids,
        title,
        "HTTP " + " or ".join(str(s) for s in sorted(wanted)),
        reply.describe(),
        reply,
    )


def json_object(
    reply: Reply, ids: Sequence[str] = (), what: str = "a JSON object"
) -> dict[str, Any]:
    body = reply.json(ids, what)
    expect(isinstance(body, dict), ids, f"body is not {what}", what, reply.describe(), reply)
    result: dict[str, Any] = body
    return result


JSON_MEDIA = "application/json"


def media_expected(essence: str = JSON_MEDIA) -> str:
    """The ``expected`` line of a Content-Type check."""
    return f"Content-Type {essence} (any case, any parameters), a {MEDIA_TYPE.expected}"


def media_problem(headers: Mapping[str, str], essence: str = JSON_MEDIA) -> str | None:
    """None when ``Content-Type`` is a media-type (RFC 9110 8.3.1) whose type and subtype are
    ``essence`` (compared in lower case, whatever its parameters); else what was received,
    naming the grammar rule when the value breaks it. ``headers``: lower-case names."""
    value = headers.get("content-type")
    if value is None:
        return "no Content-Type"
    parsed = media_type(value)
    if isinstance(parsed, Problem):
        return str(parsed)
    if parsed.essence != essence:
        return f"Content-Type {value!r}: media type {parsed.essence}"
    return None


def is_json_media(essence: str) -> bool:
    """Whether a media type's essence (lower case) names JSON: ``application/json`` or a type
    with the ``+json`` structured syntax suffix (RFC 6838 4.2.8), such as
    ``application/problem+json`` (RFC 9457)."""
    kind, _, subtype = essence.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


def json_media_problem(headers: Mapping[str, str]) -> tuple[str | None, str | None]:
    """``(problem, essence)`` of an answer that must carry "a JSON body": ``problem`` is None
    when ``Content-Type`` is a media-type (RFC 9110 8.3.1) naming JSON (``is_json_media``), else
    what was received; ``essence`` is the media type received (None when it does not parse), so
    that a caller can hold it to the exact convention, ``application/json``."""
    value = headers.get("content-type")
    if value is None:
        return "no Content-Type", None
    parsed = media_type(value)
    if isinstance(parsed, Problem):
        return str(parsed), None
    if not is_json_media(parsed.essence):
        return f"Content-Type {value!r}: media type {parsed.essence}, not JSON", parsed.essence
    return None, parsed.essence


def json_media_expected() -> str:
    """The ``expected`` line of a check that takes any JSON media type."""
    return (
        "Content-Type application/json or another JSON media type (application/*+json, "
        f"RFC 6838 4.2.8; any case, any parameters), a {MEDIA_TYPE.expected}"
    )


def strip_quotes(etag: str) -> str:
    """The opaque part of an entity tag: W/ and the double quotes removed."""
    value = etag.strip()
    if value.startswith("W/"):
        value = value[2:]
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return value


class IndependentChecks:
    """Collects several independent checks of one scenario; raises once, for the broken ids only.

    ``with IndependentChecks() as independent: independent.check(ok, ids, ...)``. Ids checked
    without a break are reported as passed even when another check of the same scenario broke.
    """

    def __init__(self) -> None:
        self.broken: list[ContractViolation] = []
        self.checked: list[str] = []

    def check(
        self,
        ok: bool,
        ids: Sequence[str],
        title: str,
        expected: str,
        received: str,
        reply: Reply | None = None,
    ) -> bool:
        self.checked.extend(ids)
        if not ok:
            self.broken.append(violation(ids, title, expected, received, reply))
        return ok

    def __enter__(self) -> IndependentChecks:
        return self

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        """Raise the recorded breaks as one violation, even while another error is in flight.

        A violation in flight joins the recorded ones. Any other ``ConformanceError`` in flight
        (a later call not measurable) is chained as the cause: the recorded breaks still fail,
        and the ids the block never reached stay not measurable (``verdict.classification``).
        A crash of the suite's own code propagates unchanged (every id fails)."""
        if not self.broken:
            return
        if error is not None and not isinstance(error, ConformanceError):
            return
        broken = list(self.broken)
        if isinstance(error, ContractViolation):
            broken += list(error.parts) or [error]
        held = list(self.checked)
        if isinstance(error, ContractViolation):
            held += error.passed_ids
        combined = ContractViolation.combined(broken, held)
        if isinstance(error, BaseException):
            raise combined from error
        raise combined


def expect_4xx(reply: Reply, ids: Sequence[str], title: str) -> None:
    """The request was refused as the client's fault (any 4xx)."""
    expect(400 <= reply.status < 500, ids, title, "a 4xx", reply.describe(), reply)
