"""The kit checking itself: the one-defect catalogues (``conformance selftest``) and verdict
stability (``conformance flaky``).
"""
