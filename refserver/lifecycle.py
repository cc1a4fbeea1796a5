"""The experiment lifecycle: its states and the table of allowed transitions.

``running`` is the state an experiment is created in; ``terminated`` is final. Every action on
an experiment is looked up here; an action not allowed in the current state answers
409 ``INVALID_TRANSITION``.
"""

from __future__ import annotations

from enum import StrEnum

from refserver.errors import ApiError


class State(StrEnum):
    RUNNING = "running"
    TERMINATED = "terminated"


class Action(StrEnum):
    TERMINATE = "terminate"
    CHANGE_ROLLOUT = "change rollout"
    ASSIGN_MANUALLY = "set a manual assignment"
    UNENROLL = "unenroll a member"
    REACTIVATE = "reactivate a member"
    EVALUATE = "evaluate units"


# (state, action) -> the state after it. A pair that is absent is not allowed.
TRANSITIONS: dict[tuple[State, Action], State] = {
    (State.RUNNING, Action.TERMINATE): State.TERMINATED,
    (State.RUNNING, Action.CHANGE_ROLLOUT): State.RUNNING,
    (State.RUNNING, Action.ASSIGN_MANUALLY): State.RUNNING,
    (State.RUNNING, Action.UNENROLL): State.RUNNING,
    (State.RUNNING, Action.REACTIVATE): State.RUNNING,
    (State.RUNNING, Action.EVALUATE): State.RUNNING,
}

INITIAL = State.RUNNING


def allowed(state: str, action: Action) -> bool:
    """Whether ``action`` may happen to an experiment in ``state``."""
    return (State(state), action) in TRANSITIONS


def transition(state: str, action: Action) -> State:
    """The state after ``action``; ApiError 409 INVALID_TRANSITION when it is not allowed."""
    after = TRANSITIONS.get((State(state), action))
    if after is None:
        raise ApiError(
            409, "INVALID_TRANSITION", f"cannot {action.value}: the experiment is {state}"
        )
    return after
