"""What an SDK call of the ``Client`` takes: the options a caller passes on as they are
(``SdkCallOptions``), those after the path (``SdkOptions``), and ``UNSET``, "use the default",
which is not None ("omit")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Required, TypedDict


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()  # "use the default": distinct from None, which means "omit"


class SdkCallOptions(TypedDict, total=False):
    """The keywords of ``Client.sdk`` a caller passes on as they are (a driver that picks the key
    and the environment itself takes these)."""

    instance_id: str | None
    headers: Mapping[str, str] | None
    params: Mapping[str, str] | None
    allow_rate_limit: bool
    allow_server_error: bool
    pace: bool


class SdkOptions(SdkCallOptions, total=False):
    """The keywords of ``Client.sdk`` after the path (``status`` and ``bootstrap`` take them)."""

    key: Required[str | None]
    environment: str | None
