"""``conformance profile draft``: its arguments, handed to ``conformance.target.draft``."""

from __future__ import annotations

import argparse

from conformance.target import draft_openapi
from conformance.target.draft import write_draft


def add_parser(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    profile = subcommands.add_parser("profile", help="target profile tools: draft")
    tools = profile.add_subparsers(dest="profile_command", metavar="TOOL", required=True)
    draft = tools.add_parser(
        "draft",
        help="probe a running target and write a draft profile to confirm",
        description="Probe a running target (a few creates, two throwaway experiments, a short "
        "bounded rate-limit drain on one instance id) and write a draft target profile with every "
        "gap choice its answers show, each marked observed and to be confirmed by a person. "
        "Not a verdict: a run judges the target by what the confirmed profile says.",
    )
    draft.add_argument("--base-url", metavar="URL", required=True, help="the target's base URL")
    pat = draft.add_mutually_exclusive_group(required=True)
    pat.add_argument(
        "--pat", metavar="TOKEN", help="personal access token (written as ${RCES_PAT})"
    )
    pat.add_argument("--pat-env", metavar="NAME", help="environment variable holding the PAT")
    draft.add_argument(
        "--sdk-key", metavar="KEY", action="append", default=[], help="an SDK key (repeatable)"
    )
    draft.add_argument(
        "--sdk-key-env",
        metavar="NAME",
        action="append",
        default=[],
        help="environment variable holding an SDK key (repeatable)",
    )
    draft.add_argument("--application-id", metavar="N", type=int, default=1, help="default: 1")
    draft.add_argument(
        "--environment",
        metavar="ALIAS=ID",
        action="append",
        default=[],
        help="an environment alias and its environment_id (repeatable; default: "
        "development=1 and production=2)",
    )
    draft.add_argument(
        "--openapi",
        metavar="URL",
        help="the target's OpenAPI (or Swagger) document, a URL or a path under --base-url "
        f"(default: the first of {', '.join(draft_openapi.COMMON_PATHS[:4])}, ... that answers)",
    )
    draft.add_argument(
        "--no-openapi", action="store_true", help="do not look for the target's document"
    )
    draft.add_argument(
        "--foreign-application-id",
        metavar="N",
        type=int,
        help="a project the token's owner cannot reach (probes the refusal's status)",
    )
    draft.add_argument(
        "--foreign-environment-id", metavar="N", type=int, help="an environment of that project"
    )
    foreign = draft.add_mutually_exclusive_group()
    foreign.add_argument("--foreign-sdk-key", metavar="KEY", help="an SDK key of another project")
    foreign.add_argument(
        "--foreign-sdk-key-env", metavar="NAME", help="environment variable holding that key"
    )
    draft.add_argument("--output", metavar="FILE", default="-", help="default: standard output")
    draft.add_argument(
        "--skip-rate-limit", action="store_true", help="do not drain a bucket to measure the limit"
    )


def main(options: argparse.Namespace) -> int:
    return write_draft(options)
