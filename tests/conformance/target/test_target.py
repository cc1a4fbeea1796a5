"""The target's fingerprint: stable for one target, different for another."""

from __future__ import annotations

from conformance.profile import parse
from conformance.target.resolution import Target

PROFILE = """\
profile_version: 1
credentials:
  pat: svc_pat_x
  sdk_keys:
    - {key: svc_pk_x, environments: [development]}
project:
  application_id: 1
  environments: {development: 1, production: 2}
"""


def _target(url: str, server: str) -> Target:
    return Target(url, parse(PROFILE), None, server_header=server)


def test_fingerprint_is_stable_and_names_the_server() -> None:
    first = _target("http://127.0.0.1:8000", "uvicorn").fingerprint
    assert first == _target("http://127.0.0.1:8000/", "uvicorn").fingerprint
    assert first.startswith("sha256:") and "uvicorn" in first


def test_fingerprint_changes_with_url_or_server() -> None:
    base = _target("http://127.0.0.1:8000", "uvicorn").fingerprint
    assert base != _target("http://127.0.0.1:8001", "uvicorn").fingerprint
    assert base != _target("http://127.0.0.1:8000", "nginx").fingerprint
