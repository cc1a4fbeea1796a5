"""The fuzzed schema: the contract in the target's terms, loaded into schemathesis, configured.

The contract is data; this module only (1) takes it as the target profile specialises it
(``conformance.contract.specialisation``: the header, parameter and field names, statuses, enums
and bounds the target declares), (2) adds the inferred links of ``INFERRED_LINKS`` (a status poll
after each change, a conditional re-poll with the ETag just received), and (3) sets examples,
phases, generation modes and the seed, by a tier and a seed. ``contract_details`` says which
document was fuzzed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from conformance.contract.document import contract_sha256, load_contract
from conformance.contract.specialisation import (
    declared_keys,
    default_profile,
    document_sha256,
    specialise,
)
from conformance.json_types import JsonObject
from conformance.registry.fuzz_budget import Tier

REQUEST_TIMEOUT_S = 10.0  # one answer; slower is evidence against the target

if TYPE_CHECKING:
    from schemathesis import BaseSchema

    from conformance.profile import Profile

# (source operation, status, link name, target operation, parameters): links the contract does
# not declare but the specification implies. Marked ``x-spec: inferred`` where they are added.
INFERRED_LINKS: tuple[tuple[str, str, str, str, dict[str, str]], ...] = (
    (
        "getSdkStatus",
        "200",
        "pollAgainWithETag",
        "getSdkStatus",
        {"header.If-None-Match": "$response.header.ETag"},
    ),
    (
        "getSdkBootstrap",
        "200",
        "fetchAgainWithETag",
        "getSdkBootstrap",
        {"header.If-None-Match": "$response.header.ETag"},
    ),
    ("createConfiguration", "201", "pollAfterCreate", "getSdkStatus", {}),
    ("patchConfiguration", "200", "pollAfterPatch", "getSdkStatus", {}),
    ("changeRollout", "200", "pollAfterRollout", "getSdkStatus", {}),
    ("terminateExperiment", "200", "pollAfterTerminate", "getSdkStatus", {}),
    ("createExperiment", "201", "pollAfterExperiment", "getSdkStatus", {}),
)

HTTP_METHODS = ("get", "put", "post", "delete", "patch")


def _operations(document: JsonObject) -> dict[str, JsonObject]:
    found: dict[str, JsonObject] = {}
    paths = document.get("paths", {})
    for item in paths.values() if isinstance(paths, dict) else ():
        for method in HTTP_METHODS:
            operation = item.get(method) if isinstance(item, dict) else None
            if isinstance(operation, dict):
                found[str(operation["operationId"])] = operation
    return found


def add_inferred_links(document: JsonObject) -> int:
    """Add ``INFERRED_LINKS`` whose operations and responses exist; returns how many."""
    operations = _operations(document)
    added = 0
    for source, status, name, target, parameters in INFERRED_LINKS:
        operation = operations.get(source)
        if operation is None or target not in operations:
            continue
        responses = operation.get("responses", {})
        if not isinstance(responses, dict):
            continue
        # A status the profile moved (a create answering 200): the operation's first success.
        status = status if status in responses else next((s for s in responses if s[0] == "2"), "")
        response = responses.get(status)
        if not isinstance(response, dict) or "$ref" in response:
            continue
        link: JsonObject = {"operationId": target, "x-spec": "inferred"}
        if parameters:
            link["parameters"] = dict(parameters)
        links = response.setdefault("links", {})
        if isinstance(links, dict):
            links.setdefault(name, link)
        added += 1
    return added


def contract_document(profile: Profile | None = None, *, inferred_links: bool = True) -> JsonObject:
    """A private copy of the contract in the terms ``profile`` declares (None: the defaults)."""
    document = specialise(load_contract(), profile or default_profile())
    if inferred_links:
        add_inferred_links(document)
    return document


# The profile's statuses for refusing a request (credentials, rights, validation, unknown ids).
REFUSAL_STATUS_KEYS = (
    "missing_credentials_status",
    "forbidden_status",
    "foreign_project_status",
    "validation_status",
    "malformed_body_status",
    "not_found_status",
)


def contract_details(profile: Profile) -> dict[str, object]:
    """Which document was fuzzed: the contract file's digest (the report's contract_sha256),
    the digest of the contract as ``profile`` specialised it, and the keys that made them
    differ (none: the contract as it is, in the reference server's terms)."""

    document = contract_document(profile, inferred_links=False)
    return {
        "sha256": contract_sha256(),
        "specialised_sha256": document_sha256(document),
        "declared": declared_keys(document, profile),
    }


def declared_error_statuses(profile: Profile) -> list[str]:
    """Every status the profile declares for refusing a request, as schemathesis spells one."""
    found: list[str] = []
    for key in REFUSAL_STATUS_KEYS:
        value = getattr(profile.errors, key, None)
        for status in value if isinstance(value, tuple | list) else [value]:
            if isinstance(status, int) and str(status) not in found:
                found.append(str(status))
    return found


def build_schema(
    tier: Tier,
    seed: int,
    *,
    profile: Profile | None = None,
    max_examples: int | None = None,
    positive_only: bool = False,
) -> BaseSchema:
    """The schemathesis schema of a fuzz run, configured for schemathesis's engine."""
    import schemathesis
    from schemathesis import GenerationMode

    config = schemathesis.Config.from_dict(
        {
            "seed": seed,
            # A run depends on its seed alone: no replay of an earlier run, nothing written.
            "cache": {"enabled": False},
            # A slow or filtering-heavy generator is a property of the contract, not a failure.
            "suppress-health-check": ["all"],
        }
    )
    schema = schemathesis.openapi.from_dict(contract_document(profile), config=config)
    project = schema.config
    # One engine thread: more do not help on a small machine and make the cases depend on
    # the threads' interleaving.
    project.update(workers=1, request_timeout=REQUEST_TIMEOUT_S)
    project.generation.update(
        max_examples=tier.max_examples if max_examples is None else max_examples,
        with_security_parameters=False,  # credentials come from the target profile
        # Unknown query parameters are not invalid input: the specification lets a server ignore
        # them, so "accepted an undeclared parameter" would be a finding about nothing.
        allow_extra_parameters=False,
        modes=[GenerationMode.POSITIVE]
        if positive_only
        else [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
        database="none",  # reproducible from the seed alone, nothing written to .hypothesis/
    )
    # The stage aims ids at real objects itself; values captured from answers would only make
    # an operation's cases depend on what ran before it (and cost a third of the engine's time).
    for phase in (project.phases.examples, project.phases.coverage, project.phases.fuzzing):
        phase.extra_data_sources.responses = False
    project.phases.stateful.max_steps = tier.stateful_steps
    project.phases.stateful.generation.update(max_examples=tier.stateful_examples)
    # Invalid input may be refused with any status the target declares for refusing it.
    declared = declared_error_statuses(profile or default_profile())
    for check in (project.checks.negative_data_rejection, project.checks.missing_required_header):
        check.expected_statuses = list(dict.fromkeys([*check.expected_statuses, *declared]))
    return schema
