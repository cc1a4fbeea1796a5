"""Client requirements in every report format: their own subject, verdict and evidence; a report
written before the subject field (schema 1.1) still validates and reads as server rules."""

from __future__ import annotations

import dataclasses
import json

from conformance.catalogue.requirements import load_catalogue
from conformance.report.allure_labels import labels_for
from conformance.report.html_report import render as render_html
from conformance.report.json_report import from_json, to_json
from conformance.report.junit_report import render as render_junit
from conformance.report.markdown_report import render as render_markdown
from conformance.report.model import SCHEMA_VERSION, Report, RequirementResult
from conformance.report.report_schema import schema_errors
from conformance.verdict.evidence import Evidence
from conformance.verdict.outcome import Outcome
from tests.support import sample_reports as samples

CLIENT_ID = "POLL-CLIENT-HONOUR-HINT"


def client_report() -> Report:
    base = samples.SAMPLES["not-conformant"]()
    evidence = Evidence(
        test_id="stages/client/test_client.py::test_client_scenario[hint]",
        requirement_ids=(CLIENT_ID,),
        title="the client polled faster than the hint allows",
        expected="every wait >= 1.400s",
        received="3 of 12 waits shorter",
        curl=None,
    )
    client = RequirementResult(
        id=CLIENT_ID,
        section="4.3",
        text="While responses carry polling, a client waits at least intervalSeconds.",
        basis="stated",
        outcome=Outcome.FAIL,
        tests=(evidence.test_id,),
        evidence=(evidence,),
        subject="client",
    )
    return dataclasses.replace(base, requirements=(*base.requirements, client))


def test_json_carries_the_subject_and_validates() -> None:
    data = to_json(client_report())
    assert data["schema_version"] == SCHEMA_VERSION == "1.5"
    subjects = {r["id"]: r["subject"] for r in data["requirements"]}
    assert subjects[CLIENT_ID] == "client"
    assert set(subjects.values()) == {"server", "client"}
    assert schema_errors(json.loads(json.dumps(data))) == []
    assert from_json(data).requirements[-1].subject == "client"


def test_a_1_1_report_without_subjects_still_validates_and_reads_as_server() -> None:
    data = to_json(samples.SAMPLES["not-conformant"]())
    data["schema_version"] = "1.1"
    for requirement in data["requirements"]:
        del requirement["subject"]
    assert schema_errors(data) == []
    assert {r.subject for r in from_json(data).requirements} == {"server"}


def test_markdown_html_and_junit_name_the_client_rule() -> None:
    report = client_report()
    assert f"### {CLIENT_ID} (§4.3, client rule)" in render_markdown(report)
    html = render_html(report)
    assert 'data-subject="client"' in html and "(client rule)" in html
    junit = render_junit(report)
    assert '<property name="subject" value="client"' in junit


def test_allure_labels_a_client_rule_with_its_subject() -> None:
    catalogue = {r.id: r for r in load_catalogue()}
    assert ("subject", "client") in labels_for([CLIENT_ID], catalogue)
    assert not any(kind == "subject" for kind, _ in labels_for(["VER-PATH-V2"], catalogue))


def test_a_declared_objective_validates_and_reads_back() -> None:
    """1.3: the load stage's declared objectives carry basis "declared"."""
    data = to_json(client_report())
    data["requirements"][0]["basis"] = "declared"
    assert schema_errors(json.loads(json.dumps(data))) == []
    assert from_json(data).requirements[0].basis == "declared"
    data["requirements"][0]["basis"] = "promised"
    assert schema_errors(json.loads(json.dumps(data))) != []
