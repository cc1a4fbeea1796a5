"""The trace of the specification: each statement, the requirements that judge it, the faults that
break it and the variants that keep it (``docs/trace.md``)."""
