"""The client stage's machinery: the kit plays a scripted server, runs the SDK client under test
and judges what it sent (declared in ``conformance.registry.client``). Nothing heavy is imported
here."""
