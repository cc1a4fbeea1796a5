"""Reference implementation of the Remote Configuration and Experiments Service."""

__version__ = "0.1.0"
