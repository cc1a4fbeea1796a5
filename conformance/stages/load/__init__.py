"""The load stage's machinery: a simulated fleet on Locust and its judges (declared in
``conformance.registry.load``). Nothing here imports Locust: the fleet runs in Locust's own
processes (``engine``), started by the stage's session fixture (``test_load``)."""
