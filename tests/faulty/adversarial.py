"""The *adversarial* section (issue 31): one-defect servers written without reading the checks.

Each is a mistake a real implementer could make from the specification's words or from an RFC
it invokes, placed where a hand-written example is likely not to look: an RFC 6902 or RFC 6901
edge rule and a stale base merged when it touches other members (``faulty.adversarial_patching``),
an environment alias form on one SDK endpoint or key scope, a header value grammar (the numeric
header read as a JavaScript ``Number``, an HTTP-date in the wrong zone form), the error body of a
status nobody asks for, a part of the snapshot that changes (a nested member, a long name, a new
weight), a JSON type lost on the SDK read path, the ETag of a 304 answered to a list, the
shedding hint on the per-unit bootstrap, and one route of a terminated experiment. Each entry's
doc quotes the words it breaks; names start ``adv-``.
"""

from __future__ import annotations

import re
import time
from email.utils import formatdate

from faulty import adversarial_patching as engine
from faulty import adversarial_snapshots as snapshots
from faulty.asgi import Handler, Request, Response, json_response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    EXP_UNENROLL,
    PATCH,
    SDK,
    SNAPSHOT,
    STATUS,
    Fault,
    drop,
    each_config,
    edit_json,
    edit_request,
    edit_request_json,
    edit_response,
    fault,
    on_status,
    route,
    with_identity,
    without_identity,
)

ADVERSARIAL_PREFIX = "adv-"


# ------------------------------------------------------------------ environment aliases


def _studio_skips_scope(ctx: Context) -> Handler:
    def retry(request: Request, response: Response) -> Request | Response:
        if request.header("environment") != "studio":
            return response
        return request.with_header("authorization", ctx.all_key)

    return on_status(SDK, 403, retry)


def _default_follows_scope(request: Request, response: Response) -> Request | Response:
    if request.header("environment") is not None:
        return response
    return request.with_header("environment", "production")


def _alias_lowercased(request: Request) -> Request:
    alias = request.header("environment")
    return request if alias is None else request.with_header("environment", alias.lower())


# ------------------------------------------------------------------ header value grammars

_JS_RADIX = re.compile(r"^\s*(\+?)0([xob])([0-9a-f]+)\s*$", re.IGNORECASE)
_JS_PLUS = re.compile(r"^\s*\+([0-9]+)\s*$|^\s+([0-9]+)\s*$|^([0-9]+)\s+$")


def _js_number(request: Request) -> Request:
    """``Number(header)``: hex, octal and binary literals, a leading ``+`` and surrounding
    whitespace all read as integers (the bounds are then checked on the value)."""
    raw = request.header("project-id")
    if raw is None:
        return request
    value: int | None = None
    radix = _JS_RADIX.match(raw)
    if radix and not radix.group(1):
        base = {"x": 16, "o": 8, "b": 2}[radix.group(2).lower()]
        try:
            value = int(radix.group(3), base)
        except ValueError:
            value = None
    plus = _JS_PLUS.match(raw)
    if plus:
        value = int(next(g for g in plus.groups() if g))
    return request if value is None else request.with_header("project-id", str(value))


def _retry_after_numeric_zone(request: Request, response: Response) -> Response:
    value = response.headers.get("retry-after", "")
    if response.status != 429 or not value.isdigit():
        return response
    return response.with_header("retry-after", formatdate(time.time() + int(value), usegmt=False))


# ------------------------------------------------------------------ error bodies


def _rate_limiter_body(request: Request, response: Response) -> Response:
    if response.status != 429:
        return response
    seconds = response.headers.get("retry-after", "1")
    body = {"error": "Too Many Requests", "retryAfter": int(seconds) if seconds.isdigit() else 1}
    return response.with_json(body)


def _framework_405(request: Request, response: Response) -> Response:
    if response.status != 405:
        return response
    return response.replace(body=b"Method Not Allowed").with_header(
        "content-type", "text/plain; charset=utf-8"
    )


# ------------------------------------------------------------------ conditional, hint, lifecycle


def _304_echoes_validator(request: Request, response: Response) -> Response:
    sent = request.header("if-none-match")
    if response.status != 304 or sent is None:
        return response
    return response.with_header("etag", sent)


def _terminated_unenroll(request: Request, response: Response) -> Request | Response:
    if b"INVALID_TRANSITION" not in response.body:
        return response
    body = request.json() if isinstance(request.json(), dict) else {}
    experiment = request.path.rstrip("/").split("/")[-3]
    return json_response(
        200,
        {
            "unitId": body.get("unitId"),
            "experimentId": int(experiment) if experiment.isdigit() else experiment,
            "status": "unenrolled",
        },
    )


