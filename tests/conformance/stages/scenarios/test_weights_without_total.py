"""A profile whose weights have no fixed total (``experiments.weight_total: null``) makes the
invalid-weights refusal not applicable: a choice the spec leaves open, never a declared exception
(before, it read not configured, and a server written from the spec alone was told it was
conformant only with declared exceptions)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.errors import NotApplicable
from conformance.stages.scenarios.test_experiments_errors import _weights


def _experiments(total: int | None) -> Any:
    return SimpleNamespace(profile=SimpleNamespace(experiments=SimpleNamespace(weight_total=total)))


def test_no_fixed_total_is_not_applicable() -> None:
    body: dict[str, object] = {"groups": [{"weight": 1}, {"weight": 1}]}
    with pytest.raises(NotApplicable, match="weight_total: null"):
        _weights(lambda total: [total, 1])(body, _experiments(None))


def test_a_fixed_total_sends_the_shares() -> None:
    body: dict[str, object] = {"groups": [{"weight": 1}, {"weight": 1}]}
    _weights(lambda total: [total, 1])(body, _experiments(100))
    assert body["groups"] == [{"weight": 100}, {"weight": 1}]
