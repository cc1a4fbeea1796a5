"""The fuzz stage's pytest plugin: settings, items, the session's run, records, details.

Registered by ``conformance.run.plugin`` for a run that collects the fuzz stage; its options are
declared with the stage (``conformance.registry.fuzz``).

- ``--fuzz-tier`` / ``--fuzz-seed`` choose the budget (``settings_of``, kept in the config's
  stash), and the target profile (the run's hand-over) gives the terms the contract is fuzzed in.
- Items are declared, not recovered: a fuzz test names its family with the ``fuzz_family``
  marker, and ``pytest_generate_tests`` gives it one ``pytest.param`` per operation (as the
  profile names it), each marked with its ``FuzzItem`` and the ``requirement`` ids it speaks for;
  the stateful test carries its ``fuzz_item`` marker itself. ``fuzz_item`` reads the marker.
- ``--fuzz-corpus DIR``: the failure corpus (else the profile's ``fuzz.corpus``, else
  ``<report dir>/fuzz-corpus``).
- ``fuzz_campaign``: the session's ``FuzzCampaign`` (provisions real objects first, replays the
  corpus once per run before any case is generated, terminates the experiments it created at the
  end).
- Records: a fuzz item's record (per requirement: pass, fail, spec-doubt, not measurable;
  ``results``) replaces the generic one through the wire's ``pytest_conformance_records`` hook,
  which answers records only; the replay's record (regressions fail their requirements) rides
  on the first fuzz report of the replaying process.
- After each fuzz item's call is reported (``pytest_runtest_makereport``, ``keep_and_publish``)
  its new real failures are written to the corpus and the stage's cumulative details are
  published (``conformance.session.wire``); ``stage_details`` merges the workers' on the
  controller.
"""

from __future__ import annotations

import dataclasses
import gc
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from conformance.contract.document import operations
from conformance.contract.specialisation import default_profile
from conformance.registry.declaration import Details
from conformance.registry.fuzz_budget import DEFAULT_SEED, DEFAULT_TIER, Tier, tier
from conformance.session import wire
from conformance.session.state import DEFAULT_REPORT_DIR, RUN_ID, target_of
from conformance.stages.fuzz import results
from conformance.stages.fuzz.aiming import FuzzTarget
from conformance.stages.fuzz.answers import FuzzCampaign
from conformance.stages.fuzz.auth import auth_requirements
from conformance.stages.fuzz.corpus import DIRECTORY_NAME
from conformance.stages.fuzz.corpus.capture import corpus_cases
from conformance.stages.fuzz.corpus.keeping import CorpusKeeper
from conformance.stages.fuzz.corpus.replay import forget, replay_once
from conformance.stages.fuzz.response_checks import operation_requirements
from conformance.stages.fuzz.schema import HTTP_METHODS, contract_document
from conformance.stages.fuzz.settings import profile_corpus
from conformance.stages.fuzz.summary import merge_details, summary_lines
from conformance.target.resolution import Target
from conformance.traffic.client import Client

if TYPE_CHECKING:
    from conformance.profile import Profile

STATEFUL_REQUIREMENTS = (
    "ERR-NO-SERVER-ERROR",
    "ERR-BODY-SHAPE",
    "SDK-STATUS-ETAG-EQUALS-HASH",
    "SDK-STATUS-304-NO-BODY",
)


@dataclass(frozen=True)
class FuzzSettings:
    tier: Tier
    seed: int
    corpus: Path | None = None  # --fuzz-corpus; None: the profile's, else the default
    config: pytest.Config | None = None  # whose hand-over holds the target's profile

    @property
    def profile(self) -> Profile:
        """The target profile whose terms the contract is fuzzed in (read when collecting): the
        run's (``conformance.run.handover``), else the defaults (the embedded server's)."""
        target = target_of(self.config) if self.config is not None else None
        return target.profile if target is not None else default_profile()


SETTINGS = pytest.StashKey[FuzzSettings]()
RUN = pytest.StashKey[FuzzCampaign]()
CORPUS = pytest.StashKey[CorpusKeeper]()


def settings_of(config: pytest.Config) -> FuzzSettings:
    """Tier and seed of this session (defaults when the plugin's options were not given)."""
    return config.stash.get(SETTINGS, None) or FuzzSettings(tier(DEFAULT_TIER), DEFAULT_SEED)


