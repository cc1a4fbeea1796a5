"""Which of the interface's two families a request path belongs to: an SDK call or a management
call. The one place the suite tells them apart (credentials, rate-limit buckets, the 429 judge).

SDK calls live under ``/sdk/`` (SDK keys; the bucket per key and instance id the profile's
``rate_limit`` declares); management calls under ``/application/`` (the PAT; the bucket
``management_rate_limit`` declares). Any other path is neither: it spends no declared bucket.
"""

from __future__ import annotations

from enum import StrEnum

SDK_PREFIX = "/sdk/"
MANAGEMENT_PREFIX = "/application/"


class CallKind(StrEnum):
    SDK = "sdk"
    MANAGEMENT = "management"


def call_kind(path: str) -> CallKind | None:
    """The family of ``path`` (a concrete path or an OpenAPI template); None: neither."""
    if path.startswith(SDK_PREFIX):
        return CallKind.SDK
    if path.startswith(MANAGEMENT_PREFIX):
        return CallKind.MANAGEMENT
    return None


def is_sdk_path(path: str) -> bool:
    """Whether ``path`` is an SDK call (anything else the suite sends is a management call)."""
    return call_kind(path) is CallKind.SDK
