"""Before the tests, the payload names and state words a profile leaves to their conventions, as
the target shows them: a name or word the target spells its own way becomes the run's value (so
the interface rules are judged in the target's own words) and a drop-in difference.

The specification shows none of these names (2.5 gaps, 3, 4.2, 4.3's bootstrap). A profile that
writes a key declares it and is held to it; one that leaves it out takes the convention, and a
target that shows another spelling unambiguously (one field holds what the key names, or one word
changed on the transition) is judged in that spelling. What no answer shows stays the
convention's, for the tests to judge. The observation is a handful of exchanges on throwaway
records of its own (a configuration, two experiments, one unit), terminated again.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import httpx

from conformance.drivers.experiments import Experiments, group_ids
from conformance.drivers.steps import body_of, ok
from conformance.errors import ConformanceError
from conformance.json_types import JsonObject
from conformance.oracles.json_equality import same_json
from conformance.profile import Profile
from conformance.session.cleanup import Cleanup
from conformance.traffic.client import Client
from conformance.traffic.transcript import Reply

# The keys observed, in the order the observation can show them.
OBSERVED_KEYS = (
    "experiment_payload.items",
    "experiment_payload.next_cursor",
    "experiment_payload.status",
    "experiment_payload.running",
    "experiment_payload.terminated",
    "experiment_payload.member_active",
    "experiment_payload.member_unenrolled",
    "experiment_payload.count_total",
    "bootstrap_payload.document",
    "bootstrap_payload.assignments",
    "experiments.unit_types",
    "experiments.max_groups",
)
# The snapshot's own fields (spec 2.4), which the bootstrap shares: never another key's name.
SNAPSHOT_FIELDS = frozenset(
    {"hash", "configurations", "primaryConfigurationId", "experiments", "requiredProperties"}
)


@dataclass(frozen=True)
class Choice:
    """One undeclared key the target spells its own way, and the exchange that showed it."""

    key: str
    convention: object  # the key's default
    value: object  # what the target showed
    how: str
    curl: str | None = None


def observe(base_url: str, profile: Profile) -> tuple[Profile, tuple[Choice, ...]]:
    """The profile the run judges with (each choice in place of its convention; ``written``
    unchanged, so nothing observed counts as declared) and the choices observed."""
    open_keys = [key for key in OBSERVED_KEYS if not profile.declares(key)]
    if not open_keys or not profile.capability("experiments"):
        return profile, ()
    cleanup = Cleanup()
    observer: _Observer | None = None
    with Client(base_url, profile, run_prefix=f"cf-observe-{secrets.token_hex(3)}") as client:
        try:
            observer = _Observer(client, cleanup, frozenset(open_keys))
            observer.run()
        except (ConformanceError, httpx.HTTPError):
            pass  # what was shown so far stands; the tests judge the rest
        finally:
            cleanup.run()
    choices = tuple(observer.choices) if observer is not None else ()
    return with_values(profile, {c.key: c.value for c in choices}), choices


def with_values(profile: Profile, values: Mapping[str, object]) -> Profile:
    """``profile`` with dotted keys of its typed sections set to ``values``."""
    for key, value in values.items():
        section, name = key.split(".", 1)
        profile = replace(profile, **{section: replace(getattr(profile, section), **{name: value})})
    return profile


class _Observer:
    """The exchanges of one observation, over one ``Client``."""

    def __init__(self, client: Client, cleanup: Cleanup, open_keys: frozenset[str]) -> None:
        environment = next(iter(client.profile.project.environments), "development")
        self.ex = Experiments(client, cleanup, environment=environment)
        self.open = open_keys
        self.choices: list[Choice] = []
        self.token = secrets.token_hex(4)

    # ------------------------------------------------------------ the observation

    def run(self) -> None:
        ex = self.ex
        base = ex.base({"cfObserved": self.token}, label="observe-base")
        made = [ex.create_ok(f"observe-{n}", base["id"], ex.groups([[]]), ids=()) for n in (1, 2)]
        self._list_name()
        self._cursor_name()
        first, second = (m["id"] for m in made)
        self._state_words(first)  # the state field first: the member words are read in it
        self._bootstrap_document(base["id"])
        unit = ex.unit("observe")
        group = group_ids(made[1])[0]
        assigned = ex.assign(second, unit, group)
        if ok(assigned):
            self._bootstrap_assignments(second, unit)
            unenrolled = ex.unenroll(second, unit)
            self._member_words(assigned, unenrolled)
            self._count_total(second)
        self._unit_types(base["id"])
        self._max_groups(base["id"])
        ex.finish()

    def _saw(self, key: str, value: object, how: str, reply: Reply) -> None:
        """Note ``value`` for ``key`` when the key is open and the value departs from it."""
        convention = self.ex.profile.value(key)
        if key in self.open and value != convention:
            self.choices.append(Choice(key, convention, value, how, reply.curl))
            self.ex.client.profile = with_values(self.ex.profile, {key: value})
            self.ex.profile = self.ex.client.profile
            self.ex.p = self.ex.profile.experiment_payload
            self.ex.b = self.ex.profile.bootstrap_payload

    def _one(self, body: object, fits: Callable[[str, Any], bool]) -> str | None:
        """The one field of ``body`` that ``fits`` (None: none, or more than one)."""
        found = [k for k, v in body.items() if fits(k, v)] if isinstance(body, dict) else []
        return found[0] if len(found) == 1 else None

    # ------------------------------------------------------------ names

    def _list_name(self) -> None:
        reply = self.ex.call("GET")
        body = body_of(reply)
        if ok(reply) and isinstance(body, dict) and not isinstance(body.get(self.ex.p.items), list):
            name = self._one(body, lambda _, v: isinstance(v, list))
            if name is not None:
                self._saw(
                    "experiment_payload.items", name, "the one array of GET /experiments", reply
                )

    def _page(self, **params: str) -> tuple[Reply, JsonObject, object] | None:
        """One page of the experiment list: (reply, body, its one item's id) or None."""
        reply = self.ex.call("GET", params=params)
        body = body_of(reply)
        items = body.get(self.ex.p.items) if isinstance(body, dict) else None
        if not ok(reply) or not isinstance(body, dict) or not isinstance(items, list):
            return None
        if len(items) != 1 or not isinstance(items[0], dict):
            return None
        return reply, body, items[0].get("id")

    def _cursor_name(self) -> None:
        p = self.ex.p
        if p.pagination != "cursor" or "experiment_payload.next_cursor" not in self.open:
            return
        first = self._page(**{p.limit_param: "1"})
        if first is None or isinstance(first[1].get(p.next_cursor), str):
            return
        reply, body, first_id = first
        for name, value in body.items():
            if not isinstance(value, str) or not value:
                continue
            moved = self._page(**{p.limit_param: "1", p.cursor_param: value})
            if moved is not None and not same_json(moved[2], first_id):
                how = f"a page of one carries it, and ?{p.cursor_param}=<it> moved on"
                self._saw("experiment_payload.next_cursor", name, how, reply)
                return

    def _bootstrap_document(self, base_id: object) -> None:
        reply = self.ex.bootstrap(None)
        body = body_of(reply)
        entries = body.get("configurations") if isinstance(body, dict) else None
        content = {"cfObserved": self.token}
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict) or not same_json(entry.get("id"), base_id):
                continue
            if not same_json(entry.get(self.ex.b.document), content):
                name = self._one(entry, lambda _, v: same_json(v, content))
                if name is not None:
                    how = "the one field of the bootstrap entry holding the document created"
                    self._saw("bootstrap_payload.document", name, how, reply)

    def _bootstrap_assignments(self, experiment_id: object, unit: str) -> None:
        reply = self.ex.bootstrap(unit)
        body = body_of(reply)
        if not isinstance(body, dict) or isinstance(body.get(self.ex.b.assignments), list):
            return

        def names_it(name: str, value: Any) -> bool:
            return (
                name not in SNAPSHOT_FIELDS
                and isinstance(value, list)
                and any(
                    isinstance(e, dict) and any(same_json(v, experiment_id) for v in e.values())
                    for e in value
                )
            )

        name = self._one(body, names_it)
        if name is not None:
            how = "the one array of a unit's bootstrap naming the experiment it was assigned in"
            self._saw("bootstrap_payload.assignments", name, how, reply)

    # ------------------------------------------------------------ bounds

    def _taken(self, body: Mapping[str, object]) -> tuple[bool | None, Reply]:
        """A create of ``body``: True taken, False refused with a 4xx, None anything else."""
        reply = self.ex.create(body)
        return (True if ok(reply) else (False if 400 <= reply.status < 500 else None)), reply

    def _unit_types(self, base_id: object) -> None:
        """The unit types the target takes of the conventional ones (a 4xx refuses one)."""
        if "experiments.unit_types" not in self.open:
            return
        ex, wanted = self.ex, self.ex.profile.experiments.unit_types
        taken: list[str] = []
        refused: Reply | None = None
        for unit_type in wanted:
            body = ex.body(f"observe-{unit_type}", base_id, ex.groups([[]]), unit_type=unit_type)
            answer, reply = self._taken(body)
            if answer is None:
                return
            taken += [unit_type] if answer else []
            refused = refused if answer else reply
        if taken and refused is not None:
            how = "a create of each other unit type was refused with a 4xx"
            self._saw("experiments.unit_types", tuple(taken), how, refused)

    def _max_groups(self, base_id: object) -> None:
        """The most groups a create takes, when the conventional maximum is refused (a 4xx)."""
        if "experiments.max_groups" not in self.open:
            return
        ex, most = self.ex, self.ex.profile.experiments.max_groups
        for count in range(most, 1, -1):
            body = ex.body(f"observe-g{count}", base_id, ex.groups([[]] * count))
            answer, reply = self._taken(body)
            if answer is None or (answer and count == most):
                return
            if answer:
                how = f"a create of {count} groups was taken, of {count + 1} refused with a 4xx"
                self._saw("experiments.max_groups", count, how, reply)
                return

    # ------------------------------------------------------------ words

    def _changed_word(self, before: object, after: object) -> str | None:
        """The one field holding a word that differs between two records."""
        if not isinstance(before, dict) or not isinstance(after, dict):
            return None
        status = self.ex.p.status
        if isinstance(before.get(status), str) and before.get(status) != after.get(status):
            return status
        return self._one(
            after,
            lambda k, v: (
                isinstance(v, str)
                and v.replace("_", "").replace("-", "").isalpha()
                and isinstance(before.get(k), str)
                and before.get(k) != v
            ),
        )

    def _state_words(self, experiment_id: object) -> None:
        ex = self.ex
        before = ex.record(ex.get(experiment_id))
        ended = ex.terminate(experiment_id)
        reply = ex.get(experiment_id)
        after = ex.record(reply)
        name = self._changed_word(before, after) if ok(ended) else None
        if name is None or not isinstance(before, dict) or not isinstance(after, dict):
            return
        how = f"the one word that changed on POST .../terminate ({ended.status})"
        self._saw("experiment_payload.status", name, how, reply)
        self._saw("experiment_payload.running", before[name], how, reply)
        self._saw("experiment_payload.terminated", after[name], how, reply)

    def _member_words(self, assigned: Reply, unenrolled: Reply) -> None:
        before, after = body_of(assigned), body_of(unenrolled)
        name = self._changed_word(before, after) if ok(unenrolled) else None
        if name is None or not isinstance(before, dict) or not isinstance(after, dict):
            return
        how = "the one word that changed on POST .../assignments/unenroll"
        self._saw("experiment_payload.member_active", before[name], how, unenrolled)
        self._saw("experiment_payload.member_unenrolled", after[name], how, unenrolled)

    def _count_total(self, experiment_id: object) -> None:
        p = self.ex.p
        reply = self.ex.group_counts(experiment_id)
        body = body_of(reply)
        if not isinstance(body, dict) or p.count_total in body:
            return
        active, unenrolled = body.get(p.count_active), body.get(p.count_unenrolled)
        if not isinstance(active, int) or not isinstance(unenrolled, int):
            return
        known = {p.count_active, p.count_unenrolled, p.experiment_id, "id"}
        name = self._one(
            body,
            lambda k, v: (
                k not in known
                and isinstance(v, int)
                and not isinstance(v, bool)
                and v == active + unenrolled
            ),
        )
        if name is not None:
            how = "the one count of GET .../assignment-counts adding up the others"
            self._saw("experiment_payload.count_total", name, how, reply)
