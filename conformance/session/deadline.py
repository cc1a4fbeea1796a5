"""The run deadline: a hostile or very slow target cannot keep a run busy forever.

``--run-deadline SECONDS`` (default 30 minutes) counts from the start of the pytest run, on the
controller; xdist workers share its end as a wall-clock time. Once it has passed, no further
conformance test starts: each fails at setup with the note "the run deadline of N s passed", so the
verdict cannot be green, and the session ends normally, its reports written. A test already running
is bounded by the client's own per-request limits.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

DEFAULT_SECONDS = 1800.0


def seconds_option(text: str) -> float:
    """The option's value: a positive number of seconds."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: the run deadline must be a positive number")
    return seconds


@dataclass(frozen=True)
class RunDeadline:
    seconds: float
    ends_at: float  # ``time.time()`` at which it passes (comparable across processes)

    @classmethod
    def starting_now(cls, seconds: float) -> RunDeadline:
        return cls(seconds, time.time() + seconds)

    def passed(self) -> bool:
        return time.time() >= self.ends_at

    @property
    def note(self) -> str:
        return f"the run deadline of {self.seconds:g} s passed"
