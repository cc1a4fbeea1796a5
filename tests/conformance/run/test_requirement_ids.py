"""``--requirements``: one parser of the option's value, read alike by the launch's check, the
hand-over's observation and the collector's selection."""

from __future__ import annotations

import pytest

from conformance.errors import UsageError
from conformance.registry import by_name
from conformance.run import requirement_ids


@pytest.mark.parametrize(
    ("raw", "ids"),
    [
        (None, []),
        ("", []),
        (" , ", []),
        ("SDK-STATUS-ETAG", ["SDK-STATUS-ETAG"]),
        (" B , A,B,, ", ["B", "A"]),
    ],
)
def test_the_value_reads_as_ids_in_order_without_blanks_or_repeats(
    raw: str | None, ids: list[str]
) -> None:
    assert requirement_ids.given(raw) == ids


def test_a_run_is_narrowed_only_when_the_option_was_given() -> None:
    assert requirement_ids.selected(None) is None
    assert requirement_ids.selected("") is None
    assert requirement_ids.selected(" , ") == set()  # given, naming no id: selects none
    assert requirement_ids.selected(" B , A,B") == {"A", "B"}


def test_an_id_the_chosen_stages_do_not_answer_for_is_one_usage_error() -> None:
    scenarios = [by_name()["scenarios"]]
    requirement_ids.check(None, scenarios)
    requirement_ids.check("SDK-STATUS-ETAG-EQUALS-HASH", scenarios)
    with pytest.raises(UsageError, match="did you mean SDK-STATUS-304-IF-NONE-MATCH"):
        requirement_ids.check("SDK-STATUS-304-IF-NONE-MATC", scenarios)
