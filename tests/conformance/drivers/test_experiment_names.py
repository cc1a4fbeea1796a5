"""The create body and record between the summary's names and a target's
(``conformance.drivers.experiment_names``)."""

from __future__ import annotations

from conformance.drivers.experiment_names import inbound, outbound, renamed_keys
from conformance.profile.experiments import ExperimentCreate

DEFAULT = ExperimentCreate(
    "name", "unitType", "assignmentMode", "baseConfigurationId", "requiredProperties",
    "groups", "label", "weight",
)  # fmt: skip
OWN = ExperimentCreate(
    "title", "kind", "strategy", "baseId", "requires", "variants", "tag", "share"
)

BODY = {
    "name": "n",
    "unitType": "user",
    "assignmentMode": "weightedHash",
    "baseConfigurationId": 7,
    "requiredProperties": ["p"],
    "groups": [{"label": "g0", "weight": 1, "changeset": []}],
    "startsAt": "2030-01-01T00:00:00Z",
}


def test_the_defaults_change_nothing() -> None:
    assert outbound(BODY, DEFAULT) == BODY
    assert inbound(BODY, DEFAULT) == BODY
    assert renamed_keys(DEFAULT) == []


def test_a_body_goes_out_in_the_targets_names_and_comes_back() -> None:
    sent = outbound(BODY, OWN)
    assert sent == {
        "title": "n",
        "kind": "user",
        "strategy": "weightedHash",
        "baseId": 7,
        "requires": ["p"],
        "variants": [{"tag": "g0", "share": 1, "changeset": []}],
        "startsAt": "2030-01-01T00:00:00Z",
    }
    assert inbound(sent, OWN) == BODY
    assert len(renamed_keys(OWN)) == 8


def test_a_summary_name_the_target_spells_otherwise_is_not_read_as_that_field() -> None:
    """A record with 'name' meaning something else (its title is 'title') gives no 'name'."""
    record = {"id": 1, "title": "mine", "name": "slug-of-mine", "variants": [{"label": "x"}]}
    back = inbound(record, OWN)
    assert back == {"id": 1, "name": "mine", "groups": [{}]}


def test_a_missing_field_stays_missing() -> None:
    back = inbound({"id": 1, "unitType": "user"}, OWN)
    assert isinstance(back, dict) and "unitType" not in back
    assert inbound(None, OWN) is None
