"""One source per profile key: the schema's ``default`` and ``description``, which the loader,
the typed view and ``docs/target-profile.md`` all follow."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from pathlib import Path
from types import UnionType
from typing import Any, get_args, get_origin, get_type_hints

import pytest
import yaml

from conformance.profile import Profile, parse
from conformance.profile.building import stage_section
from conformance.profile.defaults import DEFAULTS, STAGE_SECTIONS, schema_defaults
from conformance.profile.defaults import schema as profile_schema
from conformance.stages.client.settings import ClientSection
from conformance.stages.fuzz.settings import FuzzSection

DOC = Path(__file__).parents[3] / "docs" / "target-profile.md"
MINIMAL = """\
credentials:
  pat: svc_pat_unit
  sdk_keys:
    - {key: svc_pk_dev, environments: [development]}
project:
  application_id: 1
  environments: {development: 1}
"""
NOT_KEYS = {"source", "raw", "written"}  # fields of Profile that say where it came from
# The sections a stage types itself (``STAGE_SECTIONS``), by the stage's dataclass.
STAGE_TYPES: dict[str, type] = {"client": ClientSection, "fuzz": FuzzSection}


def keys(properties: dict[str, Any], prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every key (dotted) with its schema node; a key with a default is a leaf."""
    found = []
    for name, node in properties.items():
        found.append((prefix + name, node))
        if "default" not in node and "properties" in node:
            found.extend(keys(node["properties"], f"{prefix}{name}."))
    return found


def defaulted() -> list[tuple[str, Any]]:
    return [
        (key, node["default"])
        for key, node in keys(profile_schema()["properties"])
        if "default" in node
    ]


def at(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        data = data[part] if isinstance(data, dict) else getattr(data, part)
    return data


def typed_at(loaded: Profile, dotted: str) -> Any:
    """A key of the typed view: the profile's own, or its stage's for a stage section."""
    section, _, rest = dotted.partition(".")
    if section in STAGE_TYPES and rest:
        return at(stage_section(STAGE_TYPES[section], loaded, section), rest)
    return at(loaded, dotted)


def plain(value: Any) -> Any:
    """A typed value as YAML/JSON data (a tuple as a list, a dataclass as a mapping)."""
    if isinstance(value, tuple):
        return [plain(item) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {item.name: plain(getattr(value, item.name)) for item in fields(value)}
    return value


def resolved(node: dict[str, Any]) -> dict[str, Any]:
    """A schema node with a local ``$ref`` followed."""
    ref = node.get("$ref", "")
    target = profile_schema()["$defs"][ref.rsplit("/", 1)[-1]] if ref else {}
    return {**target, **node}


def test_every_key_has_a_description_and_defaults_live_on_the_key() -> None:
    schema = profile_schema()
    undescribed = [key for key, node in keys(schema["properties"]) if not node.get("description")]
    assert undescribed == []
    assert list(defaults_in(schema["$defs"])) == []  # where schema_defaults would not see it


def defaults_in(node: Any) -> Iterator[dict[str, Any]]:
    """Every ``default`` keyword below a schema node."""
    if isinstance(node, dict):
        if "default" in node:
            yield node
        for child in node.values():
            yield from defaults_in(child)


def test_defaults_are_the_schemas() -> None:
    """``DEFAULTS`` holds exactly the schema's defaults, each at its dotted key."""
    expected: dict[str, Any] = {}
    for key, default in defaulted():
        *parents, last = key.split(".")
        section = expected
        for part in parents:
            section = section.setdefault(part, {})
        section[last] = default
    assert len(defaulted()) > 60
    assert expected == DEFAULTS


# Keys written as one status or a list of them: the typed view holds a tuple either way.
ONE_OR_MANY = frozenset({"errors.validation_status", "errors.malformed_body_status"})


def one_or_many(key: str, default: Any) -> Any:
    """The default as the typed view holds it (a lone status as a list of one)."""
    return [default] if key in ONE_OR_MANY and isinstance(default, int) else default


def test_a_minimal_profile_gets_every_schema_default() -> None:
    """The typed view adds no default of its own: each key reads what the schema says."""
    loaded = parse(MINIMAL)
    differ = [
        (key, typed_at(loaded, key), default)
        for key, default in defaulted()
        if key != "profile_version" and plain(typed_at(loaded, key)) != one_or_many(key, default)
    ]
    assert differ == []
    assert loaded.credentials.legacy_sdk_key is None  # optional, no default: absent
    assert loaded.project.foreign_application_id is None


def held(hint: Any, node: dict[str, Any]) -> tuple[type, dict[str, Any]] | None:
    """The dataclass a field holds (alone, optional, or as a tuple's items) with its schema."""
    args = [arg for arg in get_args(hint) if arg not in (type(None), Ellipsis)]
    if get_origin(hint) is tuple:  # a list (or one value or a list: no dataclass there)
        return held(args[0], resolved(node["items"])) if "items" in node else None
    if get_origin(hint) is UnionType:
        return held(args[0], node)
    if isinstance(hint, type) and is_dataclass(hint):
        return hint, node
    return None


def shape_problems(cls: type, node: dict[str, Any], where: str) -> list[str]:
    """Where a dataclass's fields and its section's keys differ, recursively."""
    node = resolved(node)
    properties = {k: v for k, v in node["properties"].items() if k != "profile_version"}
    names = {item.name for item in fields(cls)} - NOT_KEYS
    problems = []
    if names != set(properties):
        problems.append(
            f"{where}: only fields {names - set(properties)}, only keys {set(properties) - names}"
        )
    hints = get_type_hints(cls)
    for name in sorted(names & set(properties)):
        child = resolved(properties[name])
        optional = type(None) in get_args(hints[name])
        defaults = schema_defaults({name: child})
        if name not in node.get("required", ()) and not defaults and not optional:
            problems.append(f"{where}.{name}: optional with no default, so typed `X | None`")
        if (inner := held(hints[name], child)) is not None:
            problems += shape_problems(*inner, f"{where}.{name}")
    return problems


def test_the_typed_view_has_exactly_the_schemas_keys() -> None:
    """The profile's dataclasses hold every key but the stage sections', which their stages'
    dataclasses hold."""
    schema = profile_schema()
    own = {k: v for k, v in schema["properties"].items() if k not in STAGE_SECTIONS}
    assert shape_problems(Profile, {**schema, "properties": own}, "Profile") == []
    assert set(STAGE_TYPES) == STAGE_SECTIONS
    for name, cls in STAGE_TYPES.items():
        assert shape_problems(cls, schema["properties"][name], name) == []


# ------------------------------------------------------------ docs/target-profile.md


@pytest.fixture
def documented(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The example of docs/target-profile.md, which must load as it stands."""
    block = re.search(r"```yaml\n(.*?)```", DOC.read_text("utf-8"), re.S)
    assert block is not None
    for name in re.findall(r"\$\{(\w+)\}", block.group(1)):
        monkeypatch.setenv(name, f"svc_pk_{name.lower()}")
    parse(block.group(1), source=str(DOC))
    example: dict[str, Any] = yaml.safe_load(block.group(1))
    return example


def test_the_doc_shows_every_key(documented: dict[str, Any]) -> None:
    missing = []
    for key, _node in keys(profile_schema()["properties"]):
        try:
            at(documented, key)
        except (KeyError, AttributeError):
            missing.append(key)
    assert missing == []


def test_the_doc_shows_each_default_as_the_value(documented: dict[str, Any]) -> None:
    differ = [
        (key, at(documented, key), default)
        for key, default in defaulted()
        if at(documented, key) != default
    ]
    assert differ == []
