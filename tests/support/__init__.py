"""What several test directories share: the latency proxy, the hostile and holding servers, the
import-cycle finder, and the one way a test runs the ``conformance`` CLI in a child process.
Imported as ``tests.support.<module>`` (the checkout's root is on ``sys.path``)."""
