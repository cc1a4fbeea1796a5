"""Scenarios: how units spread over groups (spec 2.5): weighted split, golden vectors, round robin.

The weighted split is a chi-square goodness-of-fit test over ``SPLIT_UNITS`` unit ids drawn from
a fixed seed; it fails only when p < ``ALPHA``. The units are read in ``LOOKS`` parts, and a
sample stops early once its statistic rules out a split off the weights (``on_weights``):
about a quarter fewer bootstraps from a correct server, the same failures from a biased one.
The statistic, degrees of freedom and p-value are recorded in the test's ``conformance-stage``
user property (stage ``scenarios``, key ``bucketing``). Bootstraps go out unpaced, open-loop at
``BOOTSTRAP_RATE`` over as many connections as the target's latency needs
(``conformance.traffic.open_loop``), so a distant target costs no more than a near one; a target
that rate-limits bootstrap gets the refused ones again, after a pause, a few times, and fails
when they stay refused (the profile declares no bootstrap
limit, so no 429 there is the suite's doing).
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Mapping

import pytest

from conformance.checks import conventions, expect, violation
from conformance.drivers.capabilities import require_mode
from conformance.drivers.experiments import Experiments, group_ids
from conformance.errors import ContractViolation, NotApplicable, NotMeasurable, SetupRefused
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.bucketing import (
    HASH_FUNCTIONS,
    GoodnessOfFit,
    goodness_of_fit,
    group_index,
    noncentral_chi_square_cdf,
)
from conformance.oracles.json_equality import same_json
from conformance.session import wire
from conformance.traffic.open_loop import Offer, Planned, Record, reply_of, send, uniform

requirement = pytest.mark.requirement
# The quietest environment is often production, which only the serialised "production" group
# may write (its snapshot hash must hold still there): the tests that may pick it join it.
quietest_group = pytest.mark.xdist_group("production")

SEED = 20_26_11_22
SPLIT_UNITS = 3000
SPLIT_SAMPLES = 2  # a second fresh sample decides when the first falls below ALPHA
LOOKS = 3  # parts a sample is read in: after each but the last, a pass may stop it early
MIN_EFFECT = 0.1  # Cohen's w of the smallest departure from the weights the split must show
EARLY_BETA = 0.001  # a look's chance of passing a split that departs by MIN_EFFECT
SHARES = (5, 3, 2)
HASH_KEY = "experiments.hash_function"
MODES_KEY = "experiments.assignment_modes"
ALPHA = 0.001
BOOTSTRAP_RATE = 1000.0  # per second: about what a reference server on two cores answers
POOL_CAP = 128  # connections at most: the rate up to about 100 ms per answer
RETRY_ROUNDS = 5
MAX_UNREADABLE = 0.01  # share of units whose metadata may be unreadable before we give up
ROUND_ROBIN_SIZES = (2, 3)
ROUND_ROBIN_UNITS = 9
GOLDEN_UNITS = (
    "golden-0",
    "golden-1",
    "user-42",
    "player:1001",
    "player:1002",
    "00000000-0000-4000-8000-000000000000",
    "f47ac10b-58cc-4372-a567-0e02b2c3d479",
    "a",
    "Z",
    "server-eu-west-1-7",
    "server-us-east-2-13",
    "with space",
    "with/slash",
    "dots.and-dashes_",
    "x" * 64,
    "12345",
    "-1",
    "UPPER-lower",
    "unit@example.test",
    "last-golden",
)
BASE: JsonObject = {"bucket": {"group": "base"}}


def _marker(index: int) -> list[JsonObject]:
    return [{"op": "set", "path": ["bucket", "group"], "value": f"g{index}"}]


def _quietest_environment(experiments: Experiments) -> str:
    """The environment (with a key) whose snapshot lists the fewest configurations."""
    sizes = {}
    for alias in experiments.profile.project.environments:
        if experiments.profile.key_for(alias) is None:
            continue
        experiments.environment = alias
        listed = experiments.snapshot().get("configurations")
        sizes[alias] = len(listed) if isinstance(listed, list) else 0
    if not sizes:
        raise NotMeasurable("the profile has no SDK key for any of its environments")
    return min(sizes, key=lambda alias: sizes[alias])


def _groups_of(
    experiments: Experiments, experiment_id: int, units: list[str], ids: tuple[str, ...]
) -> dict[str, JsonValue]:
    """unit -> the group its per-unit bootstrap names (None: unreadable), sent concurrently."""
    client = experiments.client
    key = experiments.snapshots.key(experiments.environment).key
    names = client.profile.headers
    found: dict[str, JsonValue] = {}
    pending = list(units)
    last_refusal: tuple[Record, Offer] | None = None
    for _ in range(RETRY_ROUNDS):
        latency = experiments.snapshots.bootstrap(experiments.environment).exchange.elapsed_ms
        times = uniform(len(pending), len(pending) / BOOTSTRAP_RATE)
        plan = [
            Planned(
                at,
                "/sdk/v2/bootstrap",
                {
                    "authorization": key,
                    names.environment: experiments.environment,
                    names.instance_id: client.instance_id,
                    **experiments.identity(unit),
                },
            )
            for at, unit in zip(times, pending, strict=True)
        ]
        sent = send(client, plan, latency / 1000, "per-unit bootstraps", cap=POOL_CAP)
        refused = []
        for unit, record in zip(pending, sent.records, strict=True):
            status, body = record.status, record.body
            if status == 429:
                refused.append(unit)
                last_refusal = (record, sent)
                continue
            if status != 200:
                raise violation(
                    ids,
                    "a bootstrap with identity was not served",
                    "HTTP 200 with the unit's content and experiment metadata",
                    f"{'no answer (' + str(record.error) + ')' if status is None else status}; "
                    f"{sent.describe()}",
                    reply_of(client, record) if status is not None else None,
                )
            found[unit] = _group_in(body, experiment_id, experiments)
        if not refused:
            return found
        pending = refused
        time.sleep(1.0)
    assert last_refusal is not None  # a round that refused none has returned
    record, sent = last_refusal
    raise violation(  # the profile declares no limit on bootstrap: nobody provoked these
        ids,
        "bootstraps with identity stayed refused with 429",
        f"HTTP 200 for each unit within {RETRY_ROUNDS} rounds, 1 s apart (the profile declares "
        "a rate limit for status polls only)",
        f"{len(pending)} of {len(units)} units still refused in the last round; {sent.describe()}",
        reply_of(client, record),
    )


def _group_in(body: bytes, experiment_id: int, experiments: Experiments) -> JsonValue:
    try:
        data: JsonValue = json.loads(body)
    except ValueError:
        return None
    entries = data.get(experiments.b.assignments) if isinstance(data, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and same_json(
            entry.get(experiments.p.experiment_id), experiment_id
        ):
            return entry.get(experiments.p.group_id)
    return None


def on_weights(fit: GoodnessOfFit, units: int) -> bool:
    """Whether ``units`` units already rule out a split off the weights: a split that departs by
    Cohen's w of ``MIN_EFFECT`` or more (5:3:2 served as 45:33:22) shows a chi-square statistic
    this small with probability under ``EARLY_BETA``. Only a pass stops early; a failure needs
    the whole sample, so the full sample's power is kept but for that ``EARLY_BETA`` a look."""
    noncentrality = units * MIN_EFFECT**2
    chance = noncentral_chi_square_cdf(fit.statistic, fit.degrees_of_freedom, noncentrality)
    return chance < EARLY_BETA


