"""The README's CI snippets work: the GitHub Actions workflow's ``run:`` steps and the GitLab job's
``script:``/``after_script:`` lines, run in a shell as each CI runs them (bash with ``-eo
pipefail``; the workflow's and job's variables in the environment), against the embedded
reference server with a one-requirement selection. The install line is left out: this test's
interpreter has the kit already (its ``bin`` first on PATH, as after the install). What the
snippets promise is read back: the reports, the job summary, the JUnit file, the badge."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.conformance_cli import child_env

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# The target the CI would certify, swapped for the embedded server and one quick requirement.
ARGS = "--requirements SDK-STATUS-ETAG-EQUALS-HASH"
INSTALL = re.compile(r"^python3? -m pip install ")
TIMEOUT_S = 300


def yaml_blocks() -> list[dict[str, Any]]:
    """The README's CI snippets: YAML blocks with a ``runs-on:`` or a ``script:`` (the other
    YAML blocks are profile excerpts, not always whole documents)."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    return [yaml.safe_load(b) for b in blocks if re.search(r"^\s*(runs-on|script):", b, re.M)]


def github_workflow() -> dict[str, Any]:
    found = [b for b in yaml_blocks() if isinstance(b, dict) and "jobs" in b]
    assert len(found) == 1, "one GitHub Actions workflow in the README"
    return found[0]


def gitlab_job() -> dict[str, Any]:
    found = [
        job
        for block in yaml_blocks()
        if isinstance(block, dict) and "jobs" not in block
        for job in block.values()
        if isinstance(job, dict) and "script" in job
    ]
    assert len(found) == 1, "one GitLab CI job in the README"
    return found[0]


def shell(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """One step, as the CI runs it: bash, exit on the first failing command and pipe."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def ci_env(variables: dict[str, Any], **extra: str) -> dict[str, str]:
    env = child_env(**{k: str(v) for k, v in variables.items()}, **extra)
    env["CONFORMANCE_ARGS"] = ARGS
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def without_install(lines: list[str]) -> list[str]:
    kept = [line for line in lines if not INSTALL.match(line.strip())]
    assert len(kept) == len(lines) - 1, "exactly one install line, left out"
    return kept


def test_the_github_actions_workflow_runs(tmp_path: Path) -> None:
    workflow = github_workflow()
    (job,) = workflow["jobs"].values()
    steps = [step["run"] for step in job["steps"] if "run" in step]
    summary = tmp_path / "step-summary.md"
    env = ci_env(
        {**workflow.get("env", {}), **job.get("env", {})}, GITHUB_STEP_SUMMARY=str(summary)
    )
    for script in without_install(steps):
        done = shell(script, env, tmp_path)
        assert done.returncode == 0, f"{script}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    uploaded = next(s for s in job["steps"] if "upload-artifact" in s.get("uses", ""))
    reports = tmp_path / uploaded["with"]["path"]
    assert (reports / "conformance.json").exists() and (reports / "badge.svg").exists()
    assert summary.read_text(encoding="utf-8").startswith("# ✅ RCES conformance: Conformant")


def test_the_gitlab_job_runs(tmp_path: Path) -> None:
    job = gitlab_job()
    env = ci_env(job.get("variables", {}))
    script = "\n".join(without_install(job["script"]))
    done = shell(script, env, tmp_path)
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    after = shell("\n".join(job.get("after_script", [])), env, tmp_path)
    assert after.returncode == 0, after.stderr[-3000:]
    junit = tmp_path / job["artifacts"]["reports"]["junit"]
    cases = [c.get("name") for c in ET.parse(junit).getroot().iter("testcase")]
    assert cases == ["SDK-STATUS-ETAG-EQUALS-HASH"]
    assert all((tmp_path / path).exists() for path in job["artifacts"]["paths"])


@pytest.mark.parametrize("snippet", ["github", "gitlab"])
def test_the_snippets_point_at_a_target_through_one_variable(snippet: str) -> None:
    if snippet == "github":
        workflow = github_workflow()
        (job,) = workflow["jobs"].values()
        variables = job["env"]
        lines = [step["run"] for step in job["steps"] if "run" in step]
    else:
        job = gitlab_job()
        variables, lines = job["variables"], job["script"]
    assert (
        "--base-url" in variables["CONFORMANCE_ARGS"]
        and "--profile" in variables["CONFORMANCE_ARGS"]
    )
    assert any("conformance run $CONFORMANCE_ARGS" in line for line in lines)
