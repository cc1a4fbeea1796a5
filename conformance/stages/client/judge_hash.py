"""Judging the hash a client sends back: on every poll, the hash of the last snapshot it was
given, in the profile's form (``client.hash_transport``); none before the first, none stale."""

from __future__ import annotations

from conformance.stages.client.findings import Finding, failed, passed, unmeasured
from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.scenarios import SEND_LAST_HASH

FORMS = {"if-none-match": 'If-None-Match: "<hash>"', "query": "?hash=<hash>"}


def judge_last_hash(run: ScenarioRun) -> list[Finding]:
    transport = run.settings.hash_transport
    wrong: list[str] = []
    judged = 0
    for instance in run.instances:
        expected: str | None = None
        for record in instance.status_records():
            if record.status is None:  # a reset connection: nothing was read
                continue
            judged += 1
            sent = record.sent_hash(transport)
            other = record.other_hash(transport)
            if sent != expected or (other is not None and other != expected):
                wrong.append(
                    f"{record.instance} poll {record.seq} at {record.arrived:.3f}s: "
                    f"expected {_shown(expected)}, sent {_shown(sent)} as {FORMS[transport]}"
                    + (f" and {_shown(other)} in the other form" if other is not None else "")
                )
            if record.status == 200 and record.snapshot_hash:
                expected = record.snapshot_hash
    if judged < 2:
        return [unmeasured(SEND_LAST_HASH, "fewer than two polls were answered")]
    if wrong:
        return [
            failed(
                SEND_LAST_HASH,
                "the client did not send back the last hash it was given",
                f"no hash on the first poll, then the hash of the last 200 on every poll, as "
                f"{FORMS[transport]} (profile: client.hash_transport = {transport})",
                f"{len(wrong)} of {judged} polls: " + "; ".join(wrong[:4]),
            )
        ]
    return [passed(SEND_LAST_HASH, "last hash sent", f"{judged} polls")]


def _shown(value: str | None) -> str:
    return "no hash" if value is None else f"{value[:12]}"
