"""Configuration management as scenarios drive it: bodies built from the profile's field names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, Unpack

from conformance.checks import expect, json_object
from conformance.checks.declared import expect_declared_status
from conformance.drivers import document_paths
from conformance.drivers.call_options import Environment
from conformance.drivers.steps import body_of, judges, ok, setup_failed
from conformance.json_types import JsonObject
from conformance.traffic.client import Client
from conformance.traffic.sdk_options import UNSET
from conformance.traffic.transcript import Reply


class CreateFields(TypedDict, total=False):
    """The optional fields of a create body (``Configurations.create_body``)."""

    private_keys: Sequence[str] | None
    comments: Mapping[str, str] | None
    extra: Mapping[str, object] | None


class PatchOptions(TypedDict, total=False):
    """What a patch sends besides the operations (``Configurations.patch``)."""

    base_hash: object
    key_order: object
    environment: Environment
    body: object
    token: str | None
    application_id: int | None


class Configurations:
    """Create and patch configurations on the target, naming everything with the run prefix."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.profile = client.profile
        # Where the suite created each configuration: what it sent, not what the record says
        # (a record naming the wrong environment breaks its own rule, not every later read).
        self._sent_environment: dict[object, int] = {}

    def create_body(
        self,
        name: str | None,
        content: object = UNSET,
        private_keys: Sequence[str] | None = None,
        comments: Mapping[str, str] | None = None,
        extra: Mapping[str, object] | None = None,
    ) -> dict[str, object]:
        fields = self.profile.bodies.create
        body: dict[str, object] = {} if name is None else {"name": name}
        if content is not UNSET:
            body[fields.content] = content
        if private_keys is not None:
            body[fields.private_keys] = self.spelled_paths(private_keys)
        if comments is not None:
            body[fields.comments] = dict(comments)
        body.update(extra or {})
        return body

    def create(
        self,
        label: str = "config",
        content: object = UNSET,
        *,
        environment: str | int = "development",
        body: object = UNSET,
        **fields: Unpack[CreateFields],
    ) -> Reply:
        if body is UNSET:
            body = self.create_body(self.client.name(label), content, **fields)
        return self.client.management(
            "POST", "/configuration", environment=environment, json_body=body
        )

    def create_ok(
        self,
        label: str = "config",
        content: object = UNSET,
        *,
        ids: Sequence[str] = (),
        environment: str | int = "development",
        body: object = UNSET,
        **fields: Unpack[CreateFields],
    ) -> dict[str, Any]:
        """Create and return the record; any other answer violates ``ids`` when one of them
        judges the create, else (a step the test needs, not one it judges) blocks the test
        (``setup_failed``)."""
        reply = self.create(label, content, environment=environment, body=body, **fields)
        expected = self.profile.statuses.create_configuration
        key = "statuses.create_configuration"
        found = body_of(reply)
        if not judges(ids, "createConfiguration"):
            # a step, not the judged create: any success with a record serves (the declared
            # status is the create requirements' to judge, in their own tests)
            if not ok(reply) or not isinstance(found, dict):
                raise setup_failed("create the configuration this scenario needs", reply)
            record: dict[str, Any] = found
        else:
            expect_declared_status(
                reply, self.profile, key, expected, ids, "create configuration was not accepted"
            )
            record = json_object(reply, ids, "a configuration record")
        if "id" in record:
            self._sent_environment[record["id"]] = (
                environment
                if isinstance(environment, int)
                else self.profile.environment_id(environment)
            )
        return record

    def environment_of(self, record: Mapping[str, object]) -> Environment:
        """The environment id a configuration lives in: the one the suite created it in, else
        the record's own ``environmentId`` (an alias when it is a string)."""
        sent = self._sent_environment.get(record.get("id"))
        if sent is not None:
            return sent
        given = record.get("environmentId")
        return given if given is None or isinstance(given, str | int) else str(given)

    def spelled_paths(self, pointers: Sequence[str]) -> list[str]:
        """JSON Pointers as the target spells private paths (``bodies.private_path_syntax``,
        else ``bodies.path_syntax``)."""
        return [document_paths.spelled(p, self.profile.bodies.private_syntax) for p in pointers]

    def patch_body(
        self,
        operations: object = UNSET,
        base_hash: object = UNSET,
        key_order: object = UNSET,
    ) -> dict[str, object]:
        """The patch body. ``key_order`` is ``{pointer: [keys]}`` (sent in the declared shape
        and path syntax) or, when it is not a mapping, sent as it is (a malformed sidecar). A
        ``base_hash`` goes in the body only when the target declares it there."""
        fields = self.profile.bodies.patch
        body: dict[str, object] = {}
        if operations is not UNSET:
            body[fields.operations] = operations
        if base_hash is not UNSET and fields.base_hash_transport == "body":
            body[fields.base_hash] = base_hash
        if isinstance(key_order, Mapping):
            syntax = self.profile.bodies.path_syntax
            body[fields.key_order] = document_paths.sidecar(
                key_order, syntax, fields.key_order_shape
            )
        elif key_order is not UNSET:
            body[fields.key_order] = key_order
        return body

    def base_hash_headers(self, base_hash: object) -> dict[str, str]:
        """The If-Match header a target that declares ``base_hash_transport: if-match`` reads."""
        if base_hash is UNSET or self.profile.bodies.patch.base_hash_transport != "if-match":
            return {}
        return {"If-Match": f'"{base_hash}"'}

    def patch(
        self,
        configuration_id: object,
        operations: object = UNSET,
        *,
        base_hash: object = UNSET,
        key_order: object = UNSET,
        environment: Environment = "development",
        body: object = UNSET,
        token: str | None = UNSET,
        application_id: int | None = None,
    ) -> Reply:
        if body is UNSET:
            body = self.patch_body(operations, base_hash, key_order)
        return self.client.management(
            "PATCH",
            f"/configuration/{configuration_id}",
            environment=environment,
            json_body=body,
            headers=self.base_hash_headers(base_hash),
            token=token,
            application_id=application_id,
        )

    def patch_ok(
        self,
        configuration_id: object,
        operations: object = UNSET,
        *,
        ids: Sequence[str] = (),
        **kw: Unpack[PatchOptions],
    ) -> JsonObject:
        reply = self.patch(configuration_id, operations, **kw)
        expect(
            200 <= reply.status < 300,
            ids,
            "patch configuration was not accepted",
            "HTTP 2xx with the configuration record",
            reply.describe(),
            reply,
        )
        return json_object(reply, ids, "a configuration record")

    def current(self, record: Mapping[str, object], ids: Sequence[str] = ()) -> JsonObject:
        """The stored record, read back through an empty patch (the interface has no GET)."""
        return self.patch_ok(
            record["id"], body={}, ids=ids, environment=self.environment_of(record)
        )
