"""Judging the identity headers a client sends: the instance id it was given on every SDK request,
1 to 128 characters and the same throughout; the numeric header, when sent, within
0 < value <= 9007199254740991 (spec 8)."""

from __future__ import annotations

import math

from conformance.stages.client.findings import Finding, failed, passed, unmeasured
from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.scenarios import INSTANCE_ID, NUMERIC_HEADER

INSTANCE_ID_MAX = 128
NUMERIC_MAX = 9007199254740991


def judge_headers(run: ScenarioRun) -> list[Finding]:
    return [_instance_id(run), _numeric(run)]


def _requests(run: ScenarioRun) -> list[tuple[str, dict[str, str], int]]:
    return [
        (r.instance, r.headers, r.seq)
        for r in run.records()
        if r.status is not None and r.kind in ("status", "refetch")
    ]


def _instance_id(run: ScenarioRun) -> Finding:
    name = run.settings.instance_header
    requests = _requests(run)
    if not requests:
        return unmeasured(INSTANCE_ID, "no request was answered")
    wrong: list[str] = []
    seen: dict[str, set[str]] = {}
    for instance, headers, seq in requests:
        value = headers.get(name)
        if value is None:
            wrong.append(f"{instance} request {seq}: no {name} header")
        elif not 1 <= len(value) <= INSTANCE_ID_MAX:
            wrong.append(f"{instance} request {seq}: {name} of {len(value)} characters")
        else:
            seen.setdefault(instance, set()).add(value)
    wrong += [f"{i}: {len(v)} different {name} values" for i, v in seen.items() if len(v) > 1]
    if wrong:
        return failed(
            INSTANCE_ID,
            "the client's instance id header is missing, out of bounds or not constant",
            f"the {name} header (profile: headers.instance_id) on every status and refetch "
            f"request, 1 to {INSTANCE_ID_MAX} characters, the same for one instance",
            f"{len(wrong)} problem(s): " + "; ".join(wrong[:4]),
        )
    return passed(INSTANCE_ID, "instance id sent", f"{len(requests)} requests")


def _numeric(run: ScenarioRun) -> Finding:
    name = run.settings.numeric_header
    sent = [(i, h[name], s) for i, h, s in _requests(run) if name in h]
    wrong = [f"{i} request {s}: {name}: {v[:40]!r}" for i, v, s in sent if not _in_bounds(v)]
    if wrong:
        return failed(
            NUMERIC_HEADER,
            "the numeric header is out of its bounds",
            f"{name} (profile: headers.numeric), when sent, a number with "
            f"0 < value <= {NUMERIC_MAX}",
            "; ".join(wrong[:4]),
        )
    note = f"{len(sent)} requests carried it" if sent else "the client never sent it"
    return passed(NUMERIC_HEADER, "numeric header within bounds", note)


def _in_bounds(value: str) -> bool:
    text = value.strip()
    try:
        number = int(text) if text.lstrip("+-").isdigit() else float(text)
    except ValueError:
        return False
    return (not isinstance(number, float) or math.isfinite(number)) and 0 < number <= NUMERIC_MAX