def _readable(groups: Mapping[str, JsonValue], known: list[JsonValue]) -> dict[str, JsonValue]:
    usable = {unit: group for unit, group in groups.items() if group in known}
    if len(usable) < len(groups) * (1 - MAX_UNREADABLE):
        raise NotMeasurable(
            f"{len(groups) - len(usable)} of {len(groups)} units had no readable group for the "
            "experiment in their metadata (SDK-BOOTSTRAP-ID-METADATA)"
        )
    return usable


@requirement("EXP-WEIGHTED-SPLIT")
@quietest_group
def test_weighted_split_follows_the_weights(
    experiments: Experiments, pytestconfig: pytest.Config
) -> None:
    ids = ("EXP-WEIGHTED-SPLIT",)
    require_mode(experiments.profile, "weightedHash")
    experiments.environment = _quietest_environment(experiments)
    base = experiments.base(BASE, "split-base")
    changesets = [_marker(i) for i in range(len(SHARES))]
    record = experiments.create_ok(
        "split", base["id"], experiments.groups(changesets, list(SHARES))
    )
    known = group_ids(record)
    rng = random.Random(SEED)
    weights = experiments.weights(list(SHARES))
    started = time.perf_counter()
    first_p: float | None = None
    for _ in range(SPLIT_SAMPLES):
        # Units carry the run prefix, so each run (and each sample) is a fresh random sample: a
        # correct server lands below ALPHA with probability ALPHA per sample. A second, fresh
        # sample decides then (a correct server fails both with ALPHA squared; a biased split
        # fails both). Seen: [1528, 801, 671] from a correct server, p = 5e-5. A sample is read
        # in LOOKS parts and stops early once a split off the weights is ruled out (on_weights).
        groups: dict[str, JsonValue] = {}
        for look in range(1, LOOKS + 1):
            units = [
                f"{experiments.client.run_prefix}-s-{rng.getrandbits(64):016x}"
                for _ in range(SPLIT_UNITS // LOOKS)
            ]
            groups.update(_readable(_groups_of(experiments, record["id"], units, ids), known))
            counts = Counter(groups.values())
            fit = goodness_of_fit([counts.get(g, 0) for g in known], weights)
            if look < LOOKS and on_weights(fit, len(groups)):
                break
        if fit.p_value >= ALPHA:
            break
        first_p = fit.p_value if first_p is None else first_p
    elapsed = time.perf_counter() - started
    details = {
        "requirement": "EXP-WEIGHTED-SPLIT",
        "units": len(groups),
        "looks": look,
        "seed": SEED,
        "weights": weights,
        "observed": list(fit.observed),
        "expected": [round(e, 2) for e in fit.expected],
        "chi_square": round(fit.statistic, 4),
        "degrees_of_freedom": fit.degrees_of_freedom,
        "p_value": fit.p_value,
        "alpha": ALPHA,
        "seconds": round(elapsed, 2),
    }
    if first_p is not None:
        details["first_sample_p_value"] = first_p  # the sample this one re-tested
    wire.publish(pytestconfig, "scenarios", {"bucketing": details})
    expect(
        fit.p_value >= ALPHA,
        ids,
        "the group split does not follow the weights",
        f"counts near {details['expected']} (chi-square p >= {ALPHA})",
        f"counts {details['observed']}: chi-square {details['chi_square']} with "
        f"{fit.degrees_of_freedom} df, p = {fit.p_value:.3g}"
        + ("" if first_p is None else f" (a first fresh sample: p = {first_p:.3g})"),
    )


@requirement("EXP-WEIGHTED-HASH-GOLDEN")
@quietest_group
def test_weighted_buckets_match_the_declared_hash(experiments: Experiments) -> None:
    ids = ("EXP-WEIGHTED-HASH-GOLDEN",)
    require_mode(experiments.profile, "weightedHash")
    declared = experiments.profile.experiments.hash_function
    if declared is None:  # the specification names no hash function: nothing claimed
        raise NotApplicable("experiments.hash_function", "null")
    function = HASH_FUNCTIONS.get(declared)
    if function is None:
        raise NotMeasurable(f"the suite does not know the hash function {declared!r}")
    if function.size != experiments.profile.experiments.weight_total:
        raise NotMeasurable(
            f"{declared} has {function.size} buckets, but weights add up to "
            f"{experiments.profile.experiments.weight_total}"
        )
    base = experiments.base(BASE, "golden-base")
    changesets = [_marker(i) for i in range(len(SHARES))]
    record = experiments.create_ok(
        "golden", base["id"], experiments.groups(changesets, list(SHARES))
    )
    known = group_ids(record)
    weights = experiments.weights(list(SHARES))
    groups = _readable(_groups_of(experiments, record["id"], list(GOLDEN_UNITS), ids), known)
    wrong = []
    for unit, group in groups.items():
        bucket = function.bucket(record["id"], unit)
        wanted = known[group_index(weights, bucket)]
        if not same_json(group, wanted):
            wrong.append(f"{unit!r}: bucket {bucket} -> group {wanted}, got {group}")
    title = f"groups differ from what {declared} selects"
    if wrong and not experiments.profile.declares(HASH_KEY):  # the production convention
        conventions.differs(ids, HASH_KEY, declared, "; ".join(wrong[:6]), title, None)
        return
    wanted = "every golden unit in the group of its bucket"
    expect(not wrong, ids, title, wanted, "; ".join(wrong[:6]))


@requirement("EXP-ROUND-ROBIN-BALANCED")
def test_round_robin_spreads_units_evenly(experiments: Experiments) -> None:
    """Two round-robin experiments (2 and 3 groups) see the same units, one after the other."""
    ids = ("EXP-ROUND-ROBIN-BALANCED",)
    modes = experiments.profile.experiments.assignment_modes
    if "roundRobin" not in modes:  # the specification does not name round-robin
        raise NotApplicable(MODES_KEY, "[" + ", ".join(modes) + "]")
    if experiments.profile.declares(MODES_KEY):
        _judge_round_robin(experiments, ids)
        return
    try:  # the production convention: a departure is a drop-in difference
        _judge_round_robin(experiments, ids)
    except (ContractViolation, SetupRefused) as error:
        title = error.title if isinstance(error, ContractViolation) else error.reason
        conventions.differs(ids, MODES_KEY, list(modes), error.received, title, None)


def _judge_round_robin(experiments: Experiments, ids: tuple[str, ...]) -> None:
    records = []
    for size in ROUND_ROBIN_SIZES:
        base = experiments.base(BASE, f"rr{size}-base")
        groups = experiments.groups([_marker(i) for i in range(size)], mode="roundRobin")
        records.append(experiments.create_ok(f"rr{size}", base["id"], groups, mode="roundRobin"))
    seen: dict[int, list[JsonValue]] = {record["id"]: [] for record in records}
    for n in range(ROUND_ROBIN_UNITS):
        view = experiments.unit_view(experiments.unit(f"rr{n}"))
        for experiment_id, assigned in seen.items():
            assigned.append(view.group_of(experiment_id))
    uneven = []
    for record in records:
        known = group_ids(record)
        if any(group not in known for group in seen[record["id"]]):
            raise NotMeasurable(
                "a unit's metadata named no group of the experiment (SDK-BOOTSTRAP-ID-METADATA)"
            )
        sizes = Counter(seen[record["id"]])
        spread = [sizes.get(g, 0) for g in known]
        if max(spread) - min(spread) > 1:
            uneven.append(f"{len(known)} groups: sizes {spread}")
    expect(
        not uneven,
        ids,
        "round robin left the groups uneven",
        f"group sizes differing by at most one over {ROUND_ROBIN_UNITS} units",
        "; ".join(uneven),
    )
