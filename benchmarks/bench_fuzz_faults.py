"""Benchmark: which one-defect servers the fuzz stage finds, next to the plain ``schemathesis run``.

Owns the "faults found" comparison (the fuzz-speed one is ``bench_fuzz.py``). The faults are the
server catalogue's (``tests/faulty``, ``faulty.catalogue.FAULTS``) whose ``breaks`` meet the fuzz
stage's scope (``conformance.stages.fuzz.plugin.stage_requirements()``), each served as
``faulty.harness.run_fault`` serves it (the reference server wrapped in the fault, the fault's
profile overrides merged into the profile) on 127.0.0.1, with a fresh database, once per tool;
plus one clean reference server the same way. With the same budget (examples per operation, seed):

- the stage, as a user runs it, in a child process: ``conformance run --stage fuzz --tier pr
  --seed S --base-url URL --profile P --report-dir D --workers 0 -- --fuzz-max-examples N``
  (one process, as the CLI runs with ``--workers 1``; the examples override is a pytest option
  of the stage, passed after ``--``), read from ``D/conformance.json``. A fault is caught when an
  id of its ``breaks`` is ``fail`` (column ``fail``) or else ``spec-doubt`` (``doubt``) and that
  id is neither on the clean server. ``--baseline DIR`` also runs the stage of another checkout
  (``PYTHONPATH=DIR``): "before" next to "after" (this checkout);
- ``schemathesis run`` on the contract the stage fuzzes (``specialise(load_contract(),
  profile)``, as JSON), same seed and ``--max-examples``, its default phases (examples,
  coverage, fuzzing, stateful), ``--workers 1``, ``--generation-database none``,
  ``--request-timeout 10``, the JSON report. Credentials come from a ``schemathesis.toml``
  (``[auth.openapi.<scheme>]`` for the contract's two security schemes: the PAT as bearer, the
  widest SDK key as the raw ``authorization`` value), the secrets passed as environment variables
  the file names, so no file or output holds them; the ``environment_id`` header is set to the
  profile's development environment (as ``bench_fuzz.py`` does). Each failure (type -> the
  first of its ``Failure.checks``, operation label -> operationId) is mapped to requirement ids
  with ``response_checks.requirements_for``; ``ignored_auth``, which that maps to a shape id, is
  mapped to the operation's AUTH-*-MISSING and -INVALID ids (``auth.AUTH_REQUIREMENTS``) instead.
  Caught: a (broken id, operation:check) pair failed on the fault and not on the clean server.

    python benchmarks/bench_fuzz_faults.py --list                  # the eligible faults, kinds
    python benchmarks/bench_fuzz_faults.py --quick --baseline /tmp/fuzz-before
    python benchmarks/bench_fuzz_faults.py --baseline DIR --skip after --json /tmp/faults.json
    python benchmarks/bench_fuzz_faults.py --faults a,b,c [--examples 10] [--seed 20261122]

Prints a Markdown table (fault | kind | in-scope breaks | each tool: fail / doubt / —), totals,
each run's seconds (wall, the whole child process) and cases, the faults nobody caught with
what they do, and the ids outside its breaks each tool newly failed on a fault (a find the
mapping credits elsewhere, or a false alarm); progress goes to stderr (about 10 to 30 s per
fault per tool). ``--json FILE`` dumps the raw results. No secret is printed: any output shown
is scrubbed of the profile's.
Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "tests"):  # faulty.* and tests.support.*, as the harness imports them
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from conformance.contract.document import load_contract  # noqa: E402
from conformance.contract.specialisation import specialise  # noqa: E402
from conformance.profile import Profile, load  # noqa: E402
from conformance.stages.fuzz.auth import AUTH_REQUIREMENTS, kind_of, widest_key  # noqa: E402
from conformance.stages.fuzz.plugin import stage_requirements  # noqa: E402
from conformance.stages.fuzz.response_checks import requirements_for  # noqa: E402
from refserver.runner import start_server  # noqa: E402
from tests.support.profiles import with_overrides  # noqa: E402

TOOLS = ("after", "before", "cli")
HEADERS = {"after": "stage (after)", "before": "stage (before)", "cli": "schemathesis run"}
RUN_TIMEOUT_SECONDS = 900
QUICK = (
    "long-numeric-500",  # 5xx
    "create-record-lacks-description",  # shape
    "record-timestamps-not-iso",  # shape (format)
    "experiment-create-lacks-groups",  # shape, experiments
    "management-not-json",  # content type
    "status-content-type-not-media-type",  # content type, the kit's media-type grammar
    "validation-422",  # status
    "environment-id-optional",  # status (missing required header)
    "status-etag-differs",  # ETag, the kit's own check
    "status-304-with-body",  # 304, the kit's own check
    "error-code-renamed",  # error body, the kit's own check
    "429-without-retry-after",  # 429, the kit's own check
    "sdk-open",  # credentials
)
# Why nobody catches a fault, where it is plain (docs: the fuzz-engine study, "Faults found").
REASONS = {
    "long-numeric-500": "needs a numeric header of 30+ digits, which no generator draws",
    "validation-422": "422 is in schemathesis's default negative_data_rejection statuses",
    "429-without-retry-after": "no 429 happens: the fuzzers never empty a bucket",
    "429-retry-after-not-a-delay": "no 429 happens: the fuzzers never empty a bucket",
    "429-retry-after-rfc850": "no 429 happens: the fuzzers never empty a bucket",
    "rollout-as-fraction": "semantics: a fraction is schema-valid",
    "status-304-without-etag": "both see the 304 lack its declared ETag header, but the built-in "
    "check's {shape} mapping credits SDK-STATUS-200-SNAPSHOT",
}


class Fault(Protocol):
    """What this benchmark reads of a ``faulty.recipes.Fault``."""

    name: str
    breaks: frozenset[str]
    doc: str
    make: Callable[[Any], Any]
    profile: dict[str, Any]


@dataclass
class ToolRun:
    """One tool against one server: the ids it failed, with their evidence (the stage: its
    outcome, ``fail`` or ``spec-doubt``; the CLI: ``operationId:check`` pairs)."""

    failed: dict[str, list[str]] = field(default_factory=dict)
    cases: int | None = None
    seconds: float = 0.0
    error: str = ""


@dataclass
class Row:
    fault: str
    kind: str
    breaks: list[str]  # the in-scope ones
    runs: dict[str, ToolRun]
    caught: dict[str, list[str]]  # tool -> what counts: "ID fail", "ID spec-doubt", "ID op:check"
    cells: dict[str, str]
    elsewhere: dict[str, list[str]]  # tool -> ids outside ``breaks`` it newly failed (not counted)


def catalogue() -> tuple[dict[str, str], tuple[Fault, ...]]:
    """Section of each fault, and the faults in the selftest's order."""
    module = importlib.import_module("faulty.catalogue")
    sections = {f.name: section for section, faults in module.SECTIONS.items() for f in faults}
    faults: tuple[Fault, ...] = module.FAULTS
    return sections, faults


