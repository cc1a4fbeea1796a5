"""The environment alias's space (spec 4.3, 5): its forms, the SDK endpoint forms it is sent to,
and the environment each form selects; the scenarios judge every key scope against all of it.

Spec 4.3: "allowed values production, development | default development when omitted; studio is
accepted as a synonym for development; an alias outside the key's environment scope is rejected
with 403". The header table is the SDK endpoints' (status and bootstrap, with or without
identity), so each rule ranges over every endpoint form the profile declares, every alias form
(the allowed ones, the synonym, none at all, and values that are none of them: empty, near misses
and case variants, since the allowed values are given in lower case and no folding is stated) and
every key of the profile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from conformance.checks import IndependentChecks, json_object
from conformance.drivers.sdk import OUT_OF_SCOPE_STATUS, Snapshots, no_snapshot
from conformance.oracles.json_equality import same_json
from conformance.profile.access import SdkKey
from conformance.traffic.transcript import Reply

# alias form sent (None: the header omitted) -> the environment it selects
SELECTS: dict[str | None, str] = {
    "production": "production",
    "development": "development",
    "studio": "development",
    None: "development",
}
# Values that are neither an allowed value nor the synonym (spec 4.3).
UNKNOWN: tuple[str, ...] = (
    "",
    "staging",
    "prod",
    "dev",
    "developmentx",
    "Production",
    "PRODUCTION",
    "Development",
    "Studio",
    "STUDIO",
    "studio,development",
)


CASE_KEY = "headers.environment_case"


def spelled_value(alias: str) -> str | None:
    """The allowed value (or synonym) a case variant spells (``Production``: production);
    None for a value that is no case variant of one. Spec 4.3 lists the values in lower case and
    does not say a case variant is refused: ``headers.environment_case`` says how the target
    reads one (exact: refused, the convention; insensitive: as the value it spells)."""
    folded = alias.lower()
    return folded if folded != alias and folded in SELECTS else None


@dataclass(frozen=True)
class Endpoint:
    """One SDK endpoint form: the path, and whether identity headers go with it."""

    label: str
    path: str
    identity: bool


STATUS = Endpoint("status", "/status", False)
BOOTSTRAP = Endpoint("bootstrap", "/bootstrap", False)
BOOTSTRAP_IDENTITY = Endpoint("bootstrap with identity", "/bootstrap", True)


def endpoints(snapshots: Snapshots, *, status: bool = True) -> list[Endpoint]:
    """The SDK endpoint forms the profile declares (bootstrap and per-unit bootstrap are
    capabilities); ``status=False`` leaves the status endpoint out."""
    profile = snapshots.profile
    found = [STATUS] if status else []
    if profile.capability("bootstrap"):
        found.append(BOOTSTRAP)
        if profile.capability("bootstrap_identity"):
            found.append(BOOTSTRAP_IDENTITY)
    return found


def keys(snapshots: Snapshots) -> list[SdkKey]:
    return list(snapshots.profile.credentials.sdk_keys)


def in_scope(key: SdkKey, alias: str | None) -> bool:
    return SELECTS[alias] in key.environments


def read(
    snapshots: Snapshots,
    endpoint: Endpoint,
    key: str,
    alias: str | None,
    *,
    allow_server_error: bool = False,
) -> Reply:
    """One read of ``endpoint`` with ``key`` and the alias form (None: no alias header); with
    identity, a unit of this run's own and the profile's first unit type. ``allow_server_error``:
    a 5xx is returned to a caller whose rule another test judges it by, not failed here."""
    headers: dict[str, str] = {}
    if endpoint.identity:
        names = snapshots.profile.headers
        headers[names.unit_id] = snapshots.client.name("alias-unit")
        types = snapshots.profile.experiments.unit_types
        if types:
            headers[names.unit_type] = types[0]
    return snapshots.client.sdk(
        endpoint.path,
        key=key,
        environment=alias,
        headers=headers,
        allow_server_error=allow_server_error,
    )


def lists(reply: Reply, configuration_id: object) -> bool:
    """Whether a 200 answer lists the configuration: a configuration created in development
    alone tells development's snapshot from another environment's."""
    try:
        body = json_object(reply)
    except AssertionError:
        return False
    entries = body.get("configurations")
    return isinstance(entries, list) and any(
        isinstance(e, dict) and same_json(configuration_id, e.get("id")) for e in entries
    )


def refused_outside(
    snapshots: Snapshots,
    aliases: tuple[str | None, ...],
    endpoints: list[Endpoint],
    ids: tuple[str, ...],
    development_marker: Callable[[], object] | None = None,
) -> int:
    """Every (key, alias, endpoint) whose alias selects an environment outside the key's scope
    answers 403 without a snapshot; the number of such cases judged.

    With no alias, an answer serving a snapshot without the configuration ``development_marker``
    creates (in development alone; called only when such an answer comes, so that a target
    refusing it nothing needs no management call) selected another environment: that breaks the
    default (SDK-HDR-ENV-DEFAULT-DEVELOPMENT, judged by its own test), not the scope, and is
    left out."""
    forbidden = OUT_OF_SCOPE_STATUS
    judged = 0
    with IndependentChecks() as independent:
        for key in keys(snapshots):
            for alias in aliases:
                if in_scope(key, alias):
                    continue
                for endpoint in endpoints:
                    judged += 1
                    reply = read(snapshots, endpoint, key.key, alias)
                    if alias is None and reply.status == 200 and development_marker is not None:
                        marker = development_marker()
                        if not lists(read(snapshots, endpoint, key.key, alias), marker):
                            continue
                    independent.check(
                        reply.status == forbidden and no_snapshot(reply),
                        ids,
                        f"{shown(alias)} outside the key's scope "
                        f"({', '.join(key.environments)}) was served on {endpoint.label}",
                        f"HTTP {forbidden} without a snapshot",
                        reply.describe(),
                        reply,
                    )
    return judged


def shown(alias: str | None) -> str:
    return "no alias" if alias is None else f"alias {alias!r}"
