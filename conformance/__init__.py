"""Conformance kit for the Remote Configuration and Experiments Service: the suite package."""

__version__ = "0.1.0"