def pytest_configure(config: pytest.Config) -> None:
    chosen = tier(config.getoption("fuzz_tier"))
    examples = config.getoption("fuzz_max_examples")
    if examples is not None:
        chosen = dataclasses.replace(chosen, max_examples=int(examples))
    given = config.getoption("fuzz_corpus", None)
    config.stash[SETTINGS] = FuzzSettings(
        chosen, int(config.getoption("fuzz_seed")), Path(given) if given else None, config
    )
    config.addinivalue_line(
        "markers", "fuzz_family(kind): a fuzz test with one item per operation (valid, auth)"
    )
    config.addinivalue_line("markers", "fuzz_item(item): the FuzzItem a fuzz test item declares")


def corpus_directory(config: pytest.Config, profile: Profile) -> Path:
    """``--fuzz-corpus``, else the profile's ``fuzz.corpus`` (relative to the profile file),
    else ``fuzz-corpus`` under the run's report directory."""

    given = settings_of(config).corpus
    if given is not None:
        return given
    declared = profile_corpus(profile)
    if declared is not None:
        return declared
    return Path(config.getoption("report_dir", None) or DEFAULT_REPORT_DIR) / DIRECTORY_NAME


# ------------------------------------------------------------------ items


VALID, AUTH, STATEFUL = "valid", "auth", "stateful"  # the families of fuzz items


@dataclass(frozen=True)
class FuzzItem:
    """What one collected fuzz item tests."""

    kind: str  # VALID | AUTH | STATEFUL
    operation_id: str | None  # None: every operation (stateful)
    requirement_ids: tuple[str, ...]


STATEFUL_ITEM = FuzzItem(STATEFUL, None, STATEFUL_REQUIREMENTS)


def stage_requirements() -> frozenset[str]:
    """Every requirement the fuzz stage speaks for: the scope of a run of this stage alone."""

    ids = set(STATEFUL_REQUIREMENTS)
    for operation in operations():
        ids |= set(auth_requirements(operation.path))
        ids |= set(operation_requirements(operation.operation_id))
    return frozenset(ids)


def fuzzed_operations(profile: Profile) -> list[tuple[str, str]]:
    """(operationId, "<METHOD> <path>") of every operation, in the terms ``profile`` declares."""

    found = []
    paths = contract_document(profile, inferred_links=False).get("paths", {})
    for path, item in paths.items() if isinstance(paths, dict) else ():
        for method in HTTP_METHODS:
            operation = item.get(method) if isinstance(item, dict) else None
            if isinstance(operation, dict):
                found.append((str(operation["operationId"]), f"{method.upper()} {path}"))
    return found


def operation_item(kind: str, operation_id: str) -> FuzzItem | None:
    """The item of ``kind`` (VALID or AUTH) for one operation (None: not in the contract)."""

    path = {op.operation_id: op.path for op in operations()}.get(operation_id)
    if path is None:
        return None
    if kind == AUTH:
        return FuzzItem(AUTH, operation_id, auth_requirements(path))
    return FuzzItem(VALID, operation_id, operation_requirements(operation_id))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One item per operation for a test of a ``fuzz_family``, each declared: its id the
    operation as the target's profile names it, its marks the ``FuzzItem`` and requirements."""

    family = metafunc.definition.get_closest_marker("fuzz_family")
    if family is None:
        return
    kind = str(family.args[0])
    params = []
    for operation_id, label in fuzzed_operations(settings_of(metafunc.config).profile):
        described = operation_item(kind, operation_id)
        marks = (
            []
            if described is None
            else [
                pytest.mark.fuzz_item(described),
                pytest.mark.requirement(*described.requirement_ids),
            ]
        )
        params.append(pytest.param(described, id=label, marks=marks))
    metafunc.parametrize("fuzz_item", params)


