"""The target profile loader: defaults, ${ENV_VAR}, and errors that name the key and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.errors import UsageError
from conformance.profile import load
from conformance.profile.limits import RateLimit, Responses, SdkRateLimit
from conformance.profile.loading import written_keys

VALID = """\
profile_version: 1
credentials:
  pat: ${RCES_TEST_PAT}
  sdk_keys:
    - {key: svc_pk_dev, environments: [development]}
    - {key: svc_pk_all, environments: [development, production]}
  legacy_sdk_key: {key: sdk_legacy, environments: [development]}
  foreign_sdk_key: svc_pk_foreign
project:
  application_id: ${RCES_TEST_APP}
  environments: {development: 1, production: 2}
rate_limit:
  burst: 10
"""


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RCES_TEST_PAT", "svc_pat_secret")
    monkeypatch.setenv("RCES_TEST_APP", "7")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "target.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_valid_profile_gets_defaults_and_env_values(tmp_path: Path, env: None) -> None:
    loaded = load(write(tmp_path, VALID))
    assert loaded.credentials.pat == "svc_pat_secret"
    assert loaded.project.application_id == 7  # a whole-value ${VAR} takes its YAML type
    assert loaded.rate_limit.burst == 10
    assert loaded.rate_limit.refill_per_second == 30  # default: the reference choice
    assert loaded.headers.instance_id == "server-id"
    assert loaded.errors.missing_credentials_status == (401,)
    assert loaded.capability("bootstrap") is True
    assert loaded.key_for("production") is not None
    assert loaded.key_for("development").key == "svc_pk_dev"  # type: ignore[union-attr]


def test_secrets_lists_every_credential(tmp_path: Path, env: None) -> None:
    loaded = load(write(tmp_path, VALID))
    assert set(loaded.secrets()) == {
        "svc_pat_secret",
        "svc_pk_dev",
        "svc_pk_all",
        "sdk_legacy",
        "svc_pk_foreign",
    }
    shown = str(loaded.redacted())
    assert not any(secret in shown for secret in loaded.secrets())
    assert "$RCES_PAT" in shown


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        load(tmp_path / "absent.yaml")
    assert "not found" in str(caught.value)
    assert "What to do" in str(caught.value)


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    text = "credentials:\n  pat: x\n  sdk_keys: [\nproject: {}\n"
    with pytest.raises(UsageError) as caught:
        load(write(tmp_path, text))
    message = str(caught.value)
    assert "not valid YAML" in message
    assert "line 3" in message  # where the unclosed list starts


def test_wrong_type_names_the_key_and_the_line(tmp_path: Path, env: None) -> None:
    text = VALID.replace("  burst: 10", "  burst: lots")
    with pytest.raises(UsageError) as caught:
        load(write(tmp_path, text))
    message = str(caught.value)
    assert "rate_limit.burst" in message
    assert "line 13" in message
    assert "'lots' is not of type 'integer'" in message


def test_unknown_key_is_reported_where_it_is(tmp_path: Path, env: None) -> None:
    text = VALID.replace("  burst: 10", "  burst: 10\n  bursts: 11")
    with pytest.raises(UsageError) as caught:
        load(write(tmp_path, text))
    assert "bursts" in str(caught.value)
    assert "line 14" in str(caught.value)


def test_an_unknown_key_gets_the_close_match_allowed_at_its_place(
    tmp_path: Path, env: None
) -> None:
    text = VALID.replace("rate_limit:", "rate_limt:").replace("  burst: 10", "  brust: 10")
    with pytest.raises(UsageError) as caught:
        load(write(tmp_path, text))
    assert "key rate_limt: " in caught.value.problem
    assert "did you mean rate_limit?" in caught.value.problem
    assert "did you mean burst?" not in caught.value.problem  # brust is not under rate_limit


def test_a_nested_unknown_key_gets_the_close_match_of_its_section(
    tmp_path: Path, env: None
) -> None:
    text = VALID.replace("  burst: 10", "  brust: 10\n  refill_per_secnd: 5")
    with pytest.raises(UsageError) as caught:
        load(write(tmp_path, text))
    assert "key rate_limit.brust: " in caught.value.problem
    assert caught.value.problem.count("did you mean") == 1
    assert "did you mean burst?" in caught.value.problem
    far = VALID.replace("  burst: 10", "  burst: 10\n  quantum: 1")
    with pytest.raises(UsageError) as caught:
        load(write(tmp_path, far))
    assert "did you mean" not in caught.value.problem  # nothing close: no guess


def test_unset_environment_variable_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RCES_TEST_PAT", raising=False)
    monkeypatch.setenv("RCES_TEST_APP", "1")
    with pytest.raises(UsageError) as caught:
        load(write(tmp_path, VALID))
    message = str(caught.value)
    assert "${RCES_TEST_PAT}" in message
    assert "credentials.pat" in message
    assert "line 3" in message
    assert "export RCES_TEST_PAT" in message


def test_missing_required_section_is_reported(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        load(write(tmp_path, "profile_version: 1\n"))
    assert "'credentials' is a required property" in str(caught.value)


def test_statuses_limits_and_bounds_have_defaults(tmp_path: Path, env: None) -> None:
    loaded = load(write(tmp_path, VALID))
    assert loaded.errors.validation_status == (400,)  # one status, read as a list of one
    assert loaded.errors.not_found_status == 404
    assert loaded.management_rate_limit is None  # none declared: management calls unpaced
    assert loaded.responses.max_bytes == 8 * 1024 * 1024
    assert loaded.responses.max_seconds == 30.0


def test_statuses_limits_and_bounds_are_read(tmp_path: Path, env: None) -> None:
    text = VALID + (
        "errors: {validation_status: 422, not_found_status: 410}\n"
        "management_rate_limit: {burst: 5, refill_per_second: 0.5}\n"
        "responses: {max_bytes: 100000, max_seconds: 4}\n"
    )
    loaded = load(write(tmp_path, text))
    assert (loaded.errors.validation_status, loaded.errors.not_found_status) == ((422,), 410)
    assert loaded.errors.forbidden_status == 403  # the rest of the section keeps its defaults
    assert loaded.management_rate_limit == RateLimit(burst=5, refill_per_second=0.5)
    assert loaded.responses == Responses(max_bytes=100000, max_seconds=4.0)


def test_invalid_input_statuses_may_be_a_list(tmp_path: Path, env: None) -> None:
    """400 for a body that is not JSON and 422 for a JSON body of the wrong shape, say."""
    text = VALID + "errors: {validation_status: [400, 422], malformed_body_status: [400, 415]}\n"
    loaded = load(write(tmp_path, text))
    assert loaded.errors.validation_status == (400, 422)
    assert loaded.errors.malformed_status == (400, 415)
    fallback = load(write(tmp_path, VALID + "errors: {validation_status: [400, 422]}\n"))
    assert fallback.errors.malformed_status == (400, 422)  # null: the validation statuses
    with pytest.raises(UsageError, match="validation_status"):
        load(write(tmp_path, VALID + "errors: {validation_status: []}\n"))


def test_a_management_limit_needs_both_figures(tmp_path: Path, env: None) -> None:
    with pytest.raises(UsageError) as caught:
        load(write(tmp_path, VALID + "management_rate_limit: {burst: 5}\n"))
    assert "management_rate_limit" in str(caught.value)
    assert "'refill_per_second' is a required property" in str(caught.value)
    assert "line 14" in str(caught.value)


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        ("key-and-instance", [("k1", "i"), ("k2", "i"), ("k1", None)]),
        ("instance", [("", "i"), ("", "i"), ("", None)]),
    ],
)
def test_the_rate_limit_scope_says_which_requests_share_a_bucket(
    scope: str, expected: list[tuple[str, str | None]]
) -> None:
    limit = SdkRateLimit(burst=60, refill_per_second=30, scope=scope)
    got = [limit.bucket("k1", "i"), limit.bucket("k2", "i"), limit.bucket("k1", None)]
    assert got == expected
    assert (got[0] == got[1]) == (scope == "instance")  # two keys, one instance id


def test_an_empty_section_declares_none_of_its_keys() -> None:
    """A file that leaves a section empty (``statuses: {}``, as a profile with its last key
    removed reads) declares none of the keys under it: they stay conventions. Before, the empty
    mapping counted as a written leaf and declared every default under it at the interface
    level (found by tests/variants: create-statuses-200)."""
    assert written_keys({"statuses": {}, "errors": {"code_field": "c"}}) == {"errors.code_field"}
    assert written_keys({"statuses": {"create_configuration": 200}}) == {
        "statuses.create_configuration"
    }
