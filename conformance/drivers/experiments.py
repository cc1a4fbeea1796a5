"""Experiments as scenarios drive them: calls, clean-up, paging (bodies and unit views inherited).

``Experiments`` (the scenarios' ``experiments`` fixture, built by ``experiments_for``) creates
and drives experiments on the target for one test. Every name the specification does not show
(list and count fields, paging parameters, status values, assignment and rollout fields, the
bootstrap's document and assignments fields) is read from the target profile
(``experiment_payload`` and ``bootstrap_payload``; defaults: the reference server's choices), as
are unit types, modes, weight total, maximum groups, identity header names and statuses.

Isolation: every experiment a test creates carries the run prefix in its name and requires a
context property of its own (``Experiments.gate``); the test's units send that property, units of
other tests do not, so concurrent tests (pytest-xdist) never enrol in each other's experiments.
Clean-up: what a test created is terminated when it ends, and by the session
(``conformance.drivers.experiment_cleanup``).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

import pytest

from conformance.checks import conventions, expect, json_object
from conformance.checks.declared import (
    status_expectation,
    status_holds,
    status_received,
)
from conformance.drivers.call_options import Environment, ManagementOptions
from conformance.drivers.capabilities import require_capabilities
from conformance.drivers.experiment_bodies import WEIGHTED, ExperimentBodies
from conformance.drivers.experiment_cleanup import Registry, session_terminator
from conformance.drivers.experiment_lists import MAX_PAGES, read_pages
from conformance.drivers.experiment_names import inbound, outbound
from conformance.drivers.experiment_views import ExperimentViews
from conformance.drivers.sdk import Snapshots
from conformance.drivers.steps import body_of, ok, setup_failed
from conformance.json_types import JsonObject, JsonValue
from conformance.profile.experiments import BootstrapPayload, ExperimentPayload
from conformance.traffic.client import Client
from conformance.traffic.sdk_options import UNSET
from conformance.traffic.transcript import Reply

if TYPE_CHECKING:
    from conformance.session.cleanup import Cleanup

UNKNOWN_EXPERIMENT_ID = 987_654_321


SUMMARY_FIELDS = (
    "id",
    "name",
    "unitType",
    "assignmentMode",
    "baseConfigurationId",
    "autoAssignment",
    "permanentEnrollment",
    "requiredProperties",
    "startsAt",
    "endsAt",
    "groups",
)


# ------------------------------------------------------------------ the driver


class Experiments(ExperimentBodies, ExperimentViews):
    """Create and drive experiments on the target for one test: its bodies
    (``experiment_bodies``) and what units and the snapshot show (``experiment_views``) are
    inherited; the calls, the clean-up and the lists are here."""

    def __init__(self, client: Client, cleanup: Cleanup, environment: str = "development") -> None:
        self.client = client
        self.profile = client.profile
        self.cleanup = cleanup
        self._environment = environment
        self.registry = Registry()
        self.gate = f"cfgate{secrets.token_hex(5)}"
        self.snapshots = Snapshots(client)
        self.p: ExperimentPayload = self.profile.experiment_payload
        self.b: BootstrapPayload = self.profile.bootstrap_payload
        # The content of each base configuration this driver made: a changeset declared as
        # RFC 6902 is translated against it (``experiment_changeset.as_json_patch``).
        self._base_content: dict[object, dict[str, object]] = {}

    @property
    def environment(self) -> str:
        """The environment the experiments act in: the one a test chose, sent as the
        environment header; with ``experiment_payload.environment_header: false`` the target
        takes no environment input (spec 4.2 names none), so it is not the test's to choose:
        the first environment of ``project.environments``."""
        if self.p.environment_header:
            return self._environment
        return next(iter(self.profile.project.environments), self._environment)

    @environment.setter
    def environment(self, alias: str) -> None:
        self._environment = alias

    # -------------------------------------------------------------- calls

    def call(
        self,
        method: str,
        suffix: str = "",
        *,
        json_body: object = UNSET,
        **kw: Unpack[ManagementOptions],
    ) -> Reply:
        kw.setdefault("environment", self.environment)
        if not self.p.environment_header:  # the target's experiment endpoints take none
            kw["environment"] = None
        if method == "POST" and suffix == "":  # a create body, in the summary's names
            json_body = outbound(json_body, self.p.create)
        return self.client.management(method, f"/experiments{suffix}", json_body=json_body, **kw)

    def create(self, body: object, **kw: Unpack[ManagementOptions]) -> Reply:
        """POST a create body (in the summary's names, sent in the target's); whatever it
        creates is registered for termination."""
        reply = self.call("POST", json_body=body, **kw)
        created = self.record(reply) if ok(reply) else None
        new_id = created.get("id") if isinstance(created, dict) else None
        if isinstance(new_id, int):
            self.track(new_id, kw.get("environment", self.environment))
        return reply

    def refused_by_names(self, reply: Reply, ids: Sequence[str]) -> None:
        """A create refused with a 4xx while the create body's names are the convention's
        (``experiment_payload.create`` undeclared): the names are not shown (spec 2.5 gaps,
        4.2), so the refusal may be theirs. A ``ConventionMiss``: the requirements are not
        judged at the interface level (never green) and the difference is listed."""
        key = "experiment_payload.create"
        if not 400 <= reply.status < 500 or self.profile.declares(key):
            return
        raise conventions.miss(
            ids,
            key,
            "the experiment summary's names (spec 2.5)",
            reply.describe(),
            "a create body in the summary's names was refused",
            reply,
        )

    def record(self, reply: Reply) -> JsonValue:
        """An experiment record (or catalog item) a reply carries, in the summary's names."""
        return inbound(body_of(reply), self.p.create)

    def track(self, experiment_id: int, environment: Environment) -> None:
        if experiment_id in self.registry.live:
            return
        if not self.p.environment_header:
            environment = None
        self.registry.live[experiment_id] = environment
        self.cleanup.add(
            f"terminate experiment {experiment_id}",
            session_terminator(
                self.client.base_url, self.profile, self.registry, experiment_id, self.client.pacer
            ),
        )

    def create_ok(
        self,
        label: str,
        base_configuration_id: object,
        groups: Sequence[Mapping[str, object]],
        *,
        ids: Sequence[str] | None = None,
        unit_type: str | None = None,
        mode: str = WEIGHTED,
        required: Sequence[str] | None = None,
        **fields: object,
    ) -> dict[str, Any]:
        """Create and return the record. Failure: a violation of ``ids`` (none: of the test)."""
        body = self.body(
            label,
            base_configuration_id,
            groups,
            unit_type=unit_type,
            mode=mode,
            required=required,
            **fields,
        )
        return self.create_body_ok(body, ids=ids)

    def create_body_ok(
        self, body: Mapping[str, object], *, ids: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Create from ``body`` (one ``body`` made, so the test compares what it sent) and
        return the record. Failure: a violation of ``ids`` (none: of the test)."""
        reply = self.create(body)
        wanted = self.profile.statuses.create_experiment
        key, title = "statuses.create_experiment", "create experiment was not accepted"
        good = isinstance(self.record(reply), dict) and status_holds(
            reply, self.profile, key, wanted, ids or (), title
        )
        if not good:
            self.refused_by_names(reply, ids or ())
        if not good and ids is None:
            raise setup_failed("create the experiment this scenario needs", reply)
        expect(
            good,
            ids or (),
            title,
            status_expectation(key, wanted, self.profile) + " with the experiment",
            status_received(reply, key, wanted),
            reply,
        )
        json_object(reply, ids or ())  # a JSON object, else a violation
        created = self.record(reply)
        assert isinstance(created, dict)
        record: dict[str, Any] = created
        expect(
            isinstance(record.get("id"), int),
            ids or (),
            "created experiment carries no numeric id",
            "an id (number)",
            repr(record.get("id")),
            reply,
        )
        if not isinstance(record.get("groups"), list) and ids is None:
            # The create answer lacks the groups (EXP-CREATE's business): read them back.
            stored = self.record(self.get(record["id"]))
            if isinstance(stored, dict) and isinstance(stored.get("groups"), list):
                record = {**record, "groups": stored["groups"]}
        return record

    def get(self, experiment_id: object, **kw: Unpack[ManagementOptions]) -> Reply:
        return self.call("GET", f"/{experiment_id}", **kw)

    def terminate(self, experiment_id: object, **kw: Unpack[ManagementOptions]) -> Reply:
        reply = self.call("POST", f"/{experiment_id}/terminate", json_body={}, **kw)
        if ok(reply) and isinstance(experiment_id, int):
            self.registry.live.pop(experiment_id, None)
        return reply

    def rollout(self, experiment_id: object, **kw: Unpack[ManagementOptions]) -> Reply:
        return self.call("GET", f"/{experiment_id}/rollout", **kw)

    def change_rollout(
        self,
        experiment_id: object,
        *,
        percentage: object = UNSET,
        weights: Mapping[object, object] | None = None,
        **kw: Unpack[ManagementOptions],
    ) -> Reply:
        body: dict[str, object] = {}
        if percentage is not UNSET:
            body[self.p.percentage] = percentage
        if weights is not None and self.p.weights_shape == "list":
            body[self.p.weights] = [
                {self.p.group_id: k, self.p.create.group_weight: v} for k, v in weights.items()
            ]
        elif weights is not None:
            body[self.p.weights] = {str(k): v for k, v in weights.items()}
        return self.call("PATCH", f"/{experiment_id}/rollout", json_body=body, **kw)

    def assign(
        self, experiment_id: object, unit_id: str, group_id: object, **kw: Unpack[ManagementOptions]
    ) -> Reply:
        body = {self.p.unit_id: unit_id, self.p.group_id: group_id}
        return self.call("POST", f"/{experiment_id}/assignments", json_body=body, **kw)

    def assign_ok(self, experiment_id: object, unit_id: str, group_id: object) -> None:
        reply = self.assign(experiment_id, unit_id, group_id)
        if not ok(reply):
            raise setup_failed("set the manual assignment this scenario needs", reply)

    def unenroll(
        self, experiment_id: object, unit_id: str, **kw: Unpack[ManagementOptions]
    ) -> Reply:
        body = {self.p.unit_id: unit_id}
        return self.call("POST", f"/{experiment_id}/assignments/unenroll", json_body=body, **kw)

    def reactivate(
        self, experiment_id: object, unit_id: str, **kw: Unpack[ManagementOptions]
    ) -> Reply:
        body = {self.p.unit_id: unit_id}
        return self.call("POST", f"/{experiment_id}/assignments/reactivate", json_body=body, **kw)

    def group_count_names(self) -> tuple[str, str, str]:
        """The per-experiment counts' (active, unenrolled, total) field names: the
        ``group_count_*`` keys, each null one as the project-wide ``count_*`` says."""
        p = self.p
        return (
            p.group_count_active or p.count_active,
            p.group_count_unenrolled or p.count_unenrolled,
            p.group_count_total or p.count_total,
        )

    def counts(self, **kw: Unpack[ManagementOptions]) -> Reply:
        return self.call("GET", "/assignment-counts", **kw)

    def group_counts(self, experiment_id: object, **kw: Unpack[ManagementOptions]) -> Reply:
        return self.call("GET", f"/{experiment_id}/assignment-counts", **kw)

    def catalog(self, **kw: Unpack[ManagementOptions]) -> Reply:
        return self.call("GET", "/analytics-catalog", **kw)

    def context_properties(self, **kw: Unpack[ManagementOptions]) -> Reply:
        return self.call("GET", "/context-properties", **kw)

    def pages(
        self,
        suffix: str,
        ids: Sequence[str],
        params: Mapping[str, str] | None = None,
        limit: int | None = None,
        max_pages: int = MAX_PAGES,
    ) -> list[JsonObject]:
        """Every item of a list, in pages of ``limit`` (default ``experiments.page_size_max``);
        with ``max_pages``, the items of the first pages only (``experiment_lists``)."""
        return read_pages(self, suffix, ids, params, limit, max_pages)

    def listed(self, ids: Sequence[str]) -> list[JsonObject]:
        """The experiments list's items, in the summary's names."""
        return [self._named(item) for item in self.pages("", ids)]

    def catalog_items(self, ids: Sequence[str]) -> list[JsonObject]:
        """Every analytics catalog item (through its pages, if it pages), in summary names."""
        return [self._named(item) for item in self.pages("/analytics-catalog", ids)]

    def count_items(self, ids: Sequence[str]) -> list[JsonObject]:
        """Every item of the per-experiment counts list (through its pages, if it pages)."""
        return self.pages("/assignment-counts", ids)

    def property_items(self, ids: Sequence[str]) -> list[JsonObject]:
        """Every item of the context-properties list (through its pages, if it pages)."""
        return self.pages("/context-properties", ids)

    def _named(self, item: JsonObject) -> JsonObject:
        named = inbound(item, self.p.create)
        return named if isinstance(named, dict) else item

    def members(
        self, experiment_id: object, ids: Sequence[str], status: str | None = None
    ) -> list[JsonObject]:
        """The experiment's members; with ``status``, only those the target lists under that
        status value (its ``status_param`` filter)."""
        if status is not None and self.p.status_param is None:
            raise ValueError("experiment_payload.status_param is null: no status filter to use")
        params = (
            None if status is None or self.p.status_param is None else {self.p.status_param: status}
        )
        return self.pages(f"/{experiment_id}/members", ids, params)

    def assignments(self, experiment_id: object, ids: Sequence[str]) -> list[JsonObject]:
        return self.pages(f"/{experiment_id}/assignments", ids)

    def by_unit(self, entries: Iterable[Mapping[str, object]]) -> dict[str, Mapping[str, object]]:
        return {str(e.get(self.p.unit_id)): e for e in entries}

    def is_active(self, member: Mapping[str, object]) -> bool:
        return member.get(self.p.status) == self.p.member_active

    def status_of(self, experiment_id: object) -> JsonValue:
        """The experiment's current status (for 'changes nothing' checks)."""
        reply = self.get(experiment_id)
        if not ok(reply):
            raise setup_failed("read the experiment back", reply)
        return json_object(reply, ()).get(self.p.status)

    # -------------------------------------------------------------- base configurations

    def base(self, content: Mapping[str, object], label: str = "exp-base") -> JsonObject:
        """Create a configuration to experiment on (a failure is not this scenario's rule)."""
        fields = self.profile.bodies.create
        body = {"name": self.client.name(label), fields.content: dict(content)}
        reply = self.client.management(
            "POST", "/configuration", environment=self.environment, json_body=body
        )
        record = body_of(reply)
        # a step, not the judged create: any success with a record serves (the declared status
        # is the create requirements' to judge)
        if not ok(reply) or not isinstance(record, dict):
            raise setup_failed("create the base configuration this scenario needs", reply)
        if not isinstance(record.get("id"), int):
            raise setup_failed("read the id of the new base configuration", reply)
        self._base_content[record["id"]] = dict(content)
        return record

    def finish(self) -> None:
        """Terminate what this test created (the test's end; the session backstop remains)."""
        self.registry.terminate_all(self.client)


def group_ids(record: Mapping[str, object]) -> list[JsonValue]:
    """The experiment's group ids in ordinal order (as the record lists them)."""
    groups = record.get("groups")
    if not isinstance(groups, list) or not all(isinstance(g, dict) and "id" in g for g in groups):
        raise setup_failed("read the group ids of the created experiment")
    ordered = sorted(
        groups, key=lambda g: g.get("ordinal", 0) if isinstance(g.get("ordinal"), int) else 0
    )
    return [g["id"] for g in ordered]


def experiments_for(
    request: pytest.FixtureRequest, client: Client, cleanup: Cleanup
) -> Iterator[Experiments]:
    """The body of the scenarios' ``experiments`` fixture: guard, drive, terminate."""
    wanted = [str(a) for mark in request.node.iter_markers("requirement") for a in mark.args]
    require_capabilities(client.profile, wanted)
    driver = Experiments(client, cleanup)
    try:
        yield driver
    finally:
        driver.finish()
