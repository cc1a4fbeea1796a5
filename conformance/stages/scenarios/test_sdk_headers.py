"""Scenarios: the status endpoint's headers (spec 4.3, 8): environment alias, numeric, instance id.

Header names come from the profile; the bounds are the specification's.
"""

from __future__ import annotations

import pytest

from conformance.checks import IndependentChecks, conventions, expect, expect_status, json_object
from conformance.checks.declared import hint
from conformance.checks.shapes import expect_shape
from conformance.drivers import alias_space as spaces
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import (
    OUT_OF_SCOPE_STATUS,
    Snapshots,
    bracketed,
    configuration_entries,
    no_snapshot,
)
from conformance.errors import NotConfigured
from conformance.oracles.json_equality import same_json
from conformance.oracles.numeric_header import (
    JAVASCRIPT_NUMBER,
    MAX_SAFE,
    reads_in_bounds,
    some_reader_takes,
)
from conformance.profile.access import SdkKey
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement


def refused(reply: Reply) -> bool:
    return 400 <= reply.status < 500


def _hash(snapshots: Snapshots, key: str, environment: str | None) -> object:
    reply = snapshots.client.status(key=key, environment=environment)
    return json_object(reply).get("hash") if reply.status == 200 else f"HTTP {reply.status}"


def _apart(
    configurations: Configurations,
    snapshots: Snapshots,
    key: str,
    other: str | None,
    ids: tuple[str, ...],
) -> tuple[object, object]:
    """(development's hash, the hash read with alias ``other``), once development and production
    are known to differ, so that the comparison tells development from production.

    Creates a configuration in development (with the run prefix; production, which only the
    serialised ``production`` group writes, stays untouched), then reads development and
    production around the other read. If they still serve the same snapshot, which one the
    other alias selects cannot be told, and the target broke its hash rules: the create moves
    development's hash and leaves production's (a violation of ``ids``, which need the two
    apart)."""
    configurations.create_ok("alias-apart", {"apart": 1}, ids=ids)
    production_key = snapshots.key_covering("production").key

    def both() -> tuple[object, object]:
        return _hash(snapshots, key, "development"), _hash(snapshots, production_key, "production")

    def read() -> tuple[object, object]:  # shaped like both(): bracketed takes one type
        return _hash(snapshots, key, other), None

    (development, production), (value, _) = bracketed(both, read, ids)
    expect(
        development != production,
        ids,
        "development and production serve the same snapshot after a create in development only",
        "two different snapshot hashes (a create in development moves its hash and leaves "
        "production's: SDK-STATUS-HASH-MOVES-ON-WRITE, SDK-STATUS-HASH-ENV-ISOLATED)",
        f"both {development!r}",
    )
    return development, value


def _same_as_development(
    configurations: Configurations,
    snapshots: Snapshots,
    alias: str | None,
    ids: tuple[str, ...],
) -> None:
    """``alias`` selects development's snapshot on every SDK endpoint form without identity, for
    every key whose scope holds development (read between two reads of development with the
    same key and endpoint, once development and production are told apart by ``_apart``)."""
    covering = [k for k in spaces.keys(snapshots) if "development" in k.environments]
    both = snapshots.key_covering("development", "production").key
    development, value = _apart(configurations, snapshots, both, alias, ids)
    expect(
        value == development,
        ids,
        f"{spaces.shown(alias)} does not answer the development snapshot (status)",
        f"development's hash {development!r}",
        repr(value),
    )
    for endpoint in spaces.endpoints(snapshots):
        if endpoint.identity:
            continue  # a unit's own snapshot: judged for its status code below
        for key in [k.key for k in covering]:

            def reference(key: str = key, endpoint: spaces.Endpoint = endpoint) -> object:
                return _hash_of(spaces.read(snapshots, endpoint, key, "development"))

            def other(key: str = key, endpoint: spaces.Endpoint = endpoint) -> object:
                return _hash_of(spaces.read(snapshots, endpoint, key, alias))

            development, value = bracketed(reference, other, ids)
            expect(
                value == development,
                ids,
                f"{spaces.shown(alias)} on {endpoint.label} does not answer the development "
                "snapshot",
                f"development's hash on {endpoint.label} with the same key {development!r}",
                repr(value),
            )
    for endpoint in spaces.endpoints(snapshots, status=False):
        if not endpoint.identity:
            continue
        for sdk_key in covering:
            reply = spaces.read(snapshots, endpoint, sdk_key.key, alias)
            expect_status(reply, 200, ids, f"{spaces.shown(alias)} on {endpoint.label} refused")


