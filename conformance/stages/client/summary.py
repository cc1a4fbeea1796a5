"""The client stage's details across its tests (one scenario each) merged into one, and read as
a few summary lines for the text reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from conformance.registry.declaration import Details
from conformance.stages.client.evidence import read_intervals


def merge_details(parts: Sequence[Details]) -> Details:
    """Settings from any part (they are the run's), scenarios gathered by name."""
    merged: Details = {"scenarios": {}}
    for part in parts:
        for key, value in part.items():
            if key == "scenarios" and isinstance(value, Mapping):
                merged["scenarios"].update(value)
            else:
                merged[key] = value
    return merged


def summary_lines(details: Mapping[str, object]) -> list[str]:
    """One line for the settings, one per scenario."""
    lines = []
    settings = _mapping(details.get("settings"))
    if settings:
        lines.append(
            f"client {settings.get('command', '?')}: time scale {settings.get('time_scale')}, "
            f"hash as {settings.get('hash_transport')}, jitter {settings.get('jitter_reading')}, "
            f"refetch by {settings.get('refetch_request')}"
        )
    scenarios = {
        name: _mapping(scenario) for name, scenario in _mapping(details.get("scenarios")).items()
    }
    if scenarios:
        wall = max(_seconds(s.get("seconds")) for s in scenarios.values())
        lines.append(f"{len(scenarios)} scenarios run at once in {wall:.1f}s")
    for name, scenario in sorted(scenarios.items()):
        line = (
            f"{name}: {scenario.get('instances')} instance(s), {scenario.get('requests')} "
            f"requests in {scenario.get('seconds')}s"
        )
        if scenario.get("stopped"):
            line += f"; not judged: {scenario['stopped']}"
        margins = [
            (i["kept"] - asked, i)
            for i in read_intervals(scenario.get("intervals"))
            if (asked := i["asked"]) is not None
        ]
        if margins:
            _, shortest = min(margins, key=lambda margin: margin[0])
            line += (
                f"; closest wait {shortest['kept']:.3f}s against {shortest['asked']:.3f}s asked "
                f"({shortest['why']})"
            )
        lines.append(line)
    return lines


def _mapping(value: object) -> Mapping[str, object]:
    """A table of the details (nothing recorded: empty)."""
    if not isinstance(value, Mapping):
        return {}
    return {str(key): item for key, item in value.items()}


def _seconds(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
