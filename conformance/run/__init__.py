"""One run's lifecycle under pytest: the plugin's hooks, fixtures, phases, deadline, stop signals,
and the controller's collector.
"""
