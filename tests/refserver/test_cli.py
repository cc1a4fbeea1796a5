"""``refserver serve`` as a real process: port 0, profile, provisioning, graceful SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import yaml

from refserver.cli import parser
from refserver.http_stack import choose


def test_defaults() -> None:
    args = parser().parse_args(["serve"])
    assert (str(args.db), args.host, args.port) == ("refserver.db", "127.0.0.1", 8000)
    assert (args.rate_burst, args.rate_refill, args.shed_threshold) == (60, 30.0, 150)
    assert args.force_shedding is False and args.profile is None


def test_serve_help_shows_every_default() -> None:
    serve = parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    shown = " ".join(serve.format_help().split())
    for default in (
        "(default: refserver.db)",
        "(default: 127.0.0.1)",
        "(default: 8000)",
        "(default: <db>.profile.yaml)",
        "(default: 60)",
        "(default: 30)",
        "(default: 150)",
        "(default: info)",
    ):
        assert default in shown, shown


def test_serve_on_port_zero_then_sigterm(tmp_path: Path) -> None:
    command = [
        sys.executable, "-m", "refserver.cli", "serve", "--db", "cli.db", "--port", "0",
        "--force-shedding", "--rate-burst", "9", "--log-level", "warning",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline(), process.stdout.readline()]
        assert "profile written to" in lines[0]
        match = re.search(r"serving (http://127\.0\.0\.1:(\d+))", lines[1])
        assert match and match.group(2) != "0", lines
        assert f"; {choose()})" in lines[1], lines  # the HTTP stack it serves with
        profile = yaml.safe_load((tmp_path / "cli.db.profile.yaml").read_text())
        assert profile["rate_limit"]["burst"] == 9
        assert profile["load_shedding"]["provoke"] == "forced"
        key = profile["credentials"]["sdk_keys"][0]["key"]
        response = httpx.get(match.group(1) + "/sdk/v2/status", headers={"authorization": key})
        assert response.status_code == 200 and "polling" in response.json()
    finally:
        os.kill(process.pid, signal.SIGTERM)
        _out, err = process.communicate(timeout=15)
    assert process.returncode == 0, err
    assert key not in err
