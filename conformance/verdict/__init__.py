"""The verdict: what a test found (``finding``), how a test's ending reads as per-requirement
outcomes (``classification``, into ``records``), and how a run's records fold into a ``Report``
(``folding``, ``run_report``). Plain functions, no pytest; no stage is imported here: what a run
answers for is passed in by its caller."""