ANY = route("*", r"^/")


# ------------------------------------------------------------------ the section


def adversarial() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return _patch_faults() + _sdk_faults() + _other_faults()


def _patch_faults() -> tuple[Fault, ...]:
    return (
        fault(
            "adv-patch-pointer-unescape-order",
            "CFG-PATCH-OPS-ADD-REMOVE-REPLACE",
            "JSON Pointer tokens are unescaped `~0` first, then `~1`, so `/~01` names the member "
            "`/` instead of `~1`. RFC 6901 section 4: 'first transforming any occurrence of the "
            "sequence '~1' to '/', and then transforming any occurrence of the sequence '~0' to "
            "'~'. By performing the substitutions in this order, an implementation avoids the "
            "error of turning '~01' first into '~1' and then into '/''.",
            edit_request_json(PATCH, engine.pointers_unescaped_wrongly),
        ),
        fault(
            "adv-patch-copy-shares-value",
            "CFG-PATCH-OPS-MOVE-COPY",
            "`copy` puts the source object itself at the target, not a copy: a later operation of "
            "the same patch that changes a member under one location changes it under both. RFC "
            '6902 section 4.5: \'The "copy" operation copies the value at a specified location to '
            "the target location'; the source must keep its value.",
            engine.faulty_engine(engine.copy_by_reference, engine.has_op("copy")),
        ),
        fault(
            "adv-patch-replace-missing-adds",
            "CFG-PATCH-409-INAPPLICABLE",
            "`replace` of an object member that does not exist creates it (`obj[key] = value`) "
            "instead of failing. RFC 6902 section 4.3: 'The target location MUST exist for the "
            "operation to be successful'; spec 4.1 rule 3: 'or the patch cannot be applied, patch "
            "answers 409'.",
            engine.faulty_engine(engine.replace_as_set, engine.has_op("replace")),
        ),
        fault(
            "adv-patch-add-past-end-appends",
            "CFG-PATCH-409-INAPPLICABLE",
            "`add` at an array index greater than the array's length appends, as JavaScript's "
            "`splice` clamps it. RFC 6902 section 4.1: 'The specified index MUST NOT be greater "
            "than the number of elements in the array'; spec 4.1 rule 3 (409).",
            engine.faulty_engine(engine.add_past_end_appends, engine.has_op("add")),
        ),
        fault(
            "adv-patch-test-null-matches-missing",
            "CFG-PATCH-409-INAPPLICABLE",
            "`test` with the value null passes on a path that names nothing (`undefined == "
            "null`). RFC 6902 section 4.6: 'Tests that a value at the target location is equal "
            "to a specified value' (the target must exist, section 4); a failed test is an error: "
            "spec 4.1 rule 3 (409).",
            engine.faulty_engine(engine.test_null_matches_missing, engine.has_op("test")),
        ),
        fault(
            "adv-patch-test-bool-equals-number",
            "CFG-PATCH-409-INAPPLICABLE",
            "`test` compares with the language's `==`, so `true` equals `1` and `false` equals "
            "`0` (also inside arrays and objects). RFC 6902 section 4.6: 'literals (false, true, "
            "and null): are considered equal if they are the same'; a failed test answers 409 "
            "(spec 4.1 rule 3).",
            engine.faulty_engine(engine.test_loose_equality, engine.has_op("test")),
        ),
        fault(
            "adv-patch-add-existing-moves-member",
            "CFG-PATCH-KEY-ORDER-KEPT",
            "`add` onto an existing object member removes it and appends the new value at the "
            "end (an ordered list of pairs). RFC 6902 section 4.1: 'If the target location "
            "specifies an object member that does exist, that member's value is replaced'; a "
            "replaced member keeps its position in an order-keeping service (spec 2.3 key-order "
            "sidecar).",
            engine.faulty_engine(engine.add_existing_moves, engine.has_op("add")),
        ),
        fault(
            "adv-sidecar-pointer-unescaped",
            "CFG-PATCH-KEY-ORDER-SIDECAR",
            "The key-order sidecar's pointers are split on `/` but never unescaped, so an object "
            "under a member whose name holds `/` or `~` (`/a~1b`) is not found and the patch "
            "answers 409. Spec 4.1 rule 2: 'Patch applies RFC 6902 operations incrementally, "
            "with an optional key-order sidecar'; RFC 6901 section 4 (evaluation unescapes each "
            "reference token).",
            edit_request_json(PATCH, engine.sidecar_pointers_literal),
        ),
        fault(
            "adv-stale-base-auto-merged",
            "CFG-PATCH-409-STALE-BASE CFG-PATCH-CONCURRENT-ONE-WINS",
            "A patch on a stale base is rebased and written when every patch since that base "
            "touched other members (a three-way merge), instead of answering 409. Spec 4.1 rule "
            "3: 'When the patch is based on a stale base (conflict), or the patch cannot be "
            "applied, patch answers 409.'",
            engine.stale_base_merged,
        ),
    )