def kind(fault: Fault, section: str, scope: frozenset[str]) -> str:
    """The kind of defect, from its section, name and the in-scope ids it breaks."""
    ids = fault.breaks & scope
    text = " ".join((fault.name, *ids))
    if section == "escapes":
        return "escape"
    rules = (
        ("credentials", any(i.startswith("AUTH-") for i in ids)),
        ("content type", "CONTENT-TYPE" in text.upper() or "not-json" in fault.name),
        ("5xx", "ERR-NO-SERVER-ERROR" in ids),
        ("429", "LIMIT-RATE" in text),
        ("ETag/304", "ETAG" in text or "304" in text),
        ("error body", "ERR-BODY-SHAPE" in ids),
        ("status", "ERR-VALIDATION-STATUS" in ids),
    )
    return next((name for name, applies in rules if applies), "shape")


@contextmanager
def served(fault: Fault | None, work: Path) -> Iterator[tuple[str, Path]]:
    """The reference server, wrapped in ``fault`` as ``harness.run_fault`` does: (URL, profile)."""
    work.mkdir(parents=True, exist_ok=True)
    db, profile = work / "refserver.db", work / "profile.yaml"
    wrap = None
    if fault is not None:
        faulty_app = importlib.import_module("faulty.asgi").FaultyApp
        context = importlib.import_module("faulty.context").Context

        def wrap(app: Any) -> Any:
            return faulty_app(app, fault.make(context.load(profile, db)))

    server = start_server(db, profile_path=profile, wrap=wrap, log_level="error")
    try:
        if fault is not None and fault.profile:
            with_overrides(profile, fault.profile)
        yield server.base_url, profile
    finally:
        server.stop()


def secrets_of(profile: Profile) -> list[str]:
    c = profile.credentials
    keys = [k.key for k in c.sdk_keys] + ([c.legacy_sdk_key.key] if c.legacy_sdk_key else [])
    return [c.pat, *keys, *([c.foreign_sdk_key] if c.foreign_sdk_key else [])]