def _hash_of(reply: Reply) -> object:
    return json_object(reply).get("hash") if reply.status == 200 else f"HTTP {reply.status}"


@requirement("SDK-HDR-ENV-DEFAULT-DEVELOPMENT")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_no_alias_means_development(configurations: Configurations, snapshots: Snapshots) -> None:
    """No alias selects development on every endpoint form: its snapshot for a key whose scope
    holds development, and 403 (development outside the scope) for one whose scope does not."""
    ids = ("SDK-HDR-ENV-DEFAULT-DEVELOPMENT",)
    marker = configurations.create_ok("alias-default", {"marker": 1}, ids=ids)["id"]
    with IndependentChecks() as independent:
        for key in spaces.keys(snapshots):
            if spaces.in_scope(key, None):
                continue
            for endpoint in spaces.endpoints(snapshots):
                # any answer but a 200 (a 5xx too) is the scope rule's: judged by its tests
                reply = spaces.read(snapshots, endpoint, key.key, None, allow_server_error=True)
                independent.check(
                    reply.status != 200 or spaces.lists(reply, marker),
                    ids,
                    f"no alias with a key scoped to {', '.join(key.environments)} was served "
                    f"another environment than development on {endpoint.label}",
                    f"development's snapshot (listing configuration {marker}) or, outside the "
                    "key's scope, a refusal",
                    reply.describe(),
                    reply,
                )
    _same_as_development(configurations, snapshots, None, ids)


@requirement("SDK-HDR-ENV-STUDIO-SYNONYM")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_studio_is_development(configurations: Configurations, snapshots: Snapshots) -> None:
    """studio answers exactly what development answers, on every endpoint form and key."""
    _same_as_development(configurations, snapshots, "studio", ("SDK-HDR-ENV-STUDIO-SYNONYM",))


