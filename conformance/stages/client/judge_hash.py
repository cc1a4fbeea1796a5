"""Judging the hash a client sends back: on every poll of every scenario (on and off the happy
path: after 304s, 5xx, 429s and lost connections alike), the last hash it was given (by a status
200 or a bootstrap), in the profile's transport (``client.hash_transport``), none stale.

Three gaps the spec leaves are keys, judged at the interface level when the profile declares them
and as drop-in differences when left at their defaults (the conventions; ``dropin``):
- ``client.if_none_match_form``: spec 4.3's table gives If-None-Match as "the last hash seen";
  the quoted entity-tag (RFC 9110 13.1.2) is the convention, the bare hash carries it too. Any
  other value (a list, a foreign tag, broken grammar) fails.
- ``client.first_request``: spec 1 lets a client "fetch a bootstrap snapshot ... or poll"; a
  status poll first is the convention. A bootstrap's hash is a hash seen: the next poll sends it.
- a first poll with no hash seen sends none (the convention; nothing seen, nothing to send back).
"""

from __future__ import annotations

from conformance.oracles.header_grammar import Problem, field_value, if_none_match
from conformance.stages.client.dropin import Judged, departs
from conformance.stages.client.recording import Recorded
from conformance.stages.client.runs import InstanceRun, ScenarioRun
from conformance.stages.client.scenarios import SEND_LAST_HASH
from conformance.verdict.finding import failed, passed, unmeasured

FORMS = {"if-none-match": "If-None-Match", "query": "?hash=<hash>"}
SHAPES = {"quoted": '"<hash>"', "bare": "<hash>", "any": '"<hash>" or <hash>'}


def judge_last_hash(run: ScenarioRun) -> list[Judged]:
    settings = run.settings
    transport = settings.hash_transport
    wrong: list[str] = []
    forms: dict[str, list[str]] = {}  # If-None-Match form used -> where
    firsts: list[str] = []  # instances whose first request was a bootstrap
    unseen: list[str] = []  # a hash sent before any was seen
    judged = 0
    after: dict[str, int] = {}  # the polls judged, by the answer before them
    for instance in run.instances:
        if _bootstrapped_first(instance):
            firsts.append(instance.name)
        expected: str | None = None
        previous = "none (first poll)"
        for record in sorted(instance.records, key=lambda r: r.seq):
            if record.kind == "refetch" and record.whole:
                if record.status == 200 and record.snapshot_hash:
                    expected = record.snapshot_hash
                    previous = "a bootstrap"
                continue
            if record.kind != "status":
                continue
            if not record.read:  # a connection reset on accept: no request was read
                previous = "a refused connection"
                continue
            judged += 1
            after[previous] = after.get(previous, 0) + 1
            where = f"{record.instance} poll {record.seq}"
            form, problem = _form(record)
            sent = record.sent_hash(transport)
            other = record.other_hash(transport)
            if problem is not None:
                wrong.append(f"{where}: {problem}")
            elif expected is None and sent is not None and other is None:
                unseen.append(f"{where}: sent {_shown(sent)} before any hash was given")
            elif sent != expected or (other is not None and other != expected):
                wrong.append(
                    f"{where} at {record.arrived:.3f}s after {previous}: expected "
                    f"{_shown(expected)}, sent {_shown(sent)} as {FORMS[transport]}"
                    + (f" and {_shown(other)} in the other form" if other is not None else "")
                )
            if form is not None:
                forms.setdefault(form, []).append(where)
            if record.status == 200 and record.snapshot_hash:
                expected = record.snapshot_hash
            previous = _answer(record)
    if judged < 2:
        return [unmeasured(SEND_LAST_HASH, "fewer than two polls were read")]
    findings: list[Judged] = []
    findings += _form_findings(run, forms)
    findings += _first_findings(run, firsts, len(run.instances))
    if unseen:
        findings.append(
            departs(
                settings,
                "first_request",
                SEND_LAST_HASH,
                "the client sent a hash on a poll before it was given any",
                "status (the first poll sends no hash)",
                "; ".join(unseen[:4]),
            )
        )
    if wrong:
        findings.append(
            failed(
                SEND_LAST_HASH,
                "the client did not send back the last hash it was given",
                f"the hash of the last status 200 or bootstrap on every poll, whatever the answer "
                f"before it (304, 5xx, 429, a lost connection), as {FORMS[transport]} (profile: "
                f"client.hash_transport = {transport}; If-None-Match as "
                f"{SHAPES[settings.if_none_match_form]}: client.if_none_match_form)",
                f"{len(wrong)} of {judged} polls: " + "; ".join(wrong[:4]),
            )
        )
        return findings
    shown = ", ".join(f"{n} after {why}" for why, n in sorted(after.items()))
    return [*findings, passed(SEND_LAST_HASH, "last hash sent", f"{judged} polls: {shown}")]


def _bootstrapped_first(instance: InstanceRun) -> bool:
    read = [r for r in sorted(instance.records, key=lambda r: r.seq) if r.read]
    return bool(read) and read[0].kind == "refetch" and read[0].whole


def _form(record: Recorded) -> tuple[str | None, str | None]:
    """The If-None-Match form a poll used (quoted, bare; None: none sent) and the problem of a
    value that is neither one quoted entity-tag nor a bare hash. A weak tag carries the hash
    (If-None-Match compares weakly, RFC 9110 13.1.2); a list is not the one last hash."""
    value = record.headers.get("if-none-match")
    if value is None:
        return None, None
    text = value.strip()
    if '"' not in text:
        checked = field_value(text, "If-None-Match")
        if isinstance(checked, Problem) or not text or text == "*" or "," in text:
            return None, f"If-None-Match {text[:40]!r} is neither an entity-tag nor a bare hash"
        return "bare", None
    parsed = if_none_match(value)
    if isinstance(parsed, Problem):
        return None, str(parsed)
    if parsed.any or len(parsed.tags) != 1:
        return None, f"If-None-Match {text[:40]!r} is not the one last hash"
    return "quoted", None


def _form_findings(run: ScenarioRun, forms: dict[str, list[str]]) -> list[Judged]:
    wanted = run.settings.if_none_match_form
    if wanted == "any":
        return []
    departed = [where for form, places in forms.items() if form != wanted for where in places]
    if not departed:
        return []
    other = "bare" if wanted == "quoted" else "quoted"
    return [
        departs(
            run.settings,
            "if_none_match_form",
            SEND_LAST_HASH,
            f"the client wrote If-None-Match {other}, not {wanted}",
            wanted,
            f"{other} ({SHAPES[other]}) on {len(departed)} poll(s): " + ", ".join(departed[:4]),
        )
    ]


def _first_findings(run: ScenarioRun, firsts: list[str], instances: int) -> list[Judged]:
    wanted = run.settings.first_request
    if wanted == "any":
        return []
    if wanted == "status" and firsts:
        received = f"a bootstrap first on {len(firsts)} of {instances}: " + ", ".join(firsts[:4])
    elif wanted == "bootstrap" and len(firsts) < instances:
        received = f"a status poll first on {instances - len(firsts)} of {instances} instance(s)"
    else:
        return []
    return [
        departs(
            run.settings,
            "first_request",
            SEND_LAST_HASH,
            f"the client's first request is not a {wanted} request",
            wanted,
            received,
        )
    ]


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
