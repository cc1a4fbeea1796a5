"""Judging refetches: after each status 200, exactly the configurations whose hash moved, through
the request the profile names (``client.refetch_request``): one bootstrap when any moved and none
when none did (one per 200 that moved something, however many moved; not one per configuration),
or one request per moved configuration; nothing after a 304.

"Moved" is against what the client holds: a configuration that is new or whose hash changed (a
changed alias changes the hash); one that is gone needs no request. The first 200 counts as a
change when the client holds nothing (a status poll first, with no hash): every configuration
that 200 lists has moved and is due (one bootstrap, or one request each). A client that fetched a
bootstrap snapshot first holds it: only what moved since is due.

In bootstrap mode "refetch only the configurations that changed" (spec 4.3) is read as what such
a client can show: a whole bootstrap is its only way to refetch, so the rule it keeps is *when*
it refetches (once after a 200 where a configuration hash moved; never when none moved, as when
only the experiments moved, nor after a 304). Audit L8."""

from __future__ import annotations

from collections import Counter

from conformance.stages.client.recording import Recorded
from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.scenarios import REFETCH_CHANGED
from conformance.stages.client.settings import BOOTSTRAP
from conformance.verdict.finding import Finding, failed, passed, unmeasured


def judge_refetch(run: ScenarioRun) -> list[Finding]:
    mode = run.settings.refetch_request
    wrong: list[str] = []
    changes = 0
    for instance in run.instances:
        records = sorted(instance.records, key=lambda r: r.seq)
        polls = [r for r in records if r.kind == "status"]
        for index, poll in enumerate(polls):
            until = polls[index + 1].seq if index + 1 < len(polls) else None
            between = [r for r in records if r.seq > poll.seq and (until is None or r.seq < until)]
            if until is None and not between:
                continue
            moved = poll.changed if poll.status == 200 else ()
            changes += bool(moved)
            problem = _problem(mode, tuple(moved or ()), between)
            if problem:
                wrong.append(f"{poll.instance} after poll {poll.seq} ({poll.answer()}): {problem}")
    if not changes:
        return [unmeasured(REFETCH_CHANGED, "no 200 with a moved configuration was answered")]
    if wrong:
        expected = (
            "one GET /sdk/v2/bootstrap after each 200 where any configuration hash moved (the "
            "first 200 included when the client held none), whatever the number moved; none "
            "after a 200 where none moved (the experiments alone) or after a 304: a whole "
            "bootstrap being the only refetch, when it refetches is what 'only the "
            "configurations that changed' asks of it"
            if mode == BOOTSTRAP
            else f"one GET {mode} per configuration whose hash moved (after the first 200: every "
            "configuration listed), nothing for a configuration that is gone, nothing after a 304"
        )
        return [
            failed(
                REFETCH_CHANGED,
                "the client did not refetch exactly the configurations that changed",
                f"{expected} (profile: client.refetch_request = {mode})",
                f"{len(wrong)} problem(s): " + "; ".join(wrong[:4]),
            )
        ]
    return [passed(REFETCH_CHANGED, "refetched exactly the moved", f"{changes} changes")]


def _problem(mode: str, moved: tuple[int, ...], between: list[Recorded]) -> str:
    others = [r for r in between if r.kind == "other"]
    if others:
        return "requests the profile does not name as the refetch: " + ", ".join(
            f"{r.method} {r.path}" for r in others[:3]
        )
    refetches = [r for r in between if r.kind == "refetch"]
    if mode == BOOTSTRAP:
        count = len(refetches)
        want = 1 if moved else 0
        if count != want:
            return f"{count} bootstrap request(s) where {want} was due (moved: {list(moved)})"
        return ""
    fetched = Counter(cid for r in refetches for cid in r.refetched)
    unknown = [r.path for r in refetches if not r.refetched]
    if unknown:
        return f"refetches of unknown configurations: {unknown[:3]}"
    if fetched != Counter(moved):
        return f"refetched {sorted(fetched.elements())} where {sorted(moved)} moved"
    return ""
