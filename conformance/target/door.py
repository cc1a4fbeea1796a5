"""The door: before any test, proof that the target is this interface with the profile's project,
environments and SDK keys; each thing that is not so is one usage error naming the key.

``preflight`` (``conformance.target.resolution``) sends every exchange through the suite's
``Client`` and hands the answers here:

- ``speaks_the_interface``: the status endpoint answers a JSON status snapshot with its ``hash``
  (a string); a catch-all page (a proxy login, an SPA fallback), a redirect or JSON without a
  hash stops here. A snapshot without its ``ETag`` is this interface done wrong, not another
  one: the run judges it (SDK-STATUS-ETAG-EQUALS-HASH), with a report;
- ``project_exists``: a management exchange that creates nothing, on ``project.application_id``
  with each environment of ``project.environments``, is not refused as unknown or forbidden;
- ``keys_reach``: each entry of ``credentials.sdk_keys`` is known to the target and not taken only
  outside the environments it declares (keys swapped between environments stop here, named by
  their index, never their value; a key refused in some or all of its environments but taken in
  none other is the target's way with environments, the run's to judge: AUTH-SDK-ENV-IN-SCOPE).

What a correct target may answer otherwise (a 5xx, a 429, a 400) is not the door's: the run
judges it with evidence. The door's SDK polls carry instance ids of their own, so they spend no
bucket a test polls from, and go through the client's pacing and ledger like any other.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial

from conformance.errors import NoAnswer, UnboundedAnswer, UsageError
from conformance.profile import Profile
from conformance.report.body_cut import cut
from conformance.traffic.client import Client
from conformance.traffic.transcript import Reply

PREFLIGHT_INSTANCE = "cf-preflight"  # the instance id of the door's first status poll
NOT_JSON_BODY = b"{ not json"  # a create nothing can accept: it creates nothing


def ask(url: str, send: Callable[[], Reply]) -> Reply:
    """One pre-flight exchange; what kept it from ending well, as a usage error."""
    try:
        return send()
    except NoAnswer as error:
        raise UsageError(
            f"cannot reach the target at {url}: {error.title} ({error.received})",
            "start the server, or fix --base-url (scheme, host, port and any path prefix)",
        ) from None
    except UnboundedAnswer as error:
        raise UsageError(
            f"the target's pre-flight answer never ended properly: {error.title}: {error.received}",
            "fix the target; if its answers are legitimately larger or slower, raise "
            "responses.max_bytes / responses.max_seconds in the profile",
        ) from None


def refusing(profile: Profile) -> frozenset[int]:
    """The statuses that refuse a credential: the declared ones, 401 and 403."""
    errors = profile.errors
    return frozenset({*errors.missing_credentials_status, 401, 403, errors.forbidden_status})


# ------------------------------------------------------------------ the interface


def speaks_the_interface(reply: Reply, url: str) -> None:
    """The first status poll's answer is a status snapshot (a JSON object with a string ``hash``);
    a 404, a redirect or anything else on a 200 is not this interface."""
    where = f"GET {url}/sdk/v2/status"
    fix = (
        f"fix --base-url so that {url}/sdk/v2/status is the interface's status endpoint "
        "(scheme, host, port and any path prefix)"
    )
    status = reply.status
    if status == 404:
        raise UsageError(f"{where} answered 404: no RCES interface at this base URL", fix)
    if 300 <= status < 400 and status != 304:
        location = reply.headers.get("location", "no Location")
        raise UsageError(
            f"{where} answered {status} ({location}): a redirect, not a status snapshot", fix
        )
    if status != 200:
        return  # a refusal is the keys' to name; anything else the run judges
    media = reply.headers.get("content-type", "no Content-Type")
    try:
        data = json.loads(reply.content)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        first = cut(reply.exchange.response_body or "", 80)
        shown = f"{first!r}" if first else "an empty body"
        raise UsageError(
            f"{where} answered 200 {media}, not a JSON status snapshot (body: {shown}): "
            "this base URL does not serve the RCES interface",
            fix + "; a proxy's login page, an SPA fallback or a default page answers every "
            "path like this",
        )
    if not isinstance(data.get("hash"), str):
        fields = ", ".join(sorted(str(k) for k in data)[:8]) or "none"
        raise UsageError(
            f"{where} answered 200 JSON without a string `hash` (fields: {fields}): "
            "not a status snapshot (spec 2.4)",
            fix + "; if it is the status endpoint, its snapshot must carry `hash`",
        )


# ------------------------------------------------------------------ the project


def project_exists(client: Client, url: str) -> None:
    """The profile's project and each of its environments exist for the PAT.

    With experiments, the experiments list of each environment (a read); without, a create whose
    body is not JSON (a correct target refuses it, creating nothing, after knowing the project:
    without experiments a correct target may answer the experiments list 404). A refusal as
    unknown or forbidden names ``project.application_id`` when every environment meets it, else
    the environments that do."""
    profile = client.profile
    app = profile.project.application_id
    errors = profile.errors
    credential = frozenset(errors.missing_credentials_status) | {401}
    unknown = {404, 403, errors.not_found_status, *errors.foreign_project_status}
    unknown -= {*errors.validation_status, *errors.malformed_status, *credential}
    experiments = profile.capability("experiments")
    path = "/experiments" if experiments else "/configuration"
    refused: dict[str, int] = {}
    for alias, env_id in sorted(profile.project.environments.items(), key=lambda kv: kv[1]):
        send = _list_experiments if experiments else _create_nothing
        reply = ask(url, partial(send, client, env_id))
        where = f"{'GET' if experiments else 'POST'} /application/{app}/v2{path}"
        if reply.status in credential:
            raise UsageError(
                f"the target rejects credentials.pat ({where}: {reply.status})",
                "check credentials.pat in the profile (and the environment variable it names)",
            )
        if reply.status in unknown:
            refused[alias] = reply.status
    if not refused:
        return
    where = f"{'GET' if experiments else 'POST'} /application/{app}/v2{path}"
    statuses = ", ".join(f"{alias} {status}" for alias, status in refused.items())
    if len(refused) == len(profile.project.environments):
        raise UsageError(
            f"project.application_id {app}: the target knows no project {app} that "
            f"credentials.pat can reach ({where} answered, per environment: {statuses})",
            "set project.application_id to the id of your project, one the owner of "
            "credentials.pat may act on",
        )
    named = ", ".join(
        f"project.environments.{alias} ({profile.project.environments[alias]})" for alias in refused
    )
    raise UsageError(
        f"{named}: project {app} has no such environment for credentials.pat ({where}: {statuses})",
        f"set each alias under project.environments to the environment_id it has in project {app}",
    )


def _list_experiments(client: Client, env_id: int) -> Reply:
    return client.management(
        "GET", "/experiments", environment=env_id, allow_rate_limit=True, allow_server_error=True
    )


def _create_nothing(client: Client, env_id: int) -> Reply:
    app = client.profile.project.application_id
    token = client.profile.credentials.pat
    return client.request(
        "POST",
        f"/application/{app}/v2/configuration",
        headers={
            "Authorization": f"Bearer {token}",
            "environment_id": str(env_id),
            "content-type": "application/json",
        },
        content=NOT_JSON_BODY,
        allow_rate_limit=True,
        allow_server_error=True,
    )


# ------------------------------------------------------------------ the SDK keys


def keys_reach(client: Client, url: str, first: Reply) -> None:
    """Each SDK key is taken in at least one environment it declares. ``first``: the answer to
    the first key in its first environment (the first poll)."""
    profile = client.profile
    refuses = refusing(profile)
    for index, entry in enumerate(profile.credentials.sdk_keys):
        refused: dict[str, int] = {}
        for number, env in enumerate(entry.environments):
            if index == 0 and number == 0:
                reply = first
            else:
                reply = _poll(client, url, entry.key, env, index)
            if reply.status not in refuses:
                break  # taken (or answered otherwise: the run judges it) in a declared one
            refused[env] = reply.status
        else:
            _refused_everywhere(client, url, index, refused)


def _poll(client: Client, url: str, key: str, env: str | None, index: int) -> Reply:
    return ask(
        url,
        lambda: client.status(
            key=key,
            environment=env,
            instance_id=f"{PREFLIGHT_INSTANCE}-key{index}",
            allow_rate_limit=True,
            allow_server_error=True,
        ),
    )


def _refused_everywhere(client: Client, url: str, index: int, refused: dict[str, int]) -> None:
    """Key ``index`` is refused in every environment it declares. Taken in another environment
    (keys swapped between environments), or refused as unknown (a missing-credentials status),
    it is the profile's mistake: one usage error. Refused as forbidden in every environment, it
    is the target's way with environments, for the run to judge (a known key no environment
    serves)."""
    profile = client.profile
    entry = profile.credentials.sdk_keys[index]
    refuses = refusing(profile)
    taken = [
        env
        for env in profile.project.environments
        if env not in refused and _poll(client, url, entry.key, env, index).status not in refuses
    ]
    statuses = ", ".join(f"{env}: {status}" for env, status in refused.items())
    name = f"credentials.sdk_keys[{index}]"
    if taken:
        raise UsageError(
            f"the target refuses {name} in the environments it declares ({statuses}) but takes "
            f"it in {', '.join(taken)}: keys swapped between environments? (GET /sdk/v2/status)",
            f"give {name} the key of {', '.join(entry.environments)}, or declare "
            f"`environments: [{', '.join(taken)}]` for it",
        )
    unknown = set(profile.errors.missing_credentials_status) | {401}
    if set(refused.values()) <= unknown:
        raise UsageError(
            f"the target does not know {name} ({statuses}; GET /sdk/v2/status)",
            f"check {name} in the profile (and the environment variable it names): a key of "
            f"project {profile.project.application_id} with the environments it declares",
        )
