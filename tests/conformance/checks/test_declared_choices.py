"""Unit tests of the declared-choice helpers: key-named misses, path spellings, sidecar shapes."""

from __future__ import annotations

import httpx
import pytest

from conformance.checks.declared import expect_declared_field, expect_declared_status
from conformance.drivers.document_paths import segments, sidecar, spelled
from conformance.errors import ContractViolation
from conformance.report.model import Exchange
from conformance.traffic.transcript import Reply


def reply(status: int, body: str = "") -> Reply:
    exchange = Exchange("GET", "http://127.0.0.1:1/x", {}, None, status, {}, body, 1.0)
    return Reply(status, httpx.Headers(), body.encode(), exchange, "curl ...")


def test_a_declared_status_passes_and_another_class_gets_no_hint() -> None:
    expect_declared_status(reply(404), "errors.foreign_project_status", [403, 404], ("A",), "t")
    with pytest.raises(ContractViolation) as caught:
        expect_declared_status(reply(200), "errors.foreign_project_status", [403], ("A",), "t")
    assert "profile errors.foreign_project_status" in caught.value.expected
    assert "declare" not in caught.value.received  # a 200 is no alternative to a refusal


def test_a_consistent_alternative_is_a_failure_that_names_the_key_and_value() -> None:
    with pytest.raises(ContractViolation) as caught:
        expect_declared_status(reply(404), "errors.foreign_project_status", [403], ("A",), "t")
    assert caught.value.requirement_ids == ("A",)
    assert "errors.foreign_project_status: [404]" in caught.value.received
    with pytest.raises(ContractViolation) as single:
        expect_declared_status(reply(200), "statuses.create_configuration", 201, ("B",), "t")
    assert "statuses.create_configuration: 200" in single.value.received


def test_a_missing_declared_field_names_the_fields_present() -> None:
    expect_declared_field({"errorCode": "X"}, "errors.code_field", "errorCode", ("A",), "t")
    with pytest.raises(ContractViolation) as caught:
        body = {"code": "X", "n": 1}
        expect_declared_field(body, "errors.code_field", "errorCode", ("A",), "t", kind=str)
    assert "(fields present: 'code';" in caught.value.received
    assert "declare it in the profile: errors.code_field" in caught.value.received


@pytest.mark.parametrize(
    ("pointer", "dotted"),
    [("", ""), ("/economy/secretSeed", "economy.secretSeed"), ("/a~1b/c~0d", "a/b.c~d")],
)
def test_paths_are_spelled_as_declared(pointer: str, dotted: str) -> None:
    assert spelled(pointer, "json-pointer") == pointer
    if pointer == "/a~1b/c~0d":
        assert segments(pointer) == ["a/b", "c~d"]
        return
    assert spelled(pointer, "dotted") == dotted


def test_a_path_the_declared_syntax_cannot_spell_is_an_error() -> None:
    with pytest.raises(ValueError, match="dot"):
        spelled("/a.b", "dotted")
    with pytest.raises(ValueError, match="JSON Pointer"):
        segments("a/b")


def test_the_sidecar_takes_the_declared_shape_and_syntax() -> None:
    order = {"": ["d", "c"], "/b": ["z", "x"]}
    assert sidecar(order, "json-pointer", "pointer-map") == order
    assert sidecar(order, "dotted", "entries") == [
        {"path": "", "keys": ["d", "c"]},
        {"path": "b", "keys": ["z", "x"]},
    ]
