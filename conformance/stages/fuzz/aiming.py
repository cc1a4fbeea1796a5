"""The fuzzed target: real objects to aim at, and how a generated case is pointed at them.

``FuzzTarget.provision`` creates one configuration and one experiment named with the run prefix
(``cf-<runid>-fuzz-...``); ``prepare`` fixes the project, the environment and the credentials of
a generated case and, most of the time, swaps generated ids for those real ones, so fuzzing
reaches past "not found". ``cleanup`` terminates every experiment the run created.
A parameter that the generator deliberately made invalid (a negative case) is left alone.
"""

from __future__ import annotations

import itertools
import json
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from requests.structures import CaseInsensitiveDict

from conformance.json_types import JsonObject, JsonValue
from conformance.profile import Profile
from conformance.stages.fuzz.auth import AuthMode, credential_headers
from conformance.traffic.call_kind import is_sdk_path

if TYPE_CHECKING:
    from schemathesis.specs.openapi.schemas import OpenApiCase

    from conformance.traffic.client import Client

# The provisioned experiment's variant group, in each changeset format a profile may declare
# (experiment_payload.changeset_format).
VARIANT_CHANGESET: dict[str, list[JsonObject]] = {
    "segments": [{"op": "set", "path": ["fuzz", "level"], "value": 2}],
    "json-patch": [{"op": "replace", "path": "/fuzz/level", "value": 2}],
}
# One generated id in ``KEEP_GENERATED_ONE_IN`` is kept as generated (it tests "not found").
KEEP_GENERATED_ONE_IN = 5
MAX_NAME = 200
EXPERIMENT_PAGES = 50


@dataclass
class RealObjects:
    """Ids of objects that exist on the target, created for this run (None: could not create)."""

    configuration_id: int | None = None
    experiment_id: int | None = None
    group_ids: tuple[int, ...] = ()
    problems: list[str] = field(default_factory=list)


def _keep_generated(value: object) -> bool:
    return zlib.crc32(repr(value).encode()) % KEEP_GENERATED_ONE_IN == 0


def _negated(case: OpenApiCase) -> set[str]:
    """Names of the parameters a negative case broke on purpose (lowercase)."""
    meta = case.meta
    if meta is None:
        return set()
    names: set[str] = set()
    data = meta.phase.data
    parameter = getattr(data, "parameter", None)
    if parameter:
        names.add(str(parameter).lower())
    for location, info in meta.components.items():
        if str(getattr(info.mode, "value", info.mode)) == "negative":
            names.add(f"@{getattr(location, 'value', location)}")
    return names