@requirement("SDK-HDR-ENV-PRODUCTION")
@pytest.mark.xdist_group("production")
def test_production_alias_selects_production(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-HDR-ENV-PRODUCTION",)
    record = configurations.create_ok("prod-only", {"p": 1}, ids=ids, environment="production")
    key = snapshots.key_covering("development", "production").key
    reply = snapshots.client.status(key=key, environment="production")
    body = snapshots.body(reply, ids)
    listed = {e.get("id") for e in configuration_entries(body, ids, "the production snapshot")}
    development = _hash(snapshots, key, "development")
    expect(
        record["id"] in listed and not same_json(body.get("hash"), development),
        ids,
        "the production alias did not answer production's snapshot",
        f"a snapshot listing production configuration {record['id']} (hash unlike development's)",
        f"listed ids {sorted(listed, key=str)[:10]}, hash {body.get('hash')!r} "
        f"(development {development!r})",
        reply,
    )


@requirement("SDK-HDR-ENV-UNKNOWN-VALUE")
@pytest.mark.parametrize("alias", spaces.UNKNOWN)
def test_unknown_alias_is_refused(snapshots: Snapshots, alias: str) -> None:
    """A value other than the allowed ones and the synonym is refused on every endpoint form,
    whatever the key's scope. A case variant (``Production``) is judged by
    ``headers.environment_case`` (``_case_variant``)."""
    ids = ("SDK-HDR-ENV-UNKNOWN-VALUE",)
    spelled = spaces.spelled_value(alias)
    with IndependentChecks() as independent:
        for endpoint in spaces.endpoints(snapshots):
            for key in spaces.keys(snapshots):
                reply = spaces.read(snapshots, endpoint, key.key, alias)
                if spelled is not None:
                    _case_variant(snapshots, independent, ids, endpoint.label, key, alias, reply)
                    continue
                independent.check(
                    refused(reply) and no_snapshot(reply),
                    ids,
                    f"environment alias {alias!r} was not refused on {endpoint.label}",
                    "a 4xx without a snapshot",
                    reply.describe(),
                    reply,
                )


def _case_variant(
    snapshots: Snapshots,
    independent: IndependentChecks,
    ids: tuple[str, ...],
    where: str,
    key: SdkKey,
    alias: str,
    reply: Reply,
) -> None:
    """A case variant of an allowed value: ``exact`` (declared) refuses it; ``insensitive``
    (declared) reads it as the value it spells, scope included (in scope: served; outside:
    403). Left at its default, either reading keeps the interface (spec 4.3 does not say a case
    variant is refused), a served one being a drop-in difference; served outside the key's
    scope is a failure either way."""
    profile = snapshots.profile
    reading = profile.headers.environment_case
    declared = profile.declares(spaces.CASE_KEY)
    inside = spaces.in_scope(key, spaces.spelled_value(alias))
    refusal = refused(reply) and no_snapshot(reply)
    served = reply.status == 200 and not no_snapshot(reply)
    title = f"environment alias {alias!r} on {where}"
    if not inside:
        independent.check(
            refusal and (not declared or reading == "exact" or reply.status == OUT_OF_SCOPE_STATUS),
            ids,
            f"{title} was served outside the key's scope ({', '.join(key.environments)})",
            f"a 4xx without a snapshot ({OUT_OF_SCOPE_STATUS} when read as "
            f"{spaces.spelled_value(alias)!r}: spec 4.3)",
            reply.describe(),
            reply,
        )
        return
    if declared and reading == "insensitive":
        independent.check(
            served,
            ids,
            f"{title} was not served as {spaces.spelled_value(alias)!r}",
            f"HTTP 200 with a snapshot ({spaces.CASE_KEY}: insensitive)",
            reply.describe(),
            reply,
        )
        return
    if declared:
        independent.check(
            refusal,
            ids,
            f"{title} was not refused",
            f"a 4xx without a snapshot ({spaces.CASE_KEY}: exact)",
            reply.describe() + (f" ({hint(spaces.CASE_KEY, 'insensitive')})" if served else ""),
            reply,
        )
        return
    if served:
        conventions.differs(ids, spaces.CASE_KEY, reading, reply.describe(), title, reply)
    independent.check(
        refusal or served,
        ids,
        f"{title} was neither refused nor served",
        f"a 4xx without a snapshot (the convention), or HTTP 200 as "
        f"{spaces.spelled_value(alias)!r}",
        reply.describe(),
        reply,
    )


def _scope_cases(snapshots: Snapshots) -> list[tuple[str, str, bool]]:
    """(key, alias, in scope) for every profile key against every alias."""
    cases = []
    keys = list(snapshots.profile.credentials.sdk_keys)
    for key in keys:
        for alias in ("development", "production", "studio"):
            scope_name = "development" if alias == "studio" else alias
            cases.append((key.key, alias, scope_name in key.environments))
    return cases


@requirement("SDK-HDR-ENV-OUT-OF-SCOPE-403")
def test_alias_outside_the_key_scope_is_forbidden(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    """Every alias form naming an environment (the synonym and none included) outside a key's
    scope: 403 on the status endpoint (the bootstrap's forms: SDK-BOOTSTRAP-ENV-SCOPE-403)."""
    ids = ("SDK-HDR-ENV-OUT-OF-SCOPE-403",)
    aliases = ("development", "production", "studio", None)

    def marker() -> object:
        return configurations.create_ok("alias-scope", {"marker": 1}, ids=ids)["id"]

    if not spaces.refused_outside(snapshots, aliases, [spaces.STATUS], ids, marker):
        raise NotConfigured(
            "credentials.sdk_keys",
            "every profile key covers every environment: add a key scoped to fewer environments",
        )


@requirement("AUTH-SDK-ENV-IN-SCOPE")
def test_alias_inside_the_key_scope_is_served(snapshots: Snapshots) -> None:
    ids = ("AUTH-SDK-ENV-IN-SCOPE",)
    for key, alias, inside in _scope_cases(snapshots):
        if not inside:
            continue
        reply = snapshots.client.status(key=key, environment=alias)
        expect_status(reply, 200, ids, f"alias {alias!r} inside the key's scope was not served")
        expect_shape("snapshot", json_object(reply, ids), ids, "not a snapshot", reply)


# The numeric header's space (spec 4.3, 8.3: "number, 0 < value <= 9007199254740991"): decimal
# integers at, inside and just past each bound, and the same values in spellings a number reader
# of another language accepts (JavaScript's Number(): radix prefixes, a sign, Infinity; values
# past 2^53 that a double rounds back into range; Python's int(): underscores). Decimal fractions
# and exponents are numbers the bound admits in some readings, so they are judged neither way.
# What the spelling may be is headers.numeric_grammar (oracles/numeric_header.py): a value no
# reader takes for an in-bounds number is refused at the interface level, whatever the grammar.
OWN_PROJECT = "own-project"  # stands for the profile's project.application_id
IN_BOUNDS = ("1", "2", "10", "4294967296", str(MAX_SAFE - 1), str(MAX_SAFE), OWN_PROJECT)
OUT_OF_BOUNDS = (
    "0",
    "-0",
    "-1",
    str(-MAX_SAFE),
    str(MAX_SAFE + 1),
    str(MAX_SAFE + 2),
    str(2**63),
    "99999999999999999999",
    "abc",
    "0x10",
    "0X1F",
    "0o17",
    "0b1",
    "+5",
    "-0x1",
    "Infinity",
    "NaN",
    "1_000",
)
GRAMMAR_KEY = "headers.numeric_grammar"
# The production convention for an in-bounds value: the header selects the project, and any
# in-bounds value is served (spec 4.3 does not state the header's purpose).
SERVED_CONVENTION = "200 for every in-bounds value (the convention: the header selects a project)"


def _statuses(statuses: tuple[int, ...]) -> str:
    return " or ".join(str(s) for s in statuses)


def _not_invalid(snapshots: Snapshots, reply: Reply) -> bool:
    """Not refused as invalid input: not the validation status (errors.validation_status)."""
    return reply.status not in snapshots.profile.errors.validation_status


@requirement("SDK-HDR-NUMERIC-IN-BOUNDS")
@pytest.mark.parametrize("value", IN_BOUNDS)
def test_numeric_header_in_bounds(snapshots: Snapshots, value: str) -> None:
    """An in-bounds value is never refused as invalid input; the project's own id is served
    (200). Any other answer to another in-bounds value departs from the production convention
    only (the header's purpose is not stated): a drop-in difference."""
    ids = ("SDK-HDR-NUMERIC-IN-BOUNDS",)
    profile = snapshots.profile
    own = str(profile.project.application_id)
    sent = own if value == OWN_PROJECT else value
    # in every environment a key reaches: the bound does not depend on the environment; the
    # project's own id served (200) where the alias is the default one (elsewhere another answer
    # is the alias requirements' finding: one cause, one finding)
    reached = [e for e in profile.project.environments if profile.key_for(e)]
    for environment in reached:
        reply = snapshots.status(environment, headers={profile.headers.numeric: sent})
        title = f"numeric header {sent} was refused in {environment}"
        if sent == own and environment == reached[0]:
            expect_status(reply, 200, ids, f"{title} (the project's own id)")
            continue
        expect(
            _not_invalid(snapshots, reply),
            ids,
            f"{title} as invalid input",
            f"not HTTP {_statuses(profile.errors.validation_status)} "
            "(errors.validation_status): "
            "the value is a number with 0 < value <= 9007199254740991 (spec 4.3)",
            reply.describe(),
            reply,
        )
        if reply.status != 200:
            conventions.differs(
                ids, "headers.numeric", SERVED_CONVENTION, reply.describe(), title, reply
            )


@requirement("SDK-HDR-NUMERIC-OUT-OF-BOUNDS")
@pytest.mark.parametrize("value", OUT_OF_BOUNDS)
def test_numeric_header_out_of_bounds(snapshots: Snapshots, value: str) -> None:
    """A value no reader takes for an in-bounds number is refused (a 4xx). A spelling some
    reader takes (``+5``, ``0x10``, ``1_000``) is judged by ``headers.numeric_grammar``: refused
    when the grammar does not read it, not refused as invalid when it does; left at its default
    (decimal-digits, the convention), serving it is a drop-in difference."""
    ids = ("SDK-HDR-NUMERIC-OUT-OF-BOUNDS",)
    profile = snapshots.profile
    grammar = profile.headers.numeric_grammar
    reply = snapshots.status(headers={profile.headers.numeric: value})
    title = f"numeric header {value} was accepted"
    if not some_reader_takes(value):
        expect(refused(reply), ids, title, "a 4xx", reply.describe(), reply)
        return
    if reads_in_bounds(value, grammar):
        expect(
            _not_invalid(snapshots, reply),
            ids,
            f"numeric header {value} was refused as invalid input",
            f"not HTTP {_statuses(profile.errors.validation_status)}: the declared grammar "
            f"({GRAMMAR_KEY}: {grammar}) reads it as a number in bounds",
            reply.describe(),
            reply,
        )
        return
    if refused(reply):
        return
    if not profile.declares(GRAMMAR_KEY):
        conventions.differs(ids, GRAMMAR_KEY, grammar, reply.describe(), title, reply)
        return
    expect(
        False,
        ids,
        title,
        f"a 4xx: the declared grammar ({GRAMMAR_KEY}: {grammar}) does not read it as a number",
        reply.describe()
        + (
            f" ({hint(GRAMMAR_KEY, JAVASCRIPT_NUMBER)})"
            if reads_in_bounds(value, JAVASCRIPT_NUMBER)
            else ""
        ),
        reply,
    )


@requirement("SDK-HDR-INSTANCE-ID-LENGTH")
@pytest.mark.parametrize("length", [1, 2, 64, 127, 128])
def test_instance_id_lengths_accepted(snapshots: Snapshots, length: int) -> None:
    ids = ("SDK-HDR-INSTANCE-ID-LENGTH",)
    instance = (snapshots.client.new_instance_id() + "-" + "x" * 128)[:length]
    reply = snapshots.status(instance_id=instance)
    expect_status(reply, 200, ids, f"an instance id of {length} characters was refused")


@requirement("SDK-HDR-INSTANCE-ID-OUT-OF-BOUNDS")
@pytest.mark.parametrize("length", [0, 129, 130, 300])
def test_instance_id_out_of_bounds(snapshots: Snapshots, length: int) -> None:
    ids = ("SDK-HDR-INSTANCE-ID-OUT-OF-BOUNDS",)
    instance = (snapshots.client.new_instance_id() + "-" + "x" * 400)[:length]
    reply = snapshots.status(instance_id=instance)
    expect(
        refused(reply),
        ids,
        f"an instance id of {length} characters was accepted",
        "a 4xx",
        reply.describe(),
        reply,
    )
