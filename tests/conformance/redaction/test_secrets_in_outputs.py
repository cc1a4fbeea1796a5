"""No secret in any output of a run, even when the target breaks it (issue 13, item 6).

A real target on a loopback socket holds back its answers past the client's timeout inside a
fixture's setup, a test body and a fixture's teardown, through plain httpx and through the suite's
own ``Client``; tests print, log and record the credentials and fail with them in the assertion
message. The run writes everything it can (terminal with local variables, Allure results, JUnit XML,
a log file, the conformance reports), on one process and on xdist workers, and no spelling of any
secret from the table in ``conformance.redaction.placeholders`` may appear in any of it. The control
run, with output redaction switched off, shows the same run does leak, so the test can fail.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from conformance.redaction.placeholders import spelled
from conformance.run.launch import BASE_PLUGINS
from conformance.session.state import REDACTION_NAME
from tests.support.holding_server import holding_server, write_profile

pytest_plugins = ("pytester",)

# A realistic PAT (every escaper leaves it as it is) and an SDK key made of characters every
# escaper changes, so each spelling of the table is a different string.
PAT = f"svc_pat_{secrets.token_hex(12)}"
SDK_KEY = f"svc_pk_Zq8/+rT \"<&>'x9{secrets.token_hex(8)}"
# A truncating repr (pytest's saferepr of a long object, with -l) may cut a secret short: no run of
# this many characters of a secret's random part may show anywhere either.
FRAGMENT = 8

# As the fuzz stage does, a hook adds a record to the user properties after pytest built the report;
# a reporter (as third-party ones do) writes every report's user properties to a file.
LATE_RECORD = """
from pathlib import Path

import pytest

from conformance.profile import load


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        loaded = load(item.config.getoption("target_profile"))
        key = loaded.credentials.sdk_keys[0].key
        report.user_properties.append(("late-record", {"curl": f"curl -H 'authorization: {key}'"}))
    return report


def pytest_runtest_logreport(report):
    Path("reporter").mkdir(exist_ok=True)
    with open("reporter/user-properties.txt", "a", encoding="utf-8") as out:
        out.write(f"{report.nodeid} {report.when} {report.user_properties!r}\\n")
"""

# A module that cannot be collected: its import error names the credentials.
BROKEN_IMPORT = """
from conformance.profile import load

credentials = load("profile.yaml").credentials
raise ImportError(f"cannot import without {credentials.pat} and {credentials.sdk_keys[0].key}")
"""

HOSTILE = """
import logging
import warnings

import allure
import httpx
import pytest

from conformance.traffic.client import Client

TIMEOUT = httpx.Timeout(0.3)
log = logging.getLogger("hostile")


def credentials(profile):
    key = profile.credentials.sdk_keys[0].key
    return {"Authorization": f"Bearer {profile.credentials.pat}", "authorization-sdk": key}


@pytest.fixture
def setup_times_out_httpx(target, profile):
    headers = credentials(profile)
    httpx.get(target.base_url + "/slow/setup", headers=headers, timeout=TIMEOUT)
    yield


@pytest.fixture
def setup_times_out_client(target, profile):
    with Client(target.base_url, profile, timeout=TIMEOUT) as client:
        client.management("GET", "/slow/setup")
    yield


@pytest.fixture
def teardown_times_out_httpx(target, profile):
    yield
    headers = credentials(profile)
    httpx.get(target.base_url + "/slow/teardown", headers=headers, timeout=TIMEOUT)


@pytest.fixture
def teardown_times_out_client(target, profile):
    yield
    with Client(target.base_url, profile, timeout=TIMEOUT) as client:
        client.management("GET", "/slow/teardown")
        client.status(key=profile.credentials.sdk_keys[0].key, environment="development")


@pytest.mark.requirement("VER-PATH-V2")
def test_setup_httpx(setup_times_out_httpx):
    pass


@pytest.mark.requirement("VER-PATH-V2")
def test_setup_client(setup_times_out_client):
    pass


@pytest.mark.requirement("VER-PATH-V2")
def test_body_httpx(target, profile, record_property):
    headers = credentials(profile)
    print("sending", headers)
    log.warning("sending %s", headers)
    record_property("sent", headers)
    warnings.warn(f"sending {headers}")
    allure.attach(repr(headers), name="sent headers")  # written as it is: the last pass's work
    httpx.get(target.base_url + "/sdk/v2/status", params={"key": headers["authorization-sdk"]})
    httpx.get(target.base_url + "/slow/body", headers=headers, timeout=TIMEOUT)


@pytest.mark.requirement("VER-PATH-V2")
def test_body_client(target, profile):
    with Client(target.base_url, profile, timeout=TIMEOUT) as client:
        client.management("GET", "/slow/body")


@pytest.mark.requirement("VER-PATH-V2")
def test_body_refused(target, profile):
    headers = credentials(profile)
    answer = httpx.get(target.base_url + "/deny", headers=headers, timeout=TIMEOUT)
    assert answer.status_code == 200, f"refused {headers}"


@pytest.mark.requirement("VER-PATH-V2")
def test_teardown_httpx(teardown_times_out_httpx):
    pass


@pytest.mark.requirement("VER-PATH-V2")
def test_teardown_client(teardown_times_out_client):
    pass
