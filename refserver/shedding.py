"""Load shedding: the SDK request rate over the trailing second, and the polling hint.

``LoadMeter.hit()`` counts one SDK request; ``shedding()`` is true while the count in the
trailing window exceeds the threshold (or always, when forced). The window is kept in ten
slots of 100 ms, so counting is O(1).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

SLOTS = 10
WINDOW_SECONDS = 1.0


class LoadMeter:
    """Counts SDK requests in the trailing one-second window."""

    def __init__(
        self,
        threshold: int,
        *,
        forced: bool = False,
        interval_seconds: int = 30,
        jitter_ratio: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold = threshold
        self.forced = forced
        self._clock = clock
        self._slot_seconds = WINDOW_SECONDS / SLOTS
        self._counts = [0] * SLOTS
        self._ticks = [-1] * SLOTS  # which 100 ms tick each slot currently counts
        self._lock = threading.Lock()
        self.hint = {"intervalSeconds": interval_seconds, "jitterRatio": jitter_ratio}
        self.hint_json = json.dumps(self.hint, separators=(",", ":")).encode()

    def hit(self) -> None:
        """Count one request now."""
        tick = int(self._clock() / self._slot_seconds)
        slot = tick % SLOTS
        with self._lock:
            if self._ticks[slot] != tick:
                self._ticks[slot] = tick
                self._counts[slot] = 0
            self._counts[slot] += 1

    def load(self) -> int:
        """Requests counted in the trailing window."""
        tick = int(self._clock() / self._slot_seconds)
        return sum(
            count
            for count, slot_tick in zip(self._counts, self._ticks, strict=True)
            if tick - SLOTS < slot_tick <= tick
        )

    def shedding(self) -> bool:
        """Whether responses should carry the polling hint now."""
        return self.forced or self.load() > self.threshold
