"""The shedding variants and fault of ``variants.fuzzload`` through the suite's scenarios, as
the fault harness serves them (``faulty.harness.run_fault``: real uvicorn, SQLite, HTTP).

- A shedder with hysteresis (on above 150/s, off once under 75/s for a window), declared with
  ``load.release_threshold: 75``, passes every load-shedding requirement it can be judged on.
- ``"polling": null`` on snapshots served without shedding is a stray hint: it fails
  POLL-HINT-ABSENT-NORMALLY and POLL-HINT-GONE-AFTER-LOAD, and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from faulty.harness import run_fault
from faulty.recipes import fault

from variants.fuzzload import hysteresis_shedder, null_polling

pytestmark = pytest.mark.long

HINT_IDS = (
    "POLL-HINT-ABSENT-NORMALLY POLL-HINT-UNDER-LOAD POLL-HINT-SHAPE POLL-HINT-VALUES-USABLE "
    "POLL-HINT-ON-BOOTSTRAP POLL-HINT-GONE-AFTER-LOAD"
)


def test_a_declared_hysteresis_shedder_passes(tmp_path: Path) -> None:
    variant = fault(
        "variant-shedding-hysteresis",
        "",
        "Sheds above 150/s, stops once under 75/s for a window (declared).",
        lambda ctx: hysteresis_shedder(150.0, 75.0, 1.0),
        watch=HINT_IDS,
        profile={"load": {"release_threshold": 75.0}},
    )
    run = run_fault(variant, tmp_path)
    assert run.outcomes, run.output[-3000:]
    assert run.failed == frozenset(), run.explain()
    assert run.outcomes.get("POLL-HINT-GONE-AFTER-LOAD") == "pass", run.outcomes


def test_a_null_polling_member_when_quiet_is_a_stray_hint(tmp_path: Path) -> None:
    broken = fault(
        "polling-null-when-quiet",
        "POLL-HINT-ABSENT-NORMALLY POLL-HINT-GONE-AFTER-LOAD",
        'Snapshots served without shedding carry "polling": null.',
        null_polling,
    )
    run = run_fault(broken, tmp_path)
    assert run.outcomes, run.output[-3000:]
    assert run.failed == broken.breaks, run.explain()
