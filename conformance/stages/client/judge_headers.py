"""Judging the identity headers a client sends, on every request it sends in every scenario (on
and off the happy path: after 5xx, 429s and lost connections alike): the instance id it was given
(``RCES_INSTANCE_ID``), exactly, 1 to 128 characters, a field value by RFC 9110 5.5; the numeric
header, when sent, within 0 < value <= 9007199254740991 (spec 8), spelled as the profile's
``headers.numeric_grammar`` reads a number (``oracles/numeric_header.py``, the server judge's
oracle too: both judges agree on what a number is); the environment alias, when sent, one of the
allowed values within the key's scope (spec 4.3: the stage's key is scoped to development,
``RCES_ENVIRONMENT``; studio is its synonym); the authorization header, the key itself with no
scheme word (spec 5: "header authorization, whose value is the key itself")."""

from __future__ import annotations

from conformance.oracles.header_grammar import Problem, field_value
from conformance.oracles.numeric_header import reads_in_bounds, some_reader_takes
from conformance.stages.client.recording import KEY_PLACEHOLDER, Recorded
from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.scenarios import (
    AUTHORIZATION,
    ENV_ALIAS,
    INSTANCE_ID,
    NUMERIC_HEADER,
)
from conformance.verdict.finding import Finding, failed, not_applicable, passed, unmeasured

INSTANCE_ID_MAX = 128
NUMERIC_MAX = 9007199254740991
SCOPE = "development"  # the environment the stage's key is scoped to (RCES_ENVIRONMENT)
IN_SCOPE = ("development", "studio")  # studio: accepted as a synonym for development (spec 4.3)
ALLOWED = ("production", "development", "studio")


def judge_headers(run: ScenarioRun) -> list[Finding]:
    return [_instance_id(run), _numeric(run), _alias(run), _authorization(run)]


def _requests(run: ScenarioRun) -> list[tuple[str, Recorded]]:
    """Every request read of every instance, with the instance id that instance was given."""
    return [
        (instance.instance_id, record)
        for instance in run.instances
        for record in instance.records
        if record.read and record.kind in ("status", "refetch")
    ]


def _instance_id(run: ScenarioRun) -> Finding:
    name = run.settings.instance_header
    requests = _requests(run)
    if not requests:
        return unmeasured(INSTANCE_ID, "no request was read")
    wrong: list[str] = []
    for given, record in requests:
        value = record.headers.get(name)
        where = f"{record.instance} request {record.seq} at {record.arrived:.3f}s"
        if value is None:
            wrong.append(f"{where}: no {name} header")
        elif not 1 <= len(value) <= INSTANCE_ID_MAX:
            wrong.append(f"{where}: {name} of {len(value)} characters")
        elif isinstance(problem := field_value(value, name), Problem):
            wrong.append(f"{where}: {problem}")
        elif value != given:
            wrong.append(f"{where}: {name}: {value[:40]!r}, given {given[:40]!r}")
    if wrong:
        return failed(
            INSTANCE_ID,
            "the client's instance id header is missing, out of bounds or not the id it was given",
            f"the {name} header (profile: headers.instance_id) on every status and refetch "
            f"request of every scenario, whatever the answer before it: the id given "
            f"(RCES_INSTANCE_ID), 1 to {INSTANCE_ID_MAX} characters, the same throughout",
            f"{len(wrong)} of {len(requests)} requests: " + "; ".join(wrong[:4]),
        )
    return passed(INSTANCE_ID, "instance id sent", f"{len(requests)} requests")


def _numeric(run: ScenarioRun) -> Finding:
    name = run.settings.numeric_header
    sent = [(r.instance, r.headers[name], r.seq) for _, r in _requests(run) if name in r.headers]
    settings = run.settings
    wrong = [
        f"{i} request {s}: {name}: {v[:40]!r}"
        for i, v, s in sent
        if not _in_bounds(v, settings.numeric_grammar, settings.numeric_grammar_declared)
    ]
    if wrong:
        return failed(
            NUMERIC_HEADER,
            "the numeric header is out of its bounds",
            f"{name} (profile: headers.numeric), when sent, a number with "
            f"0 < value <= {NUMERIC_MAX} (headers.numeric_grammar: {settings.numeric_grammar})",
            "; ".join(wrong[:4]),
        )
    if not sent:  # "when a client sends it": a client that never does keeps nothing and breaks
        return not_applicable(NUMERIC_HEADER, f"the client never sent {name}")  # nothing
    note = f"{len(sent)} requests carried it"
    departs = [
        v for _, v, _ in sent if not reads_in_bounds(v, settings.numeric_grammar)
    ]  # in bounds for another reader only: the grammar left at its default, a convention
    if departs:
        note += (
            f"; {departs[0][:40]!r} is not {settings.numeric_grammar} (the default of "
            "headers.numeric_grammar, a convention the profile does not declare)"
        )
    return passed(NUMERIC_HEADER, "numeric header within bounds", note)


def _in_bounds(value: str, grammar: str = "decimal-digits", declared: bool = True) -> bool:
    """Whether a sent value is an in-bounds number: as ``grammar`` reads it when the profile
    declares it; else as any reader does (the grammar left at its default is a convention,
    and the interface only asks for a number within the bounds)."""
    if declared:
        return reads_in_bounds(value, grammar)
    return some_reader_takes(value)


def _alias(run: ScenarioRun) -> Finding:
    name = run.settings.environment_header
    requests = _requests(run)
    sent = [(r, r.headers[name]) for _, r in requests if name in r.headers]
    wrong = []
    for record, value in sent:
        where = f"{record.instance} request {record.seq}"
        if value not in ALLOWED:
            wrong.append(f"{where}: {name}: {value[:40]!r}, not an allowed value")
        elif value not in IN_SCOPE:
            wrong.append(f"{where}: {name}: {value!r}, outside the key's scope ({SCOPE})")
    if wrong:
        return failed(
            ENV_ALIAS,
            "the client's environment alias is not an allowed value within the key's scope",
            f"{name} (profile: headers.environment), when sent: one of {', '.join(ALLOWED)} "
            f"(length >= 1), within the scope of the key it was given ({SCOPE}, RCES_ENVIRONMENT; "
            "studio its synonym); omitted means development",
            f"{len(wrong)} of {len(requests)} requests: " + "; ".join(wrong[:4]),
        )
    note = f"{len(sent)} requests carried it" if sent else "the client never sent it"
    return passed(ENV_ALIAS, "environment alias allowed and in scope", note)


def _authorization(run: ScenarioRun) -> Finding:
    requests = _requests(run)
    if not requests:
        return unmeasured(AUTHORIZATION, "no request was read")
    wrong = []
    for _, record in requests:
        value = record.headers.get("authorization")
        if value != KEY_PLACEHOLDER:
            shown = "none" if value is None else repr(value[:40])
            wrong.append(f"{record.instance} request {record.seq}: authorization: {shown}")
    if wrong:
        return failed(
            AUTHORIZATION,
            "the client's authorization header is not the SDK key itself",
            "authorization: <the SDK key given, RCES_SDK_KEY>, the raw key with no scheme word, "
            "on every status and refetch request",
            f"{len(wrong)} of {len(requests)} requests: " + "; ".join(wrong[:4]),
        )
    return passed(AUTHORIZATION, "the raw key sent", f"{len(requests)} requests")
