"""``conformance profile draft``: probe a running target and write a draft target profile with
every gap choice its answers show, each marked as observed and to be confirmed by a person.

The draft is not a verdict: a profile that only copied the target's answers would certify
whatever the target does. A person confirms each observed value against what the server
promises; ``conformance run`` then judges the target by what the profile says. Secrets are
written as ``${ENV}`` references, never their values. The probes are ``draft_probes`` and
``draft_rate``; what they could not observe is written as the commented default with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from conformance.errors import NoAnswer, UnboundedAnswer, UsageError
from conformance.target import door
from conformance.target import profile as profiles
from conformance.target.draft_probes import Findings, Prober, hash_form
from conformance.target.draft_rate import measure
from conformance.target.profile import SdkKey
from conformance.traffic.client import Client

HEADER = """\
# Draft target profile for {url}, written by `conformance profile draft` ({when}).
#
# NOT A VERDICT. A value marked "observed" is what this target answered to a few probes: a person
# must confirm each one against what the server promises (its documentation, its code), because a
# profile that only copies the target's answers would certify whatever the target does.
# `conformance run --profile` judges the target by what this file says, nothing else.
# A key marked "not observed" is left as its default (the reference server's choice), commented
# out, with the reason; set it where your server differs. docs/target-profile.md explains each.
# Secrets are ${{ENV}} references: export them before a run; their values are never written here.
"""

# Why a key that no answer showed is left at its default (else the section's reason, below).
UNSEEN_KEY: dict[str, str] = {
    "errors.forbidden_status": "needs a key refused in one environment and taken in another "
    "(the spec says 403, 4.3)",
    "errors.foreign_project_status": "needs a project the token's owner cannot reach",
    "experiment_payload.next_cursor": "no cursor moved the list on",
    "experiment_payload.cursor_param": "no cursor moved the list on",
    "experiment_payload.offset_param": "no offset parameter moved the list on",
    "experiment_payload.page_param": "no page parameter moved the list on",
}
# What the draft cannot see in any answer, by section: the reason written beside the defaults.
UNSEEN: dict[str, str] = {
    "headers": "the draft sent the default SDK header names; which names your server reads does "
    "not show in its answers",
    "bodies": "a body field name shows only when the server takes it; the patch body was not "
    "probed (a patch needs its field names)",
    "errors": "needs what the draft was not given (a key outside its scope, a project the "
    "token's owner cannot reach)",
    "experiment_payload": "needs assignments and members, whose body field names the draft "
    "cannot know",
}
SHOWN: dict[str, tuple[str, ...]] = {
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


DEFAULT_ENV_HEADER = str(profiles.DEFAULTS["headers"]["environment"])


@dataclass(frozen=True)
class Secret:
    value: str
    env: str  # the variable the draft names for it


def add_parser(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    profile = subcommands.add_parser("profile", help="target profile tools: draft")
    tools = profile.add_subparsers(dest="profile_command", metavar="TOOL", required=True)
    draft = tools.add_parser(
        "draft",
        help="probe a running target and write a draft profile to confirm",
        description="Probe a running target (a few creates, two throwaway experiments, a short "
        "bounded rate-limit drain on one instance id) and write a draft target profile with every "
        "gap choice its answers show, each marked observed and to be confirmed by a person. "
        "Not a verdict: a run judges the target by what the confirmed profile says.",
    )
    draft.add_argument("--base-url", metavar="URL", required=True, help="the target's base URL")
    pat = draft.add_mutually_exclusive_group(required=True)
    pat.add_argument(
        "--pat", metavar="TOKEN", help="personal access token (written as ${RCES_PAT})"
    )
    pat.add_argument("--pat-env", metavar="NAME", help="environment variable holding the PAT")
    draft.add_argument(
        "--sdk-key", metavar="KEY", action="append", default=[], help="an SDK key (repeatable)"
    )
    draft.add_argument(
        "--sdk-key-env",
        metavar="NAME",
        action="append",
        default=[],
        help="environment variable holding an SDK key (repeatable)",
    )
    draft.add_argument("--application-id", metavar="N", type=int, default=1, help="default: 1")
    draft.add_argument(
        "--environment",
        metavar="ALIAS=ID",
        action="append",
        default=[],
        help="an environment alias and its environment_id (repeatable; default: "
        "development=1 and production=2)",
    )
    draft.add_argument("--output", metavar="FILE", default="-", help="default: standard output")
    draft.add_argument(
        "--skip-rate-limit", action="store_true", help="do not drain a bucket to measure the limit"
    )


def main(options: argparse.Namespace) -> int:
    pat = _secret(options.pat, options.pat_env, "RCES_PAT", "--pat")
    keys = [Secret(v, f"RCES_SDK_KEY_{n}") for n, v in enumerate(options.sdk_key, 1)]
    keys += [_secret(None, name, name, "--sdk-key-env") for name in options.sdk_key_env]
    if not keys:
        raise UsageError("no SDK key given", "pass --sdk-key KEY or --sdk-key-env NAME")
    environments = _environments(options.environment)
    text = draft(
        options.base_url.rstrip("/"),
        pat,
        keys,
        options.application_id,
        environments,
        measure_rate=not options.skip_rate_limit,
    )
    if options.output == "-":
        sys.stdout.write(text)
    else:
        Path(options.output).write_text(text, encoding="utf-8")
        print(
            f"conformance: draft profile written to {options.output}: confirm each observed "
            "value before a run",
            file=sys.stderr,
        )
    return 0


def _secret(value: str | None, env: str | None, default_env: str, flag: str) -> Secret:
    if value is not None:
        return Secret(value, default_env)
    assert env is not None
    found = os.environ.get(env)
    if not found:
        raise UsageError(f"{flag} {env}: the variable is not set", f"export {env}")
    return Secret(found, env)


def _environments(given: list[str]) -> dict[str, int]:
    if not given:
        return {"development": 1, "production": 2}
    out: dict[str, int] = {}
    for item in given:
        alias, _, number = item.partition("=")
        if not alias or not number.isdigit():
            raise UsageError(f"--environment {item!r} is not ALIAS=ID", "e.g. development=1")
        out[alias] = int(number)
    return out


def draft(
    url: str,
    pat: Secret,
    keys: list[Secret],
    application_id: int,
    environments: dict[str, int],
    *,
    measure_rate: bool = True,
) -> str:
    """Probe the target at ``url``; the draft profile's text."""
    given = {
        "credentials": {
            "pat": pat.value,
            "sdk_keys": [{"key": k.value, "environments": list(environments)} for k in keys],
        },
        "project": {"application_id": application_id, "environments": environments},
    }
    working = profiles.parse(yaml.safe_dump(given), source="<draft>")
    found = Findings()
    tag = secrets.token_hex(3)
    with Client(url, working, run_prefix=f"cf-draft-{tag}") as client, _answering(url):
        first_env = next(iter(environments))
        first = client.status(
            key=keys[0].value,
            environment=first_env,
            instance_id=f"cf-draft-{tag}",
            allow_rate_limit=True,
            allow_server_error=True,
            pace=False,
        )
        door.speaks_the_interface(first, url)
        _snapshot_forms(first, found)
        scopes = _scopes(client, keys, environments, tag, found)
        prober = Prober(client, found)
        env_id = environments[first_env]
        base = prober.configurations(env_id)
        prober.credentials(keys[0].value, first_env)
        prober.experiments(env_id, base)
        if measure_rate:
            first_scope = [first_env]  # taken there (the first poll), whatever the scopes say
            sdk = [
                SdkKey(k.value, tuple(s or first_scope))
                for k, s in zip(keys, scopes, strict=True)
                if s or k is keys[0]
            ]
            measure(client, sdk, tag, found)
        else:
            for name in ("burst", "refill_per_second", "scope"):
                found.missed(f"rate_limit.{name}", "--skip-rate-limit: not measured")
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return render(url, pat, keys, scopes, application_id, environments, found, when)


