"""The requirement catalogue: loads ``requirements.yaml``, checks it, and exposes it as frozen data.

The catalogue is the spine of the suite: every test names the requirement ids it checks, and the
report lists every requirement. ``load_catalogue()`` reads the copy shipped inside the package;
``parse_catalogue()`` checks any other bytes (tests use it on deliberately broken files). A
broken catalogue raises ``ValueError`` naming the entry at fault.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import NotRequired, TypedDict

import yaml
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from conformance.json_types import JsonObject

CATALOGUE_FILE = "requirements.yaml"
SCHEMA_FILE = "requirements.schema.json"

SCOPES = ("core", "experiments")

# Capabilities a requirement needs, beyond the one it names itself: the capability it names may
# imply others, and its scope may imply one. A target that declares any of them absent gets the
# requirement reported "unsupported".
IMPLIED_CAPABILITIES: Mapping[str, tuple[str, ...]] = {
    "bootstrap_identity": ("bootstrap", "experiments"),
}
SCOPE_CAPABILITIES: Mapping[str, tuple[str, ...]] = {
    "core": (),
    "experiments": ("experiments",),
}
# An operation that exists only when a capability is present. A requirement all of whose
# operations need the same capability needs it too (e.g. a polling rule checked on bootstrap).
_EXPERIMENT_OPERATIONS = (
    "listExperiments",
    "createExperiment",
    "getAnalyticsCatalog",
    "getAssignmentCounts",
    "listContextProperties",
    "getExperiment",
    "getExperimentAssignmentCounts",
    "listAssignments",
    "setManualAssignment",
    "reactivateMember",
    "unenrollMember",
    "listMembers",
    "getRollout",
    "changeRollout",
    "terminateExperiment",
)
OPERATION_CAPABILITIES: Mapping[str, str] = {
    "getSdkBootstrap": "bootstrap",
    **{operation: "experiments" for operation in _EXPERIMENT_OPERATIONS},
}


@dataclass(frozen=True)
class Requirement:
    """One normative statement of the specification, restated as a server (or client) duty."""

    id: str
    section: str
    title: str
    text: str
    # "stated" | "inferred" | "declared" (the target's own objective) | "convention" (a
    # production convention: judged at the interface level only where the profile declares it)
    basis: str
    operations: tuple[str, ...]
    scope: str  # "core" | "experiments"
    capability: str | None
    subject: str  # "server" | "client"
    # The stages whose run answers for it (``stages`` in the file, else ``default_stages`` of its
    # subject); names of the stage registry (``conformance.registry``).
    stages: tuple[str, ...] = ()
    # A server rule the server stages judge by default: a run with no narrower scope (and the
    # self-tests of every server fault) answers for it; False for a client rule, and for a rule
    # one stage judges alone (a declared load objective).
    checkable: bool = False
    spec_quote: str | None = None  # rests_on.spec: the specification's words it rests on
    keys: tuple[str, ...] = ()  # rests_on.keys: profile keys its expectation depends on
    replaces: tuple[str, ...] = ()  # ids it had before a rename
    rfc: str | None = None  # rests_on.rfc: the RFC (and section) an inferred rule rests on
    convention: str | None = None  # rests_on.convention: the convention a convention rule rests on
    declared_by: tuple[str, ...] = ()  # rests_on.declared_by: keys whose default is the convention

    def declared_under(self, production: bool, declares: Callable[[str], bool]) -> bool:
        """Whether a profile makes this rule an interface rule: every basis but ``convention``
        is; a convention is when the profile declares every convention (``production``:
        ``conventions: production``) or one of its ``declared_by`` keys (``declares``:
        ``Profile.declares``)."""
        if self.basis != "convention":
            return True
        return production or any(declares(key) for key in self.declared_by)

    @property
    def capabilities(self) -> tuple[str, ...]:
        """Every profile capability that must be present for this requirement to be measured."""
        needed: list[str] = list(SCOPE_CAPABILITIES[self.scope])
        if self.capability is not None:
            needed.append(self.capability)
            needed.extend(IMPLIED_CAPABILITIES.get(self.capability, ()))
        by_operation = {OPERATION_CAPABILITIES.get(operation) for operation in self.operations}
        if len(by_operation) == 1 and None not in by_operation:
            needed.extend(c for c in by_operation if c is not None)
        return tuple(dict.fromkeys(needed))


@dataclass(frozen=True)
class Catalogue:
    """The requirements in file order, with look-ups by id (a renamed entry's old id too), scope,
    capability and operation."""

    version: int
    requirements: tuple[Requirement, ...]
    sha256: str
    _by_id: Mapping[str, Requirement] = field(repr=False, compare=False)
    _renamed: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    def __iter__(self) -> Iterator[Requirement]:
        return iter(self.requirements)

    def __len__(self) -> int:
        return len(self.requirements)

    def __contains__(self, requirement_id: object) -> bool:
        return requirement_id in self._by_id

    def __getitem__(self, requirement_id: str) -> Requirement:
        try:
            return self._by_id[requirement_id]
        except KeyError:
            raise KeyError(f"unknown requirement id {requirement_id!r}") from None

    def get(self, requirement_id: str) -> Requirement | None:
        """The requirement with this id, or None (use ``catalogue[id]`` to raise instead)."""
        return self._by_id.get(requirement_id)

    def ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.requirements)

    def current_id(self, requirement_id: str) -> str:
        """The id an entry has now: ``requirement_id`` itself, or the entry's new id when it is
        an old id the entry ``replaces``; an id the catalogue never had is returned unchanged."""
        return self._renamed.get(requirement_id, requirement_id)

    def renamed(self) -> Mapping[str, str]:
        """Every old id -> the id its entry has now."""
        return dict(self._renamed)

    def in_scope(self, scope: str) -> tuple[Requirement, ...]:
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r}; expected one of {', '.join(SCOPES)}")
        return tuple(r for r in self.requirements if r.scope == scope)

    def gated_by(self, capability: str) -> tuple[Requirement, ...]:
        """Requirements that become unsupported when the target declares ``capability`` absent."""
        return tuple(r for r in self.requirements if capability in r.capabilities)

    def for_operation(self, operation_id: str) -> tuple[Requirement, ...]:
        return tuple(r for r in self.requirements if operation_id in r.operations)


try:  # libyaml's parser when PyYAML has it (the same documents, faster: benchmarks/README.md)
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]


class _UniqueKeyLoader(_SafeLoader):
    """A safe YAML loader that refuses a mapping with the same key twice."""


def _construct_unique_mapping(loader: _SafeLoader, node: yaml.MappingNode) -> dict[object, object]:
    seen: set[object] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            line = key_node.start_mark.line + 1
            raise ValueError(f"duplicate key {key!r} at line {line}")
        seen.add(key)
    return loader.construct_mapping(node)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping
)


class RestsOn(TypedDict):
    spec: NotRequired[str]
    keys: list[str]
    rfc: NotRequired[str]
    convention: NotRequired[str]
    declared_by: NotRequired[list[str]]


class Entry(TypedDict):
    """One requirement as ``requirements.schema.json`` describes it in the file."""

    id: str
    section: str
    title: str
    text: str
    basis: str
    operations: list[str]
    scope: str
    capability: NotRequired[str]
    subject: str
    stages: NotRequired[list[str]]
    rests_on: RestsOn
    replaces: NotRequired[list[str]]


class CatalogueFile(TypedDict):
    """The whole file as the schema describes it."""

    catalogue_version: int
    default_stages: dict[str, list[str]]
    requirements: list[Entry]


@functools.cache
def _schema() -> JsonObject:
    text = (
        resources.files("conformance.catalogue").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    )
    schema: JsonObject = json.loads(text)
    return schema


def _entry_name(data: object, path: tuple[str | int, ...]) -> str:
    """'requirement #3 (CFG-FOO)' for a path inside the requirements list, else the path."""
    if len(path) >= 2 and path[0] == "requirements" and isinstance(path[1], int):
        index = path[1]
        requirements = data.get("requirements") if isinstance(data, dict) else None
        entry = requirements[index] if isinstance(requirements, list) else None
        rid = entry.get("id") if isinstance(entry, dict) else None
        name = f"requirement #{index + 1}" + (f" ({rid})" if isinstance(rid, str) else "")
        rest = ".".join(str(p) for p in path[2:])
        return f"{name}, field {rest!r}" if rest else name
    return "top level" if not path else ".".join(str(p) for p in path)


def _schema_problems(data: object) -> list[str]:
    validator = Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{_entry_name(data, tuple(e.absolute_path))}: {e.message}" for e in errors]


def _duplicate_problems(entries: list[Entry]) -> list[str]:
    first_seen: dict[str, int] = {}
    problems = []
    for index, entry in enumerate(entries):
        rid = entry["id"]
        if rid in first_seen:
            problems.append(
                f"requirement #{index + 1} ({rid}): duplicate id, "
                f"already used by requirement #{first_seen[rid] + 1}"
            )
        else:
            first_seen[rid] = index
    return problems


def _rename_problems(entries: list[Entry]) -> list[str]:
    """An old id must not be a current id, nor be replaced by two entries."""
    current = {entry["id"] for entry in entries}
    claimed: dict[str, str] = {}
    problems = []
    for index, entry in enumerate(entries):
        for old in entry.get("replaces", ()):
            name = f"requirement #{index + 1} ({entry['id']})"
            if old in current:
                problems.append(f"{name}: replaces {old}, which is a current id")
            elif old in claimed:
                problems.append(f"{name}: replaces {old}, already replaced by {claimed[old]}")
            else:
                claimed[old] = entry["id"]
    return problems


def _requirement(entry: Entry, defaults: Mapping[str, list[str]]) -> Requirement:
    rests_on = entry["rests_on"]
    stages = tuple(entry.get("stages") or defaults[entry["subject"]])
    quote = rests_on.get("spec")
    return Requirement(
        id=entry["id"],
        section=entry["section"],
        title=entry["title"],
        text=" ".join(entry["text"].split()),
        basis=entry["basis"],
        operations=tuple(entry["operations"]),
        scope=entry["scope"],
        capability=entry.get("capability"),
        subject=entry["subject"],
        stages=stages,
        checkable=entry["subject"] == "server" and bool(set(stages) & set(defaults["server"])),
        spec_quote=" ".join(quote.split()) if quote is not None else None,
        keys=tuple(rests_on["keys"]),
        replaces=tuple(entry.get("replaces", ())),
        rfc=rests_on.get("rfc"),
        convention=_one_line(rests_on.get("convention")),
        declared_by=tuple(rests_on.get("declared_by", ())),
    )


def _one_line(text: str | None) -> str | None:
    return " ".join(text.split()) if text is not None else None


def parse_catalogue(raw: bytes, source: str = CATALOGUE_FILE) -> Catalogue:
    """Check catalogue bytes and build the ``Catalogue``; ``ValueError`` names what is wrong."""
    try:
        data = yaml.load(raw, Loader=_UniqueKeyLoader)  # a safe loader subclass
    except (yaml.YAMLError, ValueError) as exc:
        raise ValueError(f"{source}: not a readable YAML catalogue: {exc}") from None
    problems = _schema_problems(data)
    if problems:
        raise _invalid(source, problems)
    checked: CatalogueFile = data  # the shape the schema just held it to
    problems = _duplicate_problems(checked["requirements"])
    problems += _rename_problems(checked["requirements"])
    if problems:
        raise _invalid(source, problems)
    defaults = checked["default_stages"]
    requirements = tuple(_requirement(entry, defaults) for entry in checked["requirements"])
    return Catalogue(
        version=checked["catalogue_version"],
        requirements=requirements,
        sha256=hashlib.sha256(raw).hexdigest(),
        _by_id={r.id: r for r in requirements},
        _renamed={old: r.id for r in requirements for old in r.replaces},
    )


def _invalid(source: str, problems: list[str]) -> ValueError:
    shown = problems[:10]
    more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
    return ValueError(f"{source}: invalid catalogue:\n  " + "\n  ".join(shown) + more)


def load_catalogue_file(path: Path) -> Catalogue:
    """Check and load a catalogue from a file outside the package."""
    return parse_catalogue(path.read_bytes(), source=str(path))


@functools.cache
def load_catalogue() -> Catalogue:
    """The catalogue shipped inside the ``conformance`` package, read and checked once."""
    raw = resources.files("conformance.catalogue").joinpath(CATALOGUE_FILE).read_bytes()
    return parse_catalogue(raw)


@functools.cache
def catalogue_index() -> dict[str, Requirement]:
    """Catalogue requirements by id."""
    return {r.id: r for r in load_catalogue()}


def _sections() -> dict[str, str]:
    return {rid: str(r.section) for rid, r in catalogue_index().items() if r.basis != "convention"}


def sections_of(ids: Sequence[str]) -> tuple[str, ...]:
    """The spec sections of the requirement ids, in order, without repeats (none for a
    convention: the specification does not say it)."""
    table = _sections()
    return tuple(dict.fromkeys(table[i] for i in ids if i in table))


def current_baseline(baseline: Mapping[str, str]) -> dict[str, str]:
    """A profile's baseline by current id: an entry naming an id from before a rename (one a
    catalogue entry ``replaces``) counts for the entry that has it now."""
    catalogue = load_catalogue()
    return {catalogue.current_id(rid): reason for rid, reason in baseline.items()}
