"""Pacing: spaces the suite's own requests so they stay inside the target's rate-limit buckets."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

# The share of a bucket the suite allows itself: a margin against clock skew and refill rounding.
SHARE = 0.5


class Pacer:
    """One token bucket per target bucket key, smaller than the target's, waited on before sending.

    ``shared`` buckets (callers without an instance id share one on the target) are split between
    ``workers`` processes.
    """

    def __init__(self, burst: int, refill_per_second: float, workers: int = 1) -> None:
        self.burst = burst
        self.refill = refill_per_second
        self.workers = max(1, workers)
        self._state: dict[Hashable, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def _limits(self, shared: bool) -> tuple[float, float]:
        divisor = self.workers if shared else 1
        return max(1.0, self.burst * SHARE / divisor), self.refill * SHARE / divisor

    def wait(self, bucket: Hashable, shared: bool = False) -> float:
        """Block until one request may go to ``bucket``; return the seconds waited."""
        capacity, rate = self._limits(shared)
        with self._lock:
            now = time.monotonic()
            tokens, stamp = self._state.get(bucket, (capacity, now))
            tokens = min(capacity, tokens + (now - stamp) * rate)
            delay = 0.0 if tokens >= 1 else (1 - tokens) / rate
            self._state[bucket] = (tokens + delay * rate - 1, now + delay)
        if delay:
            time.sleep(delay)
        return delay

    def reset(self, bucket: Hashable) -> None:
        """Forget a bucket (after a test drained it on purpose and waited out Retry-After)."""
        with self._lock:
            self._state.pop(bucket, None)


class TrafficGate:
    """A lock file shared by every worker of one run. Ordinary requests hold it shared, one at a
    time; an exclusive scenario (rate-limit exhaustion, load burst, a quiet snapshot read) holds
    it alone, so no other traffic overlaps it. Without ``fcntl`` (not POSIX) the gate is open.

    Exclusive holders go first: ``flock`` grants a new shared lock while an exclusive one waits,
    so with many workers whose requests take a round trip each there is nearly always a shared
    holder, and an exclusive scenario waited 9 to 15 s (10 workers, 45 ms per request). A second
    file, the *intent*, fixes the order: the exclusive side takes it first and keeps it, every
    shared taker passes through it (taken shared and let go at once) before the gate, so once
    an exclusive scenario has announced itself, only the requests already in flight finish
    before it."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._fd: int | None = None
        self._intent_fd: int | None = None
        self._exclusive_depth = 0
        self._lock = threading.Lock()

    @classmethod
    def for_run(cls, run_id: str) -> TrafficGate:
        if fcntl is None:
            return cls(None)
        return cls(Path(tempfile.gettempdir()) / f"rces-conformance-{run_id}.gate")

    def _file(self) -> int:
        if self._fd is None:
            assert self.path is not None
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    def _intent(self) -> int:
        if self._intent_fd is None:
            assert self.path is not None
            intent = self.path.with_name(self.path.name + ".intent")
            self._intent_fd = os.open(intent, os.O_RDWR | os.O_CREAT, 0o600)
        return self._intent_fd

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Around one ordinary request; waits while an exclusive scenario runs or waits."""
        if self.path is None or fcntl is None or self._exclusive_depth:
            yield
            return
        with self._lock:
            fcntl.flock(self._intent(), fcntl.LOCK_SH)  # blocks while one is announced
            fcntl.flock(self._intent(), fcntl.LOCK_UN)
            fcntl.flock(self._file(), fcntl.LOCK_SH)
        try:
            yield
        finally:
            with self._lock:
                fcntl.flock(self._file(), fcntl.LOCK_UN)

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Around a whole scenario that must run alone (re-entrant within one process)."""
        if self.path is None or fcntl is None:
            yield
            return
        outermost = self._exclusive_depth == 0
        if outermost:
            fcntl.flock(self._intent(), fcntl.LOCK_EX)  # no new shared holder from here on
            fcntl.flock(self._file(), fcntl.LOCK_EX)  # those in flight finish
        self._exclusive_depth += 1
        try:
            yield
        finally:
            self._exclusive_depth -= 1
            if outermost:
                fcntl.flock(self._file(), fcntl.LOCK_UN)
                fcntl.flock(self._intent(), fcntl.LOCK_UN)