def _sdk_faults() -> tuple[Fault, ...]:
    return (
        fault(
            "adv-studio-skips-scope",
            "SDK-HDR-ENV-OUT-OF-SCOPE-403 SDK-BOOTSTRAP-ENV-SCOPE-403",
            "The scope check looks only at the canonical aliases: `studio` is resolved after it, "
            "so a key scoped to production alone gets the development snapshot (status and "
            "bootstrap) by asking `studio`. Spec 4.3: 'studio is accepted as a synonym for "
            "development; an alias outside the key's environment scope is rejected with 403'.",
            _studio_skips_scope,
        ),
        fault(
            "adv-bootstrap-studio-is-production",
            "SDK-HDR-ENV-STUDIO-SYNONYM SDK-BOOTSTRAP-MATCHES-STATUS "
            "SDK-BOOTSTRAP-HASH-EQUALS-STATUS SDK-BOOTSTRAP-ENV-SCOPE-403",
            "The bootstrap endpoint's copy of the alias table maps `studio` to production (the "
            "status endpoint's is right), so a key scoped to production alone is also served "
            "by asking `studio` there. Spec 4.3: 'studio is accepted as a synonym for "
            "development'; status is 'the same payload, without the configuration documents'; "
            "'an alias outside the key's environment scope is rejected with 403'.",
            edit_request(
                BOOTSTRAP,
                lambda r: (
                    r.with_header("environment", "production")
                    if r.header("environment") == "studio"
                    else r
                ),
            ),
        ),
        fault(
            "adv-default-follows-key-scope",
            "SDK-HDR-ENV-DEFAULT-DEVELOPMENT",
            "Without an alias, a key whose scope lacks development is served its own environment "
            "(production) instead of being refused. Spec 4.3: 'default development when omitted; "
            "... an alias outside the key's environment scope is rejected with 403'.",
            on_status(SDK, 403, _default_follows_scope),
        ),
        fault(
            "adv-alias-case-folded",
            "SDK-HDR-ENV-UNKNOWN-VALUE",
            "The environment alias is lower-cased before the lookup: `Production`, `STUDIO` and "
            "`Development` are served. Spec 4.3: 'allowed values production, development', "
            "'studio is accepted as a synonym'; any other value is not an allowed one.",
            edit_request(SDK, _alias_lowercased),
        ),
        fault(
            "adv-numeric-js-number",
            "SDK-HDR-NUMERIC-OUT-OF-BOUNDS",
            "The numeric header is read with JavaScript's `Number()`: `0x10`, `0o17`, `0b1`, "
            "`+5` and padded digits are accepted as integers (decimal exponents and fractions "
            "are numbers and not held against it). Spec 4.3: 'numeric parameter | header | "
            "number, 0 < value <= 9007199254740991'.",
            edit_request(SDK, _js_number),
        ),
        fault(
            "adv-retry-after-numeric-zone",
            "LIMIT-RATE-429-RETRY-AFTER",
            "A 429's Retry-After is the right moment as `formatdate(..., usegmt=False)` writes it: "
            "`Sat, 28 Nov 2026 07:30:00 -0000`, a numeric zone. RFC 9110 section 10.2.3: "
            "'Retry-After = HTTP-date / delay-seconds'; section 5.6.7: an HTTP-date is "
            "IMF-fixdate ('... GMT'), the form a sender MUST generate.",
            edit_response(STATUS, _retry_after_numeric_zone),
        ),
        fault(
            "adv-config-hash-replacer-array",
            "SDK-STATUS-CONFIG-HASH-MOVES",
            "Each configuration's snapshot hash is the SHA-256 of `JSON.stringify(doc, "
            "Object.keys(doc).sort())`: a replacer array keeps only members named like top-level "
            "keys, at every depth, so a change to a nested member with another name (or to key "
            "order) never moves it. Spec 4.3 client rule 3: 'compare each configuration's hash "
            "with the held one and refetch only the configurations that changed'; spec 2.4: "
            "'per-configuration hashes'.",
            snapshots.config_hash_replacer,
        ),
        fault(
            "adv-summary-name-truncated",
            "SDK-STATUS-LISTS-CONFIGURATIONS",
            "Snapshot entries carry the configuration's name cut to 64 characters (a summary "
            "column narrower than the record's). Spec 2.4: 'configurations | array of {id: "
            "number, name: string, alias: string, hash: string}', the configuration's own name.",
            edit_json(SNAPSHOT, each_config(snapshots.name_truncated)),
        ),
        fault(
            "adv-snapshot-unique-by-alias",
            "SDK-STATUS-LISTS-CONFIGURATIONS",
            "Snapshots (status and bootstrap) list configurations from a map keyed by alias, so of "
            "two configurations sharing an alias (two creates with the same name) only the first "
            "is listed. Spec 2.4: 'configurations | array of {id: number, name, alias, hash}'; "
            "spec 4.3 rule 3: 'compare each configuration's hash with the held one' (per "
            "configuration, by id); CFG-CREATE-NEW-ID: a repeated name makes a new configuration.",
            edit_json(SNAPSHOT, snapshots.unique_by_alias),
        ),
        fault(
            "adv-bootstrap-empty-object-as-array",
            "SDK-BOOTSTRAP-DOCUMENTS-CURRENT CFG-PATCH-PERSISTS SDK-BOOTSTRAP-NO-IDENTITY-BASE",
            "Bootstrap documents without identity pass through PHP's `json_decode($doc, true)` and "
            "`json_encode`: every empty object `{}` is served as `[]`. RFC 8259 section 3: an "
            "object and an array are different structured types; spec 1: 'Without identity "
            "headers it returns the base configuration'.",
            edit_json(
                lambda r: BOOTSTRAP(r) and without_identity(r), each_config(snapshots.documents_php)
            ),
        ),
        fault(
            "adv-304-echoes-validator",
            "SDK-STATUS-304-ETAG",
            "A 304 sends back the If-None-Match it was given as its ETag: right for one strong "
            'tag, not an entity-tag for a list (`"a", "h"`) or `*`. Spec 4.3: \'with the ETag '
            "header set to the snapshot hash'; RFC 9110 section 15.4.5: a 304 'MUST generate ... "
            "ETag' as a 200 would have carried.",
            edit_response(STATUS, _304_echoes_validator),
        ),
        fault(
            "adv-unit-bootstrap-no-polling",
            "POLL-HINT-ON-BOOTSTRAP",
            "Under load, status and the bootstrap without identity carry `polling`; the per-unit "
            "bootstrap (with identity) never does. Spec 2.4: 'polling ... present only while the "
            "backend is shedding load'; spec 4.3: status is 'the same payload' as bootstrap; 8.2: "
            "'Under load shedding, the response carries polling.intervalSeconds'.",
            edit_json(with_identity, drop("polling")),
        ),
    )


