"""The fuzz stage's machinery: schemathesis over the OpenAPI contract against any target
(declared, with its tiers, in ``conformance.registry.fuzz``). Nothing here imports schemathesis:
that happens when pytest loads ``plugin`` and collects ``test_fuzz``."""
