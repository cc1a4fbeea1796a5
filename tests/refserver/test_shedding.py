"""refserver.shedding: the trailing-second load window (a fake clock)."""

from __future__ import annotations

from refserver.shedding import LoadMeter


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_sheds_above_threshold_and_recovers() -> None:
    clock = Clock()
    meter = LoadMeter(5, clock=clock)
    for _ in range(5):
        meter.hit()
    assert meter.load() == 5 and not meter.shedding()
    meter.hit()
    assert meter.shedding()
    clock.now += 1.05
    assert meter.load() == 0 and not meter.shedding()


def test_forced_always_sheds_and_hint_is_json() -> None:
    meter = LoadMeter(1000, forced=True, interval_seconds=30, jitter_ratio=0.2, clock=Clock())
    assert meter.shedding()
    assert meter.hint_json == b'{"intervalSeconds":30,"jitterRatio":0.2}'
