"""The SDK header names a target reads, found by probing when its document named none: a value the
header's own rule refuses (spec 4.3), sent under each common spelling, is refused only under the
name the target reads. The spellings tried are the common ones and any a refusal's own message
names ("header 'x-game-env' ...").

Each probe is one status poll that the target refuses or serves; none writes anything:
- the instance id: 129 characters (its length is 1 to 128);
- the numeric parameter: 0 (it is greater than 0);
- the environment alias: a word that is neither production, development nor studio.
A name is written only when exactly one spelling was refused and the same poll without it was
served: a target that refuses every spelling (or none) shows nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from conformance.target.draft_probes import Findings
from conformance.traffic.transcript import Reply

SPELLINGS: dict[str, tuple[str, ...]] = {
    "environment": (
        "environment",
        "x-environment",
        "env",
        "x-env",
        "environment-alias",
        "x-environment-alias",
        "x-sdk-environment",
    ),
    "instance_id": (
        "server-id",
        "x-server-id",
        "instance-id",
        "x-instance-id",
        "server-instance-id",
        "x-server-instance-id",
        "x-instance",
    ),
    "numeric": (
        "project-id",
        "x-project-id",
        "application-id",
        "x-application-id",
        "app-id",
        "x-app-id",
        "x-project",
    ),
}
REFUSED_VALUE: dict[str, str] = {
    "environment": "no-such-environment-zz",
    "instance_id": "i" * 129,
    "numeric": "0",
}
RULE: dict[str, str] = {
    "environment": "an alias that is no environment word",
    "instance_id": "a 129-character instance id",
    "numeric": "a numeric parameter of 0",
}
NAMED = re.compile(r"""header[s]?\s*[:'"`]?\s*['"`]?([A-Za-z][A-Za-z0-9_-]{1,40})""", re.I)


def probe(poll: Callable[[dict[str, str]], Reply], found: Findings, known: set[str]) -> None:
    """Each role of ``SPELLINGS`` not already in ``found``: the one spelling a refusal shows.
    ``poll(headers)``: a status poll with a valid key and those extra headers."""
    baseline = poll({})
    if baseline.status != 200:
        return
    for role, spellings in SPELLINGS.items():
        key = f"headers.{role}"
        if (f := found.by_key.get(key)) is not None and f.observed:
            continue
        refused: list[str] = []
        named: list[str] = []
        for name in spellings:
            if name.lower() in known:
                continue
            reply = poll({name: REFUSED_VALUE[role]})
            if 400 <= reply.status < 500 and reply.status != 429:
                refused.append(name)
                named += [n for n in _names_in(reply) if n.lower() not in known]
        for name in dict.fromkeys(n for n in named if n not in spellings):
            reply = poll({name: REFUSED_VALUE[role]})
            if 400 <= reply.status < 500 and reply.status != 429:
                refused.append(name)
        if len(refused) == 1:
            known.add(refused[0].lower())
            found.saw(key, refused[0], f"{RULE[role]} was refused under this name only")
        else:
            found.missed(
                key,
                f"{RULE[role]} was refused under {len(refused)} of the spellings tried "
                f"({', '.join(refused[:3]) or 'none'})",
            )


def _names_in(reply: Reply) -> list[str]:
    """Header names a refusal's message names."""
    try:
        data = json.loads(reply.content)
    except ValueError:
        return []
    text = json.dumps(data)
    return [m.group(1) for m in NAMED.finditer(text)]
