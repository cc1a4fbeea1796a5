"""The session's fuzz campaign and how it judges each answer: counted, bucket replayed, checked.

``FuzzCampaign`` is the session's fuzzing (stateless, credentials and stateful items alike; not a
``conformance run``, which holds it): the engine's hooks (``engine``) hand it every answer, which it
counts in the tally of its mode (``answered``: a 429 the fuzzer's own pace caused, the declared
bucket replayed, is excused); ``counts_against`` and ``unprovoked`` say which checks speak on a
rate-limit refusal; the suite's checks are bound to the target's error shape (``check_named``,
``credential_check``); ``note`` judges a failure's level (``failure_level``) and keeps it in the
campaign's ``Failures``, with its requirement ids, doubt and a redacted curl line. ``judge`` runs
the checks of a mode on one answer counted in no tally (a corpus replay). What the campaign found
becomes each test's record in ``results``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import requests
from schemathesis.core.failures import Failure, FailureGroup

from conformance.redaction.placeholders import Redactor
from conformance.registry.fuzz_budget import Tier
from conformance.stages.fuzz.aiming import FuzzTarget
from conformance.stages.fuzz.auth import AUTH_REQUIREMENTS, AuthMode, kind_of
from conformance.stages.fuzz.case_log import CaseLog
from conformance.stages.fuzz.failure_level import judge
from conformance.stages.fuzz.failures import Failures, SeenFailure, Sent
from conformance.stages.fuzz.response_checks import (
    CheckFunction,
    RuleFailure,
    check_name_of,
    custom_checks,
    operation_id_of,
    requirements_for,
)
from conformance.stages.fuzz.schema import contract_details
from conformance.stages.fuzz.tally import OperationTally
from conformance.traffic.call_kind import is_sdk_path
from conformance.traffic.curl import curl_command
from conformance.traffic.ledger import LEDGER, Ledger, Refusal, Replay, judge_429, sdk_bucket_key
from conformance.traffic.token_bucket import Limit

if TYPE_CHECKING:
    from schemathesis import CheckContext, Response
    from schemathesis.specs.openapi.schemas import OpenApiCase


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


class CredentialsNotRejected(RuleFailure):
    """A request without valid credentials was not refused with the profile's status."""


@dataclass(repr=False)  # its failures hold the requests as sent, credentials and all
class FuzzCampaign:
    """The session's fuzz campaign: its budget, tallies and failures, its judgement of answers."""

    tier: Tier
    seed: int
    target: FuzzTarget
    started: float = field(default_factory=time.monotonic)
    tallies: dict[tuple[str, str], OperationTally] = field(default_factory=dict)
    failures: Failures = field(default_factory=Failures)
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
        self.contract = contract_details(self.target.profile)

    def __repr__(self) -> str:
        failures = len(self.failures)
        return f"FuzzCampaign(tier={self.tier.name!r}, seed={self.seed}, failures={failures})"

    # ------------------------------------------------------------------ one answer

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
        """Judge a failure's level and remember it (``Failures.note``); return whether it is
        real (an interface constraint broken). A stateful failure keeps the request that failed
        until ``Failures.keep_chain`` gives it the call sequence behind it."""
        check = check_name_of(failure)
        # On an error answer, never a requirement about success answers.
        ids = requirements_for(check, operation_id, failure, response.status_code)
        judged = judge(operation_id, check, failure, case, response, self.target.profile)
        return self.failures.note(
            SeenFailure(
                operation_id=operation_id,
                mode=kind,
                check=check,
                requirement_ids=ids,
                doubt=judged.doubt,
                title=failure.title,
                message=self.redactor.text(failure.message),
                curl=self.curl_of(response),
                status=response.status_code,
                sent=[Sent.of(operation_id, case, response)],
                judged=judged,
            )
        )

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
