"""``conformance profile draft``: read what a running target says about itself (its OpenAPI
document, when it serves one), probe it, and write a draft target profile with every gap choice
its document and answers show, each marked documented or observed, to be confirmed by a person.

The draft is not a verdict: a profile that only copied the target's answers would certify
whatever the target does. A person confirms each observed value against what the server
promises; ``conformance run`` then judges the target by what the profile says. Secrets are
written as ``${ENV}`` references, never their values. The document is read by
``draft_openapi`` (its header and body names are then the names the probes send), the probes are
``draft_probes`` and ``draft_rate``, and ``draft_render`` writes the text: what nothing showed is
the commented default with the reason.
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
from conformance.profile import parse
from conformance.profile.access import SdkKey
from conformance.profile.defaults import DEFAULTS
from conformance.target import door, draft_headers, draft_openapi
from conformance.target.draft_probes import Findings, Prober, hash_form
from conformance.target.draft_rate import measure
from conformance.target.draft_render import Given, render, to_confirm
from conformance.traffic.client import Client
from conformance.traffic.transcript import Reply

DEFAULT_ENV_HEADER = str(DEFAULTS["headers"]["environment"])


@dataclass(frozen=True)
class Secret:
    value: str
    env: str  # the variable the draft names for it


def write_draft(options: argparse.Namespace) -> int:
    """``conformance profile draft``: the draft from the parsed options, to ``--output``."""
    pat = _secret(options.pat, options.pat_env, "RCES_PAT", "--pat")
    keys = [Secret(v, f"RCES_SDK_KEY_{n}") for n, v in enumerate(options.sdk_key, 1)]
    keys += [_secret(None, name, name, "--sdk-key-env") for name in options.sdk_key_env]
    if not keys:
        raise UsageError("no SDK key given", "pass --sdk-key KEY or --sdk-key-env NAME")
    environments = _environments(options.environment)
    foreign_key = (
        _secret(
            options.foreign_sdk_key,
            options.foreign_sdk_key_env,
            "RCES_KEY_FOREIGN",
            "--foreign-sdk-key-env",
        )
        if options.foreign_sdk_key or options.foreign_sdk_key_env
        else None
    )
    text, screen = draft(
        options.base_url.rstrip("/"),
        pat,
        keys,
        options.application_id,
        environments,
        measure_rate=not options.skip_rate_limit,
        openapi=False if options.no_openapi else options.openapi,
        foreign=Foreign(
            options.foreign_application_id, options.foreign_environment_id, foreign_key
        ),
    )
    print("\n".join(screen), file=sys.stderr)
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


@dataclass(frozen=True)
class Foreign:
    """What the person gave of a project the token's owner cannot reach."""

    application_id: int | None = None
    environment_id: int | None = None
    sdk_key: Secret | None = None


def draft(
    url: str,
    pat: Secret,
    keys: list[Secret],
    application_id: int,
    environments: dict[str, int],
    *,
    measure_rate: bool = True,
    openapi: str | bool | None = None,
    foreign: Foreign | None = None,
) -> tuple[str, list[str]]:
    """The draft's text and the one screen of what to confirm. ``openapi``: the document's URL
    or path (None: look in the common places; False: do not look)."""
    foreign = foreign or Foreign()
    found = Findings()
    where = openapi if isinstance(openapi, str) else None
    document = None if openapi is False else draft_openapi.fetch(url, where)
    if document is not None:
        for finding in draft_openapi.read(*document):
            found.documented(finding)
        found.notes.append(f"OpenAPI document read from {document[1]}")
    elif openapi:
        raise UsageError(
            f"--openapi {openapi}: no OpenAPI or Swagger document there", "check the URL or path"
        )
    given = {
        "credentials": {
            "pat": pat.value,
            "sdk_keys": [{"key": k.value, "environments": list(environments)} for k in keys],
        },
        "project": {"application_id": application_id, "environments": environments},
        **_names(found),
    }
    working = parse(yaml.safe_dump(given), source="<draft>")
    tag = secrets.token_hex(3)
    unnamed = [r for r in draft_headers.SPELLINGS if f"headers.{r}" not in _names(found, "headers")]
    if unnamed:
        with Client(url, working, run_prefix=f"cf-draft-{tag}") as client, _answering(url):
            _probe_header_names(client, keys[0].value, found)
        given = {**given, **_names(found)}
        working = parse(yaml.safe_dump(given), source="<draft>")
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
        if foreign.application_id is not None:
            prober.foreign_project(foreign.application_id, foreign.environment_id or env_id)
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
    person = Given(
        url=url,
        pat_env=pat.env,
        key_envs=tuple(k.env for k in keys),
        scopes=tuple(scopes),
        application_id=application_id,
        environments=environments,
        foreign_application_id=foreign.application_id,
        foreign_environment_id=foreign.environment_id,
        foreign_key_env=foreign.sdk_key.env if foreign.sdk_key else None,
    )
    return render(person, found, when), to_confirm(person, found)


def _names(found: Findings, section: str | None = None) -> dict[str, Any]:
    """The header and body names the target's document gave or a probe showed, as profile
    sections (or the dotted keys of one ``section``): the probes then send what it reads."""
    sections: dict[str, Any] = {}
    for key, finding in found.by_key.items():
        if finding.observed and key.split(".")[0] in ("headers", "bodies"):
            node = sections
            *parents, leaf = key.split(".")
            for part in parents:
                node = node.setdefault(part, {})
            node[leaf] = finding.value
    if section is None:
        return sections
    return {f"{section}.{k}": v for k, v in sections.get(section, {}).items()}


def _probe_header_names(client: Client, key: str, found: Findings) -> None:
    """The SDK header names no document gave, by a refusal under one spelling only."""
    door.speaks_the_interface(client.status(key=key, instance_id=None, pace=False), client.base_url)

    def poll(headers: dict[str, str]) -> Reply:
        return client.sdk(
            "/status",
            key=key,
            environment=None,
            instance_id=None,
            headers=headers,
            allow_rate_limit=True,
            allow_server_error=True,
            pace=False,
        )

    known = {str(v).lower() for v in _names(found, "headers").values()}
    draft_headers.probe(poll, found, known)


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
