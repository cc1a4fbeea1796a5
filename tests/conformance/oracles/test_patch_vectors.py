"""The vendored json-patch-tests vectors: read whole, classified, and agreeing with the oracle."""

from __future__ import annotations

import copy

import jsonpatch
import jsonpointer
import pytest

from conformance.oracles import patch_vectors
from conformance.oracles.json_equality import same_json as same
from conformance.oracles.patch_vectors import Vector, expectation, skipped, vectors


def test_every_record_is_replayed_or_skipped_with_a_reason() -> None:
    assert len(vectors()) == 96
    assert sorted(skipped()) == [
        "spec_tests.json:12",
        "tests.json:10",
        "tests.json:56",
        "tests.json:80",
    ]
    assert all(reason for reason in skipped().values())


@pytest.mark.parametrize("vector", vectors(), ids=lambda v: v.name)
def test_the_oracle_agrees_with_every_vector(vector: Vector) -> None:
    """What the scenario demands of a target is what the vector says, and the oracle says it too."""
    try:
        result = jsonpatch.apply_patch(copy.deepcopy(vector.doc), vector.patch)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException):
        assert vector.error is not None
        assert not expectation(vector).applies
        return
    assert vector.error is None
    assert expectation(vector).applies
    assert same(vector.expected, result)


def test_errors_split_into_malformed_and_inapplicable() -> None:
    kinds = {v.name: expectation(v) for v in vectors() if v.error is not None}
    malformed = [n for n, e in kinds.items() if e.ids == (patch_vectors.MALFORMED,)]
    assert len(malformed) == 7  # missing value or from, an unknown op
    assert all(e.statuses == (409,) for n, e in kinds.items() if n not in malformed)


def test_operations_name_their_rule() -> None:
    by_name = {v.name: expectation(v).ids for v in vectors()}
    assert by_name["spec_tests.json:1"] == (patch_vectors.ARRAYS,)  # add at /foo/1
    assert by_name["spec_tests.json:5"] == (patch_vectors.MOVE_COPY,)
    assert by_name["spec_tests.json:7"] == (patch_vectors.TEST,)
    assert by_name["spec_tests.json:0"] == (patch_vectors.ADD_REMOVE_REPLACE,)


def test_same_keeps_json_types_and_order_when_asked() -> None:
    assert not same(True, 1)
    assert not same(0, False)
    assert not same(None, [])
    assert same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not same({"a": 1, "b": 2}, {"b": 2, "a": 1}, ordered=True)
    assert same([1, {"x": "y"}], [1, {"x": "y"}], ordered=True)


def test_the_oracle_test_operation_is_type_strict() -> None:
    """The scenarios' expectations for ``test`` rest on this (RFC 6902 4.6)."""
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch({"a": True}, [{"op": "test", "path": "/a", "value": 1}])
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch({}, [{"op": "test", "path": "/a", "value": None}])
    jsonpatch.apply_patch({"a": 1}, [{"op": "test", "path": "/a", "value": 1.0}])
