"""The catalogue's index: ``FAULTS``, every section's one-defect servers in the selftest's order.

Every entry names, as data (``breaks``), the exact set of requirement ids its defect breaks; its
``doc`` says what the defect is. The defects are ASGI handlers in front of the unmodified
reference app (``faulty.asgi``): they rewrite requests or responses, answer in the server's
place, or emulate an internal defect from outside with sub-requests (a stale base accepted by
dropping ``baseHash``, a half-applied patch by replaying a prefix of the operations). Faults
with memory (a frozen hash) build their state in ``make``, once per server.

Each section is a module named for it, whose function of the same name returns its entries;
``Fault``, ``fault`` and what several sections share are in ``faulty.recipes``. This module only
assembles the sections, in order; the escapes come last.
"""

from __future__ import annotations

from faulty import (
    adversarial,
    adversary_trace,
    assignment,
    configurations,
    edges,
    escapes,
    experiment_edges,
    experiments,
    identity,
    load_faults,
    patches,
    rate_limits,
    sdk,
    spaces,
    statement_faults,
)
from faulty.recipes import Fault, fault

__all__ = ["FAULTS", "SECTIONS", "Fault", "fault"]

# Section name -> its entries, in the order the selftest lists them.
SECTIONS: dict[str, tuple[Fault, ...]] = {
    "configurations": configurations.configurations(),
    "patches": patches.patches(),
    "sdk": sdk.sdk(),
    "identity": identity.identity(),
    "experiments": experiments.experiments(),
    "assignment": assignment.assignment(),
    "experiment_edges": experiment_edges.experiment_edges(),
    "edges": edges.edges(),
    "rate-limits": rate_limits.rate_limits(),
    "spaces": spaces.spaces(),
    "adversarial": adversarial.adversarial(),
    "statement-faults": statement_faults.statement_faults(),
    "adversary-trace": adversary_trace.adversary_trace(),
    "escapes": escapes.escapes(),
}

FAULTS: tuple[Fault, ...] = tuple(f for section in SECTIONS.values() for f in section)

# Faults only a fleet shows, judged by ``conformance run --stage load`` in
# tests/faulty/test_load_faults.py (``conformance selftest --side load``), not by the server side.
LOAD_SECTIONS: dict[str, tuple[Fault, ...]] = {"load": load_faults.load_faults()}
