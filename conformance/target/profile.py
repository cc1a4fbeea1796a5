"""The target profile: how one implementation fills the spec's gaps, loaded, validated, typed.

This module owns loading a profile and its typed view. ``profile.schema.json`` owns every key: its
type, its default (every default is the reference server's choice, ``docs/reference-choices.md``)
and its meaning (``description``). Nothing here repeats a default: ``DEFAULTS`` is read from the
schema, a profile is merged over it, and ``build`` types the merged mapping from the dataclasses'
annotations. Every error names the key and the line. ``${ENV_VAR}`` values are read at load
time; a missing variable is a usage error.

To add a key or a section (say ``paging:``), in three places and with one default:

1. ``profile.schema.json``: the section under ``properties``; each optional key carries its
   ``default`` and ``description`` on the property itself (not inside ``$defs``).
2. Here: a frozen dataclass whose fields are the section's keys, typed (``int``, ``float``,
   ``str``, ``bool``, ``X | None``, ``tuple[X, ...]``, ``dict[str, X]`` or another such
   dataclass) and without defaults, and a field of that type on ``Profile``. ``build`` needs no
   change. A key that is optional without a default is typed ``X | None``: absent, it is None.
   A section that sets a stage (``STAGE_SECTIONS``) gets its dataclass in the stage instead,
   read with ``stage_section``.
3. ``docs/target-profile.md``: the key in the example, with its default as the value
   (``tests/conformance/target/test_profile_docs.py`` holds the schema, this module and the
   page equal).
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from difflib import get_close_matches
from functools import cache
from importlib import resources
from pathlib import Path
from types import NoneType, UnionType
from typing import TYPE_CHECKING, Any, TypeVar, get_args, get_origin, get_type_hints

import yaml
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from conformance.errors import UsageError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

T = TypeVar("T", bound="DataclassInstance")
KeyPath = tuple[str | int, ...]  # where a value sits in a profile: keys and list indices


@cache
def schema() -> dict[str, Any]:
    """The profile's JSON Schema."""
    text = resources.files("conformance.target").joinpath("profile.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _stage_sections() -> frozenset[str]:
    """The sections the schema marks ``x-stage-section``: their keys set a stage rather than
    describe the target. The schema validates them and gives their defaults; the stage that
    reads one types it (``stage_section``)."""
    properties = schema()["properties"]
    return frozenset(name for name, node in properties.items() if node.get("x-stage-section"))


def schema_defaults(properties: Mapping[str, Any]) -> dict[str, Any]:
    """The ``default`` of each property, and of each object's properties, recursively; a
    property with neither (a credential, an optional input) is left out."""
    found: dict[str, Any] = {}
    for name, node in properties.items():
        if "default" in node:
            found[name] = copy.deepcopy(node["default"])
        elif "properties" in node and (nested := schema_defaults(node["properties"])):
            found[name] = nested
    return found


# The defaults, section by section, as the schema states them.
DEFAULTS: dict[str, Any] = schema_defaults(schema()["properties"])
STAGE_SECTIONS: frozenset[str] = _stage_sections()


# ---------------------------------------------------------------- the typed view
# One dataclass per section, its fields the section's keys: types here, defaults and meanings
# in profile.schema.json.


@dataclass(frozen=True)
class SdkKey:
    """An entry of ``credentials.sdk_keys`` (or ``credentials.legacy_sdk_key``)."""

    key: str
    environments: tuple[str, ...]


@dataclass(frozen=True)
class Credentials:
    """``credentials``."""

    pat: str
    sdk_keys: tuple[SdkKey, ...]
    legacy_sdk_key: SdkKey | None
    foreign_sdk_key: str | None


@dataclass(frozen=True)
class Project:
    """``project``."""

    application_id: int
    environments: dict[str, int]
    foreign_application_id: int | None
    foreign_environment_id: int | None


@dataclass(frozen=True)
class Headers:
    """``headers``: header names the spec does not show."""

    environment: str
    instance_id: str
    numeric: str
    sdk_version: str
    unit_id: str
    unit_type: str
    unit_context: str
    environment_case: str  # "exact" | "insensitive"
    numeric_grammar: str  # "decimal-digits" | "javascript-number"


@dataclass(frozen=True)
class CreateBody:
    """``bodies.create``."""

    content: str
    private_keys: str
    comments: str


@dataclass(frozen=True)
class PatchBody:
    """``bodies.patch``."""

    operations: str
    base_hash: str
    base_hash_transport: str  # "body" | "if-match"
    base_token_source: str  # the record field a patch sends as its base
    key_order: str
    key_order_shape: str  # "pointer-map" | "entries"


@dataclass(frozen=True)
class Bodies:
    """``bodies``: field names of the configuration request bodies."""

    create: CreateBody
    patch: PatchBody
    path_syntax: str  # "json-pointer" | "dotted"
    private_path_syntax: str | None  # None: as path_syntax

    @property
    def private_syntax(self) -> str:
        """How the private paths are spelled (``private_path_syntax``, else ``path_syntax``)."""
        return self.private_path_syntax or self.path_syntax


@dataclass(frozen=True)
class ErrorShape:
    """``errors``: the error answer's fields and statuses."""

    code_field: str | None  # None: the error body has no code field
    message_field: str
    media_type: str
    missing_credentials_status: tuple[int, ...]
    forbidden_status: int
    foreign_project_status: tuple[int, ...]
    validation_status: tuple[int, ...]  # one status or several (the file may write either)
    malformed_body_status: tuple[int, ...] | None
    not_found_status: int
    rate_limited_status: int

    @property
    def malformed_status(self) -> tuple[int, ...]:
        """The status of a body that is not JSON at all (the validation status unless declared)."""
        declared = self.malformed_body_status
        return self.validation_status if declared is None else declared


@dataclass(frozen=True)
class Statuses:
    """``statuses``: success statuses the spec does not show."""

    create_configuration: int
    create_experiment: int


@dataclass(frozen=True)
class Conditional:
    """``conditional``."""

    require_list_and_weak: bool


@dataclass(frozen=True)
class RateLimit:
    """``rate_limit`` and ``management_rate_limit``: a token bucket."""

    burst: int
    refill_per_second: float


@dataclass(frozen=True)
class SdkRateLimit(RateLimit):
    """``rate_limit``: the SDK endpoints' bucket, and what one bucket is kept for."""

    scope: str  # "key-and-instance" | "instance"
    # declares the Retry-After convention (only ``true``: written, it is judged at the interface)
    retry_after: bool = True

    def bucket(self, key: str | None, instance: str | None) -> tuple[str, str | None]:
        """The identity of the target's bucket a request with this key and instance id spends
        (no instance id: the callers behind one address share it)."""
        return (key or "" if self.scope == "key-and-instance" else "", instance)


@dataclass(frozen=True)
class Responses:
    """``responses``: bounds on one answer; a target that sends more, or takes longer, fails."""

    max_bytes: int
    max_seconds: float


@dataclass(frozen=True)
class LoadShedding:
    """``load_shedding``."""

    provoke: str
    burst_requests: int
    window_seconds: float
    settle_seconds: float


@dataclass(frozen=True)
class Load:
    """``load``: the load stage's fleet, its plan and the service's declared figures."""

    fleet: int
    cadence_seconds: float
    jitter_ratio: float
    run_seconds: float
    ramp_seconds: float
    write_interval_seconds: float | None
    noisy_instances: int
    noisy_rate_factor: float
    anonymous_pollers: int
    anonymous_rate_factor: float
    shedding_threshold: float | None
    release_threshold: float | None  # hysteresis: shedding stops under it (None: the threshold)
    threshold_margin: float
    propagation_seconds: float
    latency_p50_ms: float | None
    latency_p99_ms: float | None
    min_not_modified_share: float | None
    min_throughput: float | None


@dataclass(frozen=True)
class Experiments:
    """``experiments``."""

    unit_types: tuple[str, ...]
    assignment_modes: tuple[str, ...]
    max_groups: int
    weight_total: int | None  # None: weights have no fixed total
    page_size_max: int
    hash_function: str | None
    context_encoding: str


@dataclass(frozen=True)
class BootstrapPayload:
    """``bootstrap_payload``: field names of a bootstrap answer the spec does not show."""

    document: str
    assignments: str


@dataclass(frozen=True)
class ExperimentCreate:
    """``experiment_payload.create``: names of the create body, the record and catalog items."""

    name: str
    unit_type: str
    assignment_mode: str
    base_configuration_id: str
    required_properties: str
    groups: str
    group_label: str
    group_weight: str


@dataclass(frozen=True)
class ExperimentPayload:
    """``experiment_payload``: field names, query parameters and status values of the
    experiment payloads (spec 4.2 shows none of them)."""

    items: str
    next_cursor: str
    pagination: str  # "cursor" | "offset" | "page" | "link"
    paged_lists: tuple[str, ...]
    cursor_param: str
    limit_param: str
    offset_param: str
    page_param: str
    status: str
    status_param: str | None  # None: the lists take no status filter
    running: str
    terminated: str
    member_active: str
    member_unenrolled: str
    changeset: str
    changeset_format: str  # "segments" | "json-patch"
    unit_id: str
    group_id: str
    experiment_id: str
    percentage: str
    weights: str
    rollout_groups: str
    count_active: str
    count_unenrolled: str
    count_total: str
    count_groups: str
    property_name: str
    group_count_active: str | None  # None: as count_active
    group_count_unenrolled: str | None  # None: as count_unenrolled
    group_count_total: str | None  # None: as count_total
    weights_shape: str  # "map" | "list"
    manual_weights: bool
    environment_header: bool
    create: ExperimentCreate


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


# ---------------------------------------------------------------- loading


class _MarkedLoader(yaml.SafeLoader):
    """A SafeLoader whose composed node tree is walked for line numbers."""


def _lines(node: yaml.Node, path: KeyPath, out: dict[KeyPath, int]) -> None:
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


def _dotted(path: KeyPath) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _line_of(path: KeyPath, lines: dict[KeyPath, int]) -> int | None:
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _where(source: str, path: KeyPath, lines: dict[KeyPath, int]) -> str:
    line = _line_of(path, lines)
    return f"{source}, line {line}" if line is not None else source


def _substitute(value: object, path: KeyPath, source: str, lines: dict[KeyPath, int]) -> object:
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


def _merge(defaults: object, given: object) -> object:
    """``given`` over a copy of ``defaults``, mapping by mapping."""
    if isinstance(defaults, dict) and isinstance(given, dict):
        merged = copy.deepcopy(defaults)
        for key, value in given.items():
            merged[key] = _merge(defaults.get(key), value) if key in defaults else value
        return merged
    return copy.deepcopy(given)


def _validate(data: object, source: str, lines: dict[KeyPath, int]) -> None:
    validator = Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), e.message))
    if not errors:
        return
    problems = []
    for error in errors[:5]:
        path = tuple(error.absolute_path)
        hint = ""
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = error.schema.get("properties", {})
            extra = [key for key in error.instance if key not in known]
            path = (*path, extra[0]) if extra else path
            hint = _did_you_mean(extra[0], known) if extra else ""
        problems.append(
            f"{_where(source, path, lines)}: key {_dotted(path)}: {error.message}{hint}"
        )
    more = f"\n(and {len(errors) - 5} more)" if len(errors) > 5 else ""
    raise UsageError(
        "the target profile is invalid:\n" + "\n".join(problems) + more,
        "fix the profile (format: docs/target-profile.md, "
        "schema: conformance/target/profile.schema.json)",
    )


