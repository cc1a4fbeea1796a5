"""One bootstrap answer for a unit, read the way experiment scenarios need it.

``UnitView`` holds a 200 bootstrap body: the document it serves for each configuration id
(``document``; ``MISSING`` when absent) and the per-experiment assignment metadata
(``metadata``, ``assignment``, ``group_of``), with field names from the target profile's
``experiment_payload`` and ``bootstrap_payload``.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.json_equality import same_json
from conformance.profile.experiments import BootstrapPayload, ExperimentPayload
from conformance.traffic.transcript import Reply


class Missing:
    """The value of a document a bootstrap does not carry (distinct from a null document)."""

    def __repr__(self) -> str:
        return "(absent)"


MISSING = Missing()


@dataclass(frozen=True)
class UnitView:
    """One bootstrap answer: documents by configuration id, and per-experiment metadata."""

    body: JsonObject
    reply: Reply
    p: ExperimentPayload
    b: BootstrapPayload

    def document(self, configuration_id: object) -> JsonValue | Missing:
        entries = self.body.get("configurations", [])
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and entry.get("id") == configuration_id:
                return entry.get(self.b.document, MISSING)
        return MISSING

    def metadata(self) -> list[JsonObject]:
        found = self.body.get(self.b.assignments)
        return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []

    def assignment(self, experiment_id: object) -> JsonObject | None:
        for entry in self.metadata():
            if same_json(entry.get(self.p.experiment_id), experiment_id):
                return entry
        return None

    def group_of(self, experiment_id: object) -> JsonValue:
        entry = self.assignment(experiment_id)
        return None if entry is None else entry.get(self.p.group_id)

    @property
    def hash(self) -> JsonValue:
        return self.body.get("hash")
