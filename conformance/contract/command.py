"""``conformance contract``: the OpenAPI contract in a target's terms, written as YAML.

The contract specialised by a target profile (``conformance.contract.specialisation``): the
header, parameter and field names, statuses, enums and bounds the profile declares, each such
element marked with the key that filled it and the value used. By default only its interface
constraints (``conformance.contract.levels``): what the specification says plus what the
profile declares; ``--level drop-in`` keeps the production conventions too (the document the
fuzz stage fuzzes, judging each failure by its level). For an implementer, a contract of their
own server to generate clients or stubs from. Without ``--profile``: every key at its default.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from conformance.contract.document import load_contract
from conformance.contract.levels import DOUBT, DROP_IN, INTERFACE, interface_document, level_counts
from conformance.contract.specialisation import default_profile, specialise
from conformance.profile import load, parse

if TYPE_CHECKING:
    from conformance.profile import Profile

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
# What a profile must hold to load, for a profile written only to declare names and statuses.
PLACEHOLDERS: dict[str, str] = {
    "credentials": 'credentials: {pat: "-", sdk_keys: [{key: "-", environments: [development]}]}',
    "project": "project: {application_id: 1, environments: {development: 1}}",
}
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
    profile = default_profile() if options.profile is None else _load(Path(options.profile))
    document = specialise(load_contract(), profile)
    counts = level_counts(document, profile)
    if options.level == INTERFACE:
        document = interface_document(document, profile)
    text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    print(
        f"conformance: {sum(counts.values())} constraints (per operation): "
        f"{counts[INTERFACE]} interface, {counts[DROP_IN]} drop-in"
        f"{' (left out)' if options.level == INTERFACE else ''}, {counts[DOUBT]} inferred",
        file=sys.stderr,
    )
    if options.output is None:
        sys.stdout.write(text)
    else:
        options.output.write_text(text, "utf-8")
        print(f"conformance: contract written to {options.output}", file=sys.stderr)
    return 0


def _load(path: Path) -> Profile:
    """The profile at ``path``; credentials and project, when absent, get placeholders (added
    after its last line, so every error still names the key and the line of the file)."""

    try:
        text = path.read_text("utf-8")
        data = yaml.safe_load(text)
    except (OSError, yaml.YAMLError):
        return load(path)  # the loader's own error: not found, unreadable, not YAML
    if not isinstance(data, dict):
        return load(path)
    missing = [line for key, line in PLACEHOLDERS.items() if key not in data]
    if not missing:
        return load(path)
    return parse(text.rstrip("\n") + "\n" + "\n".join(missing) + "\n", str(path), path)
