"""Reading an experiment list whole, page after page, as the profile's pagination declares.

``read_pages`` follows a cursor or an RFC 8288 ``Link`` next page on every list, and offset or
page numbers on the lists ``experiment_payload.paged_lists`` names (the others are read as one
answer); a bad page, a page that comes back, or a list that never ends violates the test's ids.
It reads through its owner (the scenarios' ``Experiments`` driver): the owner's calls and its
profile, as they are when it reads (an observed name included).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, Unpack

from conformance.checks import conventions, expect, violation
from conformance.checks.declared import field_received
from conformance.drivers.call_options import ManagementOptions
from conformance.drivers.experiment_pages import list_name, next_link
from conformance.drivers.steps import body_of, ok, setup_failed
from conformance.json_types import JsonObject
from conformance.oracles.json_equality import same_json
from conformance.profile import Profile
from conformance.profile.experiments import ExperimentPayload
from conformance.traffic.transcript import Reply

MAX_PAGES = 1000  # of page_size_max items each: 100 000 experiments with the defaults


class Owner(Protocol):
    """What the reader needs of the driver it reads for."""

    profile: Profile
    p: ExperimentPayload

    def call(
        self,
        method: str,
        suffix: str = "",
        *,
        json_body: object = ...,
        **kw: Unpack[ManagementOptions],
    ) -> Reply: ...


def read_pages(
    owner: Owner,
    suffix: str,
    ids: Sequence[str],
    params: Mapping[str, str] | None = None,
    limit: int | None = None,
    max_pages: int = MAX_PAGES,
) -> list[JsonObject]:
    """Every item of a list, in pages of ``limit`` (default ``experiments.page_size_max``)
    as ``experiment_payload.pagination`` declares; with ``max_pages``, the items of the first
    pages only. Any list may page: a cursor or a ``Link`` next page is followed on every
    list; offset and page numbers are asked only of the lists ``paged_lists`` names (the
    others are read as one answer).

    A bad page violates ``ids`` (no ids: it blocks the test, a step the test needs); so does
    a cursor, a link or a page that comes back (a list that never ends) or more than
    ``MAX_PAGES`` pages."""
    items: list[JsonObject] = []
    query: dict[str, str] = dict(params or {})
    limit = limit or owner.profile.experiments.page_size_max
    mode = owner.p.pagination
    numbered = mode in ("offset", "page")
    if numbered and list_name(suffix) not in owner.p.paged_lists:
        mode, max_pages = "one answer", 1
    else:
        query[owner.p.limit_param] = str(limit)
    what = f"GET {suffix or '/'}"
    seen: set[str] = set()
    for number in range(max_pages):
        if mode == "offset":
            query[owner.p.offset_param] = str(len(items))
        elif mode == "page":
            query[owner.p.page_param] = str(number + 1)
        reply = owner.call("GET", suffix, params=query)
        found = _page(owner, reply, ids, what, list_name(suffix))
        if mode in ("offset", "page"):
            expect(
                not found or not same_json(found, items[-len(found) :]),
                ids,
                f"{what} pages in a loop",
                f"each page after the last ({mode} pagination)",
                f"the same {len(found)} items again after {len(items)} items",
                reply,
            )
            items.extend(found)
            if len(found) < limit:
                return items
            continue
        items.extend(found)
        following = _following(owner, reply, query, mode)
        if following is None:
            return items
        token, query = following
        expect(
            token not in seen,
            ids,
            f"{what} pages in a loop",
            f"each next page ({mode} pagination) new until the last page",
            f"{token[:80]!r} again after {len(items)} items",
            reply,
        )
        seen.add(token)
    if max_pages < MAX_PAGES:
        return items  # the caller asked for the first pages only (or the list is one answer)
    raise violation(
        ids,
        f"{what} did not end",
        f"a last page within {MAX_PAGES} pages of up to "
        f"{owner.profile.experiments.page_size_max} items (experiments.page_size_max)",
        f"{len(items)} items in {MAX_PAGES} pages, and a next page still given",
    )


def _page(owner: Owner, reply: Reply, ids: Sequence[str], what: str, name: str) -> list[JsonObject]:
    """The items of one page (a bad page violates ``ids``; none: the whole test)."""
    page = body_of(reply)
    found = page.get(owner.p.items) if isinstance(page, dict) else None
    good = ok(reply) and isinstance(found, list) and all(isinstance(i, dict) for i in found)
    if not good and not ids:
        # one cause, whichever experiment's list it is: the list's name, not its path
        raise setup_failed(f"read the {name} list", reply)
    key = "experiment_payload.items"
    renamed = ok(reply) and isinstance(page, dict) and found is None
    if renamed and not owner.profile.declares(key):  # under another name: a convention
        received = field_received(page, key, owner.p.items, reply.describe(), list)
        raise conventions.miss(ids, key, owner.p.items, received, what, reply)
    expect(
        good,
        ids,
        f"{what} answered no page of items",
        f"HTTP 200 with {owner.p.items!r}: an array of objects",
        reply.describe(),
        reply,
    )
    assert isinstance(found, list)
    return [i for i in found if isinstance(i, dict)]  # all of them, as checked


def _following(
    owner: Owner, reply: Reply, query: Mapping[str, str], mode: str
) -> tuple[str, dict[str, str]] | None:
    """(what marks the next page, the query that asks for it), or None after the last. A
    ``Link`` names the next page of the same list: its query is asked of the list's path."""
    if mode == "link":
        link = next_link(reply)
        if link is None:
            return None
        path, pairs = link
        return f"{path}?{pairs}", dict(pairs)
    page = body_of(reply)
    cursor = page.get(owner.p.next_cursor) if isinstance(page, dict) else None
    if not cursor:
        return None
    return str(cursor), {**query, owner.p.cursor_param: str(cursor)}
