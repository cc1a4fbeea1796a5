"""No secret from the profile, or passed to the writer, survives into any file the writer writes;
the spelling table, and the pieces ``conformance.redaction.run_outputs`` is built from."""

from __future__ import annotations

import html
import json
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import pytest

from conformance.redaction.placeholders import Redactor, spelled
from conformance.redaction.report_files import profile_secrets, redact, redact_profile
from conformance.redaction.run_outputs import redact_files, scrub
from conformance.report.model import Report, StageSummary
from conformance.report.writer import FORMATS, write_reports
from conformance.verdict.evidence import Evidence, Exchange
from tests.support import sample_reports as samples

PAT = "svc_pat_Zq8/+rT\"<&>'x9"  # characters every escaper changes
SDK_KEY = "svc_pk_0123456789abcdefSECRET"
LEGACY_KEY = "sdk_legacyKEY42"
EXTRA = "session-cookie-value-77"  # not in the profile: passed to the writer only
SECRETS = (PAT, SDK_KEY, LEGACY_KEY, EXTRA)


def planted() -> Report:
    """The not-conformant sample with secrets in every place a careless client could put them."""
    report = samples.not_conformant()
    leak = Exchange(
        method="POST",
        url=f"http://127.0.0.1:8765/sdk/v2/status?key={quote(SDK_KEY, safe='')}&t={PAT}",
        request_headers={"Authorization": f"Bearer {PAT}", "authorization": SDK_KEY},
        request_body=json.dumps({"token": PAT, "key": SDK_KEY, "cookie": EXTRA}),
        status=401,
        response_headers={"set-cookie": f"s={EXTRA}", "x-echo": LEGACY_KEY},
        response_body=f"<p>bad key {html.escape(SDK_KEY)} for {html.escape(PAT)}</p>",
        elapsed_ms=3.0,
    )
    evidence = Evidence(
        test_id=f"test_auth[{LEGACY_KEY}]",
        requirement_ids=("VER-LEGACY-SDK-KEY",),
        title=f"key {LEGACY_KEY} refused",
        expected=f"200 for {LEGACY_KEY}",
        received=f"401 echoing {PAT}",
        curl=f"curl -H 'Authorization: Bearer {PAT}' -H 'authorization: {SDK_KEY}'",
        exchanges=(leak,),
    )
    requirements = tuple(
        replace(r, evidence=(*r.evidence, evidence), note=f"note {EXTRA}")
        if r.id == "CFG-PATCH-409-STALE"
        else r
        for r in report.requirements
    )
    profile = {
        "credentials": {
            "pat": PAT,
            "sdk_keys": [{"key": SDK_KEY, "environments": ["development"]}],
            "legacy_sdk_key": {"key": LEGACY_KEY, "environments": ["development", "production"]},
        },
        "project": {"application_id": 1},
    }
    stages = (*report.stages, StageSummary("fuzz-extra", 1, 0.1, {"auth": PAT}))
    return replace(
        report,
        requirements=requirements,
        profile=profile,
        stages=stages,
        target_url=f"http://127.0.0.1:8765/?k={SDK_KEY}",
    )


def spellings(secret: str) -> set[str]:
    return {
        secret,
        json.dumps(secret)[1:-1],
        html.escape(secret),
        html.escape(secret, quote=False),
        quote(secret, safe=""),
    }


def test_planted_report_really_holds_the_secrets() -> None:
    report = planted()
    evidence = next(r for r in report.requirements if r.id == "CFG-PATCH-409-STALE").evidence[-1]
    assert PAT in (evidence.curl or "") and SDK_KEY in (evidence.curl or "")
    assert LEGACY_KEY in evidence.title
    assert EXTRA in (evidence.exchanges[0].request_body or "")
    assert report.profile["credentials"]["pat"] == PAT


def test_no_secret_in_any_written_file(tmp_path: Path) -> None:
    written = write_reports(planted(), tmp_path, formats=FORMATS, secrets=[EXTRA])
    assert sorted(p.name for p in written) == sorted(name for name, _m, _f in FORMATS.values())
    for path in written:
        content = path.read_text(encoding="utf-8")
        for secret in SECRETS:
            for form in spellings(secret):
                assert form not in content, f"{path.name} leaks a secret"
        assert "***" in content, f"{path.name} shows no mask at all"


