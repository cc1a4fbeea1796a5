"""The draft's rate-limit scope against simulated token buckets (a unit test of one small piece:
the buckets are a model, the clock advances per poll, so a slow machine is a parameter)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from conformance.profile.access import SdkKey
from conformance.target import draft_rate


@dataclass
class _Answer:
    status: int
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Buckets:
    """Token buckets of ``burst`` refilled at ``refill`` per second; each poll takes ``step``
    simulated seconds. ``per_key`` gives each key its own bucket per instance id."""

    per_key: bool
    step: float
    burst: float = 60.0
    refill: float = 1.0
    now: float = 0.0
    tokens: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)

    def status(self, *, key: str, instance_id: str, **_: Any) -> _Answer:
        self.now += self.step
        name = (key if self.per_key else "", instance_id)
        held, since = self.tokens.get(name, (self.burst, self.now))
        held = min(self.burst, held + (self.now - since) * self.refill)
        if held < 1:
            self.tokens[name] = (held, self.now)
            return _Answer(429, {"retry-after": "1"})
        self.tokens[name] = (held - 1, self.now)
        return _Answer(200)


FIRST = SdkKey("sdk_first", ("production",))
OTHER = SdkKey("sdk_other", ("production",))


@pytest.mark.parametrize("step", [0.001, 0.01])
def test_a_bucket_per_key_is_told_apart_on_a_quick_machine(step: float) -> None:
    buckets = _Buckets(per_key=True, step=step)
    judged = draft_rate._scope(buckets, FIRST, OTHER, "cf-i", 60)  # type: ignore[arg-type]
    assert judged is not None and judged[0] == "key-and-instance"


@pytest.mark.parametrize("step", [0.001, 0.01, 0.06, 0.2])
def test_one_bucket_per_instance_is_told_apart_at_any_speed(step: float) -> None:
    buckets = _Buckets(per_key=False, step=step)
    judged = draft_rate._scope(buckets, FIRST, OTHER, "cf-i", 60)  # type: ignore[arg-type]
    assert judged is None or judged[0] == "instance"


@pytest.mark.parametrize("step", [0.03, 0.06, 0.2])
def test_a_bucket_per_key_on_a_slow_machine_is_never_called_one_per_instance(step: float) -> None:
    """Tokens come back while the other key polls, so tries repeat; the other key's own bucket
    must not run dry over the tries and read as a shared one (what a loaded CI machine showed)."""
    buckets = _Buckets(per_key=True, step=step)
    judged = draft_rate._scope(buckets, FIRST, OTHER, "cf-i", 60)  # type: ignore[arg-type]
    assert judged is None or judged[0] == "key-and-instance"
