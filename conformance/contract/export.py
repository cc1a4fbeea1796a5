"""The OpenAPI contract in a target's terms, written as YAML (``conformance contract``).

The contract specialised by a target profile (``conformance.contract.specialisation``): the
header, parameter and field names, statuses, enums and bounds the profile declares, each such
element marked with the key that filled it and the value used. By default only its interface
constraints (``conformance.contract.levels``): what the specification says plus what the
profile declares; ``--level drop-in`` keeps the production conventions too (the document the
fuzz stage fuzzes, judging each failure by its level). For an implementer, a contract of their
own server to generate clients or stubs from. Without ``--profile``: every key at its default.
"""

from __future__ import annotations

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

# What a profile must hold to load, for a profile written only to declare names and statuses.
UNSET_CREDENTIAL = "-"  # a credential the environment does not set: never sent by this command
PLACEHOLDERS: dict[str, str] = {
    "credentials": 'credentials: {pat: "-", sdk_keys: [{key: "-", environments: [development]}]}',
    "project": "project: {application_id: 1, environments: {development: 1}}",
}


def write_contract(profile_path: str | None, level: str, output: Path | None) -> int:
    """``conformance contract``: the document at ``level`` to ``output`` (None: standard output),
    its constraint counts to standard error."""
    profile = default_profile() if profile_path is None else _load(Path(profile_path))
    document = specialise(load_contract(), profile)
    counts = level_counts(document, profile)
    if level == INTERFACE:
        document = interface_document(document, profile)
    text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    print(
        f"conformance: {sum(counts.values())} constraints (per operation): "
        f"{counts[INTERFACE]} interface, {counts[DROP_IN]} drop-in"
        f"{' (left out)' if level == INTERFACE else ''}, {counts[DOUBT]} inferred",
        file=sys.stderr,
    )
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, "utf-8")
        print(f"conformance: contract written to {output}", file=sys.stderr)
    return 0


def _load(path: Path) -> Profile:
    """The profile at ``path``; credentials and project, when absent, get placeholders (added
    after its last line, so every error still names the key and the line of the file), and a
    credential's unset environment reference reads as a placeholder (nothing is sent)."""

    try:
        text = path.read_text("utf-8")
        data = yaml.safe_load(text)
    except (OSError, yaml.YAMLError):
        return load(path)  # the loader's own error: not found, unreadable, not YAML
    if not isinstance(data, dict):
        return load(path)
    missing = [line for key, line in PLACEHOLDERS.items() if key not in data]
    if missing:
        text = text.rstrip("\n") + "\n" + "\n".join(missing) + "\n"
    return parse(text, str(path), path, unset_credentials=UNSET_CREDENTIAL)
