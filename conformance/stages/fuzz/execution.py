"""One fuzz run: sends each generated case, checks its response, and keeps the tally.

``FuzzRun.execute`` is the body of every fuzz example (stateless, auth and stateful alike): aim
the case at the target, send it, run the checks (schemathesis built-ins plus the suite's own),
note every distinct failure with its check, requirement ids, doubt, seed and a redacted curl
line, and raise only for real failures so Hypothesis can shrink them. ``record_for`` turns one
operation's tally into the ``TestRecord`` the plugin reports; ``details`` is the stage summary.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import requests
from schemathesis.core.failures import Failure, FailureGroup

from conformance.contract.document import contract_sha256, operations
from conformance.contract.specialisation import declared_keys, document_sha256
from conformance.redaction.placeholders import Redactor
from conformance.stages.fuzz.aiming import FuzzTarget
from conformance.stages.fuzz.auth import AUTH_REQUIREMENTS, AuthMode, kind_of
from conformance.stages.fuzz.budget import Tier
from conformance.stages.fuzz.capture import Sent
from conformance.stages.fuzz.case_log import CaseLog
from conformance.stages.fuzz.failure_level import DROP_IN, INTERFACE, Judged, judge
from conformance.stages.fuzz.response_checks import (
    CUSTOM_BY_NAME,
    CheckFunction,
    RuleFailure,
    check_name_of,
    custom_checks,
    operation_id_of,
    operation_requirements,
    requirements_for,
)
from conformance.stages.fuzz.schema import contract_document
from conformance.traffic.call_kind import is_sdk_path
from conformance.traffic.curl import curl_command
from conformance.traffic.ledger import (
    LEDGER,
    RATE_LIMITED,
    Ledger,
    Refusal,
    Replay,
    judge_429,
    sdk_bucket_key,
)
from conformance.traffic.token_bucket import Limit
from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence
from conformance.verdict.outcome import SEVERITY, Outcome
from conformance.verdict.records import TestRecord

if TYPE_CHECKING:
    from schemathesis import CheckContext, Response
    from schemathesis.specs.openapi.schemas import OpenApiCase

    from conformance.profile import Profile
    from conformance.stages.fuzz.corpus_run import CorpusRun


# Checks still run on a 429 to a call a declared bucket covers (``judge_429``: excused when the
# fuzzer's own pace caused it; else it fails the operation's answer rule).
RATE_LIMIT_CHECKS = (
    "rate_limited_has_retry_after",
    "retry_after_grammar",
    "content_type_grammar",
    "error_body_shape",
)
UNPROVOKED = "unprovoked_rate_limit"  # response_checks.PER_OPERATION names it too
# Built-ins left out: positive_data_acceptance judges semantics the contract cannot express (a
# schema-valid experiment whose weights do not add up to 10000 is rightly refused), and so does
# ensure_resource_availability (it reads any 404 after a create as "created resource not found",
# but unenrolling a unit that is no member of the experiment just created is rightly a 404);
# ignored_auth takes the profile's real credentials for generated ones (``test_fuzz_credentials``
# covers missing and wrong credentials instead); max_response_time has no limit set.
EXCLUDED_BUILTINS = frozenset(
    {
        "positive_data_acceptance",
        "ensure_resource_availability",
        "ignored_auth",
        "max_response_time",
    }
)


@dataclass
class SeenFailure:
    """One distinct failure: (operation, mode, check) seen at least once."""

    operation_id: str
    mode: str
    check: str
    requirement_ids: tuple[str, ...]
    doubt: str | None  # "not-shown" / "inferred": only a gap of the contract is touched
    title: str
    message: str
    curl: str
    status: int | None
    count: int = 1
    # What the corpus keeps: the last request that failed (the shrunk one), or for a stateful
    # failure the shortest call sequence that ended in it.
    sent: list[Sent] = field(default_factory=list)
    chained: bool = False  # ``sent`` is a stateful call sequence (``FuzzRun.keep_chain``)
    # The level of the constraint it breaks (``doubt.judge``): an interface one fails its
    # requirements, a drop-in one is a difference from a convention, a doubt a spec-doubt.
    judged: Judged = field(default_factory=lambda: Judged(INTERFACE))

    @property
    def real(self) -> bool:
        """Whether it fails its requirements (an interface constraint broken)."""
        return self.doubt is None and self.judged.level == INTERFACE


@dataclass
class OperationTally:
    cases: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    rate_limited: int = 0  # 429s the fuzzer's own traffic caused (the declared bucket replayed)
    unsent: int = 0  # examples not sent because the time budget was spent
    own_pace: str = ""  # the replay of the last 429 the fuzzer caused: the figure behind it

    def count_refusal(
        self, status: int, replay: Replay | None, refusal_status: int = RATE_LIMITED
    ) -> None:
        """Count an answer the fuzzer's own traffic excuses (``judge_429``, the refusal being
        ``errors.rate_limited_status``), with its figure."""
        if judge_429(status, replay, refusal_status) is Refusal.OWN and replay is not None:
            self.rate_limited += 1
            self.own_pace = replay.describe()


class CredentialsNotRejected(RuleFailure):
    """A request without valid credentials was not refused with the profile's status."""


