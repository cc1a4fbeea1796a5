"""The faulty-client catalogue: the client stage fails exactly the declared requirements of each
one-defect variant of the reference client, and none of the correct-but-different variants.

Long tier (``pytest -m long tests/faulty/clients``, or ``conformance selftest --side client``):
each variant is one whole client-stage run, about 25 s. The client mutation score (faults caught
exactly / faults) is printed at the end (``conftest.py``).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance.catalogue.requirements import load_catalogue
from tests.faulty.clients.catalogue import ALL, FAULTS, ClientVariant
from tests.faulty.clients.harness import run_variant
from tests.faulty.clients.mismatches import KNOWN_MISMATCHES
from tests.faulty.selection import only_from_environment, selected

# The client rules that rest on a production convention alone (the catalogue's convention
# basis): a correct variant departing from one shows a drop-in difference, never a failure.
CONVENTION_ONLY = frozenset(
    r.id for r in load_catalogue() if r.subject == "client" and r.basis == "convention"
)

SCORE_PROPERTY = "client_fault"
# conformance selftest --side client --only NAME,...: exact variant names (RCES_SELFTEST_ONLY)
CHOSEN = selected(ALL, only_from_environment(), what="client variant")


def _param(variant: ClientVariant) -> object:
    reason = KNOWN_MISMATCHES.get(variant.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(variant, id=variant.name, marks=marks)


@pytest.mark.long
@pytest.mark.parametrize("variant", [_param(v) for v in CHOSEN])
def test_client_variant_fails_exactly_its_declared_set(
    variant: ClientVariant, record_property: Any
) -> None:
    # What conformance selftest tallies, as for the faulty servers (an empty declared set: a
    # correct variant, which must fail nothing); the declared set first, known even if the run
    # raises.
    # A correct variant is tallied at the interface level: a failure of a convention-only
    # requirement (the flat retry's backoff) is a drop-in one, left out of both sets.
    hidden = CONVENTION_ONLY if variant not in FAULTS else frozenset()
    record_property("fault_breaks", sorted(variant.breaks - hidden))
    started = time.monotonic()
    outcome = run_variant(variant)
    record_property("fault_failed", sorted(outcome.failed - hidden))
    record_property("fault_seconds", round(time.monotonic() - started, 1))
    record_property("fault_differs", sorted(outcome.differs))
    # A correct variant must also leave nothing unjudged, and fail nothing at the interface
    # level (a failure of a convention-only requirement is a drop-in one); a fault may leave
    # something unjudged (a client that ignores the hint leaves its jitter unjudged). Both must
    # show exactly their declared drop-in differences.
    correct = not variant.breaks - CONVENTION_ONLY and not outcome.unmeasured
    exact = (
        outcome.failed == variant.breaks
        and outcome.differs == variant.differs
        and (variant in FAULTS or correct)
    )
    record_property(
        SCORE_PROPERTY, {"name": variant.name, "fault": variant in FAULTS, "exact": exact}
    )
    assert exact, (
        f"{variant.name} ({variant.doc}): failed {sorted(outcome.failed)}, declared "
        f"{sorted(variant.breaks)}; drop-in {sorted(outcome.differs)}, declared "
        f"{sorted(variant.differs)}\n{outcome.describe()}"
    )
