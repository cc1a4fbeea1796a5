"""The verdict: the words every stage speaks and every report renders (``outcome``,
``run_verdict``, ``evidence``, ``difference``), what a test found (``finding``, ``conclusion``), how
a test's ending reads as per-requirement outcomes (``classification``, into ``records``, JSON
through ``record_json``), and the level each requirement is judged at (``levels``). Plain
functions, no pytest; no stage and no report is imported here: the reports render it, and the run
folds its records into a ``Report`` (``conformance.run.folding``, ``run_report``).
"""
