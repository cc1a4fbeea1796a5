"""``conformance fuzz``: the failure corpus by hand (``replay FILE``, ``prune``).

``conformance fuzz replay FILE`` re-sends one corpus case to a target (``--base-url`` with
``--profile``, or the embedded reference server) and prints each exchange, the verdict of the
case's check and a curl line: for the developer fixing it. ``conformance fuzz prune`` replays a
whole corpus and removes the cases that pass now (``--dry-run``: only say which). Both create the
objects a case refers to first (one configuration, one experiment) and terminate the experiments
afterwards, as a fuzz run does. Exit status: 0 when every case replayed passes (prune: after
removing them), 1 when one fails again, 2 for a usage error, 3 when a replay was inconclusive.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.errors import UsageError
from conformance.registry.fuzz_budget import DEFAULT_SEED, tier
from conformance.stages.fuzz import corpus
from conformance.stages.fuzz.aiming import FuzzTarget
from conformance.stages.fuzz.settings import profile_corpus
from conformance.target.resolution import new_run_id, preflight, resolve
from conformance.traffic.client import Client

if TYPE_CHECKING:  # schemathesis comes in only when a replay runs
    from conformance.stages.fuzz.answers import FuzzCampaign

EXIT_PASS, EXIT_FAILS, EXIT_USAGE, EXIT_INCONCLUSIVE = 0, 1, 2, 3
DEFAULT_CORPUS = Path("reports") / "fuzz-corpus"  # as a run with the default --report-dir


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "fuzz",
        help="the fuzz failure corpus: replay one case, prune the fixed ones",
        description="Work with the fuzz stage's failure corpus (docs/fuzzing.md).",
    )
    actions = parser.add_subparsers(dest="fuzz_command", metavar="ACTION", required=True)
    replay = actions.add_parser(
        "replay", help="re-send one corpus case; print the exchange, the verdict, a curl line"
    )
    replay.add_argument("file", type=Path, metavar="FILE", help="a corpus case (JSON)")
    prune = actions.add_parser("prune", help="replay a corpus and remove the cases that pass now")
    prune.add_argument(
        "--corpus",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"the corpus directory (default: the profile's fuzz.corpus, else {DEFAULT_CORPUS})",
    )
    prune.add_argument("--dry-run", action="store_true", help="say what would go, remove nothing")
    for action in (replay, prune):
        action.add_argument("--base-url", help="the target (default: the embedded server)")
        action.add_argument("--profile", help="the target profile (with --base-url)")


@contextmanager
def fuzz_campaign(options: argparse.Namespace) -> Iterator[FuzzCampaign]:
    """A ``FuzzCampaign`` against the chosen target, with the objects cases refer to created."""
    from conformance.stages.fuzz.answers import FuzzCampaign

    target = resolve(options.base_url, options.profile)
    try:
        preflight(target)
        prefix = f"cf-{new_run_id()}-replay"
        fuzz_target = FuzzTarget(target.base_url, target.profile, prefix)
        with Client(target.base_url, target.profile, run_prefix=prefix) as client:
            fuzz_target.provision(client)
            run = FuzzCampaign(tier("smoke"), DEFAULT_SEED, fuzz_target)
            try:
                yield run
            finally:
                fuzz_target.cleanup(client)
                run.session.close()
    finally:
        target.stop()


def main(options: argparse.Namespace) -> int:
    if options.fuzz_command == "replay":
        return replay_one(options)
    return prune(options)


def replay_one(options: argparse.Namespace) -> int:
    from conformance.stages.fuzz.corpus.replay import FAILS, FIXED, replay_case, replay_schema

    path: Path = options.file
    try:
        data = corpus.read(path)
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read {path}: {error}", "pass a file of a fuzz corpus") from None
    with fuzz_campaign(options) as run:
        result = replay_case(run, replay_schema(run), path, data)
    print(f"{path.name}: [{result.check}] {result.title} ({', '.join(result.requirement_ids)})")
    found = result.found
    print(
        f"found {found.get('date')} (tier {found.get('tier')}, seed {found.get('seed')}, "
        f"suite {found.get('suite_version')}): {found.get('received') or found.get('status')}"
    )
    for number, exchange in enumerate(result.exchanges, start=1):
        print(f"\n--- step {number}\n{exchange['request']}\n< {exchange['status']}")
        for name, value in exchange["headers"].items():
            print(f"< {name}: {value}")
        if exchange["body"]:
            print(f"< {exchange['body']}")
    said = {FAILS: "FAILS AGAIN", FIXED: "passes (fixed)"}.get(result.came_out, "inconclusive")
    print(f"\nverdict: {result.check} {said}" + (f"\n{result.reason}" if result.reason else ""))
    if result.other_failures:
        print(f"other checks failing on this answer: {', '.join(result.other_failures)}")
    print(f"\nreproduce (export the RCES_* variables first):\n{result.curl}")
    return {FAILS: EXIT_FAILS, FIXED: EXIT_PASS}.get(result.came_out, EXIT_INCONCLUSIVE)


def prune(options: argparse.Namespace) -> int:
    from conformance.stages.fuzz.corpus.replay import FAILS, FIXED, replay_corpus

    with fuzz_campaign(options) as run:
        directory = options.corpus or profile_corpus(run.target.profile) or DEFAULT_CORPUS
        if not corpus.files(directory):
            print(f"{directory}: no corpus cases")
            return EXIT_PASS
        results = replay_corpus(run, directory)
    for result in results:
        if result.came_out == FIXED:
            if not options.dry_run:
                (directory / result.path).unlink(missing_ok=True)
            print(f"{'would remove' if options.dry_run else 'removed'} {result.path} (fixed)")
        elif result.came_out == FAILS:
            print(f"kept {result.path}: fails again [{result.check}]")
        else:
            print(f"kept {result.path}: inconclusive ({result.reason})", file=sys.stderr)
    came_out = {result.came_out for result in results}
    if FAILS in came_out:
        return EXIT_FAILS
    return EXIT_INCONCLUSIVE if came_out - {FIXED} else EXIT_PASS
