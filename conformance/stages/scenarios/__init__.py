"""The scenarios stage's tests: hand-written, one or more requirement ids each, against a server
(declared in ``conformance.registry.scenarios``)."""
