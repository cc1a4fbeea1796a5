"""The target profile: how one implementation fills the spec's gaps, loaded, validated, typed.

A profile is YAML validated against ``profile.schema.json``. Every error names the key and the
line. ``${ENV_VAR}`` values are read at load time; a missing variable is a usage error. Every
default is the reference server's choice (``docs/reference-choices.md``).
"""

from __future__ import annotations

import copy
import json
import os
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from conformance.errors import UsageError

ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

# The defaults, section by section: the reference server's choices.
DEFAULTS: dict[str, Any] = {
    "profile_version": 1,
    "headers": {
        "environment": "environment",
        "instance_id": "server-id",
        "numeric": "project-id",
        "sdk_version": "sdkversion",
        "unit_id": "unit-id",
        "unit_type": "unit-type",
        "unit_context": "unit-context",
    },
    "bodies": {
        "create": {
            "content": "configuration",
            "private_keys": "privateKeys",
            "comments": "comments",
        },
        "patch": {"operations": "operations", "base_hash": "baseHash", "key_order": "keyOrder"},
    },
    "errors": {
        "code_field": "errorCode",
        "message_field": "message",
        "missing_credentials_status": [401],
        "forbidden_status": 403,
        "validation_status": 400,
        "not_found_status": 404,
    },
    "statuses": {"create_configuration": 201, "create_experiment": 201},
    "conditional": {"require_list_and_weak": False},
    "rate_limit": {"burst": 60, "refill_per_second": 30},
    "management_rate_limit": None,
    "responses": {"max_bytes": 8 * 1024 * 1024, "max_seconds": 30.0},
    "load_shedding": {
        "provoke": "burst",
        "burst_requests": 400,
        "window_seconds": 1.0,
        "settle_seconds": 1.5,
    },
    "experiments": {
        "unit_types": ["user", "server"],
        "assignment_modes": ["weightedHash", "roundRobin"],
        "max_groups": 8,
        "weight_total": 10000,
        "page_size_max": 100,
        "hash_function": "sha256-8-mod-10000",
        "context_encoding": "json-header",
    },
    "bootstrap_payload": {"document": "configuration", "assignments": "assignments"},
    "experiment_payload": {
        "items": "items",
        "next_cursor": "nextCursor",
        "cursor_param": "cursor",
        "limit_param": "limit",
        "status": "status",
        "terminated": "terminated",
        "member_active": "active",
        "changeset": "changeset",
        "unit_id": "unitId",
        "group_id": "groupId",
        "experiment_id": "experimentId",
        "percentage": "percentage",
        "weights": "weights",
        "rollout_groups": "groups",
        "count_active": "active",
        "count_unenrolled": "unenrolled",
        "count_total": "total",
        "count_groups": "groups",
        "property_name": "name",
    },
    "capabilities": {
        "experiments": True,
        "bootstrap": True,
        "bootstrap_identity": True,
        "key_order": True,
        "rate_limit": True,
        "load_shedding": True,
        "legacy_sdk_key": True,
    },
    "baseline": [],
}


@dataclass(frozen=True)
class SdkKey:
    key: str
    environments: tuple[str, ...]


@dataclass(frozen=True)
class Credentials:
    pat: str
    sdk_keys: tuple[SdkKey, ...]
    legacy_sdk_key: SdkKey | None = None
    foreign_sdk_key: str | None = None


@dataclass(frozen=True)
class Project:
    application_id: int
    environments: dict[str, int]
    foreign_application_id: int | None = None
    foreign_environment_id: int | None = None


@dataclass(frozen=True)
class Headers:
    environment: str
    instance_id: str
    numeric: str
    sdk_version: str
    unit_id: str
    unit_type: str
    unit_context: str


@dataclass(frozen=True)
class CreateBody:
    content: str
    private_keys: str
    comments: str


@dataclass(frozen=True)
class PatchBody:
    operations: str
    base_hash: str
    key_order: str


