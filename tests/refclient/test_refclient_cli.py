"""``python -m refclient`` as a real process against the reference server: the environment
contract, one log line per poll, a clean exit 0 on SIGTERM, exit 2 on missing variables."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
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


Start = Callable[[dict[str, str]], "subprocess.Popen[str]"]


@pytest.fixture
def start() -> Iterator[Start]:
    """Start ``python -m refclient`` with an environment; any still running at teardown is
    killed (a failed assertion must not leave a poller behind)."""
    started: list[subprocess.Popen[str]] = []

    def launch(env: dict[str, str]) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-m", "refclient"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        return process

    yield launch
    for process in started:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=10)


def read_until_polls(process: subprocess.Popen[str], polls: int, timeout: float = 30.0) -> str:
    """Stderr read line by line until ``polls`` poll lines came (or the deadline passed)."""
    assert process.stderr is not None
    lines: list[str] = []
    seen = threading.Event()

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if sum(" poll status=" in x for x in lines) >= polls:
                seen.set()
                return

    threading.Thread(target=pump, daemon=True).start()
    assert seen.wait(timeout), "".join(lines)
    return "".join(lines)


def test_polls_until_sigterm_and_exits_zero(served: Api, start: Start) -> None:
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
    head = read_until_polls(process, 4)  # cadence 0.3-0.36 s
    process.send_signal(signal.SIGTERM)
    stdout, tail = process.communicate(timeout=20)
    stderr = head + tail
    assert process.returncode == 0, stderr
    polls = [line for line in stderr.splitlines() if " poll status=" in line]
    assert len(polls) >= 3, stderr
    assert "status=200 result=changed" in polls[0] and "refetch=bootstrap:200" in polls[0]
    assert all("status=304 result=not-modified" in line for line in polls[1:]), stderr
    assert all("delay=0.3" in line for line in polls), stderr  # 0.3 s <= delay < 0.36 s
    assert "scenario=smoke" in stderr and "stopped cleanly" in stderr
    assert key not in stderr and key not in stdout


def test_sigint_stops_cleanly_too(served: Api, start: Start) -> None:
    process = start(
        environment(
            RCES_BASE_URL=served.server.base_url,
            RCES_SDK_KEY=served.keys["development"],
            RCES_INSTANCE_ID="cli-2",
            RCES_TIME_SCALE="0.01",
        )
    )
    head = read_until_polls(process, 1)
    assert " poll status=200" in head
    process.send_signal(signal.SIGINT)
    _, tail = process.communicate(timeout=20)
    assert process.returncode == 0, head + tail
    assert "stopped cleanly" in tail


def test_sigterm_while_still_starting_is_a_clean_stop(served: Api, start: Start) -> None:
    process = start(
        environment(
            RCES_BASE_URL=served.server.base_url,
            RCES_SDK_KEY=served.keys["development"],
            RCES_INSTANCE_ID="cli-early",
        )
    )
    assert process.stderr is not None
    first = process.stderr.readline()  # logged before the HTTP stack is imported
    assert "refclient start" in first
    process.send_signal(signal.SIGTERM)
    _, rest = process.communicate(timeout=20)
    assert process.returncode == 0, first + rest
    assert "stopped cleanly" in rest
    assert rest.count(" poll status=") <= 1  # at most the poll already under way


def test_missing_variables_exit_2_naming_them(start: Start) -> None:
    process = start(environment(RCES_SDK_KEY=KEY))
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 2
    assert "RCES_BASE_URL" in stderr and "RCES_INSTANCE_ID" in stderr
    assert KEY not in stderr


def test_refused_key_exits_1_without_the_key(served: Api, start: Start) -> None:
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
            "RCES_PROJECT_ID": "42",
        }
    )
    config = launch.config
    assert config.project_id == 42
    assert launch.scenario == "hint"
    assert (config.environment, config.instance_id, config.time_scale) == ("production", "i", 0.5)
    assert (config.hash_transport, config.jitter_reading) == ("query", "symmetric")
    defaults = launch_from(
        {"RCES_BASE_URL": "http://h", "RCES_SDK_KEY": KEY, "RCES_INSTANCE_ID": "i"}
    ).config
    assert (defaults.environment, defaults.time_scale) == ("development", 1.0)
    assert (defaults.hash_transport, defaults.jitter_reading) == ("if-none-match", "above")
    assert defaults.project_id is None


@pytest.mark.parametrize(
    ("extra", "complaint"),
    [
        ({"RCES_TIME_SCALE": "0"}, "RCES_TIME_SCALE"),
        ({"RCES_TIME_SCALE": "fast"}, "RCES_TIME_SCALE"),
        ({"RCES_TIME_SCALE": "nan"}, "RCES_TIME_SCALE"),
        ({"RCES_JITTER_READING": "below"}, "RCES_JITTER_READING"),
        ({"RCES_HASH_TRANSPORT": "cookie"}, "RCES_HASH_TRANSPORT"),
        ({"RCES_PROJECT_ID": "-1"}, "RCES_PROJECT_ID"),
        ({"RCES_PROJECT_ID": "0"}, "project_id must be in"),
        ({"RCES_PROJECT_ID": "9007199254740992"}, "project_id must be in"),
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
