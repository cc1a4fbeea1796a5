"""The text of a draft target profile: every key the target's document or its answers showed,
marked *documented* or *observed* with where it came from, the rest as commented defaults with
the reason, and the one-screen list of what the person still has to confirm or give."""

from __future__ import annotations

import json
from dataclasses import dataclass

from conformance.profile.defaults import DEFAULTS
from conformance.target.draft_probes import Finding, Findings

HEADER = """\
# Draft target profile for {url}, written by `conformance profile draft` ({when}).
#
# NOT A VERDICT. A value marked "documented" is what the target's own OpenAPI document says; one
# marked "observed" is what this target answered to a few probes. A person must confirm each one
# against what the server promises (its documentation, its code), because a profile that only
# copies the target's answers would certify whatever the target does.
# `conformance run --profile` judges the target by what this file says, nothing else.
# A key marked "not observed" is left as its default (the production convention), commented
# out, with the reason; set it where your server differs. docs/target-profile.md explains each.
# Secrets are ${{ENV}} references: export them before a run; their values are never written here.
"""

# Why a key that no answer showed is left at its default (else the section's reason, below).
UNSEEN_KEY: dict[str, str] = {
    "errors.forbidden_status": "needs a key refused in one environment and taken in another "
    "(the spec says 403, 4.3)",
    "errors.foreign_project_status": "needs a project the token's owner cannot reach "
    "(--foreign-application-id)",
    "experiment_payload.next_cursor": "no cursor moved the list on",
    "experiment_payload.cursor_param": "no cursor moved the list on",
    "experiment_payload.offset_param": "no offset parameter moved the list on",
    "experiment_payload.page_param": "no page parameter moved the list on",
}
# What the draft cannot see in any answer, by section: the reason written beside the defaults.
UNSEEN: dict[str, str] = {
    "headers": "no OpenAPI document named them; which names your server reads does not show in "
    "its answers",
    "bodies": "a body field name shows only in the target's document or when the server takes it",
    "errors": "needs what the draft was not given (a key outside its scope, a project the "
    "token's owner cannot reach)",
    "experiment_payload": "needs assignments and members, whose body field names the draft "
    "cannot know",
    "experiments": "no OpenAPI document showed the experiment create body",
    "statuses": "not shown",
}
# The keys a draft writes, by section, in the order it writes them.
SHOWN: dict[str, tuple[str, ...]] = {
    "headers": (
        "environment",
        "instance_id",
        "numeric",
        "sdk_version",
        "unit_id",
        "unit_type",
        "unit_context",
    ),
    "bodies.create": ("content", "private_keys", "comments"),
    "bodies.patch": ("operations", "base_hash", "base_hash_transport", "key_order"),
    "errors": (
        "code_field",
        "message_field",
        "missing_credentials_status",
        "validation_status",
        "malformed_body_status",
        "not_found_status",
        "forbidden_status",
        "foreign_project_status",
    ),
    "statuses": ("create_configuration", "create_experiment"),
    "rate_limit": ("burst", "refill_per_second", "scope"),
    "experiments": ("unit_types", "assignment_modes", "max_groups", "page_size_max"),
    "experiment_payload": (
        "items",
        "pagination",
        "limit_param",
        "next_cursor",
        "cursor_param",
        "offset_param",
        "page_param",
        "status",
        "terminated",
        "changeset",
        "unit_id",
        "group_id",
        "member_active",
        "member_unenrolled",
    ),
    "capabilities": ("experiments",),
}


@dataclass(frozen=True)
class Given:
    """What the person gave the draft, written as given (secrets as ``${ENV}`` names)."""

    url: str
    pat_env: str
    key_envs: tuple[str, ...]
    scopes: tuple[list[str] | None, ...]
    application_id: int
    environments: dict[str, int]
    foreign_application_id: int | None = None
    foreign_environment_id: int | None = None
    foreign_key_env: str | None = None


