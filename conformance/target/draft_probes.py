"""What ``conformance profile draft`` observes of a running target: each gap choice an answer
shows, as a ``Finding`` with the exchange that showed it, or left unobserved with the reason.

Every probe is one or a few exchanges through the suite's ``Client`` to the given base URL only:
refused creates (no name, a body that is not JSON), ids that cannot exist, two throwaway
configurations and, when experiments answer, two throwaway experiments that are terminated
again. Names the draft cannot know (SDK header names, body field names) are tried only where an
answer shows which one the target took, from a short list of common spellings. The rate limit is
measured by ``draft_rate``.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from conformance.profile import Profile
from conformance.traffic.client import Client
from conformance.traffic.transcript import Reply

UNKNOWN_ID = 987654321  # an id no throwaway target has reached
UPPER_SNAKE = re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+|[A-Z]{3,}")
KEBAB = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)+")  # a code spelled not-found
WORD = re.compile(r"[A-Za-z][A-Za-z_-]{1,30}")
HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
URL_SAFE = re.compile(r"[\w-]+")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.(\d+))?(Z|[+-]\d\d:?\d\d)?")

# Spellings tried where only an answer shows which one the target reads (each try is a refused
# or an idempotent exchange, or a throwaway create).
CHANGESET_FIELDS = ("changeset", "changes", "changeSet", "operations", "patch")
LIMIT_PARAMS = ("limit", "take", "pageSize", "page_size", "per_page", "size", "count")
OFFSET_PARAMS = ("offset", "skip", "start", "from")
PAGE_PARAMS = ("page", "pageNumber", "page_number", "p")
UNIT_FIELDS = ("unitId", "unit", "unit_id", "distinctId", "userId")
GROUP_FIELDS = ("groupId", "variant", "group", "group_id", "variantId")
CURSOR_PARAMS = ("cursor", "pageToken", "page_token", "after", "next", "starting_after")


@dataclass(frozen=True)
class Finding:
    """One profile key as the target showed it (``value``), or not shown (``value`` None)."""

    key: str  # dotted profile key
    value: Any
    how: str  # the exchange (or the element of the target's document) that showed it, or why not
    source: str = "observed"  # observed: an answer showed it; documented: the target's document

    @property
    def observed(self) -> bool:
        return self.value is not None


@dataclass
class Findings:
    """Everything one draft observed, by profile key, and notes on forms no key holds."""

    by_key: dict[str, Finding] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def saw(self, key: str, value: Any, how: str) -> None:
        self.by_key[key] = Finding(key, value, how)

    def documented(self, finding: Finding) -> None:
        """What the target's own document says; an answer seen later takes its place."""
        self.by_key.setdefault(finding.key, finding)

    def missed(self, key: str, why: str) -> None:
        self.by_key.setdefault(key, Finding(key, None, why))

    def value(self, key: str) -> Any:
        found = self.by_key.get(key)
        return None if found is None else found.value


def error_fields(reply: Reply) -> tuple[str, str] | None:
    """The code field (an UPPER_SNAKE or kebab-case string) and the message field (text with a
    space) of an error body, when it has exactly one of each."""
    try:
        data = json.loads(reply.content)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    codes = [
        k
        for k, v in data.items()
        if isinstance(v, str) and (UPPER_SNAKE.fullmatch(v) or KEBAB.fullmatch(v))
    ]
    texts = [k for k, v in data.items() if isinstance(v, str) and " " in v.strip()]
    if len(codes) == 1 and len(texts) == 1:
        return codes[0], texts[0]
    return None


def hash_form(value: object) -> str:
    """A hash's form, in words: ``40 lowercase hex digits``, or its length and alphabet."""
    if not isinstance(value, str) or not value:
        return "not a string"
    if HEX.fullmatch(value):
        case = "lowercase" if value.lower() == value else "uppercase"
        return f"{len(value)} {case} hex digits"
    alphabet = "base64url" if URL_SAFE.fullmatch(value) else "mixed"
    return f"{len(value)} characters ({alphabet})"


def timestamp_form(value: object) -> str | None:
    """A date-time's form: fraction digits and zone (``Z`` or the offset), or None."""
    if not isinstance(value, str):
        return None
    match = TIMESTAMP.fullmatch(value)
    if match is None:
        return None
    fraction = len(match.group(2) or "")
    zone = match.group(3) or "no zone"
    return f"{fraction} fraction digits, zone {zone}"


