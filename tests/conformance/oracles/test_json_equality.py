"""The strict JSON comparison: types, numbers as written, member order where asked, messages."""

from __future__ import annotations

import json

import pytest

from conformance.oracles.json_equality import json_difference, json_kind, same_json, same_number


def parsed(text: str) -> object:
    return json.loads(text)


@pytest.mark.parametrize(
    ("expected", "received"),
    [
        ("true", "1"),
        ("false", "0"),
        ("0", "false"),
        ("null", "false"),
        ("null", '""'),
        ('"1"', "1"),
        ("[]", "{}"),
        ('{"a":true}', '{"a":1}'),
        ("[1,true]", "[1,1]"),
        ('{"a":{"b":[1.5]}}', '{"a":{"b":[1]}}'),
        ('{"a":1}', '{"a":1,"b":2}'),
        ('{"a":1,"b":2}', '{"a":1}'),
        ("[1,2]", "[1,2,3]"),
        ("[1,2,3]", "[1,2]"),
    ],
)
def test_python_equal_but_not_the_same_json(expected: str, received: str) -> None:
    want, got = parsed(expected), parsed(received)
    assert not same_json(want, got)
    assert not same_json(want, got, ordered=True)


def test_the_traps_of_python_equality() -> None:
    """What this module exists for: each pair is ``==`` in Python and different JSON."""
    for expected, received in (("true", "1"), ('{"b":1,"a":2}', '{"a":2,"b":1}')):
        assert parsed(expected) == parsed(received)
        assert not same_json(parsed(expected), parsed(received), ordered=True)


@pytest.mark.parametrize(
    "text",
    ["null", "true", "0", "-1.5", "1e3", '"s"', "[]", "{}", '{"b":1,"a":[true,null,{"x":1.0}]}'],
)
def test_a_value_is_the_same_as_itself(text: str) -> None:
    assert same_json(parsed(text), parsed(text), ordered=True)


def test_one_number_however_it_is_written() -> None:
    """RFC 8259 has one number type: a JavaScript server writes 1.0 back as 1, and is right."""
    assert same_json(parsed("1.0"), parsed("1.00"))
    assert same_json(parsed("1e0"), parsed("1.0"))
    assert same_json(parsed("1"), parsed("1.0"), ordered=True)
    assert same_json(parsed('{"a":[1.0]}'), parsed('{"a":[1]}'))
    assert not same_json(parsed("1"), parsed("1.5"))


def test_member_order_counts_only_when_asked() -> None:
    sent, resorted = parsed('{"b":1,"a":{"z":1,"y":2}}'), parsed('{"a":{"y":2,"z":1},"b":1}')
    assert same_json(sent, resorted)
    assert not same_json(sent, resorted, ordered=True)
    assert not same_json(parsed('{"a":{"z":1,"y":2}}'), parsed('{"a":{"y":2,"z":1}}'), ordered=True)


def test_array_order_always_counts() -> None:
    assert not same_json([1, 2], [2, 1])


def test_the_message_names_the_first_difference_by_pointer() -> None:
    message = json_difference(parsed('{"a":{"b":true}}'), parsed('{"a":{"b":1}}'))
    assert message == "first difference at /a/b: expected true (boolean), received 1 (number)"


def test_messages_for_numbers_members_elements_and_order() -> None:
    assert json_difference([1.5], [1]) == (
        "first difference at /0: expected 1.5 (number), received 1 (number)"
    )
    assert json_difference({"a/b": {"m~n": 1}}, {"a/b": {}}) == (
        "first difference at /a~1b/m~0n: expected 1 (number), received no such member"
    )
    assert json_difference({}, {"x": None}) == (
        "first difference at /x: expected no such member, received null (null)"
    )
    assert json_difference([1, 2], [1]) == (
        "first difference at /1: expected 2 (number), received no such element "
        "(an array of 1 for 2)"
    )
    assert json_difference({"b": 1, "a": 2}, {"a": 2, "b": 1}, ordered=True) == (
        'first difference at / (the whole value): expected members in the order ["b","a"], '
        'received ["a","b"]'
    )
    assert json_difference(True, 1) == (
        "first difference at / (the whole value): expected true (boolean), received 1 (number)"
    )


def test_long_values_are_clipped() -> None:
    message = json_difference("x" * 500, "y") or ""
    assert len(message) < 200 and "..." in message


def test_nan_is_never_the_same() -> None:
    nan = parsed("NaN")
    assert not same_json(nan, nan)


def test_kinds() -> None:
    assert [json_kind(v) for v in (None, True, 1, 1.5, "s", [], {})] == [
        "null",
        "boolean",
        "number",
        "number",
        "string",
        "array",
        "object",
    ]


def test_same_number_is_numeric_but_never_boolean() -> None:
    assert same_number(50, 50.0) and same_number(50.0, 50) and same_number(0.5, 0.5)
    assert not same_number(True, 1) and not same_number(False, 0)
    assert not same_number("50", 50) and not same_number(None, 0) and not same_number(51, 50)
