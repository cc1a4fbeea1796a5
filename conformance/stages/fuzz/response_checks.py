"""Fuzz checks: the suite's own response checks, and which requirement each check speaks for.

Two tables drive the stage. ``BUILTIN_REQUIREMENTS`` maps a schemathesis built-in check to the
catalogue requirement ids it evidences; ``CUSTOM_CHECKS`` lists the suite's own checks (rule,
requirement ids, the function). The functions read the target's choices (error field names,
credential statuses) from the target profile, never from constants.

In a check, ``response.headers`` has lowercase names and list values.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from schemathesis.core.failures import Failure, Severity

from conformance.checks import strip_quotes
from conformance.json_types import JsonValue
from conformance.oracles.header_grammar import Problem, entity_tag, media_type, retry_after
from conformance.oracles.json_equality import same_json

if TYPE_CHECKING:
    from schemathesis import CheckContext, Response
    from schemathesis.specs.openapi.schemas import OpenApiCase

    from conformance.profile.messages import ErrorShape

CheckFunction = Callable[["CheckContext", "Response", "OpenApiCase"], bool | None]

# Operations whose 200 carries a snapshot ``hash`` that the ETag must repeat (spec 4.3).
SNAPSHOT_OPERATIONS = frozenset({"getSdkStatus", "getSdkBootstrap"})


class RuleFailure(Failure):
    """A failure of one of the suite's own checks: it names its check and requirement ids."""

    code: ClassVar[str] = "ST990"
    kind_title: ClassVar[str] = "Conformance rule broken"

    def __init__(
        self,
        *,
        check: str,
        requirement_ids: Sequence[str],
        operation: str | None,
        title: str,
        message: str,
    ) -> None:
        super().__init__(operation=operation, title=title, message=message, severity=Severity.HIGH)
        self.check = check
        self.requirement_ids = tuple(requirement_ids)

    @property
    def _unique_key(self) -> str:
        return self.check


# --------------------------------------------------------------------- built-in checks

# schemathesis built-in check -> the catalogue requirements a failure of it breaks.
# ``{shape}`` / ``{content_type}`` stand for the operation's own requirement (tables below).
BUILTIN_REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "not_a_server_error": ("ERR-NO-SERVER-ERROR",),
    "status_code_conformance": ("{shape}",),
    "content_type_conformance": ("{content_type}",),
    "response_headers_conformance": ("{shape}",),
    "response_schema_conformance": ("{shape}",),
    "negative_data_rejection": ("ERR-VALIDATION-STATUS",),
    "missing_required_header": ("ERR-VALIDATION-STATUS",),
    "unsupported_method": ("ERR-405-ALLOW", "ERR-UNLISTED-METHOD-405"),
    "use_after_free": ("{shape}",),
    "ensure_resource_availability": ("{shape}",),
    "positive_data_acceptance": ("{shape}",),
}

# A method a path does not list answered with another status than 405: the convention's.
UNLISTED_METHOD = ("ERR-UNLISTED-METHOD-405",)

# operationId -> the requirement that its successful responses have the documented shape.
SHAPE_REQUIREMENTS: dict[str, str] = {
    "createConfiguration": "CFG-CREATE-RECORD-SHAPE",
    "patchConfiguration": "CFG-PATCH-RECORD-SHAPE",
    "listExperiments": "EXP-LIST",
    "createExperiment": "EXP-CREATE",
    "getAnalyticsCatalog": "EXP-ANALYTICS-CATALOG",
    "getAssignmentCounts": "EXP-ASSIGNMENT-COUNTS",
    "listContextProperties": "EXP-CONTEXT-PROPERTIES",
    "getExperiment": "EXP-GET",
    "getExperimentAssignmentCounts": "EXP-GROUP-COUNTS",
    "listAssignments": "EXP-ASSIGNMENTS-LIST",
    "setManualAssignment": "EXP-MANUAL-ASSIGNMENT",
    "reactivateMember": "EXP-REACTIVATE",
    "unenrollMember": "EXP-UNENROLL",
    "listMembers": "EXP-MEMBERS",
    "getRollout": "EXP-ROLLOUT-GET",
    "changeRollout": "EXP-ROLLOUT-CHANGE",
    "terminateExperiment": "EXP-TERMINATE",
    "getSdkStatus": "SDK-STATUS-200-SNAPSHOT",
    "getSdkBootstrap": "SDK-BOOTSTRAP-200-SNAPSHOT",
}

