"""Unit tests of the declared-choice helpers: key-named misses and conventions."""

from __future__ import annotations

import httpx
import pytest

from conformance.checks.conventions import NOTEBOOK
from conformance.checks.declared import expect_declared_field, expect_declared_status, status_holds
from conformance.errors import ContractViolation, ConventionMiss
from conformance.profile import parse
from conformance.traffic.transcript import Reply
from conformance.verdict.evidence import Exchange

MINIMAL = """\
credentials: {pat: svc_pat_unit, sdk_keys: [{key: svc_pk_dev, environments: [development]}]}
project: {application_id: 1, environments: {development: 1}}
"""


def reply(status: int, body: str = "") -> Reply:
    exchange = Exchange("GET", "http://127.0.0.1:1/x", {}, None, status, {}, body, 1.0)
    return Reply(status, httpx.Headers(), body.encode(), exchange, "curl ...")


DECLARED = parse(MINIMAL + "conventions: production\n")  # every default is its declaration
UNDECLARED = parse(MINIMAL)  # every default is only a convention


def test_a_declared_status_passes_and_another_class_gets_no_hint() -> None:
    key = "errors.foreign_project_status"
    expect_declared_status(reply(404), DECLARED, key, [403, 404], ("A",), "t")
    for profile in (DECLARED, UNDECLARED):  # another class breaks the interface reading too
        with pytest.raises(ContractViolation) as caught:
            expect_declared_status(reply(200), profile, key, [403], ("A",), "t")
        assert key in caught.value.expected
        assert "declare" not in caught.value.received  # a 200 is no alternative to a refusal


def test_a_consistent_alternative_is_a_failure_that_names_the_key_and_value() -> None:
    key = "errors.foreign_project_status"
    with pytest.raises(ContractViolation) as caught:
        expect_declared_status(reply(404), DECLARED, key, [403], ("A",), "t")
    assert caught.value.requirement_ids == ("A",)
    assert "errors.foreign_project_status: [404]" in caught.value.received
    with pytest.raises(ContractViolation) as single:
        expect_declared_status(
            reply(200), DECLARED, "statuses.create_configuration", 201, ("B",), "t"
        )
    assert "statuses.create_configuration: 200" in single.value.received


def test_an_undeclared_alternative_is_a_drop_in_difference_not_a_failure() -> None:
    NOTEBOOK.open()
    expect_declared_status(
        reply(200), UNDECLARED, "statuses.create_configuration", 201, ("B",), "t"
    )
    (difference,) = NOTEBOOK.close()
    assert difference.key == "statuses.create_configuration"
    assert difference.convention == "201"
    assert difference.received.startswith("HTTP 200")
    assert difference.requirement_ids == ("B",)
    assert not status_holds(reply(200), DECLARED, "statuses.create_configuration", 201, ("B",), "t")


def test_a_file_that_writes_a_key_declares_it() -> None:
    written = parse(MINIMAL + "statuses: {create_configuration: 201}\n")
    assert written.declares("statuses.create_configuration")
    assert not written.declares("statuses.create_experiment")
    assert DECLARED.declares("statuses.create_experiment")
    with pytest.raises(ContractViolation):
        expect_declared_status(
            reply(200), written, "statuses.create_configuration", 201, ("B",), "t"
        )


def test_a_missing_declared_field_names_the_fields_present() -> None:
    expect_declared_field({"errorCode": "X"}, DECLARED, "errors.code_field", ("A",), "t")
    body = {"code": "X", "n": 1}
    with pytest.raises(ContractViolation) as caught:
        expect_declared_field(body, DECLARED, "errors.code_field", ("A",), "t", kind=str)
    assert not isinstance(caught.value, ConventionMiss)
    assert "(fields present: 'code';" in caught.value.received
    assert "declare it in the profile: errors.code_field" in caught.value.received
    with pytest.raises(ConventionMiss) as convention:
        expect_declared_field(body, UNDECLARED, "errors.code_field", ("A",), "t", kind=str)
    assert convention.value.key == "errors.code_field"
    assert convention.value.convention == "errorCode"
