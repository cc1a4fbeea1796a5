"""Judging the hash a client sends back: on every poll of every scenario (on and off the happy
path: after 304s, 5xx, 429s and lost connections alike), the hash of the last snapshot it was
given, in the profile's form (``client.hash_transport``); none before the first, none stale, and
an ``If-None-Match`` that keeps its grammar (RFC 9110 13.1.2: ``"*" / #entity-tag``, the
entity-tag quoted)."""

from __future__ import annotations

from conformance.oracles.header_grammar import Problem, if_none_match
from conformance.stages.client.recording import Recorded
from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.scenarios import SEND_LAST_HASH
from conformance.verdict.finding import Finding, failed, passed, unmeasured

FORMS = {"if-none-match": 'If-None-Match: "<hash>"', "query": "?hash=<hash>"}


def judge_last_hash(run: ScenarioRun) -> list[Finding]:
    transport = run.settings.hash_transport
    wrong: list[str] = []
    judged = 0
    after: dict[str, int] = {}  # the polls judged, by the answer before them
    for instance in run.instances:
        expected: str | None = None
        previous = "none (first poll)"
        for record in instance.status_records():
            if not record.read:  # a connection reset on accept: no request was read
                previous = "a refused connection"
                continue
            judged += 1
            after[previous] = after.get(previous, 0) + 1
            problem = _grammar(record)
            sent = record.sent_hash(transport)
            other = record.other_hash(transport)
            if problem is not None:
                wrong.append(f"{record.instance} poll {record.seq}: {problem}")
            elif sent != expected or (other is not None and other != expected):
                wrong.append(
                    f"{record.instance} poll {record.seq} at {record.arrived:.3f}s after "
                    f"{previous}: expected {_shown(expected)}, sent {_shown(sent)} as "
                    f"{FORMS[transport]}"
                    + (f" and {_shown(other)} in the other form" if other is not None else "")
                )
            if record.status == 200 and record.snapshot_hash:
                expected = record.snapshot_hash
            previous = _answer(record)
    if judged < 2:
        return [unmeasured(SEND_LAST_HASH, "fewer than two polls were read")]
    if wrong:
        return [
            failed(
                SEND_LAST_HASH,
                "the client did not send back the last hash it was given",
                f"no hash on the first poll, then the hash of the last 200 on every poll, "
                f"whatever the answer before it (304, 5xx, 429, a lost connection), as "
                f"{FORMS[transport]} (profile: client.hash_transport = {transport}); "
                'If-None-Match by RFC 9110 13.1.2: "*" / #entity-tag',
                f"{len(wrong)} of {judged} polls: " + "; ".join(wrong[:4]),
            )
        ]
    shown = ", ".join(f"{n} after {why}" for why, n in sorted(after.items()))
    return [passed(SEND_LAST_HASH, "last hash sent", f"{judged} polls: {shown}")]


def _grammar(record: Recorded) -> Problem | None:
    """The If-None-Match grammar problem of a request, if it sent one that breaks it. A weak tag
    keeps the grammar and carries the hash (If-None-Match compares weakly, RFC 9110 13.1.2); a
    list keeps the grammar but is not the one last hash the rule asks for."""
    value = record.headers.get("if-none-match")
    if value is None:
        return None
    parsed = if_none_match(value)
    return parsed if isinstance(parsed, Problem) else None


def _answer(record: Recorded) -> str:
    if record.status is None:
        return "a reset connection"
    if record.status == 429:
        return "a 429"
    if record.status >= 500:
        return "a 5xx"
    return f"a {record.status}"


def _shown(value: str | None) -> str:
    return "no hash" if value is None else f"{value[:12]}"
