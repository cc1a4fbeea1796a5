"""Variants that answer with another status where the specification names none: create
successes, validation, malformed bodies, foreign projects, missing credentials, unknown ids."""

from __future__ import annotations

from variants.rewrite import (
    CONFIGURATION_LIST,
    EXPERIMENT_LIST,
    chained,
    error_message_status,
    error_status,
    handler,
    status_answer,
)
from variants.variant import Variant, pair

NOT_A_MEMBER = ("PERMISSION_DENIED", "the token's owner has no rights on this project")
UNKNOWN_IDS = frozenset(
    {
        "PROJECT_NOT_FOUND",
        "CONFIGURATION_NOT_FOUND",
        "EXPERIMENT_NOT_FOUND",
        "GROUP_NOT_FOUND",
        "UNIT_NOT_FOUND",
    }
)

VARIANTS: tuple[Variant, ...] = (
    *pair(
        "create-status-200",
        "answers a created configuration 200, not 201: spec 4.1 lists the create without a "
        "success status",
        handler(answer=status_answer("POST", CONFIGURATION_LIST, 201, 200)),
        {"statuses": {"create_configuration": 200}},
    ),
    *pair(
        "experiment-create-status-200",
        "answers a created experiment 200: spec 4.2 names no success status for the create",
        handler(answer=status_answer("POST", EXPERIMENT_LIST, 201, 200)),
        {"statuses": {"create_experiment": 200}},
    ),
    *pair(
        "validation-422",
        "answers every invalid request 422 (a body that is not JSON too): spec 7 says a "
        "validation failure is a 4xx without naming it",
        handler(answer=error_status(400, 422)),
        {"errors": {"validation_status": 422}},
        # Undeclared, both conventions depart: the reference answers a body that is not JSON
        # 400 (malformed_body_status: null, the validation status's convention, 400).
        differences=frozenset({"errors.validation_status", "errors.malformed_body_status"}),
    ),
    *pair(
        "malformed-400-validation-422",
        "answers a body that is not JSON 400 and every other invalid request 422: spec 7 names "
        "neither status",
        handler(answer=error_status(400, 422, but=frozenset({"INVALID_JSON"}))),
        {"errors": {"validation_status": 422, "malformed_body_status": 400}},
        # Undeclared, a body that is not JSON answers 400 as the reference's does: one departure.
        differences=frozenset({"errors.validation_status"}),
    ),
    *pair(
        "foreign-project-404",
        "hides a project the token's owner cannot reach behind 404: spec 5 says such a call "
        "is refused, not with which status",
        handler(answer=error_message_status(403, 404, *NOT_A_MEMBER)),
        {"errors": {"foreign_project_status": [404]}},
    ),
    *pair(
        "missing-credentials-403",
        "answers missing or invalid credentials 403, not 401: spec 5 says they are refused",
        handler(answer=error_status(401, 403)),
        {"errors": {"missing_credentials_status": [403]}},
    ),
    *pair(
        "not-found-410",
        "answers an unknown project, configuration, experiment, group or unit 410: spec 7 names no "
        "status for an unknown id",
        handler(answer=error_status(404, 410, codes=UNKNOWN_IDS)),
        {"errors": {"not_found_status": 410}},
    ),
    *pair(
        "create-statuses-200",
        "answers both creates 200: two choices of the same kind at once",
        chained(
            handler(answer=status_answer("POST", CONFIGURATION_LIST, 201, 200)),
            handler(answer=status_answer("POST", EXPERIMENT_LIST, 201, 200)),
        ),
        {"statuses": {"create_configuration": 200, "create_experiment": 200}},
    ),
)
