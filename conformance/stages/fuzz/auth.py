"""Fuzz credentials: which credential each fuzzed request carries, taken from the target profile.

Three modes, as a table: ``valid`` (the PAT for management and experiment operations, an SDK key
whose environment scope covers the environment the request names for SDK operations),
``missing`` (no credential header at all) and ``wrong`` (a well-formed credential the target
cannot know). The wrong values are built from the spec's prefixes only, never from a real secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from conformance.profile import Profile
from conformance.profile.access import SdkKey
from conformance.traffic.call_kind import is_sdk_path

MANAGEMENT_AUTH_HEADER = "Authorization"
SDK_AUTH_HEADER = "authorization"
# Spec 4.3: "studio" is accepted as a synonym for development.
ENVIRONMENT_SYNONYMS: dict[str, str] = {"studio": "development"}


class AuthMode(StrEnum):
    VALID = "valid"
    MISSING = "missing"
    WRONG = "wrong"


# mode -> (management Authorization value or None to omit, SDK authorization value or None)
WRONG_PAT = "Bearer svc_pat_cfFuzzUnknownToken0000000000"
WRONG_SDK_KEY = "svc_pk_cfFuzzUnknownKey00000000000"

# Requirement ids a credentials failure breaks, by (kind of operation, mode): each kind has its
# own "no credentials" and "unknown credentials" entry in the catalogue.
AUTH_REQUIREMENTS: dict[tuple[str, AuthMode], tuple[str, ...]] = {
    ("configuration", AuthMode.MISSING): ("AUTH-PAT-MISSING",),
    ("configuration", AuthMode.WRONG): ("AUTH-PAT-INVALID",),
    ("experiments", AuthMode.MISSING): ("AUTH-EXP-MISSING",),
    ("experiments", AuthMode.WRONG): ("AUTH-EXP-INVALID",),
    ("sdk", AuthMode.MISSING): ("AUTH-SDK-MISSING",),
    ("sdk", AuthMode.WRONG): ("AUTH-SDK-INVALID",),
}
EXPERIMENTS_SEGMENT = "/v2/experiments"


def kind_of(path: str) -> str:
    """``sdk``, ``experiments`` or ``configuration``: which credentials rules apply."""
    if is_sdk_path(path):
        return "sdk"
    return "experiments" if EXPERIMENTS_SEGMENT in path else "configuration"


def auth_requirements(path: str) -> tuple[str, ...]:
    """Every requirement the missing/wrong-credentials fuzz test of one operation speaks for."""
    kind = kind_of(path)
    ids = [rid for (k, _), rids in AUTH_REQUIREMENTS.items() if k == kind for rid in rids]
    return (*dict.fromkeys(ids), "ERR-BODY-SHAPE")


def widest_key(profile: Profile) -> SdkKey:
    """The SDK key whose scope covers the most environments (the generator may pick any)."""
    return max(profile.credentials.sdk_keys, key=lambda k: len(k.environments))


def sdk_key_for(profile: Profile, alias: str | None) -> tuple[SdkKey, str | None]:
    """A key covering ``alias``, and the alias to send (``None``: keep what was generated).

    A generated alias the profile does not know is kept (it tests validation) and sent with the
    widest key. A known alias no key covers is replaced by one the widest key covers, so a valid
    request is never turned into a scope error by the suite's own choice of key.
    """
    if alias is None:
        return widest_key(profile), None
    canonical = ENVIRONMENT_SYNONYMS.get(alias, alias)
    if canonical not in profile.project.environments:
        return widest_key(profile), None
    key = profile.key_for(canonical)
    if key is not None:
        return key, None
    fallback = widest_key(profile)
    return fallback, fallback.environments[0]


def credential_headers(
    profile: Profile, path: str, mode: AuthMode, headers: Mapping[str, str]
) -> dict[str, str | None]:
    """Header changes for one request: a value to set, or ``None`` to remove the header."""
    if not is_sdk_path(path):
        value = {
            AuthMode.VALID: f"Bearer {profile.credentials.pat}",
            AuthMode.MISSING: None,
            AuthMode.WRONG: WRONG_PAT,
        }[mode]
        return {MANAGEMENT_AUTH_HEADER: value}
    if mode is AuthMode.MISSING:
        return {SDK_AUTH_HEADER: None}
    if mode is AuthMode.WRONG:
        return {SDK_AUTH_HEADER: WRONG_SDK_KEY}
    env_header = profile.headers.environment
    alias = _get(headers, env_header)
    key, replacement = sdk_key_for(profile, alias)
    changes: dict[str, str | None] = {SDK_AUTH_HEADER: key.key}
    if replacement is not None:
        changes[env_header] = replacement
    return changes


def _get(headers: Mapping[str, str], name: str) -> str | None:
    lowered = name.lower()
    for key, value in headers.items():
        if key.lower() == lowered:
            return str(value)
    return None
