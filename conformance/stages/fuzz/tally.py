"""What a fuzz run counts of one operation's answers in one mode (``OperationTally``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from conformance.traffic.ledger import RATE_LIMITED, Refusal, Replay, judge_429


@dataclass
class OperationTally:
    """The answers to one operation's cases in one mode, and those the run itself excused."""

    cases: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    rate_limited: int = 0  # 429s the fuzzer's own traffic caused (the declared bucket replayed)
    unsent: int = 0  # examples not sent because the time budget was spent
    own_pace: str = ""  # the replay of the last 429 the fuzzer caused: the figure behind it

    def count_refusal(
        self, status: int, replay: Replay | None, refusal_status: int = RATE_LIMITED
    ) -> None:
        """Count an answer the fuzzer's own traffic excuses (``judge_429``, the refusal being
        ``errors.rate_limited_status``), with its figure."""
        if judge_429(status, replay, refusal_status) is Refusal.OWN and replay is not None:
            self.rate_limited += 1
            self.own_pace = replay.describe()
