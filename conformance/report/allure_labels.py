"""Allure results during the pytest session: requirement labels, spec-section features, exchange
attachments and one distinct history id per fuzzed operation. Every function is a no-op unless
allure-pytest is active (``--alluredir`` given)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import allure
from allure_commons import plugin_manager

from conformance.redaction.report_files import redact
from conformance.report.evidence_text import BODY_LIMIT, request_text, response_text
from conformance.verdict.evidence import Exchange

if TYPE_CHECKING:
    import pytest

EPIC = "RCES conformance"
LISTENER = "allure_listener"  # the name allure-pytest registers its listener under


def allure_active(config: pytest.Config) -> bool:
    """True when allure-pytest is recording this session (``--alluredir`` was given)."""
    return bool(config.pluginmanager.has_plugin(LISTENER))


def _recording() -> bool:
    """True when an allure listener is registered (used where no pytest config is at hand)."""
    return any(type(p).__name__ == "AllureListener" for p in plugin_manager.get_plugins())


def _entry_field(entry: object, name: str) -> str:
    """A field of one catalogue entry, whether it is a mapping or an object."""
    value = entry.get(name) if isinstance(entry, Mapping) else getattr(entry, name, None)
    return "" if value is None else str(value)


def operation_of(item: object) -> str | None:
    """The fuzzed operation ("GET /sdk/v2/status") of a schemathesis-generated item, else None."""
    label = getattr(item, "operation_label", None)
    return str(label) if label else None


def labels_for(
    requirement_ids: Iterable[str], catalogue: Mapping[str, object]
) -> list[tuple[str, str]]:
    """The (label type, value) pairs for a test checking ``requirement_ids``: pure, testable."""
    ids = list(dict.fromkeys(requirement_ids))
    sections = list(
        dict.fromkeys(_entry_field(catalogue[rid], "section") for rid in ids if rid in catalogue)
    )
    pairs = [("epic", EPIC)]
    pairs += [("feature", f"§{section}") for section in sections if section]
    pairs += [("story", rid) for rid in ids]
    pairs += [("requirement", rid) for rid in ids]
    subjects = {_entry_field(catalogue[rid], "subject") for rid in ids if rid in catalogue}
    pairs += [("subject", s) for s in sorted(subjects) if s and s != "server"]  # a client rule
    return pairs


def apply_allure_labels(
    item: pytest.Item,
    requirement_ids: Iterable[str],
    catalogue: Mapping[str, object],
    operation: str | None = None,
) -> None:
    """Label the running test: one ``requirement`` label per id, its spec section(s) as the
    feature, the id as the story. A fuzzed operation (given, or read from a schemathesis item's
    ``operation_label``) becomes the ``operation`` parameter, so each operation gets its own
    history id (allure-pytest otherwise gives every schemathesis item the same one).

    Call while ``item`` runs (setup, call or teardown), e.g. from an autouse fixture. The
    readable name of a schemathesis item is already ``test_x[GET /path]``."""
    if not allure_active(item.config):
        return
    for label_type, value in labels_for(requirement_ids, catalogue):
        allure.dynamic.label(label_type, value)  # type: ignore[no-untyped-call]
    fuzzed = operation or operation_of(item)
    if fuzzed:
        allure.dynamic.parameter("operation", fuzzed)


def label_fuzzed_operation(operation: str) -> None:
    """Give the running test the title ``fuzz: <operation>`` and the ``operation`` parameter.

    Call it from the test body (the call phase): allure-pytest overwrites a title set during
    setup. Meant for fuzz tests that are not one pytest item per operation."""
    if not _recording():
        return
    allure.dynamic.parameter("operation", operation)
    allure.dynamic.title(f"fuzz: {operation}")  # type: ignore[no-untyped-call]


def attach_exchanges(
    exchanges: Iterable[Exchange], secrets: Iterable[str] = (), limit: int = BODY_LIMIT
) -> None:
    """Attach each request and its response (redacted, bodies truncated) to the running test."""
    if not _recording():
        return
    secret_list = list(secrets)
    for number, exchange in enumerate(exchanges, start=1):
        status = "no response" if exchange.status is None else str(exchange.status)
        allure.attach(
            redact(request_text(exchange, limit), secret_list),
            name=f"request {number}: {exchange.method} {exchange.url}",
            attachment_type=allure.attachment_type.TEXT,
        )
        allure.attach(
            redact(response_text(exchange, limit), secret_list),
            name=f"response {number}: {status}",
            attachment_type=allure.attachment_type.TEXT,
        )
