"""Expectations that come from a profile key, at the level the profile gives them.

The specification leaves many statuses and names open; the target profile declares them. A key
the profile writes (or ``conventions: production``) is the target's declaration: a miss is an
interface failure, and when the target answered another status of the same class (a 404 where
the profile says 403, a 200 where it says 201) the failure says which key to set, to what. A key
the profile leaves at its default is only a production convention: the interface reading is
judged (a status of the convention's class; a field the test cannot go on without is not
judged), and the departure is a drop-in difference (``conformance.checks.conventions``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TypeAlias

from conformance.checks import conventions, expect, violation
from conformance.errors import ContractViolation
from conformance.profile import Profile
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


def status_expectation(
    key: str, declared: int | Collection[int], profile: Profile | None = None
) -> str:
    """'HTTP 403 (profile errors.forbidden_status)'; for a key ``profile`` does not declare,
    the interface reading too: 'HTTP 403 (...), or another 4xx: the key is a convention'."""
    wanted = " or ".join(str(s) for s in _statuses(declared))
    classes = sorted({f"{s // 100}xx" for s in _statuses(declared)})
    if profile is not None and not profile.declares(key):
        return (
            f"HTTP {wanted} (default of {key}, not declared: at the interface level "
            f"any {' or '.join(classes)})"
        )
    return f"HTTP {wanted} (profile {key})"


def status_holds(
    reply: Reply,
    profile: Profile,
    key: str,
    declared: int | Collection[int],
    ids: Sequence[str],
    title: str,
) -> bool:
    """Whether the reply's status keeps what ``key`` sets, at the interface level: the declared
    status if the profile declares the key; else any status of the convention's class, a
    status other than the convention's noted as a drop-in difference."""
    wanted = _statuses(declared)
    if reply.status in wanted:
        return True
    if profile.declares(key) or not any(reply.status // 100 == s // 100 for s in wanted):
        return False
    conventions.differs(ids, key, declared, reply.describe(), title, reply)
    return True


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
    reply: Reply,
    key: str,
    declared: int | Collection[int],
    ids: Sequence[str],
    title: str,
    profile: Profile | None = None,
) -> ContractViolation:
    """The violation of a reply whose status is not the declared one."""
    received = status_received(reply, key, declared)
    return violation(ids, title, status_expectation(key, declared, profile), received, reply)


def expect_declared_status(
    reply: Reply,
    profile: Profile,
    key: str,
    declared: int | Collection[int],
    ids: Sequence[str],
    title: str,
) -> None:
    """The reply's status keeps what the profile sets under ``key`` (``status_holds``)."""
    if not status_holds(reply, profile, key, declared, ids, title):
        raise status_miss(reply, key, declared, ids, title, profile)


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
    profile: Profile,
    key: str,
    ids: Sequence[str],
    title: str,
    reply: Reply | None = None,
    kind: Kind = object,
) -> None:
    """``body`` is an object with the field the profile names under ``key`` (of ``kind``);
    when it is missing, the fields the body has are named as candidates. A name the profile
    does not declare is a convention: its miss is a ``ConventionMiss`` (not judged at the
    interface level, listed at the drop-in level)."""
    name = str(profile.value(key))
    if isinstance(body, dict) and isinstance(body.get(name), kind):
        return
    described = reply.describe() if reply is not None else repr(body)[:300]
    received = field_received(body, key, name, described, kind)
    if isinstance(body, dict) and not profile.declares(key):
        raise conventions.miss(ids, key, name, received, title, reply)
    expect(False, ids, title, f"a field {name!r} (profile {key})", received, reply)
