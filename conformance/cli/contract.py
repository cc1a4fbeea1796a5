"""``conformance contract``: its arguments, handed to ``conformance.contract.export``."""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.contract.export import write_contract
from conformance.contract.levels import DROP_IN, INTERFACE

DESCRIPTION = """\
Write the OpenAPI 3.1 contract specialised by a target profile: the header, query parameter and
body field names, success and error statuses, payload names, enums and bounds the profile
declares replace the contract's defaults. Each element a profile key fills keeps x-profile-key
and gains x-profile-value (the value used); one whose value differs from the default is marked
x-declared: true. By default the document holds the interface constraints only: what the
specification says and what the profile declares (a key it writes, or conventions: production);
a production convention it does not declare (a key's default, or the reference's structure no
key expresses: an error code's spelling, a field the specification does not show) is left out.
--level drop-in writes them too: the document the fuzz stage generates its requests from. The
profile needs no credentials or project for this command.
"""
EXAMPLES = """\
examples:
  conformance contract --profile target.yaml --output my-server.openapi.yaml
  conformance contract --profile target.yaml | grep -n x-profile-value
  conformance contract            # the contract with every default: the reference server's
  conformance contract --profile target.yaml --level drop-in   # with the production conventions
"""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "contract",
        help="write the OpenAPI contract in the terms a target profile declares",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="the target profile (YAML); default: every key at its default",
    )
    parser.add_argument(
        "--level",
        choices=(INTERFACE, DROP_IN),
        default=INTERFACE,
        help="interface: the constraints the target must meet (default); drop-in: also the "
        "production conventions its profile does not declare",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        type=Path,
        help="where to write the YAML document (default: standard output)",
    )


def main(options: argparse.Namespace) -> int:
    return write_contract(options.profile, options.level, options.output)
