"""Unit tests of curl reproductions: quoting survives a real shell, placeholders expand."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from conformance.traffic.curl import curl_command, shell_word

TRICKY = [
    "plain",
    "with space",
    "it's",
    '{"a": "$HOME", "b": "`id`", "c": "\\\\n"}',
    "Bearer $RCES_PAT",
    "key $RCES_SDK_KEY and $HOME and 'quote' \"dq\" `tick` \\",
]


def shell_echo(word: str, env: dict[str, str]) -> str:
    """What a POSIX shell makes of ``word`` as one argument."""
    done = subprocess.run(
        ["sh", "-c", f"printf %s {word}"], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.mark.parametrize("text", TRICKY)
def test_a_shell_word_reads_back_verbatim_but_for_placeholders(text: str) -> None:
    env = {"RCES_PAT": "svc_pat_secret", "RCES_SDK_KEY": "k-1", "HOME": "/home/x", "PATH": "/bin"}
    expected = text.replace("$RCES_PAT", env["RCES_PAT"]).replace("$RCES_SDK_KEY", "k-1")
    assert shell_echo(shell_word(text), env) == expected


def test_curl_command_skips_transport_headers_and_keeps_the_rest() -> None:
    line = curl_command(
        "PATCH",
        "http://127.0.0.1:1/x?y=1&z=2",
        [("authorization", "Bearer $RCES_PAT"), ("content-length", "3"), ("Host", "h")],
        '{"a": 1}',
    )
    words = shlex.split(line)
    assert words[:5] == ["curl", "-i", "-X", "PATCH", "http://127.0.0.1:1/x?y=1&z=2"]
    assert words[5:] == ["-H", "authorization: Bearer $RCES_PAT", "--data-raw", '{"a": 1}']


def test_curl_command_without_a_body_sends_none() -> None:
    assert "--data-raw" not in curl_command("GET", "http://127.0.0.1:1/", [], None)
