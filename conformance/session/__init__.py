"""A session's shared state, below the drivers and the stages: the stash keys, the target look-up,
stop signals, the run deadline, the serial phase, the clean-up, and the wire (what a worker sends
back to the controller). Stages and drivers import from here, never from ``conformance.run``."""
