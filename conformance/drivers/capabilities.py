"""What a scenario needs the target profile to declare, or it is unsupported.

``require_capabilities`` skips a test as unsupported unless the profile declares every
capability its requirements need (implied ones included); ``require_mode`` and
``other_unit_type`` do the same for an assignment mode and a second unit type.
"""

from __future__ import annotations

from collections.abc import Iterable

from conformance.catalogue.requirements import catalogue_index
from conformance.errors import Unsupported
from conformance.profile import Profile


def require_mode(profile: Profile, mode: str) -> None:
    """Unsupported unless the profile declares assignment mode ``mode``."""
    if mode not in profile.experiments.assignment_modes:
        raise Unsupported(f"experiments.assignment_modes with {mode}")


def other_unit_type(profile: Profile, unit_type: str) -> str:
    """A unit type the profile declares besides ``unit_type`` (unsupported when there is none)."""
    others = [t for t in profile.experiments.unit_types if t != unit_type]
    if not others:
        raise Unsupported(f"experiments.unit_types with a unit type besides {unit_type}")
    return others[0]


def require_capabilities(profile: Profile, requirement_ids: Iterable[str]) -> None:
    """Unsupported unless the profile declares every capability the requirements need.

    Uses ``Requirement.capabilities`` (every capability, implied ones included), so a test
    naming a bootstrap-with-identity rule is unsupported on a target without bootstrap."""
    index = catalogue_index()
    absent: dict[str, list[str]] = {}
    for requirement_id in requirement_ids:
        entry = index.get(requirement_id)
        for capability in getattr(entry, "capabilities", ()):
            if not profile.capability(capability):
                absent.setdefault(requirement_id, []).append(capability)
    if absent:
        names = sorted({c for caps in absent.values() for c in caps})
        raise Unsupported(", ".join(names), tuple(absent))