def scrubbed(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


def execute(
    command: list[str], cwd: Path, env: dict[str, str], secrets: list[str]
) -> tuple[float, str]:
    """Run a child to its end: wall seconds, and the tail of its output (scrubbed) if it failed
    to run (a timeout, or a traceback: the caller decides from its report file)."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True,
            timeout=RUN_TIMEOUT_SECONDS, check=False,
        )  # fmt: skip
        output = done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        output = f"timed out after {RUN_TIMEOUT_SECONDS} s"
    return time.perf_counter() - started, scrubbed(output[-1500:], secrets)


def run_stage(
    url: str, profile_path: Path, work: Path, options: argparse.Namespace, source: Path
) -> ToolRun:
    """``conformance run --stage fuzz`` of the checkout ``source``, read from its JSON report."""
    report_dir = work / "report"
    command = [
        sys.executable, "-m", "conformance.cli", "run", "--stage", "fuzz", "--tier", "pr",
        "--seed", str(options.seed), "--base-url", url, "--profile", str(profile_path),
        "--report-dir", str(report_dir), "--workers", "0", "--quiet",
        "--", "--fuzz-max-examples", str(options.examples),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(source), "PYTHONDONTWRITEBYTECODE": "1"}
    seconds, output = execute(command, work, env, secrets_of(load(profile_path)))
    report = report_dir / "conformance.json"
    if not report.exists():
        return ToolRun(seconds=seconds, error=output or "no conformance.json")
    data = json.loads(report.read_text("utf-8"))
    kept = ("fail", "spec-doubt")
    failed = {r["id"]: [r["outcome"]] for r in data["requirements"] if r["outcome"] in kept}
    fuzz = [s["details"] for s in data.get("stages", []) if s.get("name", "fuzz") == "fuzz"]
    cases = fuzz[0].get("cases") if fuzz and isinstance(fuzz[0], dict) else None
    return ToolRun(failed, cases, seconds)


def cli_config(document: dict[str, Any], environment_id: int) -> str:
    """``schemathesis.toml``: the environment header, and each security scheme's credential as a
    variable the child's environment holds (never the secret itself)."""
    header = document["components"]["parameters"]["EnvironmentId"]["name"]
    lines = [f'headers = {{ "{header}" = "{environment_id}" }}']
    for name, scheme in document["components"]["securitySchemes"].items():
        if scheme.get("type") == "http" and scheme.get("scheme") == "bearer":
            lines += [f"[auth.openapi.{name}]", 'bearer = "${BENCH_FAULTS_PAT}"']
        elif scheme.get("type") == "apiKey":
            lines += [f"[auth.openapi.{name}]", 'api_key = "${BENCH_FAULTS_SDK_KEY}"']
    return "\n".join(lines) + "\n"


def failure_checks() -> dict[str, tuple[str, ...]]:
    """Failure class name (the JSON report's ``type``) -> the checks that raise it."""
    found: dict[str, tuple[str, ...]] = {}
    for module in ("schemathesis.core.failures", "schemathesis.openapi.checks"):
        classes = importlib.import_module(module)
        for name in dir(classes):
            checks = getattr(getattr(classes, name), "checks", None)
            if isinstance(checks, tuple) and checks:
                found[name] = checks
    return found


def auth_requirements(path: str) -> tuple[str, ...]:
    """What ``ignored_auth`` (no credential, or a wrong one, answered 2xx) speaks for: both
    (the JSON report does not say which of its scenarios failed)."""
    kind = kind_of(path)
    return tuple(rid for (k, _), ids in AUTH_REQUIREMENTS.items() if k == kind for rid in ids)


def cli_requirements(report: dict[str, Any], document: dict[str, Any]) -> dict[str, list[str]]:
    """Requirement id -> the ``operationId:check`` pairs the CLI failed for it."""
    by_label = {
        f"{method.upper()} {path}": (operation["operationId"], path)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "operationId" in operation
    }
    classes = failure_checks()
    failed: dict[str, set[str]] = {}
    for failure in report.get("failures", []):
        check = classes.get(failure["type"], (failure["type"],))[0]
        for label in failure.get("operations", []):
            if label not in by_label:  # not one operation: no requirement of its own
                failed.setdefault(f"?{label}", set()).add(check)
                continue
            operation_id, path = by_label[label]
            ids = (
                auth_requirements(path)
                if check == "ignored_auth"
                else requirements_for(check, operation_id)
            )
            for rid in ids:
                failed.setdefault(rid, set()).add(f"{operation_id}:{check}")
    return {rid: sorted(pairs) for rid, pairs in failed.items()}


def run_cli(url: str, profile_path: Path, work: Path, options: argparse.Namespace) -> ToolRun:
    profile = load(profile_path)
    document = specialise(load_contract(), profile)
    contract, config = work / "openapi.json", work / "schemathesis.toml"
    contract.write_text(json.dumps(document), "utf-8")
    development = profile.project.environments["development"]
    config.write_text(cli_config(document, development), "utf-8")
    report = work / "schemathesis.json"
    command = [
        str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(config),
        "run", str(contract), "--url", url,
        "--phases", "examples,coverage,fuzzing,stateful", "--workers", "1",
        "--max-examples", str(options.examples), "--seed", str(options.seed),
        "--generation-database", "none", "--request-timeout", "10",
        "--report", "json", "--report-json-path", str(report),
    ]  # fmt: skip
    credentials = {
        "BENCH_FAULTS_PAT": profile.credentials.pat,
        "BENCH_FAULTS_SDK_KEY": widest_key(profile).key,
    }
    seconds, output = execute(command, work, {**os.environ, **credentials}, secrets_of(profile))
    if not report.exists():
        return ToolRun(seconds=seconds, error=output or "no JSON report")
    data = json.loads(report.read_text("utf-8"))
    cases = (data.get("test_cases") or {}).get("generated")
    failed = cli_requirements(data, document)
    errors = [scrubbed(json.dumps(e)[:300], secrets_of(profile)) for e in data.get("errors", [])]
    if errors:  # network errors, timeouts: shown in the raw results, never counted as a catch
        failed["?errors"] = errors
    return ToolRun(failed, cases, seconds)


def run_tool(tool: str, fault: Fault | None, work: Path, options: argparse.Namespace) -> ToolRun:
    """One tool against a fresh server of its own (no tool sees another's data)."""
    with served(fault, work / tool) as (url, profile):
        if tool == "cli":
            return run_cli(url, profile, work / tool, options)
        source = ROOT if tool == "after" else options.baseline
        return run_stage(url, profile, work / tool, options, source)


def judged(
    fault: Fault,
    section: str,
    scope: frozenset[str],
    runs: dict[str, ToolRun],
    clean: dict[str, ToolRun],
) -> Row:
    """The row of one fault: what each tool caught, beyond what it fails on the clean server."""
    caught: dict[str, list[str]] = {}
    cells: dict[str, str] = {}
    elsewhere: dict[str, list[str]] = {}
    for tool, run in runs.items():
        base = clean[tool].failed
        if tool == "cli":  # pairs: a clean-run failure of the same id by another check masks none
            new = [
                (rid, e) for rid, es in run.failed.items() for e in es if e not in base.get(rid, [])
            ]
        else:
            new = [(rid, es[0]) for rid, es in run.failed.items() if rid not in base]
        hits = sorted(f"{rid} {e}" for rid, e in new if rid in fault.breaks)
        cell = "fail" if hits else "—"
        if tool != "cli" and hits and not any(h.endswith(" fail") for h in hits):
            cell = "doubt"
        caught[tool] = hits
        cells[tool] = "error" if run.error else cell
        others = {rid for rid, _ in new if rid not in fault.breaks and rid != "?errors"}
        if others:
            elsewhere[tool] = sorted(others)
    in_scope = sorted(fault.breaks & scope)
    return Row(fault.name, kind(fault, section, scope), in_scope, runs, caught, cells, elsewhere)


def brief(ids: list[str]) -> str:
    return ", ".join(ids) if len(ids) <= 2 else f"{ids[0]}, {ids[1]} +{len(ids) - 2}"


def report(
    rows: list[Row], tools: list[str], clean: dict[str, ToolRun], faults: dict[str, Fault]
) -> None:
    columns = [HEADERS[t] for t in tools]
    print("| fault | kind | breaks (in scope) | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(tools))
    for row in rows:
        cells = " | ".join(row.cells[t] for t in tools)
        print(f"| {row.fault} | {row.kind} | {brief(row.breaks)} | {cells} |")
    totals = []
    for tool in tools:
        fails = sum(row.cells[tool] == "fail" for row in rows)
        doubts = sum(row.cells[tool] == "doubt" for row in rows)
        errors = sum(row.cells[tool] == "error" for row in rows)
        extra = f", {errors} error" if errors else ""
        totals.append(f"{fails} fail + {doubts} doubt of {len(rows)}{extra}")
    print("| **caught** | | | " + " | ".join(totals) + " |")
    print()
    print("On the clean server (not counted against any fault):")
    for tool in tools:
        failed = clean[tool].failed
        shown = ", ".join(f"{rid} ({', '.join(v)})" for rid, v in sorted(failed.items()))
        print(f"- {HEADERS[tool]}: {shown or 'nothing'}{timing(clean[tool])}")
    print()
    print("| fault | " + " | ".join(f"{c}: s / cases" for c in columns) + " |")
    print("|---|" + "---|" * len(tools))
    for row in rows:
        cells = " | ".join(f"{r.seconds:.1f} / {r.cases}" for r in (row.runs[t] for t in tools))
        print(f"| {row.fault} | {cells} |")
    for tool in tools:
        seconds = [row.runs[tool].seconds for row in rows]
        if seconds:
            mean = sum(seconds) / len(seconds)
            print(f"{HEADERS[tool]}: {sum(seconds):.0f} s in all, {mean:.1f} s a fault")
    missed = [row for row in rows if all(row.cells[t] in ("—", "error") for t in tools)]
    print()
    print(f"Caught by no tool ({len(missed)}):")
    for row in missed:
        reason = REASONS.get(row.fault) or faults[row.fault].doc.split(". ")[0].rstrip(".")
        print(f"- {row.fault} ({row.kind}; {brief(row.breaks)}): {reason}")
    print("\nNew failures outside each fault's breaks (not counted: a find credited elsewhere):")
    for row in rows:
        found = "; ".join(f"{HEADERS[t]}: {brief(row.elsewhere[t])}" for t in row.elsewhere)
        if found:
            print(f"- {row.fault}: {found}")
    for row in rows:
        for tool in tools:
            if row.runs[tool].error:
                print(f"\n{row.fault}, {HEADERS[tool]} did not report:\n{row.runs[tool].error}")


def timing(run: ToolRun) -> str:
    return f" [{run.seconds:.1f} s, {run.cases} cases]" + (" ERROR" if run.error else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10, help="examples per operation")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--faults", help="comma-separated fault names (default: every eligible)")
    parser.add_argument("--quick", action="store_true", help=f"{len(QUICK)} representative faults")
    parser.add_argument("--list", action="store_true", help="list the eligible faults and stop")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="also the stage of DIR")
    parser.add_argument("--skip", default="", help="tools not run: after, before, cli")
    parser.add_argument("--json", type=Path, metavar="FILE", help="dump the raw results here")
    options = parser.parse_args()

    scope = stage_requirements()
    sections, every = catalogue()
    eligible = {f.name: f for f in every if f.breaks & scope}
    if options.list:
        for f in eligible.values():
            ids = brief(sorted(f.breaks & scope))
            print(f"{f.name:40} {kind(f, sections[f.name], scope):13} {ids}")
        print(f"{len(eligible)} of {len(every)} faults break an id of the fuzz stage's scope")
        return
    names = list(QUICK) if options.quick else list(eligible)
    if options.faults:
        names = options.faults.split(",")
    unknown = [n for n in names if n not in eligible]
    if unknown:
        parser.error(f"not eligible faults: {', '.join(unknown)} (see --list)")
    skipped = {s for s in options.skip.split(",") if s}
    if skipped - set(TOOLS):
        parser.error(f"--skip takes {', '.join(TOOLS)}")
    if options.baseline is None:
        skipped.add("before")
    tools = [t for t in TOOLS if t not in skipped]

    started = time.perf_counter()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-faults-") as tmp:
        work = Path(tmp)
        clean = {tool: run_tool(tool, None, work / "clean", options) for tool in tools}
        line = "; ".join(f"{t} fails {sorted(r.failed)}{timing(r)}" for t, r in clean.items())
        print(f"clean server: {line}", file=sys.stderr, flush=True)
        for number, name in enumerate(names, 1):
            fault = eligible[name]
            runs = {tool: run_tool(tool, fault, work / name, options) for tool in tools}
            row = judged(fault, sections[name], scope, runs, clean)
            rows.append(row)
            done = ", ".join(f"{t} {row.cells[t]}{timing(runs[t])}" for t in tools)
            print(f"[{number}/{len(names)}] {name}: {done}", file=sys.stderr, flush=True)
    minutes = (time.perf_counter() - started) / 60
    print(
        f"Faults found: {len(rows)} of {len(eligible)} eligible faults, {options.examples} "
        f"examples per operation, seed {options.seed}, {minutes:.1f} min; "
        f"load {os.getloadavg()[0]:.2f}\n"
    )
    report(rows, tools, clean, eligible)
    if options.json is not None:
        dump = {
            "settings": {"examples": options.examples, "seed": options.seed, "tools": tools,
                         "baseline": str(options.baseline) if options.baseline else None},
            "clean": {tool: asdict(run) for tool, run in clean.items()},
            "faults": [asdict(row) for row in rows],
        }  # fmt: skip
        options.json.write_text(json.dumps(dump, indent=1), "utf-8")
        print(f"\nraw results: {options.json}")


if __name__ == "__main__":
    main()
