"""The catalogue's bases: every inferred entry names what it rests on (a spec quote or an RFC),
every convention entry names its convention, and a key that declares a convention exists."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources

import pytest

from conformance.catalogue.requirements import Requirement, load_catalogue, parse_catalogue

# The entries the audit (section 4a) found resting only on a production convention.
WHOLE_CONVENTIONS = {
    "LIMIT-RATE-429-RETRY-AFTER",
    "LIMIT-RATE-RECOVERS",
    "ERR-BODY-JSON",
    "EXP-REQUIRED-PROPERTIES-GATE",
    "EXP-SNAPSHOT-REQUIRED-PROPERTIES-UNION",
    "EXP-TERMINATE-LEAVES-SNAPSHOT",
    "EXP-TERMINATE-FINAL",
    "POLL-CLIENT-RETRY-AFTER",
    "POLL-CLIENT-BACKOFF",
}


def basis_problems(requirements: list[Requirement]) -> list[str]:
    problems = []
    for r in requirements:
        if r.basis == "inferred" and not (r.spec_quote or r.rfc):
            problems.append(f"{r.id}: inferred, but names neither a spec quote nor an RFC")
        if r.basis == "convention" and not r.convention:
            problems.append(f"{r.id}: a convention that does not say which")
        if r.basis != "convention" and (r.convention or r.declared_by):
            problems.append(f"{r.id}: names a convention but its basis is {r.basis}")
    return problems


def _profile_keys() -> set[str]:
    text = resources.files("conformance.profile").joinpath("profile.schema.json").read_text()
    found: set[str] = set()

    def walk(node: dict[str, object], prefix: str) -> None:
        for name, sub in node.get("properties", {}).items():  # type: ignore[attr-defined]
            found.add(prefix + name)
            if isinstance(sub, dict):
                walk(sub, prefix + name + ".")

    walk(json.loads(text), "")
    return found


def test_every_inferred_entry_names_its_basis() -> None:
    assert basis_problems(list(load_catalogue())) == []


def test_an_inferred_entry_without_a_basis_is_caught() -> None:
    entry = load_catalogue()["ERR-NO-SERVER-ERROR"]
    assert basis_problems([replace(entry, rfc=None, spec_quote=None)])
    assert basis_problems([replace(entry, rfc=None, spec_quote="x")]) == []


def test_a_convention_without_its_phrase_is_caught() -> None:
    entry = load_catalogue()["LIMIT-RATE-429-RETRY-AFTER"]
    assert basis_problems([replace(entry, convention=None)])
    assert basis_problems([replace(entry, basis="inferred")])  # a phrase on a non-convention


def test_the_audited_conventions_are_labelled_so() -> None:
    catalogue = load_catalogue()
    assert {r.id for r in catalogue if r.id in WHOLE_CONVENTIONS and r.basis == "convention"} == (
        WHOLE_CONVENTIONS
    )


def test_every_declaring_key_is_a_profile_key() -> None:
    keys = _profile_keys()
    assert [(r.id, k) for r in load_catalogue() for k in r.declared_by if k not in keys] == []


def _entry(**rests_on: object) -> bytes:
    body = {
        "catalogue_version": 1,
        "default_stages": {"server": ["scenarios"], "client": ["client"]},
        "requirements": [
            {
                "id": "ERR-PLANTED-ENTRY",
                "section": "7",
                "title": "A planted entry",
                "text": "A planted entry for the schema.",
                "basis": rests_on.pop("basis"),
                "operations": ["getSdkStatus"],
                "scope": "core",
                "subject": "server",
                "rests_on": {"keys": [], **rests_on},
            }
        ],
    }
    return json.dumps(body).encode()


@pytest.mark.parametrize(
    ("fields", "refused"),
    [
        ({"basis": "inferred"}, True),
        ({"basis": "inferred", "rfc": "RFC 9110 13.1.2"}, False),
        ({"basis": "inferred", "rfc": "section 3"}, True),
        ({"basis": "convention"}, True),
        ({"basis": "convention", "convention": "every 429 carries Retry-After"}, False),
        ({"basis": "stated", "spec": "abc", "convention": "every 429 carries it"}, True),
    ],
)
def test_the_schema_holds_the_bases(fields: dict[str, object], refused: bool) -> None:
    if refused:
        with pytest.raises(ValueError, match="ERR-PLANTED-ENTRY"):
            parse_catalogue(_entry(**fields))
    else:
        assert parse_catalogue(_entry(**fields)).ids() == ("ERR-PLANTED-ENTRY",)
