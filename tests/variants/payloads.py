"""Variants whose experiment and bootstrap payloads use their own field names and state words
(spec 4.2 and 4.3 show no payload beyond the summary's fields)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from faulty.asgi import Request, Response

from variants.rewrite import (
    BOOTSTRAP,
    EXPERIMENTS,
    body_fields,
    body_values,
    chained,
    handler,
    request_values,
)
from variants.variant import Variant, pair

RECORDS = re.compile(r"/application/[^/]+/v2/experiments(/[^/]+(/terminate)?|/analytics-catalog)?")
MEMBERS = re.compile(r"/application/[^/]+/v2/experiments/[^/]+/(assignments|members)(/.*)?")
COUNTS = re.compile(r"/application/[^/]+/v2/experiments(/[^/]+)?/assignment-counts")
ITEMS_AT_TOP = ("items",)


def _records(
    names: Mapping[str, str] | None = None, values: Mapping[str, str] | None = None
) -> Any:
    """An experiment record (or each item of a list of them) renamed / re-valued at top level."""

    def one(record: Any) -> Any:
        if not isinstance(record, dict):
            return record
        if values and isinstance(record.get("status"), str):
            record = {**record, "status": values.get(record["status"], record["status"])}
        return {(names or {}).get(k, k): v for k, v in record.items()}

    def answer(request: Request, response: Response) -> Response:
        data = response.json()
        if (
            response.status >= 400
            or not RECORDS.fullmatch(request.path)
            or not isinstance(data, dict)
        ):
            return response
        if isinstance(data.get("items"), list):
            return response.with_json({**data, "items": [one(i) for i in data["items"]]})
        return response.with_json(one(data))

    return answer


VARIANTS: tuple[Variant, ...] = (
    *pair(
        "experiment-items-results",
        "lists experiments, assignments and members under 'results'",
        handler(answer=body_fields(EXPERIMENTS, {"items": "results"}, deep=False)),
        {"experiment_payload": {"items": "results"}},
    ),
    *pair(
        "experiment-next-cursor-next-page",
        "gives a list's next cursor as 'nextPage'",
        handler(answer=body_fields(EXPERIMENTS, {"nextCursor": "nextPage"}, deep=False)),
        {"experiment_payload": {"next_cursor": "nextPage"}},
        watch=frozenset({"EXP-LIST", "EXP-MEMBERS", "EXP-ASSIGNMENTS-LIST"}),
    ),
    *pair(
        "experiment-status-field-phase",
        "names the state field of experiment, assignment and member records 'phase': spec 3 "
        "names the states, not the field",
        chained(
            handler(answer=_records(names={"status": "phase"})),
            handler(answer=body_fields(MEMBERS, {"status": "phase"})),
        ),
        {"experiment_payload": {"status": "phase"}},
    ),
    *pair(
        "experiment-running-live",
        "calls an experiment under way 'live'",
        handler(answer=_records(values={"running": "live"})),
        {"experiment_payload": {"running": "live"}},
    ),
    *pair(
        "experiment-terminated-ended",
        "calls a terminated experiment 'ended'",
        handler(answer=_records(values={"terminated": "ended"})),
        {"experiment_payload": {"terminated": "ended"}},
    ),
    *pair(
        "member-states-enrolled-dropped",
        "calls a member's states 'enrolled' and 'dropped' (in records and in the filter)",
        handler(
            rewrite=request_values(
                MEMBERS, "status", {"active": "enrolled", "unenrolled": "dropped"}
            ),
            answer=body_values(MEMBERS, "status", {"active": "enrolled", "unenrolled": "dropped"}),
        ),
        {"experiment_payload": {"member_active": "enrolled", "member_unenrolled": "dropped"}},
    ),
    *pair(
        "counts-total-all",
        "names the assignment counts' total 'allCount'",
        handler(answer=body_fields(COUNTS, {"total": "allCount"})),
        {"experiment_payload": {"count_total": "allCount"}},
    ),
    *pair(
        "bootstrap-document-doc",
        "names a bootstrap entry's document 'doc'",
        handler(answer=body_fields(BOOTSTRAP, {"configuration": "doc"})),
        {"bootstrap_payload": {"document": "doc"}},
    ),
    *pair(
        "bootstrap-assignments-enrolments",
        "names the bootstrap's assignments 'enrolments'",
        handler(answer=body_fields(BOOTSTRAP, {"assignments": "enrolments"})),
        {"bootstrap_payload": {"assignments": "enrolments"}},
    ),
)