# operationId -> the requirement that its responses are application/json.
CONTENT_TYPE_REQUIREMENTS: dict[str, str] = {
    "createConfiguration": "CFG-RESPONSE-CONTENT-TYPE-JSON",
    "patchConfiguration": "CFG-RESPONSE-CONTENT-TYPE-JSON",
    "getSdkStatus": "SDK-STATUS-200-SNAPSHOT",
    "getSdkBootstrap": "SDK-BOOTSTRAP-200-SNAPSHOT",
}
EXPERIMENT_CONTENT_TYPE = "EXP-RESPONSE-CONTENT-TYPE-JSON"

# A failure on an error answer (a status of 400 or more) lands on the requirements about error
# answers, never on one about success answers (SHAPE_REQUIREMENTS, the snapshots' media type).
ERROR_STATUS = 400
ERROR_ANSWER_REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "status_code_conformance": ("ERR-VALIDATION-STATUS",),
    "response_schema_conformance": ("ERR-BODY-SHAPE",),
    "response_headers_conformance": ("ERR-BODY-SHAPE",),
    "content_type_conformance": ("{error_content_type}",),
    "content_type_grammar": ("{error_content_type}",),
}
# operationId -> the requirement that its error answers carry a JSON body: the status endpoint's
# own (4.3 r4), the configuration endpoints' response media type (4.1), else ERR-BODY-JSON.
ERROR_CONTENT_TYPE_REQUIREMENTS: dict[str, str] = {
    "createConfiguration": "CFG-RESPONSE-CONTENT-TYPE-JSON",
    "patchConfiguration": "CFG-RESPONSE-CONTENT-TYPE-JSON",
    "getSdkStatus": "ERR-STATUS-BODY-JSON",
}
ERROR_CONTENT_TYPE = "ERR-BODY-JSON"
SUCCESS_REQUIREMENTS = frozenset(
    [*SHAPE_REQUIREMENTS.values(), *CONTENT_TYPE_REQUIREMENTS.values(), EXPERIMENT_CONTENT_TYPE]
) - frozenset(ERROR_CONTENT_TYPE_REQUIREMENTS.values())

# Our own checks whose requirement depends on the operation: check -> operationId -> ids.
PER_OPERATION: dict[str, dict[str, tuple[str, ...]]] = {
    "etag_equals_body_hash": {
        "getSdkStatus": ("SDK-STATUS-ETAG-EQUALS-HASH",),
        "getSdkBootstrap": ("SDK-BOOTSTRAP-ETAG-EQUALS-HASH",),
    },
    "not_modified_has_no_body": {
        "getSdkStatus": ("SDK-STATUS-304-NO-BODY",),
        "getSdkBootstrap": ("SDK-BOOTSTRAP-304",),
    },
    "rate_limited_has_retry_after": {"getSdkStatus": ("LIMIT-RATE-429-RETRY-AFTER",)},
    # a refusal the fuzzer's own pace does not explain (answers.UNPROVOKED): the budget's rule
    "unprovoked_rate_limit": {"getSdkStatus": ("LIMIT-RATE-WITHIN-BUDGET",)},
    "etag_grammar": {
        "getSdkStatus": ("SDK-STATUS-ETAG-EQUALS-HASH", "SDK-STATUS-304-ETAG"),
        "getSdkBootstrap": ("SDK-BOOTSTRAP-ETAG-EQUALS-HASH",),
    },
    "retry_after_grammar": {"getSdkStatus": ("LIMIT-RATE-429-RETRY-AFTER",)},
}