def _other_faults() -> tuple[Fault, ...]:
    return (
        fault(
            "adv-429-body-other-shape",
            "ERR-BODY-SHAPE",
            "The rate limiter in front of the status endpoint answers its own JSON body, "
            '`{"error": "Too Many Requests", "retryAfter": 1}`, not the error body every '
            "other error has. Spec 4.3 response 4: 'Other status codes are listed with a JSON "
            "body'; conventions: 'Body: {\"errorCode\": ..., \"message\": ...}' (the profile's "
            "error fields), codes seen 'RATE_LIMITED (429)'.",
            edit_response(STATUS, _rate_limiter_body),
        ),
        fault(
            "adv-405-plain-text",
            "ERR-BODY-JSON ERR-STATUS-BODY-JSON-UNLISTED-METHOD",
            "A method a route does not serve gets the framework's default 405, `text/plain` "
            "`Method Not Allowed`. Spec 4.3 response 4: 'Other status codes are listed with a "
            "JSON body'; spec 4.1 rule 4: 'Both send Content-Type: application/json'.",
            edit_response(ANY, _framework_405),
        ),
        fault(
            "adv-snapshot-weights-at-create",
            "EXP-ROLLOUT-CHANGE",
            "Snapshot summaries show each group's weight as the experiment was created: a rollout "
            "change is stored, read back, moves the snapshot hash and drives assignment, but the "
            "summary's `weight` stays the old one. Spec 2.5: 'groups | array of {id, label, "
            "weight, ordinal}'; spec 1: 'rollout control'.",
            snapshots.weights_at_create,
        ),
        fault(
            "adv-terminated-unenroll-accepted",
            "EXP-TERMINATE-FINAL",
            "Unenrolling a unit of a terminated experiment answers 200 (the state guard is missing "
            "on that one route); rollout changes, assignments and re-activations are still "
            "refused. Spec 3: 'an experiment can be terminated (POST .../terminate)'; spec 1: "
            "'termination'. Nothing changes state after termination.",
            on_status(EXP_UNENROLL, 409, _terminated_unenroll),
        ),
    )