@contextmanager
def _answering(url: str) -> Iterator[None]:
    """A probe the target left without a whole answer ends the draft as a usage error."""
    try:
        yield
    except (NoAnswer, UnboundedAnswer) as error:
        raise UsageError(
            f"the target at {url} left a probe without a whole answer: {error.title} "
            f"({error.received})",
            "start the server, or fix --base-url",
        ) from None


def _snapshot_forms(first: Any, found: Findings) -> None:
    data = json.loads(first.content) if first.status == 200 else {}
    if isinstance(data, dict) and "hash" in data:
        found.notes.append(f"snapshot hash: {hash_form(data['hash'])}")
        tag = first.headers.get("etag", "")
        form = "weak" if tag.startswith('W/"') else "quoted" if tag.startswith('"') else "bare"
        found.notes.append(f"ETag: {form} ({tag[:60]!r})")


def _scopes(
    client: Client, keys: list[Secret], environments: dict[str, int], tag: str, found: Findings
) -> list[list[str] | None]:
    """Each key's environments: those whose status poll is not refused (None: not observed).

    A key refused in some environments and taken in others shows the forbidden status. A key
    refused in every one, beside a key taken in every one, is what a server that reads the
    environment under another header name answers: then no scope is observed."""
    refuses = door.refusing(client.profile)
    scopes: list[list[str] | None] = []
    forbidden: set[int] = set()
    for index, key in enumerate(keys):
        taken, refused = [], set()
        for env in environments:
            reply = client.status(
                key=key.value,
                environment=env,
                instance_id=f"cf-draft-{tag}-k{index}",
                allow_rate_limit=True,
                allow_server_error=True,
                pace=False,
            )
            if reply.status in refuses:
                refused.add(reply.status)
            else:
                taken.append(env)
        if taken and refused:
            forbidden |= refused
        scopes.append(taken or None)
    if not any(scopes):
        raise UsageError(
            "the target refuses every SDK key given in every environment given",
            "check the keys, --application-id and --environment",
        )
    if None in scopes and not forbidden:
        found.notes.append(
            f"SDK keys: one was refused in every environment and the others taken in every one: "
            f"the environment header `{DEFAULT_ENV_HEADER}` seems not to be read"
        )
        return [None] * len(keys)
    if len(forbidden) == 1:
        found.saw(
            "errors.forbidden_status",
            forbidden.pop(),
            "a key taken in one environment was refused in another",
        )
    return scopes