# The header grammar checks judge a header where a requirement reads it: (operationId, status)
# -> the requirement an ETag or Retry-After that breaks its RFC 9110 grammar fails there.
ETAG_READ: dict[tuple[str, int], str] = {
    ("getSdkStatus", 200): "SDK-STATUS-ETAG-EQUALS-HASH",
    ("getSdkStatus", 304): "SDK-STATUS-304-ETAG",
    ("getSdkBootstrap", 200): "SDK-BOOTSTRAP-ETAG-EQUALS-HASH",
}
RETRY_AFTER_READ: dict[tuple[str, int], str] = {("getSdkStatus", 429): "LIMIT-RATE-429-RETRY-AFTER"}


def _placeholder(rid: str, operation_id: str) -> str:
    if rid == "{error_content_type}":
        return ERROR_CONTENT_TYPE_REQUIREMENTS.get(operation_id, ERROR_CONTENT_TYPE)
    if rid == "{shape}":
        return SHAPE_REQUIREMENTS[operation_id]
    if rid == "{content_type}":
        return CONTENT_TYPE_REQUIREMENTS.get(operation_id, EXPERIMENT_CONTENT_TYPE)
    return rid


def requirements_for(
    check: str, operation_id: str, failure: Failure | None = None, status: int | None = None
) -> tuple[str, ...]:
    """The requirement ids a failure of ``check`` on ``operation_id`` breaks; on an error
    answer (``status`` 400 or more) never one about success answers."""
    if isinstance(failure, RuleFailure) and failure.requirement_ids:
        return failure.requirement_ids
    if check == "unsupported_method":  # a 405 without Allow (RFC 9110), or another status
        reason = getattr(failure, "failure_reason", "")
        return ("ERR-405-ALLOW",) if reason == "missing_allow_header" else UNLISTED_METHOD
    if status is not None and status >= ERROR_STATUS:
        ids = _success_requirements(check, operation_id)
        if check in ERROR_ANSWER_REQUIREMENTS:
            ids = ERROR_ANSWER_REQUIREMENTS[check]
        mapped = tuple(_placeholder(rid, operation_id) for rid in ids)
        # What is left of a success requirement is the answer's status: the declared one.
        return tuple(rid for rid in mapped if rid not in SUCCESS_REQUIREMENTS) or (
            "ERR-VALIDATION-STATUS",
        )
    return _success_requirements(check, operation_id)


def _success_requirements(check: str, operation_id: str) -> tuple[str, ...]:
    if check in PER_OPERATION:
        return PER_OPERATION[check].get(operation_id, ())
    custom = CUSTOM_BY_NAME.get(check)
    if custom is not None:
        return tuple(_placeholder(rid, operation_id) for rid in custom.requirement_ids)
    ids = BUILTIN_REQUIREMENTS.get(check, ("{shape}",))
    return tuple(_placeholder(rid, operation_id) for rid in ids)


def operation_requirements(operation_id: str) -> tuple[str, ...]:
    """Every requirement the valid-credentials fuzz test of one operation speaks for."""
    ids = [
        _placeholder(rid, operation_id) for rids in BUILTIN_REQUIREMENTS.values() for rid in rids
    ]
    ids += [
        _placeholder(rid, operation_id) for check in CUSTOM_CHECKS for rid in check.requirement_ids
    ]
    ids += [rid for table in PER_OPERATION.values() for rid in table.get(operation_id, ())]
    ids += [
        _placeholder(rid, operation_id)
        for rids in ERROR_ANSWER_REQUIREMENTS.values()
        for rid in rids
    ]
    return tuple(dict.fromkeys(ids))


def check_name_of(failure: Failure) -> str:
    """The check that produced a failure: our own say so; built-ins by their failure class."""
    if isinstance(failure, RuleFailure):
        return failure.check
    names = type(failure).checks
    if names:
        return names[0]
    title = failure.title
    if "`" in title:  # "Custom check failed: `name`"
        return title.split("`")[1]
    return type(failure).__name__


# --------------------------------------------------------------------- the suite's own checks


def _header(response: Response, name: str) -> str | None:
    values = response.headers.get(name.lower())
    if not values:
        return None
    return values[0]


