"""The experiment bodies a test sends: unit ids, weights and shares, group inputs, create bodies."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from conformance.oracles.experiment_changeset import as_json_patch
from conformance.oracles.json_equality import same_json
from conformance.profile.experiments import ExperimentPayload
from conformance.profile.model import Profile
from conformance.traffic.client import Client

WEIGHTED = "weightedHash"  # the one assignment mode whose groups carry weights


def default_unit_type(profile: Profile) -> str:
    """The unit type of an experiment (and a unit) a test does not choose: user when the
    profile declares it, else the first declared (``experiments.unit_types``)."""
    types = profile.experiments.unit_types
    return "user" if "user" in types else types[0]


class ExperimentBodies:
    """Names and bodies in the profile's terms: the part of ``Experiments`` that sends nothing."""

    client: Client
    profile: Profile
    gate: str  # the context property this test's experiments require
    p: ExperimentPayload
    # The content of each base configuration the driver made: a changeset declared as RFC 6902
    # is translated against it (``experiment_changeset.as_json_patch``).
    _base_content: dict[object, dict[str, object]]

    def unit(self, label: str = "unit") -> str:
        """A fresh unit id carrying the run prefix."""
        return f"{self.client.run_prefix}-{label}-{secrets.token_hex(6)}"

    def weights(self, shares: Sequence[int]) -> list[int]:
        """Integer weights in the profile's total, proportional to ``shares`` (summing exactly);
        with no fixed total (``experiments.weight_total: null``), the shares times 100."""
        total = self.profile.experiments.weight_total
        if total is None:
            return [share * 100 for share in shares]
        scale = sum(shares)
        weights = [total * share // scale for share in shares]
        weights[0] += total - sum(weights)
        return weights

    def shares(self, pairs: Sequence[tuple[object, object]]) -> list[tuple[object, object]]:
        """(label, weight) pairs as a check compares them: the weights themselves, or, with no
        fixed total (``experiments.weight_total: null``), each weight's share of their sum."""
        weights = [w for _, w in pairs]
        numeric = all(isinstance(w, int | float) and not isinstance(w, bool) for w in weights)
        if self.profile.experiments.weight_total is not None or not numeric:
            return list(pairs)
        total = sum(Fraction(str(w)) for w in weights)
        return [(label, Fraction(str(w)) / total if total else w) for label, w in pairs]

    def same_weights(self, seen: Mapping[Any, Any], wanted: Mapping[Any, Any]) -> bool:
        """Group id (or label) -> weight, as the profile judges them: the same weights, or with
        no fixed total (``experiments.weight_total: null``) the same shares of their sums."""
        if set(map(repr, seen)) != set(map(repr, wanted)):
            return False
        keys = sorted(wanted, key=repr)
        by = {repr(k): v for k, v in seen.items()}
        got = self.shares([(k, by[repr(k)]) for k in keys])
        want = self.shares([(k, wanted[k]) for k in keys])
        return all(
            (isinstance(a, Fraction) and a == b) or same_json(a, b)
            for (_, a), (_, b) in zip(got, want, strict=True)
        )

    def groups(
        self,
        changesets: Sequence[Sequence[Mapping[str, object]]],
        shares: Sequence[int] | None = None,
        mode: str = WEIGHTED,
    ) -> list[dict[str, object]]:
        """Group inputs labelled g0, g1, ...; weights only in the weighted mode (in every mode
        when the target declares ``experiment_payload.manual_weights``)."""
        shares = shares if shares is not None else [1] * len(changesets)
        weights = self.weights(shares)
        groups = []
        for index, changeset in enumerate(changesets):
            group: dict[str, object] = {"label": f"g{index}", self.p.changeset: list(changeset)}
            if mode == WEIGHTED or self.p.manual_weights:
                group["weight"] = weights[index]
            groups.append(group)
        return groups

    def body(
        self,
        label: str,
        base_configuration_id: object,
        groups: Sequence[Mapping[str, object]],
        *,
        unit_type: str | None = None,
        mode: str = WEIGHTED,
        required: Sequence[str] | None = None,
        **extra: object,
    ) -> dict[str, object]:
        """A create body in the summary's names (``create`` sends it in the target's,
        ``experiment_payload.create``); ``required`` defaults to this test's own gate property."""
        return {
            "name": self.client.name(label),
            "unitType": unit_type or default_unit_type(self.profile),
            "assignmentMode": mode,
            "baseConfigurationId": base_configuration_id,
            "requiredProperties": [self.gate] if required is None else list(required),
            "groups": [self._declared_group(g, base_configuration_id) for g in groups],
            **extra,
        }

    def _declared_group(self, group: Mapping[str, object], base_id: object) -> dict[str, object]:
        """The group with its changeset in the format the target declares."""
        declared = dict(group)
        changeset = declared.get(self.p.changeset)
        if self.p.changeset_format == "json-patch" and isinstance(changeset, list):
            base = self._base_content.get(base_id, {})
            # a malformed changeset a scenario sends on purpose goes as it is
            with contextlib.suppress(KeyError, TypeError, AttributeError):
                declared[self.p.changeset] = as_json_patch(base, changeset)
        return declared
