"""Unit tests of refserver.lifecycle: the experiment state-transition table."""

from __future__ import annotations

import pytest

from refserver.errors import ApiError
from refserver.lifecycle import TRANSITIONS, Action, State, allowed, transition


@pytest.mark.parametrize("action", list(Action))
def test_running_allows_every_action(action: Action) -> None:
    assert allowed("running", action)


def test_terminate_ends_in_terminated() -> None:
    assert transition("running", Action.TERMINATE) is State.TERMINATED


@pytest.mark.parametrize("action", list(Action))
def test_nothing_leaves_terminated(action: Action) -> None:
    assert not allowed("terminated", action)
    with pytest.raises(ApiError) as caught:
        transition("terminated", action)
    assert caught.value.status == 409
    assert caught.value.code == "INVALID_TRANSITION"


def test_only_terminate_changes_state() -> None:
    changing = {key for key, after in TRANSITIONS.items() if after is not key[0]}
    assert changing == {(State.RUNNING, Action.TERMINATE)}