def fuzz_item(item: pytest.Item) -> FuzzItem | None:
    """The ``FuzzItem`` a collected item declares (None: no fuzz item)."""

    marker = item.get_closest_marker("fuzz_item")
    return None if marker is None else marker.args[0]


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection built (the contract, every item) out of the garbage collector's
    sight: each full collection during fuzzing would walk it again."""
    if any(fuzz_item(item) is not None for item in session.items):
        gc.collect()
        gc.freeze()


# ------------------------------------------------------------------ fixture


@pytest.fixture(scope="session")
def fuzz_campaign(
    request: pytest.FixtureRequest, target: Target, run_prefix: str
) -> Iterator[FuzzCampaign]:
    """The session's ``FuzzCampaign`` against ``target``; the experiments it created are
    terminated after it."""

    settings = settings_of(request.config)
    fuzz_target = FuzzTarget(target.base_url, target.profile, run_prefix)
    # One client creates the objects and cleans up after (a new one is costly to set up).
    client = Client(target.base_url, target.profile, run_prefix=run_prefix)
    fuzz_target.provision(client)
    run = FuzzCampaign(settings.tier, settings.seed, fuzz_target)
    # Replay first: the corpus is re-sent before this process generates any case.
    started = time.monotonic()
    kept = CorpusKeeper(corpus_directory(request.config, target.profile))
    kept.replayed, kept.owner = replay_once(run, kept.directory, request.config.stash[RUN_ID])
    kept.replay_seconds = time.monotonic() - started
    request.config.stash[CORPUS] = kept
    request.config.stash[RUN] = run
    try:
        yield run
    finally:
        try:
            fuzz_target.cleanup(client)
        except Exception as error:  # clean-up must not hide results
            fuzz_target.objects.problems.append(f"cleanup: {type(error).__name__}")
        client.close()
        run.session.close()


# ------------------------------------------------------------------ records, corpus, details


# The tallies each family's items count in (``answers.FuzzCampaign.tally``).
MODES: dict[str, tuple[str, ...]] = {
    VALID: ("valid",),
    AUTH: ("missing", "wrong"),
    STATEFUL: ("stateful",),
}


def pytest_conformance_records(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> list[wire.RecordJson] | None:
    """A fuzz item's records (``conformance.session.wire``): per requirement, from what the
    fuzzing found (``results.record_for``), plus the corpus replay's on the first report of the
    replaying process."""
    described = fuzz_item(item)
    run = item.config.stash.get(RUN, None)
    if described is None or run is None or report.when != "call":
        return None
    error = call.excinfo.value if call.excinfo is not None else None
    record = results.record_for(
        run,
        item.nodeid,
        described.operation_id,
        MODES[described.kind],
        described.requirement_ids,
        report.duration,
        error,
    )
    records = [record.to_json()]
    kept = item.config.stash.get(CORPUS, None)
    if kept is not None:
        replayed = None if kept.reported or not kept.owner else kept.record()
        if replayed is not None:
            records.append(replayed.to_json())
        kept.reported = True
    return records


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """After a fuzz item's call is reported: its new failures kept, the details published."""
    report = yield
    if report.when == "call":
        keep_and_publish(item)
    return report


def keep_and_publish(item: pytest.Item) -> None:
    """Write the new real failures of a fuzz item to the corpus (``corpus.keeping``), and
    publish the stage's cumulative details again (``conformance.session.wire.publish``)."""
    described = fuzz_item(item)
    run = item.config.stash.get(RUN, None)
    if described is None or run is None:
        return
    kept = item.config.stash.get(CORPUS, None)
    if kept is not None:
        found_by = {"tier": run.tier.name, "seed": run.seed}
        operation, kinds = described.operation_id, MODES[described.kind]
        kept.keep(corpus_cases(run.failures, run.target, found_by, operation, kinds))
    details = results.details(run, None if kept is None else kept.details())
    details["worker"] = wire.this_process()
    wire.publish(item.config, "fuzz", details)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_STARTED] = time.monotonic()


_STARTED = pytest.StashKey[float]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On the controller: a regression fails the session; the replay's shared files go."""
    config = session.config
    if hasattr(config, "workerinput"):
        return
    details = stage_details(config) or {}
    regressions = (details.get("corpus") or {}).get("regressions")
    if regressions and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

    run_id = config.stash.get(RUN_ID, None)
    if run_id is not None:
        forget(run_id)


def stage_details(config: pytest.Config) -> Details | None:
    """The fuzz stage summary of this session, merged across workers (None: no fuzz test ran)."""

    per_worker = wire.published(config).get("fuzz", {})
    return merge_details(list(per_worker.values())) if per_worker else None


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    details = stage_details(config)
    if not details:
        return

    head, *rest = summary_lines(details)
    terminalreporter.write_sep("-", head)
    for line in rest:
        terminalreporter.write_line(line)
