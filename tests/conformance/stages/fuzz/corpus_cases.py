"""Corpus cases written by hand for the replay tests and the replay benchmark.

``mixed_cases(n)`` gives ``n`` distinct cases over four operations (an SDK status poll, a
management list, a PATCH of the run's configuration, a read of its experiment) and three checks,
each as the stage would have written it: secrets as placeholders, run-bound ids as references.
Against a correct server every one of them replays as fixed.
"""

from __future__ import annotations

from typing import Any

from conformance.stages.fuzz import corpus

MANAGEMENT = {"Authorization": "Bearer $RCES_PAT", "environment_id": "${environment_id}"}
APP = "/application/{applicationId}/v2"


def _step(operation_id: str, method: str, path: str, **parts: Any) -> dict[str, Any]:
    step = {
        "operation_id": operation_id,
        "method": method,
        "path": path,
        "path_parameters": parts.pop("path_parameters", {}),
        "query": parts.pop("query", {}),
        "headers": parts.pop("headers", {}),
    }
    step.update(parts)
    return step


def case(number: int) -> dict[str, Any]:
    """The ``number``-th case: each one sends something the others do not."""
    kind = number % 4
    if kind == 0:
        step = _step(
            "getSdkStatus", "GET", "/sdk/v2/status",
            query={"hash": f"{number:064x}"},
            headers={"authorization": "$RCES_SDK_KEY_1", "environment": "development",
                     "server-id": "${instance_id}"},
        )  # fmt: skip
        check, ids = "etag_equals_body_hash", ["SDK-STATUS-ETAG-EQUALS-HASH"]
    elif kind == 1:
        step = _step(
            "listExperiments", "GET", f"{APP}/experiments",
            path_parameters={"applicationId": "${application_id}"},
            query={"limit": 1 + number % 100}, headers=dict(MANAGEMENT),
        )  # fmt: skip
        check, ids = "not_a_server_error", ["ERR-NO-SERVER-ERROR"]
    elif kind == 2:
        step = _step(
            "patchConfiguration", "PATCH", f"{APP}/configuration/{{configurationId}}",
            path_parameters={"applicationId": "${application_id}",
                             "configurationId": "${configuration_id}"},
            headers=dict(MANAGEMENT),
            body={"operations": [{"op": "test", "path": "/fuzz/level", "value": number}]},
            media_type="application/json",
        )  # fmt: skip
        check, ids = "error_body_shape", ["ERR-BODY-SHAPE"]
    else:
        step = _step(
            "getExperiment", "GET", f"{APP}/experiments/{{experimentId}}",
            path_parameters={"applicationId": "${application_id}",
                             "experimentId": "${experiment_id}"},
            headers={**MANAGEMENT, "x-case": str(number)},
        )  # fmt: skip
        check, ids = "not_a_server_error", ["ERR-NO-SERVER-ERROR"]
    return corpus.new_case(
        kind="stateless",
        mode="valid",
        check=check,
        requirement_ids=tuple(ids),
        title=f"hand-written case {number}",
        steps=[step],
        found={"tier": "smoke", "seed": number, "status": 500},
    )


def mixed_cases(count: int) -> list[dict[str, Any]]:
    return [case(number) for number in range(count)]
