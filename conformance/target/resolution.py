"""The target: which server the suite certifies (given, or the embedded one), and its pre-flight.

``resolve`` turns a base URL and a profile path (or neither) into a ``Target``; ``preflight``
checks once, before any test, that the target answers, speaks this interface and takes the
profile's project and credentials (``conformance.target.door``), so a wrong URL or profile is
one usage error instead of a wall of failures; ``establish`` does both, once per run
(``conformance.run.handover``).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from conformance.errors import UsageError
from conformance.profile import Profile, load
from conformance.target import door
from conformance.target.embedded import start_embedded
from conformance.traffic.client import TIMEOUT, Client
from conformance.verdict.difference import Difference

# The door waits as long as the run's own exchanges do (a slow or distant correct target passes
# it), and never beyond the profile's responses.max_seconds for a whole answer.
PREFLIGHT_TIMEOUT: httpx.Timeout = TIMEOUT


@dataclass
class Target:
    base_url: str
    profile: Profile = field(repr=False)  # it holds the credentials
    profile_path: Path | None
    embedded: bool = False
    _stop: Callable[[], None] | None = field(default=None, repr=False)
    server_header: str = ""  # what the target calls itself (``Server``), seen at pre-flight
    # the undeclared names the target spells its own way, observed before the tests
    # (``conformance.drivers.observation``), as drop-in differences naming every requirement
    # resting on their key; the profile above already holds the target's spellings
    observed: tuple[Difference, ...] = ()

    def stop(self) -> None:
        if self._stop is not None:
            stop, self._stop = self._stop, None
            stop()

    @property
    def fingerprint(self) -> str:
        """A short, stable identity of the target: URL, ``Server`` header and project."""
        project = self.profile.project
        identity = "|".join(
            (
                self.base_url.rstrip("/"),
                self.server_header,
                str(project.application_id),
                ",".join(f"{k}={v}" for k, v in sorted(project.environments.items())),
            )
        )
        digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]
        server = self.server_header or "no Server header"
        return f"sha256:{digest} ({server}; project {project.application_id})"


def new_run_id() -> str:
    """A short random id naming everything one run creates on the target."""
    return secrets.token_hex(3)


def resolve(base_url: str | None, profile_path: str | Path | None) -> Target:
    """The target to certify: ``base_url`` with its profile, or the embedded reference server."""
    if base_url:
        if profile_path is None:
            raise UsageError(
                f"--base-url {base_url} was given without a target profile",
                "pass --profile FILE (conformance run) or --target-profile FILE (pytest); "
                "docs/target-profile.md shows the format",
            )
        if not base_url.startswith(("http://", "https://")):
            raise UsageError(
                f"--base-url {base_url!r} is not an http(s) URL", "pass e.g. http://127.0.0.1:8000"
            )
        return Target(base_url.rstrip("/"), load(profile_path), Path(profile_path))
    if profile_path is not None:
        raise UsageError(
            "a target profile was given without --base-url",
            "pass --base-url with it, or neither to certify the embedded reference server",
        )

    server = start_embedded()
    try:
        profile = load(server.profile_path)
    except BaseException:
        server.stop()
        raise
    return Target(server.base_url, profile, server.profile_path, True, server.stop)


def establish(base_url: str | None, profile_path: str | Path | None) -> Target:
    """The target resolved and its pre-flight passed: what a run is handed, once."""
    target = resolve(base_url, profile_path)
    try:
        preflight(target)
    except BaseException:
        target.stop()
        raise
    return target


def preflight(target: Target) -> None:
    """The door (``conformance.target.door``): the target answers, speaks this interface, knows
    the profile's project and environments, and takes each SDK key where the profile declares
    it; else one UsageError naming the key.

    The requests go through the suite's ``Client``, under the run's own bounds: no answer (after
    one retry), or an answer over the size cap or the total deadline (``responses`` in the
    profile), is a usage error that says what happened, instead of a run that hangs or fails
    everywhere."""
    profile = target.profile
    key = profile.credentials.sdk_keys[0]
    url = target.base_url
    with Client(url, profile, run_prefix="cf-preflight", timeout=PREFLIGHT_TIMEOUT) as client:
        first = door.ask(
            url,
            lambda: client.status(
                key=key.key,
                environment=key.environments[0],
                instance_id=door.PREFLIGHT_INSTANCE,
                allow_rate_limit=True,
                allow_server_error=True,
                pace=False,
            ),
        )
        target.server_header = first.headers.get("server", "")
        door.speaks_the_interface(first, url)
        door.keys_reach(client, url, first)
        door.project_exists(client, url)
