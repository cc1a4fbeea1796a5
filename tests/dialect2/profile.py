"""The second dialect's target profile: the first dialect's declarations, and the keys where the
second departs from it. It does not say ``conventions: production``: every key it leaves out is
a production convention, judged at the drop-in level only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from dialect.profile import dialect_profile

from dialect2.choices import ACTIVE_WORD, PAGE_PARAM, PRIVATE_PATH_SYNTAX, SIDECAR_PATH_SYNTAX


def declared() -> dict[str, Any]:
    """The keys the second dialect writes over the first dialect's profile."""
    return {
        "bodies": {
            "path_syntax": SIDECAR_PATH_SYNTAX,
            "private_path_syntax": PRIVATE_PATH_SYNTAX,
        },
        "experiment_payload": {
            "pagination": "page",
            "page_param": PAGE_PARAM,
            "running": ACTIVE_WORD,
            "status_param": None,
        },
        # Optional capabilities it does not claim: no golden vectors of a declared hash function,
        # no round-robin mode (the specification requires neither).
        "experiments": {"hash_function": None, "assignment_modes": ["weightedHash"]},
    }


def profile_of(reference: dict[str, Any]) -> dict[str, Any]:
    """The second dialect's profile from the one the reference server wrote."""
    data = dialect_profile(reference)
    data.pop("conventions", None)
    for section, keys in declared().items():
        data[section] = {**data.get(section, {}), **keys}  # sections merged one level deep
    return data


def write(
    path: Path, overrides: dict[str, Any] | None = None, left_out: tuple[str, ...] = ()
) -> Path:
    """Turn the reference profile at ``path`` into the second dialect's, in place; ``overrides``:
    sections merged over it; ``left_out``: dotted keys the file does not write (a variant's)."""
    reference = yaml.safe_load(path.read_text(encoding="utf-8"))
    data = profile_of(reference)
    for key, value in (overrides or {}).items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    for dotted in left_out:
        *parents, last = dotted.split(".")
        node = data
        for part in parents:
            node = node.get(part, {})
        node.pop(last, None)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
