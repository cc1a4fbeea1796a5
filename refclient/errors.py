"""The poller's errors: permanent (stop and tell the caller) and retryable protocol faults."""

from __future__ import annotations


class RefclientError(Exception):
    """Base of the errors ``refclient`` raises. Messages never contain the SDK key."""


class PermanentError(RefclientError):
    """The service refused the client for good (a 4xx other than 408 and 429): stop polling.

    ``status`` is the HTTP status, ``code`` the body's ``errorCode`` when it had one.
    """

    def __init__(self, message: str, status: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class ProtocolError(RefclientError):
    """A response the client cannot use (bad JSON, missing hash): retried with backoff."""
