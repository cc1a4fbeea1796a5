"""Every constraint of the contract has a level for a profile: interface, drop-in or a doubt."""

from __future__ import annotations

from conformance.contract.document import chain_of, load_contract
from conformance.contract.levels import (
    DOUBT,
    DROP_IN,
    INTERFACE,
    interface_document,
    level_counts,
    level_of,
    status_level,
)
from conformance.contract.schema_walk import operation_ids
from conformance.contract.specialisation import default_profile, specialise
from conformance.profile import Profile, parse

CREDENTIALS = """\
credentials: {pat: "-", sdk_keys: [{key: "-", environments: [development]}]}
project: {application_id: 1, environments: {development: 1}}
"""


def _profile(extra: str = "") -> Profile:
    return parse("profile_version: 1\n" + extra + CREDENTIALS, source="<test>")


def _level(
    operation: str, location: str, keyword: str, profile: Profile
) -> tuple[str, tuple[str, ...]]:
    chain = chain_of(operation, location)
    assert chain is not None, location
    found = level_of(chain, keyword, profile)
    return found.level, found.keys


def test_the_specification_states_the_media_type_of_every_management_and_status_answer() -> None:
    none = _profile()
    assert _level("createConfiguration", "response:400:media", "media", none)[0] == INTERFACE
    assert _level("getSdkStatus", "response:401:media", "media", none)[0] == INTERFACE
    assert _level("getExperiment", "response:404:media", "media", none)[0] == DROP_IN


def test_a_name_key_declares_presence_and_type_not_the_values_pattern() -> None:
    none, named = _profile(), _profile("errors: {code_field: errorCode}\n")
    body = "response:404:body:errorCode"
    assert _level("getExperiment", body, "required", none) == (DROP_IN, ("errors.code_field",))
    assert _level("getExperiment", body, "required", named) == (INTERFACE, ())
    assert _level("getExperiment", body, "type", named) == (INTERFACE, ())
    assert _level("getExperiment", body, "pattern", named) == (DROP_IN, ())
    production = _profile("conventions: production\n")
    assert _level("getExperiment", body, "pattern", production) == (INTERFACE, ())


def test_a_word_of_a_keyed_enum_stays_a_convention_until_every_word_is_declared() -> None:
    one = _profile("experiment_payload: {terminated: ended}\n")
    level, keys = _level("getExperiment", "response:200:body:status", "enum", one)
    assert (level, keys) == (DROP_IN, ("experiment_payload.running",))
    both = _profile("experiment_payload: {terminated: ended, running: live}\n")
    assert _level("getExperiment", "response:200:body:status", "enum", both)[0] == INTERFACE


def test_stated_bounds_inside_a_not_shown_parameter_are_interface_and_inferred_ones_doubts() -> (
    None
):
    none = _profile()
    assert _level("getSdkStatus", "parameter:header:project-id", "value", none)[0] == INTERFACE
    assert _level("getSdkStatus", "parameter:header:sdkversion", "value", none)[0] == DROP_IN
    assert _level("getSdkBootstrap", "response:200:body:hash", "required", none)[0] == DOUBT


def test_statuses_rest_on_the_keys_that_set_them() -> None:
    operation = operation_ids(load_contract())["getSdkStatus"]
    document = load_contract()
    assert status_level(operation, document, _profile()).level == DROP_IN
    assert status_level(operation, document, _profile("conventions: production\n")).level == (
        INTERFACE
    )


def test_the_counts_and_the_interface_document() -> None:
    none, production = default_profile(), _profile("conventions: production\n")
    document = specialise(load_contract(), none)
    counts = level_counts(document, none)
    assert counts[INTERFACE] > 0 and counts[DROP_IN] > counts[INTERFACE] and counts[DOUBT] > 0
    all_declared = level_counts(specialise(load_contract(), production), production)
    assert all_declared[DROP_IN] == 0
    assert all_declared[INTERFACE] == counts[INTERFACE] + counts[DROP_IN]
    lean = interface_document(document, none)
    assert level_counts(lean, none)[DROP_IN] < counts[DROP_IN]
    assert interface_document(document, production) == document


def test_an_answer_in_a_documented_range_is_judged_by_the_ranges_schema() -> None:
    # terminateExperiment documents "4XX" (a terminated experiment's refusal): a 409 is in it.
    assert chain_of("terminateExperiment", "response:409:body:errorCode") is not None
    assert _level("terminateExperiment", "response:409:body:errorCode", "pattern", _profile()) == (
        DROP_IN,
        (),
    )
    assert chain_of("getSdkStatus", "response:418") is None  # no range there: not described


def test_an_error_body_under_a_declared_json_media_type_is_judged_by_its_own_marks() -> None:
    """A profile that declares ``errors.media_type: application/problem+json`` gets its error
    bodies under that type in the specialised contract: the code's pattern there is the same
    unkeyed convention (drop-in) as under application/json, never an undescribed element judged
    at the interface level (a server written from the spec alone was failed so)."""
    profile = _profile("errors: {media_type: application/problem+json, code_field: code}\n")
    document = specialise(load_contract(), profile)
    for operation, status in (("getSdkStatus", "400"), ("getSdkStatus", "401")):
        chain = chain_of(operation, f"response:{status}:body:code", document)
        assert chain is not None, (operation, status)
        assert level_of(chain, "pattern", profile).level == DROP_IN, (operation, status)
        assert level_of(chain, "required", profile).level == INTERFACE, (operation, status)


def test_the_paging_form_declares_the_cursor_not_which_cursors_are_refused() -> None:
    """``experiment_payload.pagination: cursor`` declares that a list takes a cursor; the
    cursor's value constraints (non-empty, only issued ones) stay the reference's convention."""
    profile = _profile("experiment_payload: {pagination: cursor, cursor_param: after}\n")
    document = specialise(load_contract(), profile)
    chain = chain_of("listExperiments", "parameter:query:after", document)
    assert chain is not None
    assert level_of(chain, "required", profile).level == INTERFACE
    assert level_of(chain, "minLength", profile).level == DROP_IN
    assert level_of(chain, "value", profile).level == DROP_IN
    production = _profile("conventions: production\n")
    chain = chain_of("listExperiments", "parameter:query:cursor")
    assert chain is not None and level_of(chain, "minLength", production).level == INTERFACE
