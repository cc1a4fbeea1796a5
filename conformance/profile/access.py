"""The profile's sections that reach the target: ``credentials`` and ``project``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SdkKey:
    """An entry of ``credentials.sdk_keys`` (or ``credentials.legacy_sdk_key``)."""

    key: str
    environments: tuple[str, ...]


@dataclass(frozen=True)
class Credentials:
    """``credentials``."""

    pat: str
    sdk_keys: tuple[SdkKey, ...]
    legacy_sdk_key: SdkKey | None
    foreign_sdk_key: str | None


@dataclass(frozen=True)
class Project:
    """``project``."""

    application_id: int
    environments: dict[str, int]
    foreign_application_id: int | None
    foreign_environment_id: int | None
