"""``python -m refclient`` as a real process against the reference server: the environment
contract, one log line per poll, a clean exit 0 on SIGTERM, exit 2 on missing variables."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from refclient.environment import UsageError, launch_from
from refserver.runner import start_server
from tests.refclient.bodies import KEY
from tests.refserver.conftest import Api, api_for


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Api]:
    server = start_server(tmp_path / "rces.db", rate_burst=10_000, rate_refill=10_000)
    api = api_for(server)
    yield api
    api.client.close()
    server.stop()


def environment(**variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCES_")}
    env.update(variables)
    return env


def start(env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "refclient"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_polls_until_sigterm_and_exits_zero(served: Api) -> None:
    served.created({"coins": 1}, name="economy")
    key = served.keys["development"]
    process = start(
        environment(
            RCES_BASE_URL=served.server.base_url,
            RCES_SDK_KEY=key,
            RCES_INSTANCE_ID="cli-1",
            RCES_SCENARIO="smoke",
            RCES_TIME_SCALE="0.01",
        )
    )
    time.sleep(2.0)  # cadence 0.3-0.36 s: several polls
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr
    polls = [line for line in stderr.splitlines() if " poll status=" in line]
    assert len(polls) >= 3, stderr
    assert "status=200 result=changed" in polls[0] and "refetch=bootstrap:200" in polls[0]
    assert all("status=304 result=not-modified" in line for line in polls[1:]), stderr
    assert all("delay=0.3" in line for line in polls), stderr  # 0.3 s <= delay < 0.36 s
    assert "scenario=smoke" in stderr and "stopped cleanly" in stderr
    assert key not in stderr and key not in stdout


def test_sigint_stops_cleanly_too(served: Api) -> None:
    process = start(
        environment(
            RCES_BASE_URL=served.server.base_url,
            RCES_SDK_KEY=served.keys["development"],
            RCES_INSTANCE_ID="cli-2",
            RCES_TIME_SCALE="0.01",
        )
    )
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr
    assert " poll status=200" in stderr


def test_missing_variables_exit_2_naming_them() -> None:
    process = start(environment(RCES_SDK_KEY=KEY))
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 2
    assert "RCES_BASE_URL" in stderr and "RCES_INSTANCE_ID" in stderr
    assert KEY not in stderr


def test_refused_key_exits_1_without_the_key(served: Api) -> None:
    bogus = "svc_pk_nosuchkey42"
    process = start(
        environment(
            RCES_BASE_URL=served.server.base_url, RCES_SDK_KEY=bogus, RCES_INSTANCE_ID="cli-3"
        )
    )
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 1
    assert "answered 401" in stderr and bogus not in stderr


def test_environment_contract_reads_every_variable() -> None:
    launch = launch_from(
        {
            "RCES_BASE_URL": "http://127.0.0.1:1",
            "RCES_SDK_KEY": KEY,
            "RCES_INSTANCE_ID": "i",
            "RCES_ENVIRONMENT": "production",
            "RCES_SCENARIO": "hint",
            "RCES_TIME_SCALE": "0.5",
            "RCES_HASH_TRANSPORT": "query",
            "RCES_JITTER_READING": "symmetric",
        }
    )
    config = launch.config
    assert launch.scenario == "hint"
    assert (config.environment, config.instance_id, config.time_scale) == ("production", "i", 0.5)
    assert (config.hash_transport, config.jitter_reading) == ("query", "symmetric")
    defaults = launch_from(
        {"RCES_BASE_URL": "http://h", "RCES_SDK_KEY": KEY, "RCES_INSTANCE_ID": "i"}
    ).config
    assert (defaults.environment, defaults.time_scale) == ("development", 1.0)
    assert (defaults.hash_transport, defaults.jitter_reading) == ("if-none-match", "above")


@pytest.mark.parametrize(
    ("extra", "complaint"),
    [
        ({"RCES_TIME_SCALE": "0"}, "RCES_TIME_SCALE"),
        ({"RCES_TIME_SCALE": "fast"}, "RCES_TIME_SCALE"),
        ({"RCES_TIME_SCALE": "nan"}, "RCES_TIME_SCALE"),
        ({"RCES_JITTER_READING": "below"}, "RCES_JITTER_READING"),
        ({"RCES_HASH_TRANSPORT": "cookie"}, "RCES_HASH_TRANSPORT"),
        ({"RCES_ENVIRONMENT": "staging"}, "environment must be one of"),
        ({"RCES_INSTANCE_ID": "x" * 129}, "instance_id must be 1 to 128"),
        ({"RCES_BASE_URL": "ftp://h"}, "base_url"),
    ],
)
def test_bad_variables_are_usage_errors_without_the_key(
    extra: dict[str, str], complaint: str
) -> None:
    env = {"RCES_BASE_URL": "http://h", "RCES_SDK_KEY": KEY, "RCES_INSTANCE_ID": "i", **extra}
    with pytest.raises(UsageError, match=complaint) as raised:
        launch_from(env)
    assert KEY not in str(raised.value)
