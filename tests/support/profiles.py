"""Target profiles a test writes over: ``merged`` (keys over a profile, nested mappings merged
key by key) and ``with_overrides`` (the same, in place, on a profile file a server wrote)."""

from __future__ import annotations

from pathlib import Path

import yaml


def merged(base: dict[str, object], overrides: dict[str, object]) -> dict[str, object]:
    """``base`` with ``overrides`` over it: a mapping over a mapping merges, the rest replaces."""
    out = dict(base)
    for key, value in overrides.items():
        current = out.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            out[key] = merged(current, value)
        else:
            out[key] = value
    return out


def with_overrides(profile: Path, overrides: dict[str, object]) -> None:
    """Merge profile keys (a fault's stricter choice, say) into the profile file at ``profile``."""
    data = yaml.safe_load(profile.read_text(encoding="utf-8"))
    profile.write_text(yaml.safe_dump(merged(data, overrides), sort_keys=False), encoding="utf-8")
