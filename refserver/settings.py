"""Server settings: every knob of ``refserver serve`` with its documented default."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MAX_BODY_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Settings:
    """What one server instance is configured with (see docs/reference-choices.md)."""

    db_path: Path = Path("refserver.db")
    rate_burst: int = 60  # tokens a fresh bucket holds
    rate_refill: float = 30.0  # tokens added per second
    rate_scope: str = "key-and-instance"  # one bucket per key and instance, or "instance" alone
    shed_threshold: int = 150  # SDK requests in the trailing second above which we shed
    force_shedding: bool = False  # always shed (deterministic tests)
    shed_interval_seconds: int = 30
    shed_jitter_ratio: float = 0.2
    max_body_bytes: int = MAX_BODY_BYTES
    provision: bool = True  # provision the demo data on a fresh database