def render(
    url: str,
    pat: Secret,
    keys: list[Secret],
    scopes: list[list[str] | None],
    application_id: int,
    environments: dict[str, int],
    found: Findings,
    when: str,
) -> str:
    """The draft's YAML: observed values marked, the rest commented defaults with the reason."""
    lines = [HEADER.format(url=url, when=when), "profile_version: 1", "", "credentials:"]
    lines.append(f"  pat: ${{{pat.env}}}")
    lines.append("  sdk_keys:")
    for key, scope in zip(keys, scopes, strict=True):
        shown = ", ".join(scope or environments)
        lines.append(
            f'    - {{key: "${{{key.env}}}", environments: [{shown}]}}'
            + (
                "  # observed: the environments whose status poll took it; confirm"
                if scope
                else "  # not observed (see the notes at the end): set its environments"
            )
        )
    lines += ["", "project:", f"  application_id: {application_id}  # given: confirm"]
    envs = ", ".join(f"{alias}: {number}" for alias, number in environments.items())
    lines.append(f"  environments: {{{envs}}}  # given: confirm")
    lines += _unseen_section("headers")
    content = found.by_key.get("bodies.create.content")
    lines += ["", f"# bodies: {UNSEEN['bodies']}"]
    if content is not None and content.observed:
        lines += [
            "bodies:",
            "  create:",
            f"    content: {content.value}  # observed: {content.how}; confirm",
        ]
    elif content is not None:
        lines.append(f"#   create.content: configuration  # not observed: {content.how}")
    for section, keys_shown in SHOWN.items():
        lines += _section(section, keys_shown, found)
    if found.notes:
        lines += ["", "# Forms seen (no key holds them; the run judges them by the spec):"]
        lines += [f"#   {note}" for note in found.notes]
    return "\n".join(lines) + "\n"


def _unseen_section(section: str) -> list[str]:
    lines = ["", f"# {section}:  # not observed: {UNSEEN[section]}"]
    for name, value in profiles.DEFAULTS[section].items():
        lines.append(f"#   {name}: {_yaml(value)}")
    return lines


def _section(section: str, names: tuple[str, ...], found: Findings) -> list[str]:
    observed = [n for n in names if (f := found.by_key.get(f"{section}.{n}")) and f.observed]
    lines = [""]
    lines.append(f"{section}:" if observed else f"# {section}:")
    defaults = profiles.DEFAULTS.get(section, {})
    for name in names:
        finding = found.by_key.get(f"{section}.{name}")
        if finding is not None and finding.observed:
            lines.append(f"  {name}: {_yaml(finding.value)}  # observed: {finding.how}; confirm")
        elif name in defaults:
            why = (
                finding.how
                if finding is not None
                else UNSEEN_KEY.get(f"{section}.{name}", UNSEEN.get(section, "not probed"))
            )
            lines.append(f"#  {name}: {_yaml(defaults[name])}  # not observed: {why}")
    return lines


def _yaml(value: object) -> str:
    if value == "null" or value is None:
        return "null"
    return json.dumps(value)
