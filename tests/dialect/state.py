"""What one dialect server keeps between requests: issued hashes, rate buckets, load meter."""

from __future__ import annotations

from dataclasses import dataclass, field

from dialect.choices import (
    RATE_BURST,
    RATE_REFILL_PER_SECOND,
    SHED_THRESHOLD_PER_SECOND,
    SHED_WINDOW_SECONDS,
)
from dialect.hashes import HashTable
from dialect.throttle import Buckets, Meter


@dataclass
class DialectState:
    hashes: HashTable = field(default_factory=HashTable)
    buckets: Buckets = field(default_factory=lambda: Buckets(RATE_BURST, RATE_REFILL_PER_SECOND))
    meter: Meter = field(
        default_factory=lambda: Meter(SHED_THRESHOLD_PER_SECOND, SHED_WINDOW_SECONDS)
    )
