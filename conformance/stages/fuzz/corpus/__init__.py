"""The failure corpus: its case format, one small JSON file per failure found, read and written.

The subpackage keeps the corpus apart from the run that fills it: ``capture`` turns a test's
failures into cases, ``replay`` re-sends a case and judges its check again (needing of the run
only ``replay.ReplayContext``), ``keeping`` is the corpus in one process of a run (replay first,
the replay's record, the new cases written).

A corpus case (``corpus.schema.json``) holds the steps to send (one for a stateless failure,
the call sequence for a stateful one), the check that failed, its requirement ids, the mode of
credentials, and how it was found (tier, seed, suite version, date, the evidence then).
What only existed on the target it was found on is written as a reference the replay fills in
again (``${configuration_id}``, ``${experiment_id}``, ``${group_id_0}``, ``${application_id}``,
``${environment_id}``, ``${instance_id}``, ``${run_prefix}``, and ``${stepN.id}`` /
``${stepN.etag}`` for what an earlier step of a sequence received); secrets only as the
profile's placeholders (``$RCES_PAT``, ``$RCES_SDK_KEY_1``, ...). A whole-value reference
(``"${configuration_id}"``) comes back with the bound value's type.

The file name is the operation, the check and a hash of what the case sends, so a failure found
again writes nothing new. This module owns the format: encoding, decoding, reading, writing.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import NotRequired, TypedDict, TypeVar

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from conformance import __version__
from conformance.json_types import JsonObject
from conformance.redaction.placeholders import Redactor

FORMAT = "rces-fuzz-case/1"
SCHEMA_FILE = "corpus.schema.json"
DIRECTORY_NAME = "fuzz-corpus"  # the default corpus: <report dir>/fuzz-corpus
_REFERENCE = re.compile(r"\$\{([A-Za-z0-9_.]+)\}")
# Headers schemathesis or a transport adds on its own; never part of a case.
_DROPPED_HEADERS = frozenset({"x-schemathesis-testcaseid", "user-agent", "content-length"})
# Body keys whose value may be the id of a real object (the run's own or an earlier step's).
_ID_KEY = re.compile(r"(^id$|Id$)")
# References bound from the profile, written only where the stage put them (never by value).
_PROFILE_BOUND = frozenset({"application_id", "environment_id"})

K = TypeVar("K")


class Generation(TypedDict, total=False):
    """How a negative case was generated, as far as checks of invalid input read it."""

    mode: str
    negative: list[str]
    parameter: str | None
    parameter_location: str | None
    description: str | None


class Parts(TypedDict):
    """What one request sent, before it is encoded as a step."""

    headers: dict[str, object]
    path_parameters: dict[str, object]
    query: dict[str, object]
    body: NotRequired[object]
    media_type: NotRequired[str | None]
    generation: NotRequired[Generation]


class Step(TypedDict):
    """One request of a case: the contract's path template and its parts, references in place."""

    operation_id: str
    method: str
    path: str
    path_parameters: dict[str, object]
    query: dict[str, object]
    headers: dict[str, str]
    body: NotRequired[object]
    media_type: NotRequired[str | None]
    generation: NotRequired[Generation]


class Case(TypedDict):
    """A corpus case as ``corpus.schema.json`` describes it (``found``: tier, seed, date, suite
    version, and the status, expectation, answer and curl line when it was found)."""

    format: str
    id: str
    kind: str
    mode: str
    operation_id: str
    check: str
    requirement_ids: list[str]
    title: str
    steps: list[Step]
    found: dict[str, object]


@cache
def schema() -> JsonObject:
    text = resources.files(__name__).joinpath(SCHEMA_FILE).read_text("utf-8")
    loaded: JsonObject = json.loads(text)
    return loaded


@cache
def _validator() -> Draft202012Validator:
    """Built once per process: the validator checks the schema itself when it is built."""

    return Draft202012Validator(schema())


def validate(data: object) -> None:
    """Raise ``ValueError`` naming the first problem when ``data`` is no corpus case."""
    error = next(iter(_validator().iter_errors(data)), None)
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        raise ValueError(f"not a fuzz corpus case: {where}: {error.message}")


# ------------------------------------------------------------------ encoding


@dataclass
class References:
    """Values that only existed on the target a case was found on, by reference name."""

    by_name: dict[str, object]
    run_prefix: str
    instance_prefix: str
    secrets: Mapping[str, str]  # secret value -> its placeholder
    redactor: Redactor = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.redactor = Redactor(self.secrets)

    def name_of(self, value: object, key: str = "") -> str | None:
        """The reference ``value`` stands for under ``key`` (None: a value of its own).

        Two objects of different kinds may share an id (configuration 1, experiment 1): the
        name whose kind the key names wins, then the latest step's capture, then the first.
        """
        if isinstance(value, bool) or value is None or isinstance(value, float):
            return None
        matches = [
            name
            for name, known in self.by_name.items()
            if name not in _PROFILE_BOUND
            and (known == value or (isinstance(value, str) and value == str(known)))
        ]
        if not matches:
            return None
        lowered = key.lower()
        for name in matches:
            stem = name.split("_")[0]
            if not name.startswith("step") and stem in lowered:
                return name
        captured = [name for name in matches if name.startswith("step")]
        return captured[-1] if captured else matches[0]

    def text(self, value: str) -> str:
        value = self.redactor.text(value)  # every spelling of a secret (JSON, URL, ...)
        # An instance id the stage made up (<prefix>-fuzz-<n>); names share the prefix, not <n>.
        if value.startswith(self.instance_prefix) and value[len(self.instance_prefix) :].isdigit():
            return "${instance_id}"
        return value.replace(self.run_prefix, "${run_prefix}") if self.run_prefix else value

    def value(self, value: object, key: str = "") -> object:
        """``value`` with secrets and run-bound strings replaced (ids under id-like keys)."""
        if isinstance(value, dict):
            return self.mapping(value)
        if isinstance(value, list | tuple):
            return [self.value(item, key) for item in value]
        if key and _ID_KEY.search(key):
            name = self.name_of(value, key)
            if name is not None:
                return "${" + name + "}"
        if isinstance(value, str):
            return self.text(value)
        return value

    def mapping(self, values: Mapping[K, object]) -> dict[str, object]:
        """``value`` of each entry, its key naming it."""
        return {str(k): self.value(v, str(k)) for k, v in values.items()}


