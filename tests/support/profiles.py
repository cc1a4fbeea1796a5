"""Target profiles a test writes over: ``merged`` (keys over a profile, nested mappings merged
key by key) and ``with_overrides`` (the same, in place, on a profile file a server wrote)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``overrides`` over it: a mapping over a mapping merges, the rest replaces."""
    out = dict(base)
    for key, value in overrides.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = merged(out[key], value) if both else value
    return out


def with_overrides(profile: Path, overrides: dict[str, Any]) -> None:
    """Merge profile keys (a fault's stricter choice, say) into the profile file at ``profile``."""
    data = yaml.safe_load(profile.read_text(encoding="utf-8"))
    profile.write_text(yaml.safe_dump(merged(data, overrides), sort_keys=False), encoding="utf-8")