class Prober:
    """The probes of one draft, over one ``Client`` of the target."""

    def __init__(self, client: Client, findings: Findings) -> None:
        self.client = client
        self.found = findings
        self.profile: Profile = client.profile
        self.tag = secrets.token_hex(3)
        self.missing_credentials: set[int] = set()  # statuses of a create without a token

    # ------------------------------------------------------------ management

    def _post(self, path: str, env: int, body: object = None, raw: bytes | None = None) -> Reply:
        app = self.profile.project.application_id
        headers = {"environment_id": str(env), "content-type": "application/json"}
        headers["Authorization"] = f"Bearer {self.profile.credentials.pat}"
        return self.client.request(
            "POST",
            f"/application/{app}/v2{path}",
            headers=headers,
            content=raw if raw is not None else json.dumps(body).encode(),
            allow_rate_limit=True,
            allow_server_error=True,
        )

    def _mgmt(self, method: str, path: str, env: int, **params: str) -> Reply:
        return self.client.management(
            method,
            path,
            environment=env,
            params=params or None,
            allow_rate_limit=True,
            allow_server_error=True,
        )

    def configurations(self, env: int) -> int | None:
        """Create statuses, the error body, validation, malformed and not-found statuses, the
        record's forms; the id of a configuration to base experiments on."""
        found = self.found
        invalid = self._post("/configuration", env, {})
        if 400 <= invalid.status < 500:
            found.saw(
                "errors.validation_status",
                invalid.status,
                f"POST /configuration without `name` answered {invalid.status}",
            )
            fields = error_fields(invalid)
            if fields is not None:
                how = f"the {invalid.status} body's code (UPPER_SNAKE or kebab-case) and its text"
                found.saw("errors.code_field", fields[0], how)
                found.saw("errors.message_field", fields[1], how)
        malformed = self._post("/configuration", env, raw=b"{ not json")
        if 400 <= malformed.status < 500:
            same = malformed.status == invalid.status
            found.saw(
                "errors.malformed_body_status",
                "null" if same else malformed.status,
                f"POST /configuration with a body that is not JSON answered {malformed.status}"
                + (" (as validation: null)" if same else ""),
            )
        bare = self.client.request(
            "POST",
            f"/application/{self.profile.project.application_id}/v2/configuration",
            headers={"environment_id": str(env)},
            json_body={"name": f"cf-draft-{self.tag}-auth"},
            allow_rate_limit=True,
            allow_server_error=True,
        )
        if 400 <= bare.status < 500:
            self.missing_credentials.add(bare.status)
        created = self._post("/configuration", env, {"name": f"cf-draft-{self.tag}"})
        if not 200 <= created.status < 300:
            found.missed("statuses.create_configuration", f"a create answered {created.status}")
            return None
        found.saw(
            "statuses.create_configuration",
            created.status,
            f"POST /configuration with only `name` answered {created.status}",
        )
        record = _object(created)
        self._record_forms(record)
        field_name = self.profile.bodies.create.content  # the document's name, if it gave one
        content = self._post(
            "/configuration", env, {"name": f"cf-draft-{self.tag}-c", field_name: {"a": 1}}
        )
        if 200 <= content.status < 300 and _object(content).get("configuration") == {"a": 1}:
            found.saw("bodies.create.content", field_name, "a create with it held that content")
        else:
            found.missed(
                "bodies.create.content",
                f"a create with `{field_name}` answered {content.status} without that content: "
                "set the field your create body takes",
            )
        patch = self.client.request(
            "PATCH",
            f"/application/{self.profile.project.application_id}/v2/configuration/{UNKNOWN_ID}",
            headers={
                "environment_id": str(env),
                "Authorization": f"Bearer {self.profile.credentials.pat}",
            },
            json_body={},
            allow_rate_limit=True,
            allow_server_error=True,
        )
        if 400 <= patch.status < 500:
            found.saw(
                "errors.not_found_status",
                patch.status,
                f"PATCH /configuration/{UNKNOWN_ID} answered {patch.status}",
            )
        ident = record.get("id")
        return ident if isinstance(ident, int) else None

    def _record_forms(self, record: dict[str, Any]) -> None:
        stamp = timestamp_form(record.get("createdAt"))
        if stamp is not None:
            self.found.notes.append(f"timestamps (createdAt): {stamp}")
        if "contentHash" in record:
            self.found.notes.append(f"contentHash: {hash_form(record['contentHash'])}")

    def credentials(self, key: str, env: str) -> None:
        """The statuses of a status poll without a key and with an unknown one, and of a
        management call without a token (``configurations`` sent it)."""
        statuses = set(self.missing_credentials)
        for sent in (None, f"svc_pk_draft_unknown_{self.tag}"):
            reply = self.client.status(
                key=sent,
                environment=env,
                instance_id=f"cf-draft-{self.tag}-auth",
                allow_rate_limit=True,
                allow_server_error=True,
                pace=False,
            )
            if 400 <= reply.status < 500 and reply.status != 429:
                statuses.add(reply.status)
        if statuses:
            self.found.saw(
                "errors.missing_credentials_status",
                sorted(statuses),
                "a status poll without a key and with an unknown one, a create without a token",
            )

    def foreign_project(self, application_id: int, env: int) -> None:
        """The status a create in a project the token's owner cannot reach is refused with."""
        headers = {"environment_id": str(env), "content-type": "application/json"}
        headers["Authorization"] = f"Bearer {self.profile.credentials.pat}"
        reply = self.client.request(
            "POST",
            f"/application/{application_id}/v2/configuration",
            headers=headers,
            content=json.dumps({"name": f"cf-draft-{self.tag}-foreign"}).encode(),
            allow_rate_limit=True,
            allow_server_error=True,
        )
        if 400 <= reply.status < 500 and reply.status != 429:
            self.found.saw(
                "errors.foreign_project_status",
                [reply.status],
                f"a create in project {application_id} (given as foreign) answered {reply.status}",
            )
        else:
            self.found.missed(
                "errors.foreign_project_status",
                f"a create in project {application_id} (given as foreign) answered {reply.status}",
            )

    # ------------------------------------------------------------ experiments

    def experiments(self, env: int, base: int | None) -> None:
        """Whether experiments answer; create status, paging, not-found and state words from two
        throwaway experiments, terminated again."""
        found = self.found
        listed = self._mgmt("GET", "/experiments", env)
        if listed.status != 200:
            found.saw(
                "capabilities.experiments",
                False,
                f"GET /experiments answered {listed.status}",
            )
            return
        found.saw("capabilities.experiments", True, "GET /experiments answered 200")
        unknown = self._mgmt("GET", f"/experiments/{UNKNOWN_ID}", env)
        if 400 <= unknown.status < 500:
            found.saw(
                "errors.not_found_status",
                unknown.status,
                f"GET /experiments/{UNKNOWN_ID} answered {unknown.status}",
            )
        if base is None:
            found.notes.append("experiments: no configuration to base one on; nothing created")
            return
        made = [self._experiment(env, base, n) for n in (1, 2)]
        ids = [m[0] for m in made if m is not None]
        if made[0] is not None:
            self._members(env, *made[0])
        if len(ids) == 2:
            self._paging(env, ids)
        for ident in ids:
            self._terminate(env, ident)

    def _experiment(self, env: int, base: int, number: int) -> tuple[int, Any] | None:
        start = datetime.now(UTC).replace(microsecond=0)
        for name in CHANGESET_FIELDS:
            body = {
                "name": f"cf-draft-{self.tag}-{number}",
                "unitType": "user",
                "assignmentMode": "weightedHash",
                "baseConfigurationId": base,
                "startsAt": start.isoformat().replace("+00:00", "Z"),
                "endsAt": (start + timedelta(hours=1)).isoformat().replace("+00:00", "Z"),
                "groups": [{"label": "a", "weight": 10000, "ordinal": 0, name: []}],
            }
            reply = self._post("/experiments", env, body)
            if 200 <= reply.status < 300:
                self.found.saw(
                    "statuses.create_experiment",
                    reply.status,
                    f"POST /experiments answered {reply.status}",
                )
                record = _object(reply)
                groups = record.get("groups")
                first = groups[0] if isinstance(groups, list) and groups else None
                echoed = isinstance(first, dict) and name in first
                if echoed:  # taken alone says nothing: a target may ignore unknown members
                    self.found.saw(
                        "experiment_payload.changeset",
                        name,
                        f"a create whose groups carry `{name}` was taken, its record's group "
                        f"carries `{name}` back",
                    )
                else:
                    self.found.missed(
                        "experiment_payload.changeset",
                        f"a create whose groups carry `{name}` was taken, but its record's group "
                        f"does not carry `{name}` back (an unknown member may be ignored)",
                    )
                ident = record.get("id")
                group = groups[0].get("id") if groups and isinstance(groups[0], dict) else None
                return (ident, group) if isinstance(ident, int) else None
        self.found.notes.append("experiments: no create was taken; nothing created")
        return None

    def _members(self, env: int, ident: int, group: Any) -> None:
        """A manual assignment and its unenrolment: the unit and group fields (the ones the
        target took), the member state words (the word that changed)."""
        unit = f"cf-draft-{self.tag}-unit"
        path = f"/experiments/{ident}/assignments"
        for unit_field in UNIT_FIELDS:
            for group_field in GROUP_FIELDS:
                made = self._post(path, env, {unit_field: unit, group_field: group})
                if 200 <= made.status < 300:
                    return self._unenrolled(env, path, unit_field, group_field, _object(made))
        self.found.notes.append("assignments: no unit and group field tried was taken")
        return None

    def _unenrolled(
        self, env: int, path: str, unit_field: str, group_field: str, before: dict[str, Any]
    ) -> None:
        how = f"a manual assignment with `{unit_field}` and `{group_field}` was taken"
        self.found.saw("experiment_payload.unit_id", unit_field, how)
        self.found.saw("experiment_payload.group_id", group_field, how)
        unit = before.get(unit_field, f"cf-draft-{self.tag}-unit")
        after = _object(self._post(f"{path}/unenroll", env, {unit_field: unit}))
        changed = [
            k
            for k, v in after.items()
            if isinstance(v, str)
            and WORD.fullmatch(v)
            and isinstance(before.get(k), str)
            and before.get(k) != v
        ]
        if len(changed) == 1:
            key = changed[0]
            how = "the one word that changed on POST .../assignments/unenroll"
            self.found.saw("experiment_payload.member_active", before[key], how)
            self.found.saw("experiment_payload.member_unenrolled", after[key], how)

    def _items(self, reply: Reply) -> tuple[str, list[Any]] | None:
        data = _object(reply)
        arrays = [(k, v) for k, v in data.items() if isinstance(v, list)]
        return arrays[0] if reply.status == 200 and len(arrays) == 1 else None

    def _first_id(self, env: int, **params: str) -> tuple[Any, dict[str, Any]] | None:
        reply = self._mgmt("GET", "/experiments", env, **params)
        listed = self._items(reply)
        if listed is None or not listed[1] or not isinstance(listed[1][0], dict):
            return None
        return (listed[1][0].get("id"), _object(reply)) if len(listed[1]) == 1 else None

    def _paging(self, env: int, ids: list[int]) -> None:
        found = self.found
        whole = self._items(self._mgmt("GET", "/experiments", env))
        if whole is None:
            return
        found.saw("experiment_payload.items", whole[0], "the one array of GET /experiments")
        limit = next((p for p in LIMIT_PARAMS if self._first_id(env, **{p: "1"})), None)
        if limit is None:
            found.notes.append("paging: no page-size parameter tried gave a page of one item")
            return
        found.saw("experiment_payload.limit_param", limit, f"?{limit}=1 gave one item")
        first = self._first_id(env, **{limit: "1"})
        assert first is not None
        first_id, page = first
        cursors = [
            k
            for k, v in page.items()
            if isinstance(v, str) and v and k != whole[0] and k not in ("status",)
        ]
        for name in cursors:
            for param in CURSOR_PARAMS:
                moved = self._first_id(env, **{limit: "1", param: str(page[name])})
                if moved is not None and moved[0] != first_id:
                    found.saw("experiment_payload.pagination", "cursor", f"?{param}= moved on")
                    found.saw("experiment_payload.next_cursor", name, "a page of one carries it")
                    found.saw("experiment_payload.cursor_param", param, f"?{param}=<it> moved on")
                    return
        for params, kind in ((OFFSET_PARAMS, "offset"), (PAGE_PARAMS, "page")):
            for param in params:
                moved = self._first_id(env, **{limit: "1", param: "1" if kind == "offset" else "2"})
                if moved is not None and moved[0] != first_id:
                    found.saw("experiment_payload.pagination", kind, f"?{param}= moved on")
                    found.saw(f"experiment_payload.{kind}_param", param, f"?{param}= moved on")
                    return
        found.notes.append("paging: no cursor, offset or page parameter tried moved on")

    def _terminate(self, env: int, ident: int) -> None:
        before = _object(self._mgmt("GET", f"/experiments/{ident}", env))
        ended = self._mgmt("POST", f"/experiments/{ident}/terminate", env)
        after = _object(self._mgmt("GET", f"/experiments/{ident}", env))
        changed = [
            k
            for k, v in after.items()
            if isinstance(v, str) and WORD.fullmatch(v) and before.get(k) != v
        ]
        if len(changed) == 1 and "experiment_payload.status" not in self.found.by_key:
            key = changed[0]
            how = f"the one word that changed on POST .../terminate ({ended.status})"
            self.found.saw("experiment_payload.status", key, how)
            self.found.saw("experiment_payload.terminated", after[key], how)
            self.found.notes.append(f"experiment state before terminate: {before.get(key)!r}")


def _object(reply: Reply) -> dict[str, Any]:
    try:
        data = json.loads(reply.content)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
