"""A correct server built differently: the reference server that holds configuration names
unique per project and environment, and experiment names unique per project, refusing a second
create of a name with 409 (the spec says only "name: string, required": nothing forbids it)."""

from __future__ import annotations

import json
import re

from faulty.asgi import Forward, Request, Response

CONFIGURATIONS = re.compile(r"^/application/([^/]+)/v2/configuration/?$")
EXPERIMENTS = re.compile(r"^/application/([^/]+)/v2/experiments/?$")


class UniqueNames:
    """The handler: ``await UniqueNames()(request, forward)``."""

    def __init__(self) -> None:
        self.taken: set[tuple[str, ...]] = set()

    async def __call__(self, request: Request, forward: Forward) -> Response:
        scope = self._scope(request)
        body = request.json()
        name = body.get("name") if isinstance(body, dict) else None
        if scope is None or not isinstance(name, str):
            return await forward(request)
        if (*scope, name) in self.taken:
            conflict = {"errorCode": "NAME_TAKEN", "message": f"the name {name!r} is taken"}
            return Response(
                409, {"content-type": "application/json"}, json.dumps(conflict).encode()
            )
        response = await forward(request)
        if 200 <= response.status < 300:
            self.taken.add((*scope, name))
        return response

    @staticmethod
    def _scope(request: Request) -> tuple[str, ...] | None:
        if request.method != "POST":
            return None
        if (found := CONFIGURATIONS.match(request.path)) is not None:
            return ("configuration", found[1], request.header("environment_id") or "")
        if (found := EXPERIMENTS.match(request.path)) is not None:
            return ("experiment", found[1])
        return None