"""


@pytest.fixture(scope="module")
def target_url() -> Iterator[str]:
    with holding_server(hold_s=3.0) as url:
        yield url


def hostile_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, target_url: str, *extra: str
) -> tuple[pytest.RunResult, dict[str, str]]:
    """Run the hostile module with every output on; the outputs' texts by name. Only the plugins
    ``conformance run`` loads (xdist workers then start in seconds)."""
    profile = write_profile(pytester.path / "profile.yaml", PAT, SDK_KEY)
    pytester.makepyfile(test_hostile=HOSTILE, test_broken_import=BROKEN_IMPORT)
    pytester.makeconftest(LATE_RECORD)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess(
        *(arg for name in BASE_PLUGINS for arg in ("-p", name)),
        "-p",
        "no:cacheprovider",
        "--base-url",
        target_url,
        "--target-profile",
        str(profile),
        "-l",  # local variables in every traceback: the headers dicts
        "--tb=long",
        "-rA",
        "--log-level=DEBUG",
        "--log-file=logs/run.log",
        "--log-file-level=DEBUG",
        "--junitxml=junit/junit.xml",
        "-o",
        "junit_family=xunit1",  # keeps recorded properties
        "--alluredir=allure-results",
        "--report-dir=reports",
        "--continue-on-collection-errors",
        *extra,
    )
    outputs = {"terminal stdout": result.stdout.str(), "terminal stderr": result.stderr.str()}
    for folder in ("logs", "junit", "allure-results", "reports", "reporter"):
        for path in sorted((pytester.path / folder).rglob("*")):
            if path.is_file():
                relative = path.relative_to(pytester.path).as_posix()
                outputs[relative] = path.read_bytes().decode("utf-8", "replace")
    return result, outputs


def leaks(outputs: dict[str, str]) -> list[str]:
    """(output, secret) for every spelling of the table, and every fragment of a secret's random
    part, found in an output."""
    forms = spelled([(PAT, "PAT"), (SDK_KEY, "SDK key")])
    for secret, name in ((PAT, "PAT"), (SDK_KEY, "SDK key")):
        random_part = secret[-16:]
        forms += [
            (random_part[i : i + FRAGMENT], f"{name} fragment")
            for i in range(len(random_part) - FRAGMENT + 1)
        ]
    return sorted(
        {
            f"{where}: {name} as {form!r}"
            for where, text in outputs.items()
            for form, name in forms
            if form in text
        }
    )


def assert_every_output_was_written(result: pytest.RunResult, outputs: dict[str, str]) -> None:
    names = set(outputs)
    assert "logs/run.log" in names and "junit/junit.xml" in names
    assert "reports/conformance.json" in names
    assert any(n.startswith("allure-results/") and n.endswith("-result.json") for n in names)
    assert any(n.endswith("-container.json") for n in names)
    assert any(n.endswith("-attachment.txt") for n in names)
    assert "late-record" in outputs["reporter/user-properties.txt"]  # added after makereport
    assert "UserWarning: sending {" in outputs["terminal stdout"]  # the warnings summary
    # collection: 1 error; setup: 2 errors; body: 3 failures; teardown: 2 passes with 2 errors
    result.assert_outcomes(passed=2, failed=3, errors=5)


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["one process", "xdist"])
def test_no_secret_in_any_output(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    target_url: str,
    workers: tuple[str, ...],
) -> None:
    result, outputs = hostile_run(pytester, monkeypatch, target_url, *workers)
    assert_every_output_was_written(result, outputs)
    assert leaks(outputs) == []
    terminal = outputs["terminal stdout"]
    # The tracebacks with their local variables were shown, secrets replaced by their names.
    assert "headers = {'Authorization': 'Bearer $RCES_PAT'" in terminal
    assert "ERROR at teardown of test_teardown_httpx" in terminal
    assert "ERROR at setup of test_setup_httpx" in terminal
    assert "cannot import without $RCES_PAT and $RCES_SDK_KEY_1" in terminal  # collection error
    allure = "".join(text for name, text in outputs.items() if name.endswith("-result.json"))
    assert "$RCES_PAT" in allure and "$RCES_SDK_KEY_1" in allure


def test_the_same_run_leaks_without_output_redaction(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, target_url: str
) -> None:
    """The control: with output redaction off, the secrets show where the issue saw them."""
    result, outputs = hostile_run(pytester, monkeypatch, target_url, "-p", f"no:{REDACTION_NAME}")
    assert_every_output_was_written(result, outputs)
    found = leaks(outputs)
    assert any(line.startswith("terminal stdout: PAT") for line in found)
    assert any(line.startswith("allure-results/") and "-result.json: PAT" in line for line in found)
    assert any(line.startswith("junit/junit.xml: SDK key") for line in found)
    assert any(line.startswith("logs/run.log: SDK key") for line in found)
    assert any(line.startswith("reporter/user-properties.txt: SDK key") for line in found)


BROKEN_HOOK = """
from conformance.profile import load


def pytest_collection_finish(session):
    loaded = load(session.config.getoption("target_profile"))
    headers = {"Authorization": f"Bearer {loaded.credentials.pat}"}
    raise RuntimeError(f"cannot send {headers}")
"""


def test_no_secret_in_an_internal_error(pytester: pytest.Pytester, target_url: str) -> None:
    """A hook that breaks the run itself: pytest prints INTERNALERROR lines, locals included."""
    profile = write_profile(pytester.path / "profile.yaml", PAT, SDK_KEY)
    pytester.makeconftest(BROKEN_HOOK)
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    arguments = ["--base-url", target_url, "--target-profile", str(profile), "-l", "--fulltrace"]
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *arguments)
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    outputs = {"terminal stdout": result.stdout.str(), "terminal stderr": result.stderr.str()}
    assert "INTERNALERROR" in outputs["terminal stdout"] + outputs["terminal stderr"]
    assert "cannot send {'Authorization': 'Bearer $RCES_PAT'}" in outputs["terminal stdout"]
    assert leaks(outputs) == []
