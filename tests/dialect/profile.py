"""The dialect's target profile: the reference server's credentials and project, and every gap
choice of ``dialect.choices`` declared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from dialect import choices
from dialect.choices import BOOTSTRAP_KEYS, EXPERIMENT_KEYS, HEADER_KEYS

# The keys of the reference profile that the dialect keeps as they are.
KEPT = ("profile_version", "credentials", "project", "conditional", "capabilities")


def declared() -> dict[str, Any]:
    """Every key where the dialect departs from the profile's defaults."""
    return {
        "headers": {key: dialect for key, (_, dialect) in HEADER_KEYS.items()},
        "bodies": {
            "create": {key: dialect for key, (_, dialect) in choices.CREATE_KEYS.items()},
            "patch": {
                **{key: dialect for key, (_, dialect) in choices.PATCH_KEYS.items()},
                "base_hash_transport": choices.BASE_HASH_TRANSPORT,
                "key_order_shape": choices.KEY_ORDER_SHAPE,
            },
            "path_syntax": choices.PATH_SYNTAX,
        },
        "errors": {
            "code_field": choices.ERROR_FIELDS["errorCode"],
            "message_field": choices.ERROR_FIELDS["message"],
            "missing_credentials_status": [401],
            "forbidden_status": 403,
            "foreign_project_status": [choices.FOREIGN_PROJECT_STATUS],
            "validation_status": choices.VALIDATION_STATUS,
            "malformed_body_status": choices.MALFORMED_BODY_STATUS,
            "not_found_status": 404,
        },
        "statuses": {
            "create_configuration": choices.CREATE_STATUS,
            "create_experiment": choices.CREATE_STATUS,
        },
        "rate_limit": {
            "burst": choices.RATE_BURST,
            "refill_per_second": choices.RATE_REFILL_PER_SECOND,
            "scope": choices.RATE_SCOPE,
        },
        "load_shedding": {
            "provoke": "burst",
            "burst_requests": round(
                choices.SHED_THRESHOLD_PER_SECOND * choices.SHED_WINDOW_SECONDS * 2 + 100
            ),
            "window_seconds": choices.SHED_WINDOW_SECONDS,
            "settle_seconds": choices.SHED_WINDOW_SECONDS + 1.0,
        },
        "load": {"shedding_threshold": choices.SHED_THRESHOLD_PER_SECOND},
        "experiments": {"page_size_max": choices.PAGE_SIZE_MAX},
        "bootstrap_payload": {key: dialect for key, (_, dialect) in BOOTSTRAP_KEYS.items()},
        "experiment_payload": {
            **{key: dialect for key, (_, dialect) in EXPERIMENT_KEYS.items()},
            "pagination": choices.PAGINATION,
            "changeset_format": choices.CHANGESET_FORMAT,
        },
    }


def dialect_profile(reference: dict[str, Any]) -> dict[str, Any]:
    """The dialect's profile from the one the reference server wrote."""
    return {**{k: reference[k] for k in KEPT if k in reference}, **declared()}


def write(path: Path, overrides: dict[str, Any] | None = None) -> Path:
    """Turn the reference profile at ``path`` into the dialect's, in place (mode kept: 0600)."""
    reference = yaml.safe_load(path.read_text(encoding="utf-8"))
    data = dialect_profile(reference)
    for key, value in (overrides or {}).items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
