"""Faults the suite does not yet catch with exactly their declared set, and why (strict xfail).

Each reason names the scenario and the requirement at fault; the entry flips to XPASS (a
failure, since the xfail is strict) as soon as the scenario is fixed, and must then be removed.
The declarations of these faults are right: the defect breaks only what ``breaks`` says.
"""

from __future__ import annotations

KNOWN_MISMATCHES: dict[str, str] = {}
