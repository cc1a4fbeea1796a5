"""The client stage's details across its tests (one scenario each) merged into one, and read as
a few summary lines for the text reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.stages.declaration import Details


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


def summary_lines(details: Mapping[str, Any]) -> list[str]:
    """One line for the settings, one per scenario."""
    lines = []
    settings = details.get("settings") or {}
    if settings:
        lines.append(
            f"client {settings.get('command', '?')}: time scale {settings.get('time_scale')}, "
            f"hash as {settings.get('hash_transport')}, jitter {settings.get('jitter_reading')}, "
            f"refetch by {settings.get('refetch_request')}"
        )
    scenarios = details.get("scenarios") or {}
    if scenarios:
        wall = max(float(s.get("seconds") or 0) for s in scenarios.values())
        lines.append(f"{len(scenarios)} scenarios run at once in {wall:.1f}s")
    for name, scenario in sorted(scenarios.items()):
        line = (
            f"{name}: {scenario.get('instances')} instance(s), {scenario.get('requests')} "
            f"requests in {scenario.get('seconds')}s"
        )
        if scenario.get("stopped"):
            line += f"; not judged: {scenario['stopped']}"
        asked = [i for i in scenario.get("intervals") or [] if i.get("asked") is not None]
        if asked:
            shortest = min(asked, key=lambda i: i["kept"] - i["asked"])
            line += (
                f"; closest wait {shortest['kept']:.3f}s against {shortest['asked']:.3f}s asked "
                f"({shortest['why']})"
            )
        lines.append(line)
    return lines