def test_redaction_keeps_the_rest(tmp_path: Path) -> None:
    write_reports(planted(), tmp_path, formats=["json"], secrets=[EXTRA])
    data = json.loads((tmp_path / "conformance.json").read_text(encoding="utf-8"))
    assert data["profile"]["credentials"]["sdk_keys"][0] == {
        "key": "***",
        "environments": ["development"],
    }
    assert data["profile"]["project"] == {"application_id": 1}
    failed = next(r for r in data["requirements"] if r["id"] == "CFG-PATCH-409-STALE")
    assert failed["evidence"][-1]["curl"] == (
        "curl -H 'Authorization: Bearer ***' -H 'authorization: ***'"
    )


def test_profile_secrets_and_masking() -> None:
    profile = planted().profile
    assert profile_secrets(profile) == sorted([PAT, SDK_KEY, LEGACY_KEY])
    masked = redact_profile(profile)
    assert masked["credentials"]["pat"] == "***"
    assert masked["credentials"]["legacy_sdk_key"]["environments"] == ["development", "production"]
    assert profile_secrets({"credentials": {"pat": "${RCES_PAT}", "x": "<redacted>"}}) == []


@pytest.mark.parametrize(
    ("text", "secrets", "expected"),
    [
        ("a abc abcd", ["abcd", "abc"], "a *** ***"),  # longest first: no "***d"
        ("x=%2Fk%2B", ["/k+"], "x=***"),
        ("nothing here", ["", "zz"], "nothing here"),
        # Python repr, as a traceback's local variables show it (both quote styles)
        ("""headers = {'a': 'Bearer k"\\'x'}""", ["k\"'x"], "headers = {'a': 'Bearer ***'}"),
        ("""v = "it's\\x7f\"""", ["it's\x7f"], 'v = "***"'),  # repr's own escape, not JSON's
        # XML attribute (pytest's JUnit XML): &quot; but a raw apostrophe
        ('<property value="k&quot;\'x"/>', ["k\"'x"], '<property value="***"/>'),
        # numeric entities (markupsafe), path-style URL quoting (a raw slash), form quoting
        ("k&#34;&#39;x k/%2B k%20", ["k\"'x", "k/+", "k "], "*** *** ***"),
        # two escapes deep: a repr inside a JSON string
        ('"trace": "pat = \'k\\\\\\\\x\'"', ["k\\x"], '"trace": "pat = \'***\'"'),
        # cut short by a truncating repr, at either end of an ellipsis
        (
            "Target(pat='svc_pat_0123456789...ial')",
            ["svc_pat_0123456789abcdef"],
            "Target(pat='***...ial')",
        ),
        ("x=...89abcdef'", ["svc_pat_0123456789abcdef"], "x=...***'"),
        (
            "see svc_\u2026 and abcde...",
            ["svc_pat_0123456789abcdef", "abcdefgh"],
            "see svc_\u2026 and abcde...",
        ),
    ],
)
def test_redact_text(text: str, secrets: list[str], expected: str) -> None:
    assert redact(text, secrets) == expected


def test_every_spelling_of_the_table_is_redacted() -> None:
    secret = PAT + " /x"
    for form, _ in spelled([(secret, "")]):
        assert redact(f"<{form}>", [secret]) == "<***>", form


def test_scrub_changes_a_traceback_in_place_and_keeps_its_shape() -> None:
    from _pytest._code.code import ReprEntry, ReprFileLocation, ReprLocals, ReprTraceback

    entry = ReprEntry(
        [f"E   refused {PAT}"],
        None,
        ReprLocals([f"headers = {{'a': {PAT!r}}}"]),
        ReprFileLocation("t.py", 3, f"Error: {PAT}"),
        "long",
    )
    traceback = ReprTraceback([entry], None, "long")
    assert scrub(traceback, Redactor({PAT: "$RCES_PAT"}).text) is traceback
    assert entry.lines == ["E   refused $RCES_PAT"]
    assert entry.reprlocals is not None and PAT not in entry.reprlocals.lines[0]
    assert entry.reprfileloc is not None and entry.reprfileloc.message == "Error: $RCES_PAT"


def test_redact_files_rewrites_only_files_holding_a_secret(tmp_path: Path) -> None:
    clean = tmp_path / "clean.txt"
    clean.write_text("nothing", encoding="utf-8")
    leaky = tmp_path / "deep" / "result.json"
    leaky.parent.mkdir()
    leaky.write_bytes(b"\xff\x00" + json.dumps({"trace": repr(PAT)}).encode())
    changed = redact_files([tmp_path], Redactor({PAT: "***"}))
    assert changed == [leaky]
    assert leaky.read_bytes() == b"\xff\x00" + json.dumps({"trace": "'***'"}).encode()
    assert clean.read_text(encoding="utf-8") == "nothing"
