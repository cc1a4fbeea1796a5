"""The faulty-client catalogue: the client stage fails exactly the declared requirements of each
one-defect variant of the reference client, and none of the correct-but-different variants.

Long tier (``pytest -m long tests/faulty/clients``): each variant is one whole client-stage run,
about 20 s. The client mutation score (faults caught exactly / faults) is printed at the end
(``conftest.py``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.faulty.clients.catalogue import ALL, FAULTS, ClientVariant
from tests.faulty.clients.harness import run_variant

SCORE_PROPERTY = "client_fault"


@pytest.mark.long
@pytest.mark.parametrize("variant", ALL, ids=[v.name for v in ALL])
def test_client_variant_fails_exactly_its_declared_set(
    variant: ClientVariant, record_property: Any
) -> None:
    outcome = run_variant(variant)
    # A correct variant must also leave nothing unjudged; a fault may (a client that ignores the
    # hint leaves its jitter unjudged).
    exact = outcome.failed == variant.breaks and bool(variant.breaks or not outcome.unmeasured)
    record_property(
        SCORE_PROPERTY, {"name": variant.name, "fault": variant in FAULTS, "exact": exact}
    )
    assert exact, (
        f"{variant.name} ({variant.doc}): failed {sorted(outcome.failed)}, declared "
        f"{sorted(variant.breaks)}\n{outcome.describe()}"
    )
