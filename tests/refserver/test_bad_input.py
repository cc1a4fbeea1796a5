"""Bad input never yields a 500: every case below answers a 4xx JSON error over a real socket."""

from __future__ import annotations

import pytest

from tests.refserver.conftest import Api

CREATE = "/application/1/v2/configuration"

# description, raw body, content type, expected status
BODIES: list[tuple[str, bytes, str | None, int]] = [
    ("malformed JSON", b'{"name": ', "application/json", 400),
    ("empty body", b"", "application/json", 400),
    ("invalid UTF-8", b'{"name": "\xff\xfe"}', "application/json", 400),
    (
        "deep nesting",
        b'{"name":"x","configuration":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "application/json",
        400,
    ),
    ("huge integer", b'{"name":"x","configuration":' + b"9" * 5000 + b"}", "application/json", 400),
    ("overflowing float", b'{"name":"x","configuration":1e400}', "application/json", 400),
    ("NaN", b'{"name":"x","configuration":NaN}', "application/json", 400),
    ("lone surrogate", b'{"name":"x","configuration":"\\ud800"}', "application/json", 400),
    ("array body", b"[]", "application/json", 400),
    ("string body", b'"name"', "application/json", 400),
    ("null body", b"null", "application/json", 400),
    ("text/plain", b'{"name":"x"}', "text/plain", 415),
    ("form body", b"name=x", "application/x-www-form-urlencoded", 415),
    ("no content type", b'{"name":"x"}', None, 415),
    ("over 1 MiB", b'{"name":"' + b"x" * (1024 * 1024 + 10) + b'"}', "application/json", 413),
]


@pytest.mark.parametrize(
    ("description", "body", "content_type", "status"), BODIES, ids=[b[0] for b in BODIES]
)
@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_bad_bodies(
    api: Api, method: str, description: str, body: bytes, content_type: str | None, status: int
) -> None:
    target = api.created(configuration={"a": 1}) if method == "PATCH" else None
    url = f"{CREATE}/{target['id']}" if target else CREATE
    headers = api.pat_headers()
    if content_type is not None:
        headers["content-type"] = content_type
    response = api.client.request(method, url, content=body, headers=headers)
    assert response.status_code == status, description
    assert set(response.json()) == {"errorCode", "message"}


def test_deeply_nested_patch_value_is_4xx(api: Api) -> None:
    record = api.created(configuration={"a": 1})
    nested = "[" * 990 + "]" * 990
    body = '{"operations":[{"op":"add","path":"/b","value":' + nested + "}]}"
    response = api.client.patch(
        f"{CREATE}/{record['id']}",
        content=body.encode(),
        headers={**api.pat_headers(), "content-type": "application/json"},
    )
    assert 200 <= response.status_code < 500


@pytest.mark.parametrize(
    "path",
    [
        "/application/99999999999999999999999999/v2/configuration",
        "/application/-1/v2/configuration",
        "/application/%00/v2/configuration",
        "/application/1/v2/configuration/99999999999999999999999",
        "/application/1/v2/configuration/abc",
        "/application/1/v2/configuration/0",
    ],
)
def test_odd_path_ids_are_4xx(api: Api, path: str) -> None:
    method = "PATCH" if path.count("/") == 5 else "POST"
    response = api.client.request(method, path, json={"name": "x"}, headers=api.pat_headers())
    assert 400 <= response.status_code < 500
    assert "errorCode" in response.json()


@pytest.mark.parametrize(
    "headers",
    [
        {"authorization": b"Bearer svc_pat_\xff\xfe"},
        {"authorization": b"\xff"},
        {"environment_id": b"\xc3\xa9"},
        {"environment_id": "\uff11".encode()},
        {"server-id": b"\xff\xfe"},
        {"unit-id": b"\xff", "unit-context": b"\xff"},
        {"environment": "x" * 8000},
        {"if-none-match": '"' * 500},
        {"project-id": "٣".encode()},
    ],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", CREATE), ("GET", "/sdk/v2/status"), ("GET", "/sdk/v2/bootstrap")],
)
def test_odd_headers_are_never_500(
    api: Api, method: str, path: str, headers: dict[str, str | bytes]
) -> None:
    base: dict[str, str | bytes] = (
        dict(api.pat_headers()) if method == "POST" else {"authorization": api.keys["all"]}
    )
    response = api.client.request(method, path, json={"name": "x"}, headers={**base, **headers})
    assert response.status_code < 500


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/nowhere", 404, "NOT_FOUND"),
        ("DELETE", "/sdk/v2/status", 405, "METHOD_NOT_ALLOWED"),
        ("GET", CREATE, 405, "METHOD_NOT_ALLOWED"),
    ],
)
def test_routing_errors_are_json(api: Api, method: str, path: str, status: int, code: str) -> None:
    response = api.client.request(method, path)
    assert response.status_code == status
    assert response.json()["errorCode"] == code