def _json_body(response: Response) -> JsonValue:
    if not response.content:
        return None
    try:
        body: JsonValue = json.loads(response.content)
    except ValueError:
        return None
    return body


def operation_id_of(case: OpenApiCase) -> str:
    """The operationId of the operation ``case`` belongs to (its label when it has none)."""
    return str(case.operation.schema.get_operation_id(case.operation) or case.operation.label)


@dataclass(frozen=True)
class CustomCheck:
    name: str
    requirement_ids: tuple[str, ...]
    rule: str
    build: Callable[[ErrorShape], CheckFunction]


def _fail(spec: CustomCheck, case: OpenApiCase, title: str, message: str) -> RuleFailure:
    return RuleFailure(
        check=spec.name,
        requirement_ids=requirements_for(spec.name, operation_id_of(case)),
        operation=case.operation.label,
        title=title,
        message=message,
    )


def _etag_equals_hash(_: ErrorShape) -> CheckFunction:
    def etag_equals_body_hash(
        ctx: CheckContext, response: Response, case: OpenApiCase
    ) -> bool | None:
        if response.status_code != 200 or operation_id_of(case) not in SNAPSHOT_OPERATIONS:
            return None
        body = _json_body(response)
        body_hash = body.get("hash") if isinstance(body, dict) else None
        etag = _header(response, "etag")
        if etag is None:
            raise _fail(
                CUSTOM_BY_NAME["etag_equals_body_hash"],
                case,
                "200 snapshot without an ETag",
                f"Expected: an ETag header equal to the body hash {body_hash!r}\nReceived: no ETag",
            )
        if not isinstance(body_hash, str) or not same_json(strip_quotes(etag), body_hash):
            raise _fail(
                CUSTOM_BY_NAME["etag_equals_body_hash"],
                case,
                "ETag differs from the body hash",
                f"Expected: ETag carrying {body_hash!r}\nReceived: ETag {etag!r}",
            )
        return True

    return etag_equals_body_hash


def _not_modified_empty(_: ErrorShape) -> CheckFunction:
    def not_modified_has_no_body(
        ctx: CheckContext, response: Response, case: OpenApiCase
    ) -> bool | None:
        if response.status_code != 304:
            return None
        if response.content:
            raise _fail(
                CUSTOM_BY_NAME["not_modified_has_no_body"],
                case,
                "304 with a body",
                f"Expected: no body\nReceived: {len(response.content)} bytes",
            )
        return True

    return not_modified_has_no_body


def _error_shape(errors: ErrorShape) -> CheckFunction:
    # errors.code_field: null declares a body without a code field: only the message is read
    fields = [f for f in (errors.code_field, errors.message_field) if f is not None]
    wanted = " and ".join(repr(f) for f in fields)

    def error_body_shape(ctx: CheckContext, response: Response, case: OpenApiCase) -> bool | None:
        if response.status_code < 400:
            return None
        body = _json_body(response)
        wrong = not isinstance(body, dict) or any(not isinstance(body.get(f), str) for f in fields)
        if wrong:
            shown = response.content[:200].decode("utf-8", "replace") if response.content else ""
            raise _fail(
                CUSTOM_BY_NAME["error_body_shape"],
                case,
                f"{response.status_code} error body without the documented shape",
                f"Expected: a JSON object with string fields {wanted}\nReceived: {shown!r}",
            )
        return True

    return error_body_shape


def _retry_after(errors: ErrorShape) -> CheckFunction:
    limited = errors.rate_limited_status  # the rate-limit refusal's status (429 by default)

    def rate_limited_has_retry_after(
        ctx: CheckContext, response: Response, case: OpenApiCase
    ) -> bool | None:
        if response.status_code != limited:
            return None
        if _header(response, "retry-after") is None:
            raise _fail(
                CUSTOM_BY_NAME["rate_limited_has_retry_after"],
                case,
                f"{limited} (the rate-limit refusal) without Retry-After",
                "Expected: a Retry-After header (its grammar: retry_after_grammar)\n"
                "Received: no Retry-After",
            )
        return True

    return rate_limited_has_retry_after


