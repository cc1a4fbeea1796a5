"""The dialect's spelling of the header fields HTTP lets it spell differently: a weak ETag, and a
Content-Type in mixed case with a quoted charset and whitespace before its ``;`` (its Retry-After
is an IMF-fixdate, ``dialect.throttle``). No profile key declares these: RFC 9110 makes them
equal to the reference server's spellings, so the kit must take them as they are."""

from __future__ import annotations

from faulty.asgi import Response

# RFC 9110 8.3.1: type and subtype are case-insensitive; 5.6.6: OWS around ";", a parameter
# value may be a quoted-string; RFC 8259: a charset parameter on application/json has no effect.
JSON_CONTENT_TYPE = 'application/JSON ; charset="UTF-8"'


def weak(etag: str) -> str:
    """The entity-tag as a weak validator (RFC 9110 8.8.1): the spec does not say strong."""
    return etag if etag.startswith("W/") else "W/" + etag


def spelled(response: Response) -> Response:
    """The dialect's answer with its own spelling of ETag and Content-Type."""
    etag = response.headers.get("etag")
    if etag is not None:
        response = response.with_header("etag", weak(etag))
    content_type = response.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() == "application/json":
        response = response.with_header("content-type", JSON_CONTENT_TYPE)
    return response