def _did_you_mean(key: object, allowed: Iterable[str]) -> str:
    """``; did you mean X?`` for an unknown key close to one allowed at its place, else ""."""
    close = get_close_matches(str(key), sorted(allowed), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


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
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _lines(node, (), lines)
    if not isinstance(data, dict):
        raise UsageError(
            f"{source}: the target profile must be a YAML mapping, got {type(data).__name__}",
            "start from the example in docs/target-profile.md",
        )
    data = _substitute(data, (), source, lines)
    _validate(data, source, lines)
    merged = _merge(DEFAULTS, data)
    if not isinstance(merged, dict):  # a mapping over the defaults' mapping stays one
        raise TypeError(f"{source}: the merged profile is not a mapping")
    written = written_keys(data) if isinstance(data, dict) else frozenset()
    return build(merged, Path(source) if base is None else base, written)


def written_keys(data: Mapping[str, object], prefix: str = "") -> frozenset[str]:
    """The dotted keys a profile mapping writes, down to its leaves (a list is a leaf). An empty
    section (``statuses: {}``) writes no key: it declares none of the keys under it."""
    found: set[str] = set()
    for name, value in data.items():
        dotted = f"{prefix}{name}"
        if isinstance(value, Mapping):
            found |= written_keys(value, dotted + ".")
        else:
            found.add(dotted)
    return frozenset(found)


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


def stage_section(cls: type[T], profile: Profile | Mapping[str, object], name: str) -> T:
    """A stage's own section of the profile (one of ``STAGE_SECTIONS``), typed as its stage
    declares it in ``cls`` by the rules ``build`` follows: a stage's settings live with the stage.
    ``profile``: a loaded profile, or a section's mapping already merged over its defaults."""
    data = profile.raw.get(name) if isinstance(profile, Profile) else profile
    if not isinstance(data, Mapping):
        raise TypeError(f"the profile's {name} section is not a mapping")
    return _section(cls, data)


def build(
    data: dict[str, object], source: Path | None = None, written: frozenset[str] = frozenset()
) -> Profile:
    """Type an already validated mapping with every default merged in (``DEFAULTS``);
    ``written``: the keys the file wrote (``written_keys``)."""
    return _section(Profile, data, source=source, raw=data, written=written)


def _section(cls: type[T], data: Mapping[str, object], **given: object) -> T:
    """One dataclass from the mapping of its section: each field from the key of its name, as
    its annotation says; a key absent from ``data`` is None (its field is ``X | None``)."""
    hints = get_type_hints(cls)
    values = dict(given)
    for item in fields(cls):
        if item.name in values:
            continue
        if item.name in data:
            values[item.name] = _typed(hints[item.name], data[item.name])
        elif _optional(hints[item.name]) is not None:
            values[item.name] = None
        else:  # the schema neither requires the key nor gives it a default
            raise KeyError(f"{cls.__name__}.{item.name}: no value and no default in the schema")
    return cls(**values)


def _optional(hint: object) -> object:
    """``X`` for an annotation ``X | None``, else None."""
    if get_origin(hint) is UnionType and NoneType in get_args(hint):
        (inner,) = (arg for arg in get_args(hint) if arg is not NoneType)
        return inner
    return None


def _typed(hint: object, value: object) -> object:
    """A validated value as its annotation says: a dataclass from a mapping, a tuple from a
    list, a dict with typed keys and values, a scalar converted (an integer as ``float``)."""
    if (inner := _optional(hint)) is not None:
        return None if value is None else _typed(inner, value)
    origin, args = get_origin(hint), get_args(hint)
    if origin is tuple and isinstance(value, Iterable):
        return tuple(_typed(args[0], item) for item in value)
    if origin is tuple and isinstance(value, int) and args[0] is int:  # one status for a list
        return (value,)
    if origin is dict and isinstance(value, Mapping):
        return {_typed(args[0], k): _typed(args[1], v) for k, v in value.items()}
    if isinstance(hint, type) and is_dataclass(hint) and isinstance(value, Mapping):
        return _section(hint, value)
    if hint is str or hint is bool:
        return hint(value)
    if (hint is int or hint is float) and isinstance(value, int | float | str):
        return hint(value)
    if origin in (tuple, dict) or hint in (int, float) or is_dataclass(hint):
        raise TypeError(f"a profile key typed {hint!r} holds {value!r}")
    raise TypeError(f"a profile key typed {hint!r}: add it to profile._typed")
