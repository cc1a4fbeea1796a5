"""The environment-variable contract of ``python -m refclient`` (what a client stage sets).

Required: ``RCES_BASE_URL``, ``RCES_SDK_KEY``, ``RCES_INSTANCE_ID``.
Optional: ``RCES_ENVIRONMENT`` (default development), ``RCES_SCENARIO`` (logged only),
``RCES_TIME_SCALE`` (float > 0, default 1.0: multiplies the own cadence, floor and backoff;
never the server's ``intervalSeconds`` or ``Retry-After``), ``RCES_HASH_TRANSPORT``
(``if-none-match`` or ``query``), ``RCES_JITTER_READING`` (``above`` or ``symmetric``),
``RCES_PROJECT_ID`` (the numeric header's value, 1 to 2^53 - 1; not sent without it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from refclient.config import HASH_TRANSPORTS, JITTER_READINGS, Config, HashTransport, JitterReading

REQUIRED = ("RCES_BASE_URL", "RCES_SDK_KEY", "RCES_INSTANCE_ID")


class UsageError(Exception):
    """The environment does not describe a runnable client (exit 2). Never names the key."""


@dataclass(frozen=True)
class Launch:
    """What the environment asks for: the configuration and the scenario name."""

    config: Config
    scenario: str | None


def launch_from(environ: Mapping[str, str]) -> Launch:
    """Read the contract; ``UsageError`` lists every missing or bad variable."""
    missing = [name for name in REQUIRED if not environ.get(name)]
    if missing:
        raise UsageError("missing environment variable(s): " + ", ".join(missing))
    problems: list[str] = []
    scale = _time_scale(environ.get("RCES_TIME_SCALE"), problems)
    transport = environ.get("RCES_HASH_TRANSPORT", "if-none-match")
    if transport not in HASH_TRANSPORTS:
        problems.append(f"RCES_HASH_TRANSPORT must be one of {', '.join(HASH_TRANSPORTS)}")
    reading = environ.get("RCES_JITTER_READING", "above")
    if reading not in JITTER_READINGS:
        problems.append(f"RCES_JITTER_READING must be one of {', '.join(JITTER_READINGS)}")
    project_id = _project_id(environ.get("RCES_PROJECT_ID"), problems)
    if problems:
        raise UsageError("; ".join(problems))
    try:
        config = Config(
            base_url=environ["RCES_BASE_URL"],
            sdk_key=environ["RCES_SDK_KEY"],
            environment=environ.get("RCES_ENVIRONMENT") or "development",
            instance_id=environ["RCES_INSTANCE_ID"],
            time_scale=scale,
            hash_transport=_transport(transport),
            jitter_reading=_reading(reading),
            project_id=project_id,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    return Launch(config, environ.get("RCES_SCENARIO") or None)


def _time_scale(raw: str | None, problems: list[str]) -> float:
    if raw is None or raw == "":
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        problems.append(f"RCES_TIME_SCALE must be a number > 0, not {raw!r}")
        return 1.0
    return value


def _project_id(raw: str | None, problems: list[str]) -> int | None:
    if raw is None or raw == "":
        return None
    if not raw.isdigit():
        problems.append(f"RCES_PROJECT_ID must be a whole number, not {raw!r}")
        return None
    return int(raw)  # Config checks the bounds


def _transport(value: str) -> HashTransport:
    return "query" if value == "query" else "if-none-match"


def _reading(value: str) -> JitterReading:
    return "symmetric" if value == "symmetric" else "above"
