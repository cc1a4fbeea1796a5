"""The typed profile: ``Profile``, one field per section, and what a run asks of it."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

from conformance.errors import UsageError
from conformance.profile.access import Credentials, Project, SdkKey
from conformance.profile.defaults import STAGE_SECTIONS
from conformance.profile.experiments import BootstrapPayload, ExperimentPayload, Experiments
from conformance.profile.limits import Load, LoadShedding, RateLimit, Responses, SdkRateLimit
from conformance.profile.messages import Bodies, Conditional, ErrorShape, Headers, Statuses


@dataclass(frozen=True)
class BaselineEntry:
    """An entry of ``baseline``."""

    requirement: str
    reason: str


@dataclass(frozen=True)
class Profile:
    """A loaded, validated target profile with every default filled in: one field per section
    (the schema's top-level keys but ``profile_version`` and the ``STAGE_SECTIONS``, which their
    stage types with ``stage_section``), then where it came from."""

    conventions: str  # "none" | "production"
    credentials: Credentials
    project: Project
    headers: Headers
    bodies: Bodies
    errors: ErrorShape
    statuses: Statuses
    conditional: Conditional
    rate_limit: SdkRateLimit
    management_rate_limit: RateLimit | None
    responses: Responses
    load_shedding: LoadShedding
    load: Load
    experiments: Experiments
    bootstrap_payload: BootstrapPayload
    experiment_payload: ExperimentPayload
    capabilities: dict[str, bool]
    baseline: tuple[BaselineEntry, ...]
    source: Path | None  # not a key: the file read (given to ``build``)
    raw: dict[str, object] = field(repr=False, compare=False)  # not a key: the merged mapping
    # not a key: the dotted keys the file writes (a default it leaves out is a convention)
    written: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    def declares(self, key: str) -> bool:
        """Whether the target declares ``key`` (a dotted path) as its own choice: the file
        writes it (or a key above it), or ``conventions: production`` declares every default.
        An expectation resting on a key it does not declare is judged at the drop-in level."""
        if self.conventions == "production":
            return True
        parts = key.split(".")
        return any(".".join(parts[:end]) in self.written for end in range(1, len(parts) + 1))

    def value(self, key: str) -> object:
        """The value of a dotted key (``errors.validation_status``), default filled in."""
        found: object = self.raw if key.split(".", 1)[0] in STAGE_SECTIONS else self
        for part in key.split("."):
            found = found[part] if isinstance(found, dict) else getattr(found, part)
        return found

    def capability(self, name: str) -> bool:
        """Whether the target declares a capability (unknown names count as present)."""
        return self.capabilities.get(name, True)

    def secrets(self) -> tuple[str, ...]:
        """Every secret value in the profile, for redaction."""
        values = [self.credentials.pat, *(k.key for k in self.credentials.sdk_keys)]
        if self.credentials.legacy_sdk_key is not None:
            values.append(self.credentials.legacy_sdk_key.key)
        if self.credentials.foreign_sdk_key is not None:
            values.append(self.credentials.foreign_sdk_key)
        return tuple(v for v in values if v)

    def secret_names(self) -> dict[str, str]:
        """Each secret value mapped to the shell placeholder shown in its place."""
        names = {self.credentials.pat: "$RCES_PAT"}
        for index, key in enumerate(self.credentials.sdk_keys):
            names.setdefault(key.key, f"$RCES_SDK_KEY_{index + 1}")
        if self.credentials.legacy_sdk_key is not None:
            names.setdefault(self.credentials.legacy_sdk_key.key, "$RCES_KEY_LEGACY")
        if self.credentials.foreign_sdk_key is not None:
            names.setdefault(self.credentials.foreign_sdk_key, "$RCES_KEY_FOREIGN")
        return names

    def redacted(self) -> dict[str, object]:
        """The effective profile as plain data, credentials replaced by placeholders."""
        data = copy.deepcopy(self.raw)
        names = self.secret_names()
        creds = data.get("credentials", {})
        if not isinstance(creds, dict):  # the schema requires a mapping
            return data
        creds["pat"] = names.get(self.credentials.pat, "<redacted>")
        for entry in creds.get("sdk_keys", []):
            entry["key"] = names.get(entry["key"], "<redacted>")
        if "legacy_sdk_key" in creds:
            creds["legacy_sdk_key"]["key"] = names.get(creds["legacy_sdk_key"]["key"], "<redacted>")
        if "foreign_sdk_key" in creds:
            creds["foreign_sdk_key"] = names.get(creds["foreign_sdk_key"], "<redacted>")
        return data

    def key_for(self, environment: str) -> SdkKey | None:
        """An SDK key whose scope includes ``environment`` (the narrowest such key)."""
        fitting = [k for k in self.credentials.sdk_keys if environment in k.environments]
        return min(fitting, key=lambda k: len(k.environments), default=None)

    def environment_id(self, alias: str) -> int:
        try:
            return self.project.environments[alias]
        except KeyError:
            raise UsageError(
                f"the profile names no environment {alias!r} under project.environments",
                f"add `{alias}: <environment_id>` under project.environments",
            ) from None