@dataclass
class FuzzTarget:
    """One target for one fuzz run: where it is, how to reach it, what exists on it."""

    base_url: str
    profile: Profile
    run_prefix: str  # cf-<runid>
    objects: RealObjects = field(default_factory=RealObjects)
    _instance_ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _names: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def name_prefix(self) -> str:
        return f"{self.run_prefix}-fuzz-"

    # ------------------------------------------------------------------ provisioning

    def provision(self, client: Client) -> RealObjects:
        """Create the configuration and experiment the fuzzer aims at; problems are recorded."""
        objects = self.objects
        statuses = self.profile.statuses
        content_field = self.profile.bodies.create.content
        reply = client.management(
            "POST",
            "/configuration",
            json_body={
                "name": f"{self.name_prefix}configuration-{next(self._names)}",
                content_field: {"fuzz": {"enabled": True, "level": 1}},
            },
        )
        body = _json(reply.content)
        if reply.status == statuses.create_configuration and isinstance(body, dict):
            objects.configuration_id = _int(body.get("id"))
        else:
            objects.problems.append(f"create configuration answered {reply.status}")
        if objects.configuration_id is None or not self.profile.capability("experiments"):
            return objects
        payload = self.profile.experiment_payload
        names = payload.create  # the create body's and the record's names
        total = self.profile.experiments.weight_total or 2  # null: no fixed total, 1 to 1
        reply = client.management(
            "POST",
            "/experiments",
            environment=None if not payload.environment_header else "development",
            json_body={
                names.name: f"{self.name_prefix}experiment-{next(self._names)}",
                names.unit_type: self.profile.experiments.unit_types[0],
                names.base_configuration_id: objects.configuration_id,
                names.groups: [
                    {
                        names.group_label: "control",
                        names.group_weight: total // 2,
                        payload.changeset: [],
                    },
                    {
                        names.group_label: "variant",
                        names.group_weight: total - total // 2,
                        payload.changeset: VARIANT_CHANGESET[payload.changeset_format],
                    },
                ],
            },
        )
        body = _json(reply.content)
        if reply.status == statuses.create_experiment and isinstance(body, dict):
            objects.experiment_id = _int(body.get("id"))
            groups = body.get(names.groups)
            if isinstance(groups, list):
                objects.group_ids = tuple(
                    group_id
                    for g in groups
                    if isinstance(g, dict)
                    for group_id in (g.get("id"),)
                    if isinstance(group_id, int)
                )
        else:
            objects.problems.append(f"create experiment answered {reply.status}")
        return objects

    def cleanup(self, client: Client) -> int:
        """Terminate every running experiment whose name carries this run's prefix."""
        terminated = 0
        cursor: str | None = None
        ids: list[int] = []
        payload = self.profile.experiment_payload
        size = self.profile.experiments.page_size_max
        for number in range(EXPERIMENT_PAGES):
            params = {payload.limit_param: str(size)}
            if payload.pagination == "offset":
                params[payload.offset_param] = str(number * size)
            elif payload.pagination == "page":
                params[payload.page_param] = str(number + 1)  # the first page is 1
            elif cursor:
                params[payload.cursor_param] = cursor
            reply = client.management("GET", "/experiments", params=params)
            page = _json(reply.content)
            if reply.status != 200 or not isinstance(page, dict):
                break
            listed = page.get(payload.items)
            items = listed if isinstance(listed, list) else []  # not a list: nothing to terminate
            for item in items:
                if not isinstance(item, dict):
                    continue
                experiment_id = item.get("id")
                if (
                    str(item.get("name", "")).startswith(self.name_prefix)
                    and item.get(payload.status) != payload.terminated
                    and isinstance(experiment_id, int)
                ):
                    ids.append(experiment_id)
            if payload.pagination != "cursor":
                if len(items) < size:
                    break
                continue
            next_cursor = page.get(payload.next_cursor)
            cursor = str(next_cursor) if next_cursor else None
            if not cursor:
                break
        for experiment_id in ids:
            reply = client.management("POST", f"/experiments/{experiment_id}/terminate")
            terminated += reply.status == 200
        return terminated

    # ------------------------------------------------------------------ aiming a case

    def new_instance_id(self) -> str:
        return f"{self.run_prefix}-fuzz-{next(self._instance_ids)}"

    def prepare(
        self, case: OpenApiCase, mode: AuthMode = AuthMode.VALID, *, aim_ids: bool = True
    ) -> None:
        """Point a generated case at this target: project, environment, real ids, credentials.

        ``aim_ids=False`` (stateful steps) keeps the ids a link carried over from a response.
        """

        negated = _negated(case)
        sdk = is_sdk_path(case.operation.path)
        path_parameters = dict(case.path_parameters or {})
        rules = self._path_rules()
        if not aim_ids:
            rules = {"applicationId": rules["applicationId"]}
        if "@path" in negated:  # a negative path: its values are wrong on purpose
            rules = {}
        for name, replace in rules.items():
            if name in path_parameters and name.lower() not in negated:
                path_parameters[name] = replace(path_parameters[name])
        if path_parameters != (case.path_parameters or {}):
            case.path_parameters = path_parameters

        headers = dict(case.headers or {})
        if not sdk and not negated & {"environment_id", "@header"}:
            headers = _set(headers, "environment_id", str(self.environment_id()))
        if sdk and _find(headers, self.profile.headers.instance_id) is None:
            headers[self.profile.headers.instance_id] = self.new_instance_id()
        for name, value in credential_headers(
            self.profile, case.operation.path, mode, headers
        ).items():
            headers = _set(headers, name, value)
        case.headers = CaseInsensitiveDict(headers)

        if isinstance(case.body, dict) and "@body" not in negated:
            body = self._aim_body(case.body)
            if body is not case.body:
                case.body = body

    def environment_id(self) -> int:
        """The environment every management case is aimed at (development, else the first)."""
        environments = self.profile.project.environments
        return environments.get("development", next(iter(environments.values())))

    def _path_rules(self) -> dict[str, Callable[[object], object]]:
        objects = self.objects
        rules: dict[str, Callable[[object], object]] = {
            "applicationId": lambda _: self.profile.project.application_id,
        }
        if objects.configuration_id is not None:
            config_id = objects.configuration_id
            rules["configurationId"] = lambda v: v if _keep_generated(v) else config_id
        if objects.experiment_id is not None:
            experiment_id = objects.experiment_id
            rules["experimentId"] = lambda v: v if _keep_generated(v) else experiment_id
        return rules

    def _aim_body(self, body: JsonObject) -> JsonObject:
        changed = dict(body)
        name = changed.get("name")
        if isinstance(name, str):  # the generated length kept, and a number no other name has
            unique = f"{self.name_prefix}{next(self._names)}-"
            prefixed = (unique + name)[: max(len(name), len(unique), 1)]
            changed["name"] = prefixed[:MAX_NAME]
        objects = self.objects
        base = changed.get("baseConfigurationId")
        if base is not None and objects.configuration_id is not None and not _keep_generated(base):
            changed["baseConfigurationId"] = objects.configuration_id
        group = self.profile.experiment_payload.group_id  # the target's name of the field
        if group in changed and objects.group_ids and not _keep_generated(changed[group]):
            changed[group] = objects.group_ids[0]
        return changed if changed != body else body


def _json(content: bytes) -> JsonValue:
    try:
        value: JsonValue = json.loads(content) if content else None
        return value
    except ValueError:
        return None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _find(headers: Mapping[str, object], name: str) -> str | None:
    lowered = name.lower()
    return next((k for k in headers if k.lower() == lowered), None)


def _set(headers: dict[str, object], name: str, value: str | None) -> dict[str, object]:
    existing = _find(headers, name)
    if existing is not None:
        del headers[existing]
    if value is not None:
        headers[name] = value
    return headers
