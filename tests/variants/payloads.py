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
        undeclared_gap=(
            "the undeclared convention experiment_payload.items is judged at the interface level: "
            "EXP-ANALYTICS-CATALOG and EXP-CONTEXT-PROPERTIES fail, EXP-LIST and EXP-MEMBERS are "
            "not measurable "
            "(the experiment-payload keys' lane, issue 37 item 2)"
        ),
    ),
    *pair(
        "experiment-next-cursor-next-page",
        "gives a list's next cursor as 'nextPage'",
        handler(answer=body_fields(EXPERIMENTS, {"nextCursor": "nextPage"}, deep=False)),
        {"experiment_payload": {"next_cursor": "nextPage"}},
        undeclared_gap=(
            "the undeclared convention experiment_payload.next_cursor is judged at the interface "
            "level: EXP-LIST fails ('the list does not page on past its first page') "
            "(the experiment-payload keys' lane, issue 37 item 2)"
        ),
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
        undeclared_gap=(
            "the undeclared convention experiment_payload.status is judged at the interface level "
            "(EXP-MEMBERS, EXP-TERMINATE fail) and listed as experiment_payload.running "
            "(the experiment-payload keys' lane, issue 37 item 2)"
        ),
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
        undeclared_gap=(
            "the undeclared convention experiment_payload.terminated is judged at the interface "
            "level: EXP-TERMINATE fails (expected 'terminated', got 'ended') "
            "(the experiment-payload keys' lane, issue 37 item 2)"
        ),
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
        undeclared_gap=(
            "the undeclared conventions experiment_payload.member_active/member_unenrolled are "
            "judged at the interface level: EXP-MEMBERS, EXP-REACTIVATE, EXP-UNENROLL fail "
            "(the experiment-payload keys' lane, issue 37 item 2)"
        ),
    ),
    *pair(
        "counts-total-all",
        "names the assignment counts' total 'allCount'",
        handler(answer=body_fields(COUNTS, {"total": "allCount"})),
        {"experiment_payload": {"count_total": "allCount"}},
        undeclared_gap=(
            "a renamed count total goes unjudged: EXP-COUNTS-AGREE-TOTALS compares "
            "experiment_payload.count_total only when present, so the departure is never listed as"
            " a drop-in difference "
            "(the experiment-payload keys' lane, issue 37 item 2)"
        ),
    ),
    *pair(
        "bootstrap-document-doc",
        "names a bootstrap entry's document 'doc'",
        handler(answer=body_fields(BOOTSTRAP, {"configuration": "doc"})),
        {"bootstrap_payload": {"document": "doc"}},
        undeclared_gap=(
            "the undeclared convention bootstrap_payload.document is judged at the interface "
            "level: SDK-BOOTSTRAP-200-SNAPSHOT, SDK-BOOTSTRAP-ID-MERGE and 7 more fail as "
            "'document absent' "
            "(the experiment-payload keys' lane, issue 37 item 2)"
        ),
    ),
    *pair(
        "bootstrap-assignments-enrolments",
        "names the bootstrap's assignments 'enrolments'",
        handler(answer=body_fields(BOOTSTRAP, {"assignments": "enrolments"})),
        {"bootstrap_payload": {"assignments": "enrolments"}},
        undeclared_gap=(
            "the undeclared convention bootstrap_payload.assignments is judged at the interface "
            "level: SDK-BOOTSTRAP-ID-METADATA, EXP-ASSIGNMENT-DETERMINISTIC and -PERSISTENT fail "
            "(the experiment-payload keys' lane, issue 37 item 2)"
        ),
    ),
)
