"""Placeholder for per-unit bootstrap evaluation (owned by the experiments engineer, issue 4)."""

from __future__ import annotations

import sqlite3
from typing import Any


def build(
    conn: sqlite3.Connection,
    application_id: int,
    environment_id: int,
    unit_id: str,
    unit_type: str,
    context: dict[str, Any],
    base_payload: dict[str, Any],
) -> dict[str, Any]:
    """The per-unit payload; runs inside a write transaction. Placeholder: no experiments."""
    return {**base_payload, "assignments": []}
