"""The fuzz stage's test modules, collected by ``conformance run --stage fuzz``."""