@dataclass(repr=False)  # its failures hold the requests as sent, credentials and all
class FuzzRun:
    tier: Tier
    seed: int
    target: FuzzTarget
    started: float = field(default_factory=time.monotonic)
    tallies: dict[tuple[str, str], OperationTally] = field(default_factory=dict)
    failures: dict[tuple[str, str, str], SeenFailure] = field(default_factory=dict)
    ledger: Ledger = field(default_factory=lambda: LEDGER)  # the process's one (a test: its own)
    case_log: CaseLog = field(default_factory=CaseLog)  # the cases as generated: their digest

    def __post_init__(self) -> None:
        self.session = requests.Session()
        self.redactor = Redactor(self.target.profile.secret_names())
        self.checks: list[CheckFunction] = custom_checks(self.target.profile.errors)
        self._by_name = {check.__name__: check for check in self.checks}
        self.budget_exhausted = False
        # What the engine could not generate (the contract's doing, not the target's).
        self.suite_errors: list[str] = []
        self.corpus: CorpusRun | None = None  # the failure corpus (set by the plugin)
        self.contract = contract_details(self.target.profile)

    # ------------------------------------------------------------------ one example

    def __repr__(self) -> str:
        return f"FuzzRun(tier={self.tier.name!r}, seed={self.seed}, failures={len(self.failures)})"

    def budget_left(self) -> float:
        """Seconds of the tier's time budget still to spend (0: spent)."""
        return max(0.0, self.tier.time_budget_s - (time.monotonic() - self.started))

    def tally(self, operation_id: str, kind: str) -> OperationTally:
        return self.tallies.setdefault((operation_id, kind), OperationTally())

    def answered(
        self, case: OpenApiCase, response: Response, mode: AuthMode, kind: str, sent_at: float
    ) -> Replay | None:
        """Count one answer in the tally of ``kind``; return the declared bucket as the run's
        own traffic left it (None: not an SDK call with valid credentials)."""
        counts = self.tally(operation_id_of(case), kind)
        counts.cases += 1
        counts.statuses[response.status_code] += 1
        replay = self._replay(case, response, mode, sent_at)
        counts.count_refusal(response.status_code, replay, self.limited_status)
        return replay

    def _replay(
        self, case: OpenApiCase, response: Response, mode: AuthMode, sent_at: float
    ) -> Replay | None:
        """The declared SDK bucket as the fuzzer's own requests left it (None: not an SDK call
        with valid credentials). Callers without an instance id share a bucket with the run's
        other workers: their share is taken out, as if each had spent it."""
        if mode is not AuthMode.VALID or not is_sdk_path(case.operation.path):
            return None
        headers = {k.lower(): v for k, v in response.request.headers.items()}
        names = self.target.profile.headers
        instance = headers.get(names.instance_id.lower())
        declared = self.target.profile.rate_limit
        limit = Limit(declared.burst, declared.refill_per_second)
        if instance is None:
            limit = limit.scaled(1 / max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", 1))))
        key = headers.get("authorization", "")
        bucket = declared.bucket(str(key), None if instance is None else str(instance))
        return self.ledger.record(sdk_bucket_key(self.target.base_url, bucket), limit, at=sent_at)

    @property
    def limited_status(self) -> int:
        """The status of a rate-limit refusal (profile ``errors.rate_limited_status``)."""
        return self.target.profile.errors.rate_limited_status

    def counts_against(self, check: str, response: Response, replay: Replay | None) -> bool:
        """Whether a failure of ``check`` speaks: on a rate-limit refusal to a call the declared
        bucket covers, only the rate-limit checks do (the answer is a refusal, not the
        operation's)."""
        judged = judge_429(response.status_code, replay, self.limited_status)
        limited = judged in (Refusal.OWN, Refusal.UNPROVOKED)
        return not limited or check in (*RATE_LIMIT_CHECKS, UNPROVOKED)

    def unprovoked(
        self, case: OpenApiCase, response: Response, replay: Replay | None
    ) -> RuleFailure | None:
        """A 429 the fuzzer's own pace does not explain, as a failure (None: none)."""
        judged = judge_429(response.status_code, replay, self.limited_status)
        if judged is not Refusal.UNPROVOKED or replay is None:
            return None
        return RuleFailure(
            check=UNPROVOKED,
            # The declared budget's own requirement where it has one, else the answer's status.
            requirement_ids=("LIMIT-RATE-WITHIN-BUDGET",)
            if operation_id_of(case) == "getSdkStatus"
            else requirements_for(
                "status_code_conformance", operation_id_of(case), status=response.status_code
            ),
            operation=case.operation.label,
            title=f"a valid request was refused with {response.status_code} (the rate-limit "
            "refusal) the fuzzer did not provoke",
            message="Expected: an answer; the fuzzer's own traffic stayed within the "
            "rate limit the profile declares (rate_limit)\n"
            f"Received: {response.status_code}; {replay.describe()}",
        )

    def check_named(self, name: str) -> CheckFunction:
        """The suite's own check ``name`` bound to this target's error shape."""
        return self._by_name[name]

    def _check(
        self,
        case: OpenApiCase,
        response: Response,
        mode: AuthMode,
        replay: Replay | None = None,
    ) -> list[Failure]:
        if mode is not AuthMode.VALID:
            return self._run(
                case, response, [self.credential_check(mode), self._by_name["error_body_shape"]]
            )
        judged = judge_429(response.status_code, replay, self.limited_status)
        if judged in (Refusal.OWN, Refusal.UNPROVOKED):
            found = self._run(case, response, [self._by_name[n] for n in RATE_LIMIT_CHECKS])
            unprovoked = self.unprovoked(case, response, replay)
            return found if unprovoked is None else [*found, unprovoked]
        return self._run(case, response, None)

    def _run(
        self, case: OpenApiCase, response: Response, only: list[CheckFunction] | None
    ) -> list[Failure]:
        from schemathesis.specs.openapi import checks as builtin

        excluded = [getattr(builtin, name) for name in EXCLUDED_BUILTINS if hasattr(builtin, name)]
        try:
            if only is None:
                case.validate_response(
                    response, additional_checks=self.checks, excluded_checks=excluded
                )
            else:
                case.validate_response(response, checks=only)
        except FailureGroup as group:
            return list(group.exceptions)
        return []

    def credential_check(self, mode: AuthMode) -> CheckFunction:
        """The check that a request sent with ``mode``'s credentials is refused."""
        accepted = self.target.profile.errors.missing_credentials_status

        def credentials_rejected(
            ctx: CheckContext, response: Response, case: OpenApiCase
        ) -> bool | None:
            kind = kind_of(case.operation.path)
            if response.status_code in accepted:
                return True
            ids = AUTH_REQUIREMENTS[(kind, mode)]
            sent = "no credentials" if mode is AuthMode.MISSING else "unknown credentials"
            raise CredentialsNotRejected(
                check="credentials_rejected",
                requirement_ids=ids,
                operation=case.operation.label,
                title=f"request with {sent} was not refused",
                message=f"Expected: status in {list(accepted)} "
                "(profile: errors.missing_credentials_status)\n"
                f"Received: {response.status_code}",
            )

        return credentials_rejected

    def note(
        self, operation_id: str, kind: str, case: OpenApiCase, response: Response, failure: Failure
    ) -> bool:
        """Remember a failure; return whether it is real (an interface constraint broken). A
        stateful failure keeps the request that failed until ``keep_chain`` gives it the call
        sequence behind it. A check's failures are kept apart by level: a drop-in difference
        seen first does not hide a real failure of the same check."""
        check = check_name_of(failure)
        # On an error answer, never a requirement about success answers.
        ids = requirements_for(check, operation_id, failure, response.status_code)
        judged = judge(operation_id, check, failure, case, response, self.target.profile)
        doubt = judged.doubt
        suffix = "" if judged.level == INTERFACE else f"@{judged.level}:{judged.key}"
        key = (operation_id, kind, check + suffix)
        seen = self.failures.get(key)
        sent = [Sent.of(operation_id, case, response)]
        if seen is not None:
            seen.count += 1
            if not seen.chained:
                seen.sent = sent
            # The last one seen is the one Hypothesis shrank to: the simplest reproduction.
            seen.curl, seen.message, seen.status = (
                self.curl_of(response),
                self.redactor.text(failure.message),
                response.status_code,
            )
            seen.doubt = seen.doubt if seen.doubt is None else doubt
            return seen.real
        self.failures[key] = SeenFailure(
            operation_id=operation_id,
            mode=kind,
            check=check,
            requirement_ids=ids,
            doubt=doubt,
            title=failure.title,
            message=self.redactor.text(failure.message),
            curl=self.curl_of(response),
            status=response.status_code,
            sent=sent,
            judged=judged,
        )
        return self.failures[key].real

    def keep_chain(self, key: tuple[str, str, str], chain: list[Sent]) -> None:
        """Keep ``chain`` (the calls a stateful failure needs) if it is the shortest yet."""
        seen = self.failures.get(key)
        if seen is not None and chain and (not seen.chained or len(chain) < len(seen.sent)):
            seen.sent, seen.chained = chain, True

    def judge(
        self, case: OpenApiCase, response: Response, mode: AuthMode, sent_at: float
    ) -> tuple[list[Failure], OperationTally]:
        """The checks of ``mode`` on one answer, counted in no tally (a corpus replay)."""
        tally = OperationTally()
        replay = self._replay(case, response, mode, sent_at)
        tally.count_refusal(response.status_code, replay, self.limited_status)
        return self._check(case, response, mode, replay), tally

    def curl_of(self, response: Response) -> str:
        """The request behind ``response`` as a curl line, secrets as placeholders."""
        return curl_line(response.request, self.redactor)

    # ------------------------------------------------------------------ results

    def record_for(
        self,
        test_id: str,
        operation_id: str | None,
        modes: tuple[str, ...],
        ids: tuple[str, ...],
        duration_s: float,
        error: BaseException | None,
    ) -> TestRecord:
        """Per-requirement outcomes of one fuzz test: one operation (None: all) in ``modes``.

        A test of every operation (the stateful scenarios) speaks only for the requirements of
        operations its cases reached: the scenarios follow links and may never call one."""
        tallies = [
            t for (op, m), t in self.tallies.items() if m in modes and operation_id in (None, op)
        ]
        if operation_id is None:
            reached = {op for (op, m), t in self.tallies.items() if m in modes and t.cases}
            ids = tuple(rid for rid in ids if _reached(rid, reached))
        sent = sum(t.cases - t.rate_limited for t in tallies)
        outcomes: dict[str, Outcome] = {}
        note: dict[str, str] = {}
        base = Outcome.PASS if sent else Outcome.NOT_MEASURABLE
        for rid in ids:
            outcomes[rid] = base
            if not sent:
                note[rid] = self._unmeasured_reason(tallies)
        messages = []
        relevant = [
            seen
            for (op, seen_mode, _check), seen in self.failures.items()
            if operation_id in (None, op) and seen_mode in modes
        ]
        differences = tuple(
            self._difference(test_id, seen) for seen in relevant if seen.judged.level == DROP_IN
        )
        relevant = [seen for seen in relevant if seen.judged.level != DROP_IN]
        for seen in relevant:
            outcome = Outcome.SPEC_DOUBT if seen.doubt else Outcome.FAIL
            for rid in seen.requirement_ids:
                current = outcomes.get(rid, Outcome.PASS)
                outcomes[rid] = outcome if _worse(outcome, current) else current
                if seen.doubt:
                    note[rid] = f"only a {seen.doubt} element of the contract is touched"
            messages.append(f"[{seen.check}] {seen.title} (x{seen.count})")
        # Real failures first, the suite's own (more specific) checks before built-ins.
        relevant.sort(key=lambda seen: (seen.doubt is not None, seen.check not in CUSTOM_BY_NAME))
        evidence = self._evidence(test_id, relevant[0]) if relevant else None
        # Each requirement shows the failure that decided its outcome (the first, in that order).
        by_requirement: dict[str, Evidence] = {}
        for seen in relevant:
            if any(rid not in by_requirement for rid in seen.requirement_ids):
                found = self._evidence(test_id, seen)
                for rid in seen.requirement_ids:
                    by_requirement.setdefault(rid, found)
        if error is not None and not messages and not isinstance(error, FailureGroup):
            # The test broke for a reason no check names (a transport error, a crash).
            for rid in ids:
                outcomes[rid] = Outcome.FAIL
            messages.append(f"{type(error).__name__}: {error}"[:500])
        return TestRecord(
            test_id=test_id,
            stage="fuzz",
            requirement_ids=tuple(dict.fromkeys([*ids, *outcomes])),
            outcomes=outcomes,
            duration_s=duration_s,
            message="; ".join(messages),
            evidence=evidence,
            note=note,
            evidence_by_requirement=by_requirement,
            differences=differences,
        )

    def _difference(self, test_id: str, seen: SeenFailure) -> Difference:
        """A drop-in failure as the difference it shows, with the key that would declare the
        target's choice (else the contract element of a convention no key expresses)."""
        return Difference(
            requirement_ids=seen.requirement_ids,
            key=seen.judged.key,
            convention=seen.judged.convention,
            received=seen.judged.received,
            title=f"{seen.title} (x{seen.count})",
            test_id=test_id,
            curl=seen.curl,
        )

    def _evidence(self, test_id: str, seen: SeenFailure) -> Evidence:
        expected, _, received = seen.message.partition("\nReceived:")
        return Evidence(
            test_id=test_id,
            requirement_ids=seen.requirement_ids,
            title=seen.title if not seen.doubt else f"{seen.title} (spec-doubt: {seen.doubt})",
            expected=expected.removeprefix("Expected:").strip() or "the check to pass",
            received=received.strip() or f"HTTP {seen.status}",
            curl=seen.curl,
            check=seen.check,
            seed=self.seed,
        )

    def real_failures(self, kind: str, operation_id: str | None = None) -> list[str]:
        """One line per distinct real (not spec-doubt) failure noted under ``kind`` (for one
        operation; None: any)."""
        return [
            f"[{seen.check}] {seen.operation_id}: {seen.title} (x{seen.count})"
            for seen in self.failures.values()
            if seen.mode == kind and seen.real and operation_id in (None, seen.operation_id)
        ]

    def _unmeasured_reason(self, tallies: list[OperationTally]) -> str:
        if any(t.unsent for t in tallies):
            return f"the {self.tier.name} tier's time budget ran out before this operation"
        paced = [t.own_pace for t in tallies if t.rate_limited]
        if paced:
            return (
                "every request was refused 429 after the fuzzer's own traffic spent the declared "
                f"bucket (the suite's doing): {paced[-1]}"
            )
        return "no example was generated for this operation"

    def details(self) -> dict[str, object]:
        """The stage summary: tier, seed, cases, duration, failures by check."""
        by_check: Counter[str] = Counter()
        doubts: Counter[str] = Counter()
        differences: Counter[str] = Counter()
        for seen in self.failures.values():
            if seen.judged.level == DROP_IN:
                differences[seen.judged.key] += 1
            else:
                (doubts if seen.doubt else by_check)[seen.check] += 1
        return {
            "tier": self.tier.name,
            "seed": self.seed,
            "budget": self.tier.describe(),
            "cases": sum(t.cases for t in self.tallies.values()),
            "rate_limited": sum(t.rate_limited for t in self.tallies.values()),
            "unsent": sum(t.unsent for t in self.tallies.values()),
            "budget_exhausted": self.budget_exhausted,
            "suite_errors": list(dict.fromkeys(self.suite_errors)),
            "duration_s": round(time.monotonic() - self.started, 3),
            "failures_by_check": dict(sorted(by_check.items())),
            "spec_doubts_by_check": dict(sorted(doubts.items())),
            "differences_by_key": dict(sorted(differences.items())),
            "operations": len({op for op, _ in self.tallies}),
            **self.case_log.details(),
            "statuses": {
                f"{op} ({kind})": {str(k): v for k, v in sorted(t.statuses.items())}
                for (op, kind), t in sorted(self.tallies.items())
            },
            "contract": self.contract,
            "corpus": None if self.corpus is None else self.corpus.details(),
            "real_objects": {
                "configuration_id": self.target.objects.configuration_id,
                "experiment_id": self.target.objects.experiment_id,
                "problems": list(self.target.objects.problems),
            },
        }


def contract_details(profile: Profile) -> dict[str, object]:
    """Which document was fuzzed: the contract file's digest (the report's contract_sha256),
    the digest of the contract as ``profile`` specialised it, and the keys that made them
    differ (none: the contract as it is, in the reference server's terms)."""

    document = contract_document(profile, inferred_links=False)
    return {
        "sha256": contract_sha256(),
        "specialised_sha256": document_sha256(document),
        "declared": declared_keys(document, profile),
    }


def curl_line(request: requests.PreparedRequest, redactor: Redactor) -> str:
    """A curl command that repeats ``request``, with every secret and credential redacted."""
    headers = []
    for name, value in request.headers.items():
        shown = value.decode("latin-1") if isinstance(value, bytes) else str(value)
        headers.append((name, redactor.header(name, shown)))
    body = request.body
    text = None
    if body:
        text = redactor.text(
            body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
        )
    return curl_command(str(request.method), redactor.text(str(request.url)), headers, text)


def _reached(requirement_id: str, reached: set[str]) -> bool:
    """Whether an operation that ``requirement_id`` belongs to is among those ``reached``."""
    holders = reached if reached else {op.operation_id for op in operations()}
    return any(requirement_id in operation_requirements(op) for op in holders)


def _worse(a: Outcome, b: Outcome) -> bool:
    return SEVERITY[a] > SEVERITY[b]


__all__ = ["CUSTOM_BY_NAME", "FuzzRun", "OperationTally", "SeenFailure"]