# ------------------------------------------------------------------ header grammars (RFC 9110)


def _grammar_failure(
    check: str, case: OpenApiCase, ids: tuple[str, ...], problem: Problem
) -> RuleFailure:
    return RuleFailure(
        check=check,
        requirement_ids=ids,
        operation=case.operation.label,
        title=f"{problem.field} breaks {problem.rule.name} ({problem.rule.section})",
        message=f"Expected: {problem.field} as {problem.rule.expected}\nReceived: {problem}",
    )


def _etag_grammar(_: ErrorShape) -> CheckFunction:
    def etag_grammar(ctx: CheckContext, response: Response, case: OpenApiCase) -> bool | None:
        rid = ETAG_READ.get((operation_id_of(case), response.status_code))
        value = _header(response, "etag")
        if rid is None or value is None:
            return None
        found = entity_tag(value)
        if isinstance(found, Problem):
            raise _grammar_failure("etag_grammar", case, (rid,), found)
        return True

    return etag_grammar


def _content_type_grammar(_: ErrorShape) -> CheckFunction:
    def content_type_grammar(
        ctx: CheckContext, response: Response, case: OpenApiCase
    ) -> bool | None:
        value = _header(response, "content-type")
        if value is None:
            return None
        found = media_type(value)
        if isinstance(found, Problem):
            ids = requirements_for(
                "content_type_grammar", operation_id_of(case), status=response.status_code
            )
            raise _grammar_failure("content_type_grammar", case, ids, found)
        return True

    return content_type_grammar


def _retry_after_grammar(_: ErrorShape) -> CheckFunction:
    def retry_after_grammar(
        ctx: CheckContext, response: Response, case: OpenApiCase
    ) -> bool | None:
        rid = RETRY_AFTER_READ.get((operation_id_of(case), response.status_code))
        value = _header(response, "retry-after")
        if rid is None or value is None:
            return None
        found = retry_after(value)
        if isinstance(found, Problem):
            raise _grammar_failure("retry_after_grammar", case, (rid,), found)
        return True

    return retry_after_grammar


CUSTOM_CHECKS: tuple[CustomCheck, ...] = (
    CustomCheck(
        "etag_equals_body_hash",
        (),  # per operation: PER_OPERATION
        "every 200 snapshot carries an ETag equal to its body hash",
        _etag_equals_hash,
    ),
    CustomCheck(
        "not_modified_has_no_body",
        (),
        "a 304 has no body",
        _not_modified_empty,
    ),
    CustomCheck(
        "error_body_shape",
        ("ERR-BODY-SHAPE",),
        "every error body has the documented shape (profile: errors.code_field/message_field)",
        _error_shape,
    ),
    CustomCheck(
        "rate_limited_has_retry_after",
        (),
        "a 429 carries Retry-After",
        _retry_after,
    ),
    CustomCheck(
        "etag_grammar",
        (),  # per operation and status: ETAG_READ
        "an ETag the suite reads (status 200 and 304, bootstrap 200) is an entity-tag "
        "(RFC 9110 section 8.8.3)",
        _etag_grammar,
    ),
    CustomCheck(
        "content_type_grammar",
        ("{content_type}",),
        "every Content-Type is a media-type (RFC 9110 sections 8.3.1 and 5.6.6)",
        _content_type_grammar,
    ),
    CustomCheck(
        "retry_after_grammar",
        (),  # per operation and status: RETRY_AFTER_READ
        "a status 429's Retry-After is delay-seconds or an IMF-fixdate (RFC 9110 sections "
        "10.2.3 and 5.6.7)",
        _retry_after_grammar,
    ),
)
CUSTOM_BY_NAME: dict[str, CustomCheck] = {check.name: check for check in CUSTOM_CHECKS}


def custom_checks(errors: ErrorShape) -> list[CheckFunction]:
    """The suite's own checks, bound to the target's error shape."""
    return [check.build(errors) for check in CUSTOM_CHECKS]
