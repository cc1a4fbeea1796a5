"""The client polling rules one simulated instance follows, I/O-free: what a reply means for its
state (last hash, hint, failures) and how long it waits before the next poll.

Spec 4.3 client rules, with the observed conventions' figures: send the last hash; a 200 sets
the hint when its body carries ``polling`` and clears it when not; a 304 (no body) and a failure
keep it; after a failure the wait doubles from the cadence up to 5 minutes, never sooner than
``Retry-After`` nor than a held hint; every wait is at least the 5 s floor.

The wait after a success reads the jitter ratio in force two ways (``client.jitter_reading``'s
readings, docs/client-stage.md):

- at the own cadence, **symmetric** around it (``delay = cadence * (1 - r + 2 r U)``, the observed
  clients' formula): spec 4.3 sets no minimum there, and the fleet's mean cadence stays the
  planned one (``Plan.planned_rate``);
- under a hint, **above** ``max(cadence, intervalSeconds)`` (``delay = interval * (1 + r U)``): the
  spec says to poll no faster than intervalSeconds (4.3) and calls it a minimum interval (8.2),
  so no instance of a fleet that obeys the hint may come in early.

Locust's users drive this; unit tests drive it directly.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from conformance.oracles.json_equality import same_json

MAX_BACKOFF_S = 300.0
# One generator for every instance of a process: seeding one per instance costs more than its
# polls (an os.urandom read each), and the draws need no independence beyond a shared stream.
SHARED_RANDOM = random.Random()


@dataclass(frozen=True)
class Hint:
    interval_s: float
    jitter_ratio: float


@dataclass
class Reading:
    """What one answer said: the snapshot hash, the watched configuration's hash, the hint."""

    snapshot_hash: str | None = None
    config_hash: str | None = None
    hint: Hint | None = None
    hint_present: bool = False
    problem: str = ""  # a malformed answer (body, hint shape), empty when well formed


def jittered(interval_s: float, ratio: float, draw: float) -> float:
    """Symmetric: ``interval * (1 - r + 2 r U)`` with ``r`` clamped to [0, 1] and ``U = draw`` in
    [0, 1): the own cadence's spread."""
    r = min(1.0, max(0.0, ratio))
    return interval_s * (1 - r + 2 * r * draw)


def jittered_above(interval_s: float, ratio: float, draw: float) -> float:
    """Above: ``interval * (1 + r U)``, never below ``interval``: a hint's spread."""
    r = min(1.0, max(0.0, ratio))
    return interval_s * (1 + r * draw)


OUTSIDE_UNIT = "outside [0, 1]"  # a hint problem's words for a jitterRatio out of its range
VALUES = "polling values not usable"  # a numeric hint's problem: the values that are not


def read_hint(value: object) -> tuple[Hint | None, str]:
    """A ``polling`` object as a usable hint, and the problem with its shape (empty if none)."""
    if not isinstance(value, dict):
        return None, "polling is not an object"
    raw_interval, raw_ratio = value.get("intervalSeconds"), value.get("jitterRatio")
    if (
        not isinstance(raw_interval, int | float)
        or not isinstance(raw_ratio, int | float)
        or isinstance(raw_interval, bool)
        or isinstance(raw_ratio, bool)
    ):
        return None, "polling lacks numeric intervalSeconds and jitterRatio"
    interval, ratio = float(raw_interval), float(raw_ratio)
    problems = [f"intervalSeconds={raw_interval}"] if not interval > 0 else []
    if not 0 <= ratio <= 1:  # the range is a convention: POLL-HINT-JITTER-RATIO-RANGE
        problems.append(f"jitterRatio={raw_ratio} {OUTSIDE_UNIT}")
    if problems:
        return Hint(max(interval, 0.0), min(1.0, max(0.0, ratio))), (
            f"{VALUES}: " + ", ".join(problems)
        )
    return Hint(interval, ratio), ""


def read_snapshot(body: bytes, configuration_id: int | None) -> Reading:
    """A 200 status body: its hash, the watched configuration's entry hash, the hint."""
    try:
        data = json.loads(body)
    except ValueError:
        return Reading(problem="200 body is not JSON")
    if not isinstance(data, dict):
        return Reading(problem="200 body is not an object")
    reading = Reading(snapshot_hash=data.get("hash") if isinstance(data.get("hash"), str) else None)
    for entry in data.get("configurations") or ():
        if isinstance(entry, dict) and same_json(configuration_id, entry.get("id")):
            value = entry.get("hash")
            reading.config_hash = value if isinstance(value, str) else None
    if "polling" in data:
        reading.hint_present = True
        reading.hint, reading.problem = read_hint(data["polling"])
    return reading


def error_body_problem(
    body: bytes, content_type: str, code_field: str | None, message_field: str
) -> str:
    """Why an error answer's body is not well formed (JSON object with code and message; no
    code when ``code_field`` is None, the profile's ``errors.code_field: null``)."""
    if "json" not in content_type.lower():
        return f"error answer's Content-Type is {content_type or 'absent'}, not JSON"
    try:
        data = json.loads(body)
    except ValueError:
        return "error body is not JSON"
    if not isinstance(data, dict):
        return "error body is not an object"
    fields = [f for f in (code_field, message_field) if f is not None]
    missing = [f for f in fields if not isinstance(data.get(f), str)]
    return f"error body lacks string {', '.join(missing)}" if missing else ""


def retry_after_seconds(value: str | None) -> float | None:
    """Delta-seconds of a Retry-After header (an HTTP date counts as 1 s), None when absent."""
    if value is None:
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        return 1.0


@dataclass
class PollerState:
    """One instance's state: the last snapshot hash, the config hash it held, hint, failures."""

    cadence_s: float
    jitter_ratio: float
    min_interval_s: float = 5.0
    last_hash: str | None = None
    config_hash: str | None = None
    hint: Hint | None = None
    failures: int = 0
    rng: random.Random = field(default=SHARED_RANDOM)

    def request_headers(self) -> dict[str, str]:
        """The conditional header of the next poll: the last hash seen (none on the first)."""
        return {} if self.last_hash is None else {"If-None-Match": f'"{self.last_hash}"'}

    def succeeded(self, status: int, reading: Reading | None) -> str | None:
        """Take a 200/304 in; the config hash this answer shows (a 304 confirms the held one)."""
        self.failures = 0
        if status == 304 or reading is None:
            return self.config_hash
        if reading.snapshot_hash is not None:
            self.last_hash = reading.snapshot_hash
        self.config_hash = reading.config_hash
        self.hint = reading.hint if reading.hint_present else None
        return self.config_hash

    def next_delay(self) -> float:
        """The wait after a success: the own cadence spread around it, or while a hint is held
        at least its interval (never faster than the hint, spec 4.3 and 8.2)."""
        draw = float(self.rng.random())
        if self.hint is None:
            return max(self.min_interval_s, jittered(self.cadence_s, self.jitter_ratio, draw))
        interval = max(self.cadence_s, self.hint.interval_s)
        return max(self.min_interval_s, jittered_above(interval, self.hint.jitter_ratio, draw))

    def failed(self, retry_after: float | None) -> float:
        """Take a failure in; the wait before the next poll (backoff, Retry-After, hint)."""
        self.failures += 1
        backoff = min(MAX_BACKOFF_S, self.cadence_s * 2.0 ** (self.failures - 1))
        wait = max(backoff, retry_after or 0.0)
        if self.hint is not None:
            wait = max(wait, self.hint.interval_s)
        return float(wait)
