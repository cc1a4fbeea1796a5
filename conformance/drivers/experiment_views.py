"""What a unit and the status snapshot show of experiments: identity headers, the per-unit
bootstrap read as a ``UnitView``, an experiment's summary in the snapshot, a settled hash."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TypedDict, Unpack

from conformance.checks import expect
from conformance.drivers.experiment_bodies import default_unit_type
from conformance.drivers.sdk import Snapshots
from conformance.drivers.steps import body_of, setup_failed
from conformance.drivers.unit_view import UnitView
from conformance.json_types import JsonObject
from conformance.oracles.json_equality import same_json
from conformance.profile.experiments import BootstrapPayload, ExperimentPayload
from conformance.profile.model import Profile
from conformance.traffic.transcript import Reply


class IdentityOptions(TypedDict, total=False):
    """How a unit identifies itself in a bootstrap besides its id (``Experiments.identity``)."""

    unit_type: str | None
    context: Mapping[str, object] | None
    gated: bool


class ExperimentViews:
    """Reads through the SDK endpoints: the part of ``Experiments`` a unit and the snapshot see."""

    profile: Profile
    gate: str  # the context property this test's experiments require
    snapshots: Snapshots
    p: ExperimentPayload
    b: BootstrapPayload
    environment: str

    # -------------------------------------------------------------- per-unit bootstrap

    def identity(
        self,
        unit_id: str | None,
        *,
        unit_type: str | None = None,
        context: Mapping[str, object] | None = None,
        gated: bool = True,
    ) -> dict[str, str]:
        """Identity headers: the unit, its type (the default one unless given: a unit is sent
        whole, since a target may refuse an id without its type), and a context carrying this
        test's gate."""
        names = self.profile.headers
        sent: dict[str, str] = {}
        if unit_id is not None:
            sent[names.unit_id] = unit_id
            sent[names.unit_type] = unit_type or default_unit_type(self.profile)
        elif unit_type is not None:
            sent[names.unit_type] = unit_type
        values: dict[str, object] = {self.gate: True} if gated else {}
        values.update(context or {})
        if values:
            sent[names.unit_context] = json.dumps(values, separators=(",", ":"))
        return sent

    def bootstrap(self, unit_id: str | None, **kw: Unpack[IdentityOptions]) -> Reply:
        headers = self.identity(unit_id, **kw) if unit_id is not None else {}
        return self.snapshots.bootstrap(self.environment, headers=headers)

    def unit_view(
        self, unit_id: str, ids: Sequence[str] = (), **kw: Unpack[IdentityOptions]
    ) -> UnitView:
        """A 200 bootstrap for the unit; anything else violates ``ids`` (none: the test's)."""
        reply = self.bootstrap(unit_id, **kw)
        body = body_of(reply)
        if reply.status != 200 or not isinstance(body, dict):
            if ids:
                expect(
                    False,
                    ids,
                    "bootstrap with identity failed",
                    "HTTP 200 with a JSON object",
                    reply.describe(),
                    reply,
                )
            raise setup_failed("bootstrap with identity", reply)
        return UnitView(body, reply, self.p, self.b)

    def base_view(self) -> UnitView:
        reply = self.bootstrap(None)
        body = body_of(reply)
        if reply.status != 200 or not isinstance(body, dict):
            raise setup_failed("bootstrap without identity", reply)
        return UnitView(body, reply, self.p, self.b)

    # -------------------------------------------------------------- snapshot

    def summary(
        self, experiment_id: object, ids: Sequence[str] = ()
    ) -> tuple[str | None, JsonObject | None, JsonObject]:
        """(unit type array it is in, its summary, the snapshot) from a status read."""
        snapshot = self.snapshot()
        arrays = snapshot.get("experiments")
        if not isinstance(arrays, dict):
            raise setup_failed("read the snapshot's experiments object")
        for unit_type, entries in arrays.items():
            for entry in entries if isinstance(entries, list) else ():
                if isinstance(entry, dict) and same_json(entry.get("id"), experiment_id):
                    return str(unit_type), entry, snapshot
        return None, None, snapshot

    def snapshot(self) -> JsonObject:
        """A 200 status snapshot (a failure is the status requirements' business)."""
        reply = self.snapshots.status(self.environment)
        body = body_of(reply)
        if reply.status != 200 or not isinstance(body, dict):
            raise setup_failed("read the status snapshot", reply)
        return body

    def stable_hash(self, ids: Sequence[str] = ()) -> str:
        """The snapshot hash once two reads in a row agree (``Snapshots.stable_hash``)."""
        return self.snapshots.stable_hash(self.environment, ids)
