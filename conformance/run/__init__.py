"""One run's lifecycle under pytest: the plugin's hooks, fixtures, phases, deadline, stop signals,
the controller's collector, and the fold of the run's records into its ``Report`` (``folding``,
``run_report``).
"""
