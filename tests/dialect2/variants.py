"""One-defect variants at the drop-in level: each is the second dialect with one production
convention left out of its profile (the file no longer writes that key), so that the target departs
from a convention it does not declare. Its run must stay interface-conformant and list exactly that
key as its one drop-in difference (drop-in: not compatible).

A variant is a profile, not a server change: the second dialect already departs from every
convention a key can express; leaving the key out turns its declaration back into a convention.
``requirements`` is the run's scope: every checkable requirement that rests on the key.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.catalogue.requirements import load_catalogue


@dataclass(frozen=True)
class Variant:
    """The second dialect with one convention undeclared."""

    key: str  # the dotted profile key the file leaves out
    doc: str  # what the target does instead of the convention
    kit_gap: str | None = None  # why the kit cannot yet judge it at the drop-in level (xfail)

    @property
    def name(self) -> str:
        return self.key.replace(".", "-").replace("_", "-")

    @property
    def requirements(self) -> frozenset[str]:
        """The checkable requirements that rest on the key (the run's scope)."""
        return frozenset(r.id for r in load_catalogue() if r.checkable and self.key in r.keys)


VARIANTS: tuple[Variant, ...] = (
    Variant("errors.validation_status", "answers invalid input 422 (convention: 400)"),
    Variant(
        "errors.malformed_body_status",
        "answers a body that is not JSON 400, its validation status 422 (convention: null, the "
        "validation status)",
    ),
    Variant(
        "errors.foreign_project_status",
        "answers 404 for a project the token's owner cannot reach (convention: 403)",
    ),
    Variant("statuses.create_configuration", "answers a created configuration 200 (201)"),
    Variant("statuses.create_experiment", "answers a created experiment 200 (201)"),
    Variant("experiment_payload.running", "shows an experiment under way as live (running)"),
    Variant("errors.code_field", "names an error body's code 'code' (convention: errorCode)"),
    Variant("errors.message_field", "names an error body's message 'detail' (convention: message)"),
)
BY_NAME = {v.name: v for v in VARIANTS}
