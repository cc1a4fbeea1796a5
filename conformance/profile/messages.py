"""The profile's sections naming what the spec does not show: headers, bodies, errors, statuses."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Headers:
    """``headers``: header names the spec does not show."""

    environment: str
    instance_id: str
    numeric: str
    sdk_version: str
    unit_id: str
    unit_type: str
    unit_context: str
    environment_case: str  # "exact" | "insensitive"
    numeric_grammar: str  # "decimal-digits" | "javascript-number"


@dataclass(frozen=True)
class CreateBody:
    """``bodies.create``."""

    content: str
    private_keys: str
    comments: str


@dataclass(frozen=True)
class PatchBody:
    """``bodies.patch``."""

    operations: str
    base_hash: str
    base_hash_transport: str  # "body" | "if-match"
    base_token_source: str  # the record field a patch sends as its base
    key_order: str
    key_order_shape: str  # "pointer-map" | "entries"


@dataclass(frozen=True)
class Bodies:
    """``bodies``: field names of the configuration request bodies."""

    create: CreateBody
    patch: PatchBody
    path_syntax: str  # "json-pointer" | "dotted"
    private_path_syntax: str | None  # None: as path_syntax

    @property
    def private_syntax(self) -> str:
        """How the private paths are spelled (``private_path_syntax``, else ``path_syntax``)."""
        return self.private_path_syntax or self.path_syntax


@dataclass(frozen=True)
class ErrorShape:
    """``errors``: the error answer's fields and statuses."""

    code_field: str | None  # None: the error body has no code field
    message_field: str
    media_type: str
    missing_credentials_status: tuple[int, ...]
    forbidden_status: int
    foreign_project_status: tuple[int, ...]
    validation_status: tuple[int, ...]  # one status or several (the file may write either)
    malformed_body_status: tuple[int, ...] | None
    not_found_status: int
    rate_limited_status: int

    @property
    def malformed_status(self) -> tuple[int, ...]:
        """The status of a body that is not JSON at all (the validation status unless declared)."""
        declared = self.malformed_body_status
        return self.validation_status if declared is None else declared


@dataclass(frozen=True)
class Statuses:
    """``statuses``: success statuses the spec does not show."""

    create_configuration: int
    create_experiment: int


@dataclass(frozen=True)
class Conditional:
    """``conditional``."""

    require_list_and_weak: bool
