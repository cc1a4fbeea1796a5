"""The options a scenario passes through a driver to one management or SDK call.

``ManagementOptions`` are the keyword arguments of ``Client.management`` a driver method passes
on (``**options: Unpack[ManagementOptions]``); an SDK call's are the traffic client's own
``SdkCallOptions``. ``Environment`` names an environment as a call takes it:
an alias, an id, or None to send none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias, TypedDict

Environment: TypeAlias = "str | int | None"


class ManagementOptions(TypedDict, total=False):
    """Keyword arguments of ``Client.management`` besides the method, path and body."""

    environment: Environment
    token: str | None
    headers: Mapping[str, str] | None
    params: Mapping[str, str] | None
    application_id: int | None
    allow_rate_limit: bool
    allow_server_error: bool
