"""What a game server sees: held configurations, the current snapshot, and a set of changes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class Configuration:
    """One configuration as held: its summary from the status snapshot and its document."""

    id: int
    name: str | None
    alias: str | None
    hash: str
    document: Any = None
    privacy: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Snapshot:
    """The state the poller holds. ``hash`` is None until the first snapshot was taken."""

    hash: str | None = None
    configurations: Mapping[int, Configuration] = field(
        default_factory=lambda: MappingProxyType({})
    )
    primary_configuration_id: int | None = None
    experiments: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    required_properties: tuple[str, ...] = ()

    def by_alias(self, alias: str) -> Configuration | None:
        """The held configuration with this alias, if any."""
        for configuration in self.configurations.values():
            if configuration.alias == alias:
                return configuration
        return None

    def document(self, alias: str, default: Any = None) -> Any:
        """The document of the configuration with this alias, or ``default``."""
        configuration = self.by_alias(alias)
        return default if configuration is None else configuration.document

    @property
    def primary(self) -> Configuration | None:
        """The primary configuration, if the snapshot names one that is held."""
        if self.primary_configuration_id is None:
            return None
        return self.configurations.get(self.primary_configuration_id)


@dataclass(frozen=True)
class Changes:
    """What one poll changed: configurations refetched (new or moved) and ones gone."""

    snapshot_hash: str
    updated: tuple[Configuration, ...] = ()
    removed: tuple[Configuration, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.updated or self.removed)
