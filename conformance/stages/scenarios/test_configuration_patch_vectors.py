"""Scenarios: the public RFC 6902 test vectors (json-patch-tests) replayed through the target.

Each vector becomes a configuration created with the vector's document and one patch with its
operations (sent as ``bodies.patch.operations`` names them; vector paths are RFC 6901 pointers,
which is what RFC 6902 operations carry whatever ``bodies.path_syntax`` says of the suite's other
paths). The answer is judged against the vector (``conformance.oracles.patch_vectors``): the
expected document as the patch's content (JSON types kept, member order not compared, as the
vectors' authors intend), or the refusal it calls for. Vectors the suite cannot send as written
are left out, each with its reason (``SKIPPED``: 4 of the 100 records, counted in
``docs/faulty-servers.md``).
"""

from __future__ import annotations

import pytest

from conformance.checks import expect
from conformance.drivers.management import Configurations
from conformance.oracles.json_equality import same_json
from conformance.oracles.patch_vectors import (
    Vector,
    canonical,
    expectation,
    skipped,
    vectors,
)
from conformance.stages.scenarios.patching import content_of, expect_2xx, expect_refused

requirement = pytest.mark.requirement

VECTORS = vectors()
SKIPPED = skipped()  # 3 disabled by their authors, 1 that repeats a member name


def _param(vector: Vector) -> object:
    wanted = expectation(vector)
    return pytest.param(vector, id=vector.name, marks=requirement(*wanted.ids))


@pytest.mark.parametrize("vector", [_param(v) for v in VECTORS])
def test_vector(configurations: Configurations, vector: Vector) -> None:
    wanted = expectation(vector)
    ids = wanted.ids
    label = f"json-patch-tests {vector.name} ({vector.comment or vector.error or 'no comment'})"
    record = configurations.create_ok("vector", vector.doc, ids=ids)
    reply = configurations.patch(record["id"], vector.patch)
    if not wanted.applies:
        expect_refused(reply, ids, f"{label}: a patch RFC 6902 cannot apply", wanted.statuses)
        return
    expect_2xx(reply, ids, f"{label}: an applicable patch was refused")
    got = content_of(reply, ids)
    expect(
        same_json(vector.expected, got),
        ids,
        f"{label}: the patch result differs from the vector's",
        canonical(vector.expected),
        canonical(got),
        reply,
    )
