"""``conformance profile draft`` against correct targets that serve their own OpenAPI document
(issue 39): the reference server, the two dialects and two correct-but-different servers of the
variant catalogue, each serving at ``/openapi.json`` the
contract in its own terms (``conformance contract --profile --level drop-in``, every ``x-`` mark
taken out, so the draft reads only what any framework's document holds). The draft must recover
at least 90% of the choices a document or an answer can show, header and body names included,
with no wrong value. ``pytest -s`` prints the figure per target.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from dialect2.profile import profile_of
from dialect2.server import Dialect2
from faulty.asgi import FaultyApp, Forward, Handler, Request, Response
from variants.catalogue import VARIANTS
from variants.harness import base_profile

from conformance.contract.document import load_contract
from conformance.contract.specialisation import specialise
from conformance.profile import parse
from conformance.profile.defaults import DEFAULTS
from conformance.target.draft import Foreign, Secret, draft
from dialect.profile import dialect_profile
from dialect.server import REFERENCE_OFF, Dialect
from dialect.test_draft_recovery import PAGING, SHOWN, score
from refserver.runner import RunningServer, start_server
from tests.support.profiles import merged

GOAL = 0.9
DOCUMENTED = (
    "headers.environment",
    "headers.instance_id",
    "headers.numeric",
    "headers.sdk_version",
    "headers.unit_id",
    "headers.unit_type",
    "headers.unit_context",
    "bodies.create.content",
    "bodies.create.private_keys",
    "bodies.create.comments",
    "bodies.patch.operations",
    "bodies.patch.key_order",
    "bodies.patch.base_hash_transport",
    "experiments.unit_types",
    "experiments.assignment_modes",
    "experiments.max_groups",
)


def without_marks(node: Any) -> Any:
    """The document with every vendor extension (``x-...``) taken out."""
    if isinstance(node, dict):
        return {k: without_marks(v) for k, v in node.items() if not str(k).startswith("x-")}
    if isinstance(node, list):
        return [without_marks(v) for v in node]
    return node


def serving_document(document: dict[str, Any], inner: Handler) -> Handler:
    body = json.dumps(document).encode()

    async def handler(request: Request, forward: Forward) -> Response:
        if request.method == "GET" and request.path == "/openapi.json":
            return Response(200, {"content-type": "application/json"}, body)
        return await inner(request, forward)

    return handler


async def _reference(request: Request, forward: Forward) -> Response:
    return await forward(request)


@dataclass(frozen=True)
class Served:
    base_url: str
    declared: dict[str, Any]


def _document_for(declared: dict[str, Any]) -> dict[str, Any]:
    profile = parse(yaml.safe_dump(declared), source="<served>")
    return without_marks(specialise(load_contract(), profile))  # type: ignore[no-any-return]


def _start(
    folder: Path,
    name: str,
    make: Callable[[dict[str, Any]], dict[str, Any]],
    inner: Handler,
    settings: dict[str, Any] | None = None,
) -> tuple[RunningServer, dict[str, Any]]:
    written = folder / f"{name}.yaml"
    holder: dict[str, Handler] = {}

    async def late(request: Request, forward: Forward) -> Response:
        return await holder["handler"](request, forward)

    server = start_server(
        folder / f"{name}.db",
        profile_path=written,
        wrap=lambda app: FaultyApp(app, late),
        **(settings if settings is not None else {}),
    )
    declared = merged(DEFAULTS, make(yaml.safe_load(written.read_text("utf-8"))))
    holder["handler"] = serving_document(_document_for(declared), inner)
    return server, declared


def _variant(folder: Path, name: str) -> tuple[RunningServer, dict[str, Any]]:
    """A correct-but-different server of the variant catalogue, its change declared."""
    (variant,) = [v for v in VARIANTS if v.name == name]

    def declared(reference: dict[str, Any]) -> dict[str, Any]:
        return merged(base_profile(reference), variant.declare)

    return _start(folder, name, declared, variant.make(), variant.settings)


TARGETS: dict[str, Callable[[Path], tuple[RunningServer, dict[str, Any]]]] = {
    "reference": lambda folder: _start(folder, "reference", lambda d: d, _reference),
    "dialect": lambda folder: _start(folder, "dialect", dialect_profile, Dialect(), REFERENCE_OFF),
    "dialect2": lambda folder: _start(folder, "dialect2", profile_of, Dialect2(), REFERENCE_OFF),
    "combined-eleven-declared": lambda folder: _variant(folder, "combined-eleven-declared"),
    "header-environment": lambda folder: _variant(folder, "header-environment"),
}


@pytest.fixture(params=sorted(TARGETS))
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    server, declared = TARGETS[request.param](tmp_path)
    try:
        yield Served(server.base_url.rstrip("/"), declared)
    finally:
        server.stop()


def test_the_draft_reads_the_targets_document_and_recovers_its_choices(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    declared = served.declared
    creds, project = declared["credentials"], declared["project"]
    keys = [Secret(k["key"], f"RCES_SDK_KEY_{n}") for n, k in enumerate(creds["sdk_keys"], 1)]
    text, screen = draft(
        served.base_url,
        Secret(creds["pat"], "RCES_PAT"),
        keys,
        project["application_id"],
        dict(project["environments"]),
        foreign=Foreign(
            project["foreign_application_id"],
            project["foreign_environment_id"],
            Secret(creds["foreign_sdk_key"], "RCES_KEY_FOREIGN"),
        ),
    )
    written = yaml.safe_load(text)
    pagination = declared["experiment_payload"]["pagination"]
    checked = (*SHOWN, *PAGING[pagination], *DOCUMENTED)
    right, wrong, left = score(written, declared, checked)
    scopes_right = all(
        sorted(entry["environments"]) == sorted(given["environments"])
        for entry, given in zip(written["credentials"]["sdk_keys"], creds["sdk_keys"], strict=True)
    )
    share = len(right) / len(checked)
    with capsys.disabled():
        print(
            f"\n{served.base_url}: recovered {len(right)}/{len(checked)} ({share:.0%}) with its "
            f"document; wrong {len(wrong)}: {wrong}; left {len(left)}: {left}; "
            f"key scopes right: {scopes_right}; screen {len(screen)} lines"
        )
    assert "documented:" in text and "OpenAPI document read from" in text
    assert not wrong, wrong
    assert scopes_right, written["credentials"]["sdk_keys"]
    assert share >= GOAL, f"recovered {len(right)}/{len(checked)}; left: {left}"
    assert 2 <= len(screen) <= 25 and screen[0].startswith("conformance: draft: "), screen


RENAMED = {
    "x-environment": "environment",
    "x-instance-id": "server-id",
    "x-project-id": "project-id",
}


async def _renamed_headers(request: Request, forward: Forward) -> Response:
    """The reference reading its SDK headers under other common spellings (and not its own)."""
    headers = {k: v for k, v in request.headers.items() if k not in RENAMED.values()}
    for theirs, ours in RENAMED.items():
        if theirs in request.headers:
            headers[ours] = request.headers[theirs]
    return await forward(request.replace(headers=headers))


def test_without_a_document_the_header_names_are_probed(tmp_path: Path) -> None:
    """No document: a value each header's rule refuses, sent under the common spellings, finds
    the one name the target reads (and the key scopes come out right with it)."""
    written = tmp_path / "renamed.yaml"
    server = start_server(
        tmp_path / "renamed.db",
        profile_path=written,
        wrap=lambda app: FaultyApp(app, _renamed_headers),
    )
    try:
        declared = yaml.safe_load(written.read_text("utf-8"))
        creds, project = declared["credentials"], declared["project"]
        keys = [Secret(k["key"], f"K{n}") for n, k in enumerate(creds["sdk_keys"], 1)]
        text, _ = draft(
            server.base_url.rstrip("/"),
            Secret(creds["pat"], "RCES_PAT"),
            keys,
            project["application_id"],
            dict(project["environments"]),
            measure_rate=False,
        )
    finally:
        server.stop()
    written_profile = yaml.safe_load(text)
    assert written_profile["headers"] == {
        "environment": "x-environment",
        "instance_id": "x-instance-id",
        "numeric": "x-project-id",
    }, text
    assert "refused under this name only" in text
    scopes = [sorted(k["environments"]) for k in written_profile["credentials"]["sdk_keys"]]
    assert scopes == [sorted(k["environments"]) for k in creds["sdk_keys"]]
