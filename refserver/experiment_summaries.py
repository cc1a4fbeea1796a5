"""The experiment part of an environment snapshot: ``ExperimentSummaries``.

``experiment_store.active_summaries`` produces it; ``snapshot.build`` consumes it. It lives on
its own so that neither of those modules has to import the other to name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ExperimentSummaries:
    """The experiment part of a snapshot: spec 2.5 summaries split by unit type."""

    user: list[dict[str, Any]] = field(default_factory=list)
    server: list[dict[str, Any]] = field(default_factory=list)
    # When the snapshot must be rebuilt (an experiment starts or ends), ISO 8601 UTC as
    # timestamps.format_ts writes it; None: never.
    expires_at: str | None = None