def render(given: Given, found: Findings, when: str) -> str:
    """The draft's YAML: documented and observed values marked, the rest commented defaults."""
    lines = [HEADER.format(url=given.url, when=when), "profile_version: 1", "", "credentials:"]
    lines.append(f"  pat: ${{{given.pat_env}}}")
    lines.append("  sdk_keys:")
    for env, scope in zip(given.key_envs, given.scopes, strict=True):
        shown = ", ".join(scope or given.environments)
        lines.append(
            f'    - {{key: "${{{env}}}", environments: [{shown}]}}'
            + (
                "  # observed: the environments whose status poll took it; confirm"
                if scope
                else "  # not observed (see the notes at the end): set its environments"
            )
        )
    if given.foreign_key_env:
        lines.append(f"  foreign_sdk_key: ${{{given.foreign_key_env}}}  # given: confirm")
    lines += ["", "project:", f"  application_id: {given.application_id}  # given: confirm"]
    envs = ", ".join(f"{alias}: {number}" for alias, number in given.environments.items())
    lines.append(f"  environments: {{{envs}}}  # given: confirm")
    if given.foreign_application_id is not None:
        lines.append(f"  foreign_application_id: {given.foreign_application_id}  # given: confirm")
    if given.foreign_environment_id is not None:
        lines.append(f"  foreign_environment_id: {given.foreign_environment_id}  # given: confirm")
    opened: set[str] = set()
    for section, names in SHOWN.items():
        parent = section.split(".")[0] if "." in section else None
        if parent is not None and parent not in opened:
            opened.add(parent)
            sub = [s for s in SHOWN if s.startswith(parent + ".")]
            any_written = any(_written(s, SHOWN[s], found) for s in sub)
            lines += ["", f"{parent}:" if any_written else f"# {parent}:"]
        lines += _section(section, names, found)
    if found.notes:
        lines += ["", "# Forms seen (no key holds them; the run judges them by the spec):"]
        lines += [f"#   {note}" for note in found.notes]
    return "\n".join(lines) + "\n"


def _defaults(section: str) -> dict[str, object]:
    node: object = DEFAULTS
    for part in section.split("."):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, dict) else {}


def _written(section: str, names: tuple[str, ...], found: Findings) -> list[str]:
    return [n for n in names if (f := found.by_key.get(f"{section}.{n}")) and f.observed]


def _section(section: str, names: tuple[str, ...], found: Findings) -> list[str]:
    """One section, its shown keys uncommented (a dotted section sits under its parent's line,
    which ``render`` writes once)."""
    *parents, leaf = section.split(".")
    written = _written(section, names, found)
    reason = UNSEEN.get(parents[0] if parents else leaf, "not probed")
    indent = "  " * len(parents)
    lines = [] if parents else [""]
    lines.append(f"{indent}{leaf}:" if written else f"# {indent}{leaf}:")
    defaults = _defaults(section)
    for name in names:
        finding = found.by_key.get(f"{section}.{name}")
        if finding is not None and finding.observed:
            lines.append(f"{indent}  {name}: {_yaml(finding.value)}  # {_source(finding)}")
        elif name in defaults:
            why = (
                finding.how if finding is not None else UNSEEN_KEY.get(f"{section}.{name}", reason)
            )
            lines.append(f"# {indent} {name}: {_yaml(defaults[name])}  # not observed: {why}")
    return lines


def _source(finding: Finding) -> str:
    return f"{finding.source}: {finding.how}; confirm"


def _yaml(value: object) -> str:
    if value == "null" or value is None:
        return "null"
    return json.dumps(value)


def to_confirm(given: Given, found: Findings, limit: int = 8) -> list[str]:
    """One screen: what the draft wrote and from where, and what the person still has to set."""
    shown = [f for f in found.by_key.values() if f.observed]
    documented = sorted(f.key for f in shown if f.source == "documented")
    observed = sorted(f.key for f in shown if f.source != "documented")
    left = [
        f"{section}.{name}"
        for section, names in SHOWN.items()
        for name in names
        if not ((f := found.by_key.get(f"{section}.{name}")) and f.observed)
        and name in _defaults(section)
    ]
    lines = [
        f"conformance: draft: {len(documented)} keys from the target's document, "
        f"{len(observed)} observed, {len(left)} left at their defaults: confirm each before a run",
    ]
    if documented:
        lines.append(f"  documented: {_some(documented, limit)}")
    if observed:
        lines.append(f"  observed:   {_some(observed, limit)}")
    if left:
        lines.append(f"  defaults:   {_some(left, limit)}")
    asks = []
    if given.foreign_application_id is None:
        asks.append(
            "--foreign-application-id/--foreign-environment-id (a project the token's "
            "owner cannot reach)"
        )
    if given.foreign_key_env is None:
        asks.append("--foreign-sdk-key (another project's key)")
    if any(scope is None for scope in given.scopes):
        asks.append("the environments of each SDK key (not observed)")
    if asks:
        lines.append("  still to give: " + "; ".join(asks))
    return lines


def _some(keys: list[str], limit: int) -> str:
    more = f" and {len(keys) - limit} more" if len(keys) > limit else ""
    return ", ".join(keys[:limit]) + more