def encode_step(
    operation_id: str,
    method: str,
    path: str,
    parts: Parts,
    references: References,
    environment_header: str = "environment_id",
) -> Step:
    """One request of a case: the template path and its parts, references in place."""
    headers: dict[str, str] = {}
    for name, raw in (parts.get("headers") or {}).items():
        if name.lower() in _DROPPED_HEADERS:
            continue
        value = str(raw)
        is_environment = name.lower() == environment_header.lower()
        if is_environment and value == str(references.by_name.get("environment_id")):
            headers[name] = "${environment_id}"
        else:
            headers[name] = references.text(value)
    path_parameters: dict[str, object] = {}
    for name, raw in (parts.get("path_parameters") or {}).items():
        if name == "applicationId" and raw == references.by_name.get("application_id"):
            path_parameters[name] = "${application_id}"
        else:
            path_parameters[name] = references.value(raw, name if _ID_KEY.search(name) else "id")
    step: Step = {
        "operation_id": operation_id,
        "method": method.upper(),
        "path": path,
        "path_parameters": path_parameters,
        "query": references.mapping(parts.get("query") or {}),
        "headers": dict(sorted(headers.items(), key=lambda item: item[0].lower())),
    }
    if "body" in parts:
        step["body"] = references.value(parts["body"])
        step["media_type"] = parts.get("media_type")
    generation = parts.get("generation")
    if generation:
        step["generation"] = generation
    return step


def case_id(data: Mapping[str, object]) -> str:
    """A hash of what the case sends and checks: the same failure found again, the same id."""
    sent = {
        key: data[key] for key in ("kind", "mode", "check", "operation_id", "steps") if key in data
    }
    canonical = json.dumps(sent, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def new_case(
    *,
    kind: str,
    mode: str,
    check: str,
    requirement_ids: tuple[str, ...],
    title: str,
    steps: list[Step],
    found: Mapping[str, object],
) -> Case:
    data: Case = {
        "format": FORMAT,
        "id": "",
        "kind": kind,
        "mode": mode,
        "operation_id": steps[-1]["operation_id"],
        "check": check,
        "requirement_ids": list(requirement_ids),
        "title": title,
        "steps": steps,
        "found": {},
    }
    data["id"] = case_id(data)
    data["found"] = {
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "suite_version": __version__,
        **found,
    }
    return data


def file_name(data: Case) -> str:
    safe = re.sub(r"[^A-Za-z0-9_]+", "_", f"{data['operation_id']}-{data['check']}")
    return f"{safe}-{data['id']}.json"


# ------------------------------------------------------------------ files


def dump(data: Case) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write(directory: Path, data: Case) -> Path | None:
    """Write one case; None when a case of the same id is already there (kept as it was)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / file_name(data)
    if path.exists():
        return None
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(dump(data), "utf-8")
    os.replace(partial, path)
    return path


def read(path: Path) -> Case:
    """The case in ``path``; ``ValueError`` when it does not match ``corpus.schema.json``."""
    data = json.loads(path.read_text("utf-8"))
    validate(data)
    case: Case = data  # the schema just checked is what ``Case`` spells
    return case


def files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.json")) if directory.is_dir() else []


def cases(directory: Path) -> Iterator[tuple[Path, Case]]:
    for path in files(directory):
        yield path, read(path)


# ------------------------------------------------------------------ decoding


def secrets_by_placeholder(secret_names: Mapping[str, str]) -> dict[str, str]:
    """Placeholder -> secret, longest placeholder first (``$RCES_SDK_KEY_10`` before ``_1``)."""
    pairs = sorted(((p, s) for s, p in secret_names.items()), key=lambda pair: -len(pair[0]))
    return dict(pairs)


def decode(value: object, bindings: Mapping[str, object], secrets: Mapping[str, str]) -> object:
    """``value`` with references and placeholders filled in from this target."""
    if isinstance(value, dict):
        return decode_mapping(value, bindings, secrets)
    if isinstance(value, list):
        return [decode(item, bindings, secrets) for item in value]
    if not isinstance(value, str):
        return value
    whole = _REFERENCE.fullmatch(value)
    if whole and whole.group(1) in bindings:
        return bindings[whole.group(1)]
    text = _REFERENCE.sub(
        lambda m: str(bindings[m.group(1)]) if m.group(1) in bindings else m.group(0), value
    )
    for placeholder, secret in secrets.items():
        text = text.replace(placeholder, secret)
    return text


def decode_mapping(
    values: Mapping[str, object], bindings: Mapping[str, object], secrets: Mapping[str, str]
) -> dict[str, object]:
    """``decode`` of each value of ``values``."""
    return {k: decode(v, bindings, secrets) for k, v in values.items()}


def unbound(value: object, bindings: Mapping[str, object]) -> set[str]:
    """Reference names in ``value`` this target could not bind (an object it could not create)."""
    if isinstance(value, dict):
        return set().union(*(unbound(v, bindings) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(unbound(v, bindings) for v in value))
    if isinstance(value, str):
        return {name for name in _REFERENCE.findall(value) if name not in bindings}
    return set()