@dataclass(frozen=True)
class Bodies:
    create: CreateBody
    patch: PatchBody


@dataclass(frozen=True)
class ErrorShape:
    code_field: str
    message_field: str
    missing_credentials_status: tuple[int, ...]
    forbidden_status: int
    validation_status: int  # invalid input (spec 7: not shown)
    not_found_status: int  # an unknown id (spec 7: not shown)


@dataclass(frozen=True)
class Statuses:
    create_configuration: int
    create_experiment: int


@dataclass(frozen=True)
class Conditional:
    require_list_and_weak: bool


@dataclass(frozen=True)
class RateLimit:
    burst: int
    refill_per_second: float


@dataclass(frozen=True)
class Responses:
    """Bounds on one answer: a target that sends more, or takes longer, fails."""

    max_bytes: int  # the body, decoded
    max_seconds: float  # from sending the request to the body's last byte


@dataclass(frozen=True)
class LoadShedding:
    provoke: str  # burst | forced | none
    burst_requests: int
    window_seconds: float
    settle_seconds: float


@dataclass(frozen=True)
class Experiments:
    unit_types: tuple[str, ...]
    assignment_modes: tuple[str, ...]
    max_groups: int
    weight_total: int
    page_size_max: int
    hash_function: str | None
    context_encoding: str


@dataclass(frozen=True)
class BootstrapPayload:
    """Field names of a bootstrap answer the spec does not show."""

    document: str  # the configuration entry's field holding the document
    assignments: str  # the per-unit answer's array of experiment assignments


@dataclass(frozen=True)
class ExperimentPayload:
    """Field names, query parameters and status values of the experiment payloads (spec 4.2
    shows none of them); group and summary fields are the ones spec 2.5 names."""

    items: str  # the array of a paged (or counted) list
    next_cursor: str  # the cursor of the next page; absent, null or "" on the last page
    cursor_param: str  # query parameter taking that cursor
    limit_param: str  # query parameter taking the page size
    status: str  # field of an experiment, assignment or member holding its status
    terminated: str  # status value of a terminated experiment
    member_active: str  # status value of an enrolled (active) member
    changeset: str  # field of a create-body group holding its changeset
    unit_id: str  # field naming the unit (assignment bodies, members, assignments)
    group_id: str  # field naming the group (assignment bodies and records, counts)
    experiment_id: str  # field naming the experiment (assignments, counts)
    percentage: str  # rollout field: share of units enrolled, 0-100
    weights: str  # rollout change field: group id -> weight
    rollout_groups: str  # rollout field: the array of groups with their weights
    count_active: str  # counts field: active units
    count_unenrolled: str  # counts field: unenrolled units
    count_total: str  # counts field: all units
    count_groups: str  # per-experiment counts field: the array of per-group counts
    property_name: str  # context-properties item field naming the property


@dataclass(frozen=True)
class BaselineEntry:
    requirement: str
    reason: str


@dataclass(frozen=True)
class Profile:
    """A loaded, validated target profile with every default filled in."""

    credentials: Credentials
    project: Project
    headers: Headers
    bodies: Bodies
    errors: ErrorShape
    statuses: Statuses
    conditional: Conditional
    rate_limit: RateLimit
    management_rate_limit: RateLimit | None  # None: the target declares none, calls unpaced
    responses: Responses
    load_shedding: LoadShedding
    experiments: Experiments
    bootstrap_payload: BootstrapPayload
    experiment_payload: ExperimentPayload
    capabilities: dict[str, bool]
    baseline: tuple[BaselineEntry, ...]
    source: Path | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

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

    def redacted(self) -> dict[str, Any]:
        """The effective profile as plain data, credentials replaced by placeholders."""
        data = copy.deepcopy(self.raw)
        names = self.secret_names()
        creds = data.get("credentials", {})
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


# ---------------------------------------------------------------- loading


class _MarkedLoader(yaml.SafeLoader):
    """A SafeLoader whose composed node tree is walked for line numbers."""


