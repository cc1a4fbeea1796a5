"""A drop-in ``Difference``: a departure from a convention the profile does not declare."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Difference:
    """Where the target departs from a production convention its profile does not declare (a
    key's default): a drop-in difference, never an interface failure. ``key`` is the profile key
    that would declare the target's own choice."""

    requirement_ids: tuple[str, ...]
    key: str
    convention: str  # the convention's value, as the key's default has it
    received: str  # what the target did instead
    title: str
    test_id: str = ""
    curl: str | None = None
