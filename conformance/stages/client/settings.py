"""What one client-stage run is told: the client's command, and the profile's ``client`` and
``headers`` keys (the defaults of ``profile.schema.json`` when no profile is given)."""

from __future__ import annotations

import importlib
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import yaml

from conformance.errors import UsageError
from conformance.profile.building import stage_section
from conformance.profile.defaults import DEFAULTS, schema

BOOTSTRAP = "bootstrap"
BOOTSTRAP_PATH = "/sdk/v2/bootstrap"
STATUS_PATH = "/sdk/v2/status"


def reference_command() -> str:
    """The reference client, run by the interpreter this suite runs on."""
    return f"{shlex.quote(sys.executable)} -m refclient"


@dataclass(frozen=True)
class ClientSection:
    """``client``: how the SDK client under test fills the gaps of spec 4.3, and the stage's time
    scale (the profile's section, typed here by the stage: ``stage_section``)."""

    hash_transport: str
    if_none_match_form: str
    first_request: str
    jitter_reading: str
    refetch_request: str
    time_scale: float


class SettingsSummary(TypedDict):
    """What the reports show of a run's settings."""

    command: str  # shell-quoted
    hash_transport: str
    if_none_match_form: str
    first_request: str
    jitter_reading: str
    refetch_request: str
    time_scale: float
    profile: str  # the profile file read, "(defaults)" for none


@dataclass(frozen=True)
class ClientSettings:
    """The stage's inputs, checked once."""

    command: tuple[str, ...]  # shlex-split, run without a shell
    hash_transport: str  # "if-none-match" | "query"
    jitter_reading: str  # "above" | "symmetric"
    refetch_request: str  # "bootstrap" | a path template with {id}
    time_scale: float
    instance_header: str
    numeric_header: str
    profile_source: str = ""  # the profile file read, "" for the defaults
    if_none_match_form: str = "quoted"  # "quoted" | "bare" | "any"
    first_request: str = "status"  # "status" | "bootstrap" | "any"
    environment_header: str = "environment"
    declared: frozenset[str] = frozenset()  # the client keys the profile declares (written)
    baseline: tuple[tuple[str, str], ...] = ()  # (requirement id, reason): known failures
    numeric_grammar: str = "decimal-digits"  # headers.numeric_grammar
    numeric_grammar_declared: bool = False  # the profile writes it (or conventions: production)

    def declares(self, key: str) -> bool:
        """Whether the profile declares ``client.<key>`` (writes it, or ``conventions:
        production``): a departure from it is then an interface failure; from a key left at its
        default (the convention), a drop-in difference."""
        return key in self.declared

    def scaled(self, nominal_s: float) -> float:
        return nominal_s * self.time_scale

    def summary(self) -> SettingsSummary:
        """What the reports show of the settings (the command is the client's identity)."""
        return {
            "command": shlex.join(self.command),
            "hash_transport": self.hash_transport,
            "if_none_match_form": self.if_none_match_form,
            "first_request": self.first_request,
            "jitter_reading": self.jitter_reading,
            "refetch_request": self.refetch_request,
            "time_scale": self.time_scale,
            "profile": self.profile_source or "(defaults)",
        }


def settings_from(
    command: str | None, profile_path: str | None, time_scale: float | None = None
) -> ClientSettings:
    """The settings of a run: ``command`` (None: the reference client), the profile's keys
    (None: the schema's defaults), ``time_scale`` overriding the profile's."""
    client, headers, declared, baseline = _profile_sections(profile_path)
    section = stage_section(ClientSection, client, "client")
    argv = tuple(shlex.split(command if command is not None else reference_command()))
    if not argv:
        raise UsageError("--client-command is empty", "pass the command that starts your client")
    scale = float(time_scale if time_scale is not None else section.time_scale)
    if not 0 < scale <= 1:
        raise UsageError(f"the client time scale must be in (0, 1], not {scale:g}")
    return ClientSettings(
        command=argv,
        hash_transport=section.hash_transport,
        if_none_match_form=section.if_none_match_form,
        first_request=section.first_request,
        jitter_reading=section.jitter_reading,
        refetch_request=section.refetch_request,
        time_scale=scale,
        instance_header=str(headers["instance_id"]).lower(),
        numeric_header=str(headers["numeric"]).lower(),
        environment_header=str(headers["environment"]).lower(),
        declared=declared,
        baseline=baseline,
        profile_source=str(Path(profile_path)) if profile_path else "",
        numeric_grammar=str(headers["numeric_grammar"]),
        numeric_grammar_declared=_declares_grammar(profile_path),
    )


def _declares_grammar(profile_path: str | None) -> bool:
    """Whether the profile writes headers.numeric_grammar (or says conventions: production)."""
    if not profile_path:
        return False
    data = yaml.safe_load(Path(profile_path).read_text(encoding="utf-8")) or {}
    given = data.get("headers") if isinstance(data, dict) else None
    written = isinstance(given, dict) and "numeric_grammar" in given
    return written or (isinstance(data, dict) and data.get("conventions") == "production")


Sections = tuple[dict[str, object], dict[str, object], frozenset[str], tuple[tuple[str, str], ...]]


def _profile_sections(profile_path: str | None) -> Sections:
    """The ``client`` and ``headers`` sections over their defaults, the client keys the profile
    declares, and its ``baseline`` (known failures, as in server runs). A client-only profile (no
    credentials: the stage plays the server) is enough; what is read is checked against the
    profile schema, an error naming the key."""

    client: dict[str, object] = dict(DEFAULTS["client"])
    headers: dict[str, object] = dict(DEFAULTS["headers"])
    if not profile_path:
        return client, headers, frozenset(), ()
    try:
        data = yaml.safe_load(Path(profile_path).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise UsageError(f"cannot read the profile {profile_path}: {error}") from None
    if not isinstance(data, dict):
        raise UsageError(f"the profile {profile_path} is not a mapping")
    jsonschema = importlib.import_module("jsonschema")  # no type stubs: a module by name
    for name, merged in (("client", client), ("headers", headers)):
        given = data.get(name) or {}
        if not isinstance(given, dict):
            raise UsageError(f"{profile_path}: {name} must be a mapping")
        merged.update(given)
        node = schema()["properties"][name]
        validator = jsonschema.Draft202012Validator({**node, "$defs": schema().get("$defs", {})})
        for problem in validator.iter_errors(merged):
            where = ".".join([name, *(str(p) for p in problem.absolute_path)])
            raise UsageError(f"{profile_path}: {where}: {problem.message}")
    written = data.get("client") or {}
    declared = frozenset(client if data.get("conventions") == "production" else written)
    return client, headers, declared, _baseline(data, profile_path, jsonschema)


def _baseline(
    data: dict[str, object], profile_path: str, jsonschema: object
) -> tuple[tuple[str, str], ...]:
    """The profile's ``baseline`` entries, checked against the schema (a usage error naming the
    entry), as (requirement id, reason)."""
    entries = data.get("baseline") or []
    node = schema()["properties"]["baseline"]
    validator = jsonschema.Draft202012Validator(node)  # type: ignore[attr-defined]
    for problem in validator.iter_errors(entries):
        where = ".".join(["baseline", *(str(p) for p in problem.absolute_path)])
        raise UsageError(f"{profile_path}: {where}: {problem.message}")
    assert isinstance(entries, list)
    return tuple((str(e["requirement"]), str(e["reason"])) for e in entries)