def _lines(node: yaml.Node, path: tuple[Any, ...], out: dict[tuple[Any, ...], int]) -> None:
    """Record the line of every key and item, by its path."""
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            child = (*path, key_node.value)
            out[child] = key_node.start_mark.line + 1
            _lines(value_node, child, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _lines(item, (*path, index), out)


def _dotted(path: tuple[Any, ...]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _line_of(path: tuple[Any, ...], lines: dict[tuple[Any, ...], int]) -> int | None:
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _where(source: str, path: tuple[Any, ...], lines: dict[tuple[Any, ...], int]) -> str:
    line = _line_of(path, lines)
    return f"{source}, line {line}" if line is not None else source


def _substitute(
    value: Any, path: tuple[Any, ...], source: str, lines: dict[tuple[Any, ...], int]
) -> Any:
    if isinstance(value, dict):
        return {k: _substitute(v, (*path, k), source, lines) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, (*path, i), source, lines) for i, v in enumerate(value)]
    if not isinstance(value, str) or "${" not in value:
        return value

    def read(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise UsageError(
                f"{_where(source, path, lines)}: key {_dotted(path)} refers to ${{{name}}}, "
                "but that environment variable is not set",
                f"export {name}=... before running, or write the value into the profile",
            )
        return os.environ[name]

    whole = ENV_REFERENCE.fullmatch(value)
    text = ENV_REFERENCE.sub(read, value)
    if whole and path and path[0] != "credentials":
        # A whole-value reference outside credentials takes the YAML type of its value (e.g. 1).
        parsed = yaml.safe_load(text) if text.strip() else text
        return parsed if isinstance(parsed, (int, float, bool)) else text
    return text


def _merge(defaults: Any, given: Any) -> Any:
    if isinstance(defaults, dict) and isinstance(given, dict):
        merged = dict(defaults)
        for key, value in given.items():
            merged[key] = _merge(defaults.get(key), value) if key in defaults else value
        return merged
    return copy.deepcopy(given)


@cache
def schema() -> dict[str, Any]:
    """The profile's JSON Schema."""
    text = resources.files("conformance").joinpath("profile.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _validate(data: Any, source: str, lines: dict[tuple[Any, ...], int]) -> None:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    validator = Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), e.message))
    if not errors:
        return
    problems = []
    for error in errors[:5]:
        path = tuple(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = error.schema.get("properties", {})
            extra = [key for key in error.instance if key not in known]
            path = (*path, extra[0]) if extra else path
        problems.append(f"{_where(source, path, lines)}: key {_dotted(path)}: {error.message}")
    more = f"\n(and {len(errors) - 5} more)" if len(errors) > 5 else ""
    raise UsageError(
        "the target profile is invalid:\n" + "\n".join(problems) + more,
        "fix the profile (format: docs/target-profile.md, schema: conformance/profile.schema.json)",
    )


def parse(text: str, source: str = "<profile>", base: Path | None = None) -> Profile:
    """Parse, substitute, validate and type a profile given as YAML text."""
    try:
        node = yaml.compose(text, Loader=_MarkedLoader)
        data = yaml.load(text, Loader=_MarkedLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        context = error.context_mark
        if context is not None and mark is not None and context.line != mark.line:
            line += f" ({error.context} at line {context.line + 1})"
        raise UsageError(
            f"{source}{line}: the target profile is not valid YAML: {error.problem or error}",
            "fix the YAML syntax at that line",
        ) from None
    except yaml.YAMLError as error:
        raise UsageError(f"{source}: the target profile is not valid YAML: {error}") from None
    lines: dict[tuple[Any, ...], int] = {}
    if node is not None:
        _lines(node, (), lines)
    if not isinstance(data, dict):
        raise UsageError(
            f"{source}: the target profile must be a YAML mapping, got {type(data).__name__}",
            "start from the example in docs/target-profile.md",
        )
    data = _substitute(data, (), source, lines)
    _validate(data, source, lines)
    return build(_merge(DEFAULTS, data), source=Path(source) if base is None else base)


def load(path: str | os.PathLike[str]) -> Profile:
    """Load a profile file; every problem is a ``UsageError`` naming the key and the line."""
    file = Path(path)
    try:
        text = file.read_text("utf-8")
    except FileNotFoundError:
        raise UsageError(
            f"target profile not found: {file}",
            "pass --profile/--target-profile with the path of an existing profile "
            "(refserver serve prints the path of the one it writes)",
        ) from None
    except OSError as error:
        raise UsageError(f"cannot read target profile {file}: {error.strerror}") from None
    return parse(text, source=str(file), base=file)


def _rate_limit(entry: dict[str, Any]) -> RateLimit:
    return RateLimit(burst=int(entry["burst"]), refill_per_second=float(entry["refill_per_second"]))


def build(data: dict[str, Any], source: Path | None = None) -> Profile:
    """Type an already validated and defaulted profile mapping."""

    def key(entry: dict[str, Any]) -> SdkKey:
        return SdkKey(key=str(entry["key"]), environments=tuple(entry["environments"]))

    creds = data["credentials"]
    project = data["project"]
    bodies = data["bodies"]
    errors = data["errors"]
    shed = data["load_shedding"]
    exp = data["experiments"]
    return Profile(
        credentials=Credentials(
            pat=str(creds["pat"]),
            sdk_keys=tuple(key(k) for k in creds["sdk_keys"]),
            legacy_sdk_key=key(creds["legacy_sdk_key"]) if "legacy_sdk_key" in creds else None,
            foreign_sdk_key=creds.get("foreign_sdk_key"),
        ),
        project=Project(
            application_id=int(project["application_id"]),
            environments={str(k): int(v) for k, v in project["environments"].items()},
            foreign_application_id=project.get("foreign_application_id"),
            foreign_environment_id=project.get("foreign_environment_id"),
        ),
        headers=Headers(**data["headers"]),
        bodies=Bodies(create=CreateBody(**bodies["create"]), patch=PatchBody(**bodies["patch"])),
        errors=ErrorShape(
            code_field=errors["code_field"],
            message_field=errors["message_field"],
            missing_credentials_status=tuple(errors["missing_credentials_status"]),
            forbidden_status=errors["forbidden_status"],
            validation_status=errors["validation_status"],
            not_found_status=errors["not_found_status"],
        ),
        statuses=Statuses(**data["statuses"]),
        conditional=Conditional(**data["conditional"]),
        rate_limit=_rate_limit(data["rate_limit"]),
        management_rate_limit=(
            None
            if data["management_rate_limit"] is None
            else _rate_limit(data["management_rate_limit"])
        ),
        responses=Responses(
            max_bytes=int(data["responses"]["max_bytes"]),
            max_seconds=float(data["responses"]["max_seconds"]),
        ),
        load_shedding=LoadShedding(
            provoke=shed["provoke"],
            burst_requests=int(shed["burst_requests"]),
            window_seconds=float(shed["window_seconds"]),
            settle_seconds=float(shed["settle_seconds"]),
        ),
        experiments=Experiments(
            unit_types=tuple(exp["unit_types"]),
            assignment_modes=tuple(exp["assignment_modes"]),
            max_groups=int(exp["max_groups"]),
            weight_total=int(exp["weight_total"]),
            page_size_max=int(exp["page_size_max"]),
            hash_function=exp["hash_function"],
            context_encoding=exp["context_encoding"],
        ),
        bootstrap_payload=BootstrapPayload(**data["bootstrap_payload"]),
        experiment_payload=ExperimentPayload(**data["experiment_payload"]),
        capabilities={str(k): bool(v) for k, v in data["capabilities"].items()},
        baseline=tuple(BaselineEntry(**entry) for entry in data["baseline"]),
        source=source,
        raw=data,
    )
