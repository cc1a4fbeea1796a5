"""Faulty clients the client stage does not yet catch with exactly their declared set, and why
(strict xfail, as ``faulty.mismatches`` for the servers).

Each reason says what the stage did; the entry flips to XPASS (a failure, since the xfail is
strict) as soon as the stage's judges are fixed, and must then be removed. The declarations are
right: the defect breaks what ``breaks`` says. The four adversarial clients (issue 31) missed
before the class fix are caught exactly since (``docs/faulty-servers.md``, "Adversarial
faults"), and their entries are gone.
"""

from __future__ import annotations

KNOWN_MISMATCHES: dict[str, str] = {}
