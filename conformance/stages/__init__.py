"""The stages' machinery: one package per stage (tests, plugin, engine, judges, summary).

Which stages exist, and what each declares, is the registry's (``conformance.registry``); a
stage's subcommand is the CLI's (``conformance.cli``).
"""
