"""End-of-session clean-up: what the suite created on a target, undone newest first (the
``cleanup`` fixture's registry, ``conformance.run.fixtures``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from conformance.session.deadline import RunDeadline


@dataclass
class Cleanup:
    """Actions run at the end of the session, newest first (e.g. terminate experiments); none
    once the run deadline has passed."""

    actions: list[tuple[str, Callable[[], object]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    deadline: RunDeadline | None = None

    def add(self, description: str, action: Callable[[], object]) -> None:
        self.actions.append((description, action))

    def run(self) -> None:
        while self.actions:
            description, action = self.actions.pop()
            if self.deadline is not None and self.deadline.passed():
                self.problems.append(f"{description}: not run, {self.deadline.note}")
                continue
            try:
                action()
            except Exception as error:  # cleanup must not hide results
                self.problems.append(f"{description}: {type(error).__name__}")
