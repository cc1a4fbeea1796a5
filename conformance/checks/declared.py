"""Expectations that come from a profile key: a miss names the key, and the value that would
declare what the target did when that is a consistent alternative (never a pass).

The specification leaves many statuses and names open; the target profile declares them. When a
target answers another status of the same class (a 404 where the profile says 403, a 200 where it
says 201), it may be a correct server whose profile does not say so yet: the failure stays a
failure, and its expectation tells the implementer which key to set, to what.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TypeAlias

from conformance.checks import expect, violation
from conformance.errors import ContractViolation
from conformance.traffic.transcript import Reply


def _statuses(declared: int | Collection[int]) -> tuple[int, ...]:
    return (declared,) if isinstance(declared, int) else tuple(sorted(set(declared)))


Kind: TypeAlias = "type | tuple[type, ...]"  # what ``isinstance`` takes


def _spelled(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_spelled(v) for v in value) + "]"
    return str(value)


def hint(key: str, value: object) -> str:
    """The sentence that tells an implementer how to declare ``value`` for ``key``."""
    return f"if that is your server's choice, declare it in the profile: {key}: {_spelled(value)}"


def status_expectation(key: str, declared: int | Collection[int]) -> str:
    """'HTTP 403 (profile errors.forbidden_status)'."""
    wanted = " or ".join(str(s) for s in _statuses(declared))
    return f"HTTP {wanted} (profile {key})"


def status_received(reply: Reply, key: str, declared: int | Collection[int]) -> str:
    """What the reply shows, with the hint when its status is another of the declared one's
    class (both 2xx, or both 4xx)."""
    wanted = _statuses(declared)
    received = reply.describe()
    if any(reply.status // 100 == s // 100 for s in wanted) and reply.status not in wanted:
        alternative: int | list[int] = reply.status if isinstance(declared, int) else [reply.status]
        received += f" ({hint(key, alternative)})"
    return received


def status_miss(
    reply: Reply, key: str, declared: int | Collection[int], ids: Sequence[str], title: str
) -> ContractViolation:
    """The violation of a reply whose status is not the declared one."""
    received = status_received(reply, key, declared)
    return violation(ids, title, status_expectation(key, declared), received, reply)


def expect_declared_status(
    reply: Reply, key: str, declared: int | Collection[int], ids: Sequence[str], title: str
) -> None:
    """The reply's status is the one the profile declares under ``key``."""
    if reply.status not in _statuses(declared):
        raise status_miss(reply, key, declared, ids, title)


def field_received(body: object, key: str, name: str, described: str, kind: Kind = object) -> str:
    """``described`` (what the answer shows), with the fields of ``kind`` the body has instead of
    ``name`` named as candidates for ``key``."""
    if isinstance(body, dict) and not isinstance(body.get(name), kind):
        candidates = [k for k, v in body.items() if isinstance(v, kind) and k != name]
        if candidates:
            listed = ", ".join(map(repr, candidates[:8]))
            return f"{described} (fields present: {listed}; {hint(key, '<the one that holds it>')})"
    return described


def expect_declared_field(
    body: object,
    key: str,
    name: str,
    ids: Sequence[str],
    title: str,
    reply: Reply | None = None,
    kind: Kind = object,
) -> None:
    """``body`` is an object with the field ``name`` the profile declares under ``key`` (of
    ``kind``); when it is missing, the fields the body has are named as candidates."""
    if isinstance(body, dict) and isinstance(body.get(name), kind):
        return
    described = reply.describe() if reply is not None else repr(body)[:300]
    received = field_received(body, key, name, described, kind)
    expect(False, ids, title, f"a field {name!r} (profile {key})", received, reply)
